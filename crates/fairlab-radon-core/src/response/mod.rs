//! The sender's responses to feedback (seed §4.4): the rate-based
//! Percent-Budget of the chapter-5 prototype, and the window-based
//! Percent-Budget and Less-Laxity-More with the random dispatch offset.

pub mod rate;
pub mod window;

pub use rate::{RateResponse, WaitMinReading, WaitReading};
pub use window::{WindowResponse, WindowRule};
