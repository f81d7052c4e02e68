//! The small field checkers every part of a spec uses: times and rates
//! within what the simulator's integers hold, finite numbers in a range,
//! buffers that hold a packet. The bottom of `spec/`: it imports nothing
//! else from it but the error type, so every spec file may use it.

use super::error::ScenarioError;
use crate::units::{BitsPerSec, Bytes, Time};
use crate::vocab::BufferLimit;

/// The largest time a scenario may name (a duration, a start, a timer):
/// 10^6 s, about 11.6 days of simulated time — far beyond any experiment
/// here (the longest shipped run is 180 s) — so that any instant of a run
/// plus any timer or period still fits in [`Time`] (u64 picoseconds, 213
/// days) and no sum the simulator forms can wrap.
pub const MAX_TIME: Time = Time::from_secs(1_000_000);

/// The fastest rate: 8 Tb/s, where a byte lasts one picosecond, the
/// simulator's clock tick (units.rs); faster links no longer time a byte,
/// and the shipped runs stop at 100 Gb/s.
pub const MAX_RATE: BitsPerSec = BitsPerSec(8_000_000_000_000);

/// Refuses a rate above [`MAX_RATE`].
pub fn check_rate(path: &str, r: BitsPerSec) -> Result<(), ScenarioError> {
    if r > MAX_RATE {
        return Err(ScenarioError::new(
            path,
            format!("\"{r}\" is too fast; expected at most \"{MAX_RATE}\" (a byte in one picosecond, the simulator's clock tick)"),
        ));
    }
    Ok(())
}

/// Refuses a time above [`MAX_TIME`].
pub fn check_time(path: &str, t: Time) -> Result<(), ScenarioError> {
    if t > MAX_TIME {
        return Err(ScenarioError::new(
            path,
            format!("\"{t}\" is too long; expected at most \"{MAX_TIME}\" (about 11.6 days of simulated time)"),
        ));
    }
    Ok(())
}

/// A finite number in `range` (NaN and infinities named as such).
pub fn check_number(
    path: &str,
    v: f64,
    ok: impl Fn(f64) -> bool,
    allowed: &str,
) -> Result<(), ScenarioError> {
    if v.is_nan() {
        return Err(ScenarioError::new(
            path,
            format!("NaN is not allowed; expected {allowed}"),
        ));
    }
    if v.is_infinite() {
        return Err(ScenarioError::new(
            path,
            format!("{v} (infinity) is not allowed; expected {allowed}"),
        ));
    }
    if !ok(v) {
        return Err(ScenarioError::new(
            path,
            format!("{v} is not allowed; expected {allowed}"),
        ));
    }
    Ok(())
}

/// A buffer that cannot hold one packet of `packet` bytes is refused.
pub fn limit_fits(path: &str, l: &BufferLimit, packet: Bytes) -> Result<(), ScenarioError> {
    if l.holds_one(packet) {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("\"{l}\" is smaller than one packet; expected at least {packet} (the largest MSS + 40 bytes of headers) or \"1pkt\""),
        ))
    }
}
