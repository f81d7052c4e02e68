//! A byte-sequence TCP: three-way handshake, receive window, delayed ACKs,
//! NewReno loss recovery (RFC 5681, RFC 6582) and RFC 6298 retransmission
//! timers on a configurable clock.
//!
//! Simplifications, each chosen because it does not change what the source
//! documents measure: sequence numbers are 64-bit and start at 0 (no
//! wrap-around, no random ISN); no options (MSS is configured, no timestamps
//! or window scaling: windows are plain byte counts); no FIN/close (a flow
//! ends when its data is acknowledged); the application reads at once, so the
//! advertised window is constant.

pub mod cc;
pub mod config;
mod reassembly;
pub mod rto;
mod sack;
mod socket;

pub use config::{Pacing, RtoDelay, TcpConfig, TimerClock};
pub use socket::{SegmentOutcome, TcpSocket, TcpState, TcpStats, TraceRow};
