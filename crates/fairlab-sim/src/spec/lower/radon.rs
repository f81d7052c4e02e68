//! A Radon stream's reservation, pacing and models on a path of known
//! capacity: what every lowering that runs `fairlab-radon-core` gives its
//! driver (the simulator's endpoints, the namespace backend's socket agent),
//! so that both run the same configuration. Imports no backend's types.
//!
//! Readings (docs/radon.md, "Readings of the seed"): `rate` is the UDP
//! payload rate (the seed's "send rate"), so the wait is payload bits over
//! the rate (131 µs for 500 Mb/s of 8 KiB); utilization and the service
//! time count every byte on the wire (the IP packet plus `[link]
//! framing`).

use crate::packet::UDP_IP_HEADER;
use crate::spec::radon::{
    BudgetReading, PctDivisor, RadonModel, RadonResponse, RadonSettings, WaitMin, WaitReading,
    DEFAULT_PERIOD,
};
use crate::spec::workloads::UdpSpec;
use crate::spec::ScenarioError;
use crate::units::{Time, PS_PER_SEC};
use fairlab_radon_core as core;

/// The capacity of workload `wi`'s path: the slowest of its ports'
/// `rates_bps`; refused in one line when there is no port of positive rate.
pub fn bottleneck_bps(
    wi: usize,
    rates_bps: impl Iterator<Item = u64>,
) -> Result<u64, ScenarioError> {
    match rates_bps.min() {
        Some(c) if c > 0 => Ok(c),
        _ => Err(ScenarioError::new(
            format!("workload[{wi}].dst"),
            "has no path of positive rate from the source; expected linked hosts",
        )),
    }
}

/// What a stream's reservation and pacing come to on its path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The slowest port on the path, b/s.
    pub capacity_bps: f64,
    /// A datagram's bytes on the wire.
    pub wire_bytes: u64,
    /// The reservation's share of the wire's time.
    pub utilization: f64,
    pub period: Time,
    /// pktS: a datagram's service time at C.
    pub service_ps: i64,
    /// The non-adaptive wait: payload bits over the rate.
    pub wait_ps: i64,
    pub wait_min_ps: i64,
    pub wait_max_ps: i64,
}

/// The stream `u` on a path of capacity `capacity_bps`, under `s`.
pub fn plan(u: &UdpSpec, s: &RadonSettings, capacity_bps: f64, framing: u64) -> Plan {
    let size = u.size().get();
    let payload = size.saturating_sub(u64::from(UDP_IP_HEADER)).max(1) as f64;
    let wire_bytes = size + framing;
    let wire = wire_bytes as f64;
    let utilization = match (u.rate, u.utilization) {
        (Some(r), _) => r.get() as f64 * wire / payload / capacity_bps,
        (None, u) => u.unwrap_or(1.0),
    };
    let service_ps = (wire * 8.0 * PS_PER_SEC as f64 / capacity_bps).round() as i64;
    let wait_ps = (service_ps as f64 / utilization).round().max(1.0) as i64;
    let period = u.period.unwrap_or(DEFAULT_PERIOD);
    let wait_min_ps = match s.wait_min {
        WaitMin::Reservation => wait_ps,
        WaitMin::LineRate => service_ps.max(1),
    };
    let wait_max_ps = s.wait_max.unwrap_or(period).0.min(i64::MAX as u64) as i64;
    Plan {
        capacity_bps,
        wire_bytes,
        utilization,
        period,
        service_ps,
        wait_ps,
        wait_min_ps,
        wait_max_ps: wait_max_ps.max(wait_min_ps),
    }
}

/// The sender's and receiver's configurations of a stream of plan `p`
/// under `s`: what every backend's driver of `fairlab-radon-core` runs
/// (the simulator here, the socket agent in the namespace lowering).
/// `all_models`: run the three queue models (the series compares them),
/// else only the one that drives feedback.
pub fn configs(
    p: &Plan,
    s: &RadonSettings,
    all_models: bool,
) -> (core::SenderConfig, core::ReceiverConfig) {
    let period_ps = p.period.0.min(i64::MAX as u64) as i64;
    let reservation = core::Reservation {
        utilization: p.utilization.min(1.0),
        period_ps,
    };
    let budget = match s.budget_reading {
        BudgetReading::Remaining => core::BudgetReading::Remaining,
        BudgetReading::Full => core::BudgetReading::Full,
    };
    let mode = match (s.adaptive, s.response) {
        (false, _) => core::Mode::NonAdaptive,
        (true, RadonResponse::PercentBudget) => core::Mode::Rate(core::RateResponse {
            wait_min_ps: p.wait_min_ps,
            wait_max_ps: p.wait_max_ps,
            wait: match s.wait_reading {
                WaitReading::Halfway => core::WaitReading::Halfway,
                WaitReading::SeedLiteral => core::WaitReading::SeedLiteral,
            },
            budget,
        }),
        (true, r) => {
            let m = core::Rad::new(reservation, p.service_ps, 0).budget_packets();
            core::Mode::Window(core::WindowResponse {
                rule: if r == RadonResponse::LessLaxityMore {
                    core::WindowRule::LessLaxityMore
                } else {
                    core::WindowRule::PercentBudget
                },
                w_max: (m as f64).max(1.0),
                w_min: 1.0,
            })
        }
    };
    let sender = core::SenderConfig {
        reservation,
        packet_service_ps: p.service_ps,
        wait_ps: p.wait_ps,
        mode,
    };
    let receiver = core::ReceiverConfig {
        service_ps: p.service_ps,
        model: match s.model {
            RadonModel::Median5 => core::ModelKind::Median5,
            RadonModel::Basic => core::ModelKind::Basic,
            RadonModel::Pathload => core::ModelKind::Pathload,
        },
        feedback_every: s.feedback_every,
        congested_depth_pkts: s.congested_depth_pkts,
        pct_divisor: match s.pct_divisor {
            PctDivisor::Pairs => core::PctDivisor::PairsGammaMinusOne,
            PctDivisor::Groups => core::PctDivisor::Gamma,
        },
        all_models,
    };
    (sender, receiver)
}
