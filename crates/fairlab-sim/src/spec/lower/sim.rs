//! The simulator's lowering: a validated spec turned into a ready-to-run
//! [`Simulation`]. The only place that knows the simulator's types (queues,
//! TCP configuration, network, workloads); it maps the spec's plain data
//! onto them and refuses, by field path, what the simulator cannot honour.

mod bulk;
mod common;
mod endpoints;
mod incast;
mod network;
mod nfs_read;
mod pcap;
mod ports;
mod queues;
mod radon;
mod short;
mod udp;

pub use common::tcp_config;

use crate::net::NodeId;
use crate::sim::{Series, Simulation};
use crate::spec::{Scenario, ScenarioError, TCP_IP_HEADER};
use crate::units::{Bytes, Time};
use common::{Cx, RNG_HOST, RNG_SWITCH, RNG_TXHASH};
use queues::Queues;

/// Refuses what a valid spec may say but the simulator cannot do.
fn check_supported(sc: &Scenario) -> Result<(), ScenarioError> {
    for (i, w) in sc.workloads.iter().enumerate() {
        if w.tcp().is_some_and(|t| t.handshake.is_some()) {
            // One switch for the whole run (Simulation::handshake).
            return Err(ScenarioError::new(
                format!("workload[{i}].tcp.handshake"),
                "not supported per workload by the simulator; expected handshake in [tcp], for every connection",
            ));
        }
    }
    Ok(())
}

/// Builds the simulation of `sc` with `seed` (the scenario's own seed when `None`).
pub fn build(sc: &Scenario, seed: Option<u64>) -> Result<Simulation, ScenarioError> {
    let resolved = sc.resolve()?;
    check_supported(sc)?;
    let seed = seed.unwrap_or(sc.seed);
    let packet = Bytes((resolved.tcp.mss + TCP_IP_HEADER) as u64);
    let stack = sc.host.stack();
    // TCP Small Queues needs every transmission's completion reported.
    let tsq = resolved.tcp.small_queues.is_some()
        || (0..sc.workloads.len()).any(|i| {
            resolved
                .workload_tcp(i)
                .is_some_and(|t| t.small_queues.is_some())
        });
    let with_stack = !stack.is_plain() || tsq;
    let queues = Queues::new(sc, seed, packet, stack, with_stack);
    let mut net = network::build(sc, &queues)?;
    let ids = (0..net.nodes.len())
        .map(|i| (net.nodes[i].name.clone(), i as NodeId))
        .collect();
    let cx = Cx {
        sc,
        resolved: &resolved,
        seed,
        ids,
    };
    network::addresses(sc, &mut net, &cx)?;
    network::routing(sc, &mut net, seed);
    ports::apply(sc, &mut net, &queues, &cx)?;
    let (endpoints, workloads) = endpoints::lower(&cx)?;
    let series = Series {
        throughput_bin: sc.metrics.throughput_bin,
        queue_sample: sc.metrics.queue_sample,
        ..Series::default()
    };
    let profile = sc.tcp_profile().name();
    let mut sim = Simulation::new(
        net,
        endpoints,
        workloads,
        sc.duration,
        seed,
        profile,
        series,
    );
    if sc.link.framing() > Bytes(0) {
        sim.set_framing(sc.link.framing());
    }
    if sc.host.send_jitter > Time::ZERO {
        sim.set_host_jitter(sc.host.send_jitter, seed, RNG_HOST);
    }
    if sc.switch.forwarding_jitter > Time::ZERO {
        sim.set_forwarding_jitter(sc.switch.forwarding_jitter, seed, RNG_SWITCH);
    }
    drop_trace(sc, &mut sim)?;
    sim.index_flows();
    pcap::install(sc, &mut sim)?;
    // Radon streams need their named paths (capacity, admission).
    radon::install(sc, &mut sim)?;
    if with_stack {
        let stack = &queues.stack;
        sim.set_host_stack(stack.txq_select, stack.rebalance, tsq, seed, RNG_TXHASH);
    }
    sim.handshake = resolved.tcp.handshake;
    Ok(sim)
}

/// `[metrics] drop_trace = "node:peer"`: the port whose drops are traced.
fn drop_trace(sc: &Scenario, sim: &mut Simulation) -> Result<(), ScenarioError> {
    let m = &sc.metrics;
    let Some(text) = m.drop_trace.as_deref() else {
        return Ok(());
    };
    let Some((a, b)) = text.split_once(':') else {
        return Ok(());
    };
    let net = &sim.net;
    let named = |n: u32, s: &str| net.nodes[n as usize].name == s;
    let port = net
        .ports
        .iter()
        .position(|p| named(p.node, a) && named(p.peer, b))
        .ok_or_else(|| {
            ScenarioError::new(
                "metrics.drop_trace",
                format!("{text:?} names no port; expected \"node:peer\" of linked nodes"),
            )
        })?;
    let max = m
        .drop_trace_max_rows
        .unwrap_or(crate::spec::metrics::DEFAULT_DROP_TRACE_MAX_ROWS);
    sim.drops
        .trace_port(port as u32, usize::try_from(max).unwrap_or(usize::MAX));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Shaper;

    #[test]
    fn the_specs_header_size_is_the_simulators() {
        assert_eq!(TCP_IP_HEADER, crate::packet::TCP_IP_HEADER);
    }

    /// Bulk from a to b and UDP from b to a (listed first) on a star;
    /// `extra` goes into both workloads.
    fn two_transports(bulk_extra: &str, udp_extra: &str) -> String {
        format!(
            r#"
seed = 5
duration = "20ms"
[topology]
kind = "star"
hosts = ["a", "b"]
rate = "1Gbps"
delay = "10us"
[[workload]]
kind = "udp"
src = "b"
dst = "a"
rate = "100Mbps"
{udp_extra}
[[workload]]
kind = "bulk"
src = "a"
dst = "b"
{bulk_extra}
"#
        )
    }

    #[test]
    fn a_transport_a_workload_cannot_run_on_is_refused_by_field_path() {
        let text = two_transports("transport = \"udp\"", "");
        let e = Scenario::from_toml_str(&text)
            .and_then(|sc| build(&sc, None).map(|_| ()))
            .expect_err("bulk over udp is refused");
        assert_eq!(e.path, "workload[1].transport");
        assert!(e.message.contains("\"udp\"") && e.message.contains("expected \"tcp\""));
        let text = two_transports("", "transport = \"tcp\"");
        let e = Scenario::from_toml_str(&text).expect_err("udp over tcp is refused");
        assert_eq!(e.path, "workload[0].transport");
        assert!(e.message.contains("expected \"udp\""), "{e}");
        let text = two_transports("transport = \"quic\"", "");
        let e = Scenario::from_toml_str(&text).expect_err("an unknown transport is refused");
        assert!(e.to_string().contains("transport"), "{e}");
    }

    #[test]
    fn each_kinds_own_transport_named_runs_as_its_default() {
        let run = |text: &str| {
            let sc = Scenario::from_toml_str(text).unwrap();
            let r = crate::run(&sc, None).unwrap();
            (r.digest(), r.int("udp_delivered"), r.table("flows").rows())
        };
        let plain = run(&two_transports("", ""));
        let named = run(&two_transports(
            "transport = \"tcp\"",
            "transport = \"udp\"",
        ));
        assert_eq!(plain, named);
        assert!(plain.1 > 0 && plain.2 == 1, "{plain:?}");
    }

    #[test]
    fn connections_come_first_among_the_endpoints_whatever_the_workload_order() {
        let sc = Scenario::from_toml_str(&two_transports("", "")).unwrap();
        let sim = build(&sc, None).unwrap();
        assert_eq!(sim.endpoints.len(), 2);
        let c = sim.endpoints[0]
            .as_tcp()
            .expect("the bulk flow's connection");
        assert_eq!(c.app.workload, 1);
        let u = sim.endpoints[1].as_udp().expect("the udp flow");
        assert_eq!((u.id, u.app.workload), (1, 0));
    }

    #[test]
    fn a_connection_fits_the_memory_the_limits_count_for_it() {
        // As the simulation holds it: an endpoint.
        let conn = std::mem::size_of::<crate::transport::Endpoint>() as u64;
        assert!(conn <= crate::spec::limits::CONN_BYTES / 2, "{conn} bytes");
    }

    #[test]
    fn a_shaper_fits_the_memory_the_limits_count_for_it() {
        // Boxed, with room for the allocator's own bookkeeping.
        let shaper = std::mem::size_of::<Shaper>() as u64;
        assert!(
            shaper + 16 <= crate::spec::limits::SHAPER_BYTES,
            "{shaper} bytes"
        );
        // A port without one pays a pointer (once any port has one).
        assert_eq!(std::mem::size_of::<Option<Box<Shaper>>>(), 8);
    }
}
