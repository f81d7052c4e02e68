//! Admission control per switch output port (seed §4.1): the receiving host
//! admits a stream only if, on every port of its path, the utilizations
//! already admitted plus its own stay within 1 − reserve. Utilizations count
//! every byte on the wire.
//!
//! Readings taken:
//! - Streams are decided one at a time in the order given; a refused stream
//!   reserves nothing, so a later, smaller stream may still fit.
//! - A stream is refused at the first port of its path (in path order) that
//!   cannot hold it; [`Refusal`] names that port.
//! - Sums are compared with a tolerance of [`ADMISSION_EPSILON`] so that
//!   utilizations meant to fill a port exactly (six streams of 1/6) are not
//!   refused by floating-point rounding. A NaN utilization is refused.

/// Bytes a UDP/IPv4 datagram adds on Ethernet besides its payload: UDP 8 +
/// IPv4 20 + Ethernet header 14 + FCS 4 + preamble and start delimiter 8 +
/// inter-frame gap 12.
pub const ETHERNET_UDP_IPV4_OVERHEAD_BYTES: u32 = 66;

/// Tolerance on Σu ≤ 1 − reserve.
pub const ADMISSION_EPSILON: f64 = 1e-9;

/// Bytes on the wire for a payload: 8192 + 66 = 8258 on Ethernet.
pub fn wire_bytes(payload_bytes: u32, overhead_bytes: u32) -> u32 {
    payload_bytes.saturating_add(overhead_bytes)
}

/// A stream asking for admission.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamAsk {
    /// The switch output ports on its path (indices below the port count),
    /// each once.
    pub ports: Vec<usize>,
    /// Its utilization of each port, wire bytes counted.
    pub utilization: f64,
}

/// Why a stream was refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Refusal {
    /// The first port on its path that could not hold it.
    pub port: usize,
    /// Utilization already admitted on that port.
    pub admitted_u: f64,
    /// What the stream asked for.
    pub asked_u: f64,
    /// 1 − reserve.
    pub limit_u: f64,
}

/// One port's admitted utilization.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ledger {
    /// Σu admitted.
    pub admitted_u: f64,
    /// 1 − reserve.
    pub limit_u: f64,
}

impl Ledger {
    /// An empty port keeping `reserve` of its capacity free.
    pub fn new(reserve: f64) -> Ledger {
        Ledger {
            admitted_u: 0.0,
            limit_u: 1.0 - reserve,
        }
    }

    /// Whether `asked_u` more still fits.
    pub fn fits(&self, asked_u: f64) -> bool {
        self.admitted_u + asked_u <= self.limit_u + ADMISSION_EPSILON
    }
}

/// Decides each stream in the given order; a refused stream reserves nothing.
/// Panics if a port index is not below `port_count` (a caller's bug).
pub fn admit(streams: &[StreamAsk], port_count: usize, reserve: f64) -> Vec<Result<(), Refusal>> {
    let mut ledgers = vec![Ledger::new(reserve); port_count];
    streams
        .iter()
        .map(|ask| admit_one(&mut ledgers, ask))
        .collect()
}

fn admit_one(ledgers: &mut [Ledger], ask: &StreamAsk) -> Result<(), Refusal> {
    for &port in &ask.ports {
        let ledger = ledgers[port];
        if !ledger.fits(ask.utilization) {
            return Err(Refusal {
                port,
                admitted_u: ledger.admitted_u,
                asked_u: ask.utilization,
                limit_u: ledger.limit_u,
            });
        }
    }
    for &port in &ask.ports {
        ledgers[port].admitted_u += ask.utilization;
    }
    Ok(())
}
