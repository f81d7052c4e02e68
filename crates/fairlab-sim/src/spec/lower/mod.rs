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
pub mod sim;
