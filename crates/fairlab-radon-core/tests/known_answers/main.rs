//! Known-answer tests on hand-built sequences, one module per concern. The
//! expected numbers are worked out by hand in the comments beside them.

mod admission;
mod calculus;
mod closed_loop;
mod feedback;
mod models;
mod rad;
mod receiver;
mod responses;
mod sender;

/// |a − b| ≤ tol, with a message naming both.
pub fn assert_close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} is not within {tol} of {b}");
}
