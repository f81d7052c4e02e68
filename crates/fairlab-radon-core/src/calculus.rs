//! Network-calculus closed forms (Le Boudec and Thiran) for the buffer bound
//! the seed's chapter 6 asks to prove: token-bucket arrival curves
//! α(t) = b + r·t, ports as rate-latency servers β(t) = R·(t − T)⁺, and for a
//! FIFO port crossed by several streams the backlog bound Σb + (Σr)·T and the
//! delay bound T + Σb/R, valid when Σr ≤ R. Downstream, a stream that may be
//! delayed by up to D leaves with the arrival curve b + r·D + r·t.
//!
//! Units: bursts and backlogs in bytes, rates in bits per second, times in
//! picoseconds. Delay bounds are rounded up to the next picosecond so that
//! they stay bounds.
//!
//! Readings taken:
//! - Σr = R is stable (the bounds are finite); only Σr > R is
//!   [`PortBound::Unstable`], with a relative tolerance of [`RATE_EPSILON`]
//!   (1e-9) for rounding, the tolerance admission uses.
//! - A port with no service (R ≤ 0) has no bound.
//! - [`port_bounds`] analyses ports in a topological order of the graph the
//!   streams' paths draw (Kahn's algorithm, ready ports taken in index
//!   order, so the result never depends on hashing). Ports on or downstream
//!   of a cycle are [`PortBound::Cyclic`]: feed-forward analysis does not
//!   apply to them. A port whose own Σr is fine but that some stream reaches
//!   through an unstable port is [`PortBound::UpstreamUnstable`] (a variant
//!   added to the shared design's four: the burst it receives is unbounded).

use std::collections::VecDeque;

const PS_PER_S: f64 = 1e12;
const BITS_PER_BYTE: f64 = 8.0;

/// Token-bucket arrival curve α(t) = b + r·t.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TokenBucket {
    /// b.
    pub burst_bytes: f64,
    /// r.
    pub rate_bps: f64,
}

/// Rate-latency service curve β(t) = R·(t − T)⁺.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLatency {
    /// R.
    pub rate_bps: f64,
    /// T.
    pub latency_ps: i64,
}

impl TokenBucket {
    /// A stream paced one packet per wait: b = one packet, r = its rate.
    pub fn paced(packet_bytes: f64, rate_bps: f64) -> Self {
        TokenBucket {
            burst_bytes: packet_bytes,
            rate_bps,
        }
    }

    /// A stream free to place its budget e anywhere in each period: the end
    /// of one period and the start of the next can meet, so b = 2e·C; r = u·C.
    pub fn budgeted(budget_ps: i64, utilization: f64, capacity_bps: f64) -> Self {
        TokenBucket {
            burst_bytes: 2.0 * bytes_in_ps(capacity_bps, budget_ps),
            rate_bps: utilization * capacity_bps,
        }
    }
}

impl RateLatency {
    /// A port of `capacity_bps` whose latency covers one packet of
    /// `max_packet_bytes` already in transmission (non-preemptive).
    pub fn for_port(capacity_bps: f64, max_packet_bytes: f64) -> Self {
        RateLatency {
            rate_bps: capacity_bps,
            latency_ps: bytes_time_ps(max_packet_bytes, capacity_bps),
        }
    }
}

/// Time to send `bytes` at `rate_bps`, rounded up.
fn bytes_time_ps(bytes: f64, rate_bps: f64) -> i64 {
    // Multiply before dividing: integral byte counts then give exact times.
    (bytes * BITS_PER_BYTE * PS_PER_S / rate_bps).ceil() as i64
}

/// Bytes sent at `rate_bps` in `time_ps`.
fn bytes_in_ps(rate_bps: f64, time_ps: i64) -> f64 {
    rate_bps * time_ps as f64 / (BITS_PER_BYTE * PS_PER_S)
}

fn sums(arrivals: &[TokenBucket]) -> (f64, f64) {
    arrivals
        .iter()
        .fold((0.0, 0.0), |(b, r), a| (b + a.burst_bytes, r + a.rate_bps))
}

/// Relative tolerance on Σr ≤ R, the same as admission's
/// ([`crate::admission::ADMISSION_EPSILON`]): a set admitted at exactly full
/// utilization must not turn unstable through floating-point rounding.
pub const RATE_EPSILON: f64 = crate::admission::ADMISSION_EPSILON;

fn stable(sum_rate_bps: f64, server: RateLatency) -> bool {
    server.rate_bps > 0.0 && sum_rate_bps <= server.rate_bps * (1.0 + RATE_EPSILON)
}

/// Σb + (Σr)·T; None if Σr > R (or R ≤ 0).
pub fn backlog_bound_bytes(arrivals: &[TokenBucket], server: RateLatency) -> Option<f64> {
    let (sum_burst_bytes, sum_rate_bps) = sums(arrivals);
    if !stable(sum_rate_bps, server) {
        return None;
    }
    Some(sum_burst_bytes + bytes_in_ps(sum_rate_bps, server.latency_ps))
}

/// T + Σb/R, rounded up; None if Σr > R (or R ≤ 0).
pub fn delay_bound_ps(arrivals: &[TokenBucket], server: RateLatency) -> Option<i64> {
    let (sum_burst_bytes, sum_rate_bps) = sums(arrivals);
    if !stable(sum_rate_bps, server) {
        return None;
    }
    Some(server.latency_ps + bytes_time_ps(sum_burst_bytes, server.rate_bps))
}

/// The arrival curve downstream of a node that delays by at most
/// `delay_bound_ps`: b + r·D, same r.
pub fn output_arrival(a: TokenBucket, delay_bound_ps: i64) -> TokenBucket {
    TokenBucket {
        burst_bytes: a.burst_bytes + bytes_in_ps(a.rate_bps, delay_bound_ps),
        rate_bps: a.rate_bps,
    }
}

/// One port's verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PortBound {
    /// Finite bounds.
    Bounded {
        /// Backlog bound.
        backlog_bytes: f64,
        /// Delay bound.
        delay_ps: i64,
    },
    /// Σr > R at this port.
    Unstable {
        /// Σr of the streams crossing it.
        sum_rate_bps: f64,
    },
    /// Stable itself, but a stream reaches it through an unstable port.
    UpstreamUnstable {
        /// The unstable port upstream.
        port: usize,
    },
    /// No stream crosses it.
    Unused,
    /// On or downstream of a cycle in the port graph.
    Cyclic,
}

/// Per stream and hop: its arrival curve there, or the unstable port that
/// made it unbounded.
type HopCurve = Result<TokenBucket, usize>;

/// Feed-forward bounds over the streams' port paths (each path in traversal
/// order; indices below `servers.len()`, panics otherwise): per port, the
/// backlog and delay bounds, or why there are none.
pub fn port_bounds(
    streams: &[(TokenBucket, Vec<usize>)],
    servers: &[RateLatency],
) -> Vec<PortBound> {
    let mut users: Vec<Vec<(usize, usize)>> = vec![Vec::new(); servers.len()];
    for (s, (_, path)) in streams.iter().enumerate() {
        for (hop, &port) in path.iter().enumerate() {
            users[port].push((s, hop));
        }
    }
    let mut curves: Vec<Vec<HopCurve>> = streams
        .iter()
        .map(|(a, path)| vec![Ok(*a); path.len()])
        .collect();
    let mut bounds = vec![PortBound::Cyclic; servers.len()];
    for port in topological_order(streams, servers.len()) {
        let bound = bound_port(&users[port], &curves, streams, servers[port]);
        bounds[port] = bound;
        for &(s, hop) in &users[port] {
            if hop + 1 < curves[s].len() {
                curves[s][hop + 1] = downstream(curves[s][hop], bound, port);
            }
        }
    }
    bounds
}

/// The bound at one port from the curves of the streams crossing it. Σr
/// counts every stream's rate, also of those whose burst is unbounded (a
/// stream's long-term rate is the same at every hop).
fn bound_port(
    users: &[(usize, usize)],
    curves: &[Vec<HopCurve>],
    streams: &[(TokenBucket, Vec<usize>)],
    server: RateLatency,
) -> PortBound {
    if users.is_empty() {
        return PortBound::Unused;
    }
    let sum_rate_bps: f64 = users.iter().map(|&(s, _)| streams[s].0.rate_bps).sum();
    if !stable(sum_rate_bps, server) {
        return PortBound::Unstable { sum_rate_bps };
    }
    let mut arrivals = Vec::with_capacity(users.len());
    for &(s, hop) in users {
        match curves[s][hop] {
            Ok(a) => arrivals.push(a),
            Err(origin) => return PortBound::UpstreamUnstable { port: origin },
        }
    }
    match (
        backlog_bound_bytes(&arrivals, server),
        delay_bound_ps(&arrivals, server),
    ) {
        (Some(backlog_bytes), Some(delay_ps)) => PortBound::Bounded {
            backlog_bytes,
            delay_ps,
        },
        _ => PortBound::Unstable { sum_rate_bps },
    }
}

fn downstream(curve: HopCurve, bound: PortBound, port: usize) -> HopCurve {
    match (curve, bound) {
        (Ok(a), PortBound::Bounded { delay_ps, .. }) => Ok(output_arrival(a, delay_ps)),
        (Err(origin), _) => Err(origin),
        (Ok(_), PortBound::UpstreamUnstable { port: origin }) => Err(origin),
        (Ok(_), _) => Err(port),
    }
}

/// Kahn's algorithm over the edges consecutive hops draw; ports never freed
/// (on or behind a cycle) are left out.
fn topological_order(streams: &[(TokenBucket, Vec<usize>)], port_count: usize) -> Vec<usize> {
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); port_count];
    let mut indegree = vec![0usize; port_count];
    for (_, path) in streams {
        for pair in path.windows(2) {
            successors[pair[0]].push(pair[1]);
            indegree[pair[1]] += 1;
        }
    }
    let mut ready: VecDeque<usize> = (0..port_count).filter(|&p| indegree[p] == 0).collect();
    let mut order = Vec::with_capacity(port_count);
    while let Some(port) = ready.pop_front() {
        order.push(port);
        for &next in &successors[port] {
            indegree[next] -= 1;
            if indegree[next] == 0 {
                ready.push_back(next);
            }
        }
    }
    order
}
