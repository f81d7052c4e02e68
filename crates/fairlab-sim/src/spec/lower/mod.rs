//! Lowering: a validated spec turned into one backend's configuration. One
//! file per backend; each rejects, by field path, what its backend cannot
//! honour.

pub mod sim;
