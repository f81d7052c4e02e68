//! Lowering: a validated spec turned into one backend's configuration, one
//! file per backend. A lowering may import its backend's types (only
//! `sim.rs` imports the simulator's); it starts from [`super::Scenario::resolve`]
//! (hosts, TCP settings, estimates already worked out) and refuses, by
//! field path, whatever its backend cannot honour (docs/scenario.md,
//! "Backend support"). The namespace (Linux netns) backend's lowering
//! is its sibling, `netns.rs`, and the ns-2 backend's `ns2.rs` (a JSON
//! plan that `python/fairlab/ns2/` writes as an ns-2 Tcl script of
//! one-way TCP agents); neither imports a simulator type.

pub mod netns;
pub mod ns2;
pub mod radon;
pub mod sim;

use super::error::ScenarioError;
use super::workloads::{Transport, UdpSpec, WorkloadSpec};

/// Refuses what `backend` (ns-2) cannot run of udp workload `wi` yet:
/// Radon streams (the simulator and the namespace backend run them) and a
/// stream's end (`packets`, `stop`).
fn udp_supported(
    wi: usize,
    w: &WorkloadSpec,
    u: &UdpSpec,
    backend: &str,
) -> Result<(), ScenarioError> {
    if w.transport() == Transport::Radon {
        return Err(ScenarioError::new(
            format!("workload[{wi}].transport"),
            format!("\"radon\" is not run by the {backend} backend yet (the simulator and the namespace backend run Radon streams); expected \"udp\", or another backend"),
        ));
    }
    for (f, given) in [("packets", u.packets.is_some()), ("stop", u.stop.is_some())] {
        if given {
            return Err(ScenarioError::new(
                format!("workload[{wi}].{f}"),
                format!("not supported by the {backend} backend yet (its UDP senders run to the end of the run); expected the field left out"),
            ));
        }
    }
    Ok(())
}
