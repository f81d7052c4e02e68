//! Transport protocols on hosts.

pub mod tcp;
