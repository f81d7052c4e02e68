//! fairlab-sim: a deterministic packet-level simulator of the ways TCP turns
//! unfair in data-center and storage networks (incast, outcast, hash-cast,
//! long-flow starvation), and of their remedies.
//!
//! Layers, bottom up: [`engine`] (time, events, RNG) → [`net`] (links,
//! switches, ports, routing) → [`queue`] (disciplines) → [`transport`] (TCP)
//! → [`workload`] (applications) → [`metrics`] → [`scenario`] (the spec,
//! turned into a [`sim::Simulation`]).

pub mod engine;
pub mod metrics;
pub mod net;
pub mod queue;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod units;
pub mod workload;

pub use metrics::RunResult;
pub use scenario::{Scenario, ScenarioError};
use std::ops::ControlFlow;

/// Simulates `scenario` with `seed` (its own seed when `None`) to the end.
pub fn run(scenario: &Scenario, seed: Option<u64>) -> Result<RunResult, ScenarioError> {
    run_with_progress(scenario, seed, &mut |_| {})
}

/// As [`run`], calling `progress(fraction_done)` now and then.
pub fn run_with_progress(
    scenario: &Scenario,
    seed: Option<u64>,
    progress: &mut dyn FnMut(f64),
) -> Result<RunResult, ScenarioError> {
    let mut sim = scenario::build(scenario, seed)?;
    sim.run_with_progress(progress);
    Ok(metrics::collect(&sim))
}

/// As [`run_with_progress`], but `progress` may stop the run by returning
/// `Break` (it is called every 65536 events): then the result is `Ok(None)`.
/// A run that is not stopped gives exactly the result of [`run`].
pub fn run_until_stopped(
    scenario: &Scenario,
    seed: Option<u64>,
    progress: &mut dyn FnMut(f64) -> ControlFlow<()>,
) -> Result<Option<RunResult>, ScenarioError> {
    let mut sim = scenario::build(scenario, seed)?;
    Ok(match sim.run_until_stopped(progress) {
        ControlFlow::Continue(()) => Some(metrics::collect(&sim)),
        ControlFlow::Break(()) => None,
    })
}
