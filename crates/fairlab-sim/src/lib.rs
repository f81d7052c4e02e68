//! fairlab-sim: a deterministic packet-level simulator of the ways TCP turns
//! unfair in data-center and storage networks (incast, outcast, hash-cast,
//! long-flow starvation), and of their remedies.
//!
//! Layers, bottom up, each importing only those below it: [`units`] →
//! [`vocab`] (the scenario vocabulary the simulator and the spec share:
//! buffer limits and their split, the named enums) → [`packet`] (addresses, ports, the packet, the one seeded flow hash) →
//! [`engine`] (time, events, RNG streams) → [`queue`] (disciplines) →
//! [`net`] (links, switches, ports holding queues, hosts, routing by
//! next-hop sets) → [`transport`] (endpoints behind one enum: TCP
//! connections, UDP flows) → [`workload`] (applications) →
//! [`sim`] (the event loop and the glue: moves packets between ports,
//! hands them to endpoints, keeps timers) → [`metrics`] (tables of a
//! finished run); beside them [`spec`] (the scenario description,
//! backend-neutral, and its lowering into a [`sim::Simulation`]).

pub mod engine;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod queue;
pub mod spec;
/// The spec's former name, kept while callers move to [`spec`].
pub use spec as scenario;
pub mod sim;
pub mod transport;
pub mod units;
pub mod vocab;
pub mod workload;

pub use metrics::RunResult;
pub use spec::{Scenario, ScenarioError};
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
    let mut sim = spec::build(scenario, seed)?;
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
    let mut sim = spec::build(scenario, seed)?;
    Ok(match sim.run_until_stopped(progress) {
        ControlFlow::Continue(()) => Some(metrics::collect(&sim)),
        ControlFlow::Break(()) => None,
    })
}
