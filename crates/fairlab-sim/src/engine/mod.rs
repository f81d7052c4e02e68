//! The discrete-event engine: integer picosecond time, an event queue ordered
//! by (time, insertion sequence), and seeded RNG streams, one per component.

mod calendar;
mod queue;
mod rng;

pub use queue::EventQueue;
pub use rng::{stream_seed, Rng};
