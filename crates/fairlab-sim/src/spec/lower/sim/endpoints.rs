//! The endpoints of a lowering: each workload kind lowers itself (its own
//! file here) to the flows its application opens and the application
//! given their endpoints; this file puts each flow on its workload's
//! transport and numbers the endpoints: the TCP connections in workload
//! order, then the UDP flows (the order packets, flow ids and the flow
//! naming's port draws follow), then those of any later transport.

use super::common::{tcp_config, Cx, Flow, Lowered, RNG_RADON, RNG_RADON_CLOCK, RNG_TCP, RNG_UDP};
use super::{bulk, incast, nfs_read, short, udp};
use crate::engine::Rng;
use crate::net::NodeId;
use crate::sim::Conn;
use crate::spec::radon::StampPoint;
use crate::spec::{ScenarioError, Transport, WorkloadSpec};
use crate::transport::radon_stamp::{CapturePoint, StampNoise};
use crate::transport::tcp::{TcpConfig, TcpSocket};
use crate::transport::{Arrivals, ConnApp, Endpoint, RadonFlow, UdpFlow};
use crate::units::{BitsPerSec, Bytes, Time};
use crate::workload::Workload;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// What a workload's flows run on, as the simulator builds it.
enum Carrier {
    /// Radon streams of `size` datagrams, their clocks at `stamp`; the
    /// algorithm is installed once paths are known (`radon.rs`).
    Radon {
        size: Bytes,
        stamp: CapturePoint,
        skew_ppm: f64,
        limit: Option<u64>,
        stop: Option<Time>,
    },
    /// TCP connections of these settings (shared by every socket that has
    /// them).
    Tcp(Arc<TcpConfig>),
    /// UDP datagrams of `size` at `rate`, drawing gaps from workload `wi`'s
    /// stream.
    Udp {
        rate: BitsPerSec,
        size: Bytes,
        arrivals: Arrivals,
        limit: Option<u64>,
        stop: Option<Time>,
        wi: u64,
    },
}

impl Carrier {
    /// Its place in the endpoint order.
    fn rank(&self) -> u8 {
        match self {
            Carrier::Tcp(_) => 0,
            Carrier::Udp { .. } => 1,
            Carrier::Radon { .. } => 2,
        }
    }
}

/// Every workload's endpoints and application, in endpoint and workload
/// order.
pub(super) fn lower<'a>(cx: &Cx<'a>) -> Result<(Vec<Endpoint>, Vec<Workload>), ScenarioError> {
    // Sockets share their settings: one copy per distinct configuration,
    // however many workloads override [tcp] the same way.
    let mut configs: HashMap<TcpConfig, Arc<TcpConfig>> = HashMap::new();
    let mut lowered = Vec::with_capacity(cx.sc.workloads.len());
    for (wi, w) in cx.sc.workloads.iter().enumerate() {
        let carrier = carrier(cx, wi, w, &mut configs)?;
        lowered.push((carrier, workload(cx, wi as u32, w)?));
    }
    // Endpoint ids: by transport, then workload and flow order.
    let mut ids: Vec<Vec<u32>> = vec![Vec::new(); lowered.len()];
    let mut next = 0u32;
    let ranks: BTreeSet<u8> = lowered.iter().map(|(c, _)| c.rank()).collect();
    for rank in ranks {
        for (wi, (c, l)) in lowered.iter().enumerate() {
            if c.rank() == rank {
                ids[wi] = (next..next + l.flows.len() as u32).collect();
                next += l.flows.len() as u32;
            }
        }
    }
    let mut endpoints: Vec<Option<Endpoint>> = (0..next).map(|_| None).collect();
    let mut workloads = Vec::with_capacity(lowered.len());
    for (wi, ((c, l), ids)) in lowered.into_iter().zip(ids).enumerate() {
        for (i, (f, &e)) in l.flows.iter().zip(&ids).enumerate() {
            let app = ConnApp {
                workload: wi as u32,
                index: i as u32,
            };
            endpoints[e as usize] = Some(endpoint(cx.seed, &c, f, app, e));
        }
        workloads.push((l.app)(ids));
    }
    let mut endpoints: Vec<Endpoint> = endpoints.into_iter().flatten().collect();
    trace(cx, &mut endpoints);
    Ok((endpoints, workloads))
}

/// Workload `wi`'s own lowering, by kind.
fn workload<'a>(cx: &Cx<'a>, wi: u32, w: &'a WorkloadSpec) -> Result<Lowered<'a>, ScenarioError> {
    match w {
        WorkloadSpec::Incast(w) => incast::lower(cx, wi, w),
        WorkloadSpec::Bulk(w) => bulk::lower(cx, wi, w),
        WorkloadSpec::Short(w) => short::lower(cx, wi, w),
        WorkloadSpec::NfsRead(w) => nfs_read::lower(cx, wi, w),
        WorkloadSpec::Udp(w) => udp::lower(cx, wi, w),
    }
}

/// The transport workload `wi`'s flows run on, with its settings.
fn carrier(
    cx: &Cx,
    wi: usize,
    w: &WorkloadSpec,
    configs: &mut HashMap<TcpConfig, Arc<TcpConfig>>,
) -> Result<Carrier, ScenarioError> {
    match (w.transport(), w) {
        (Transport::Tcp, _) => {
            let cfg = tcp_config(cx.resolved.workload_tcp(wi).unwrap_or(&cx.resolved.tcp));
            let shared = configs.entry(cfg).or_insert_with(|| Arc::new(cfg));
            Ok(Carrier::Tcp(Arc::clone(shared)))
        }
        (Transport::Udp, WorkloadSpec::Udp(u)) => Ok(Carrier::Udp {
            // Validation asks a plain UDP flow for its rate.
            rate: u.rate.unwrap_or(BitsPerSec(0)),
            size: u.size(),
            arrivals: u.arrivals.unwrap_or(Arrivals::Poisson),
            limit: u.packets,
            stop: u.stop,
            wi: wi as u64,
        }),
        (Transport::Radon, WorkloadSpec::Udp(u)) => {
            let r = cx.sc.radon.overridden_by(u.radon.as_ref()).settings();
            Ok(Carrier::Radon {
                size: u.size(),
                stamp: match r.stamp {
                    StampPoint::Nic => CapturePoint::Nic,
                    StampPoint::Socket => CapturePoint::Socket,
                    StampPoint::Application => CapturePoint::Application,
                },
                skew_ppm: r.skew_ppm,
                limit: u.packets,
                stop: u.stop,
            })
        }
        // Validation refuses these first (WorkloadSpec::transports).
        (t, w) => {
            let allowed: Vec<String> = w
                .transports()
                .iter()
                .map(|a| format!("{:?}", a.name()))
                .collect();
            Err(ScenarioError::new(
                format!("workload[{wi}].transport"),
                format!(
                    "{:?} cannot carry a {} workload in the simulator; expected {}",
                    t.name(),
                    w.kind(),
                    allowed.join(" or ")
                ),
            ))
        }
    }
}

/// Endpoint `e`: flow `f` on carrier `c`.
fn endpoint(seed: u64, c: &Carrier, f: &Flow, app: ConnApp, e: u32) -> Endpoint {
    match c {
        Carrier::Tcp(cfg) => {
            let socket = |local, remote, passive: bool| {
                let mut s = TcpSocket::new(Arc::clone(cfg), e, local, remote, passive);
                if cfg.uses_rng() {
                    s.set_rng(Rng::stream(seed, &[RNG_TCP, e as u64, passive as u64]));
                }
                s
            };
            Endpoint::Tcp(Conn::new(
                socket(f.opener, f.listener, false),
                socket(f.listener, f.opener, true),
                app,
                f.data_side,
            ))
        }
        &Carrier::Udp {
            rate,
            size,
            arrivals,
            limit,
            stop,
            wi,
        } => {
            let mut u = UdpFlow::new(
                app,
                e,
                f.opener,
                f.listener,
                rate,
                size,
                arrivals,
                Rng::stream(seed, &[RNG_UDP, wi]),
            );
            u.set_end(limit, stop);
            Endpoint::Udp(u)
        }
        &Carrier::Radon {
            size,
            stamp,
            skew_ppm,
            limit,
            stop,
        } => {
            // One clock per host and capture point: its noise from the
            // host's and the stream's stream, its rate error the host's.
            let clock = |host: NodeId, side: u64| {
                let skew =
                    (2.0 * Rng::stream(seed, &[RNG_RADON_CLOCK, u64::from(host)]).next_f64() - 1.0)
                        * skew_ppm;
                let rng = Rng::stream(
                    seed,
                    &[RNG_RADON_CLOCK, u64::from(host), u64::from(e), side],
                );
                StampNoise::new(stamp, rng).with_skew_ppm(skew)
            };
            Endpoint::Radon(RadonFlow::new(
                app,
                e,
                (f.opener, f.listener),
                size,
                (clock(f.opener, 0), clock(f.listener, 1)),
                Rng::stream(seed, &[RNG_RADON, u64::from(e)]),
                (limit, stop),
            ))
        }
    }
}

/// `[metrics] trace`: the congestion-state trace of the TCP data senders
/// asked for (every one, or those of `trace_flows`).
fn trace(cx: &Cx, endpoints: &mut [Endpoint]) {
    let m = &cx.sc.metrics;
    if !m.trace {
        return;
    }
    // A set: the list may be as long as the connections.
    let only: Option<BTreeSet<u32>> = m.trace_flows.as_ref().map(|f| f.iter().copied().collect());
    for (i, e) in endpoints.iter_mut().enumerate() {
        let Some(c) = e.as_tcp_mut() else { continue };
        if only.as_ref().is_none_or(|f| f.contains(&(i as u32))) {
            let side = c.data_side();
            c.sock[side].enable_trace();
        }
    }
}
