pub mod engine;
pub mod net;
pub mod queue;
pub mod transport;
pub mod units;
