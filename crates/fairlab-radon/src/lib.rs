//! fairlab-radon: Radon on real sockets (issue 22). A UDP sender and
//! receiver that drive `fairlab-radon-core`'s state machines unchanged:
//! kernel receive timestamps, busy-wait pacing on CLOCK_MONOTONIC (UDPmon's
//! method), one process for many streams in many network namespaces, an
//! iperf3-like TCP control session per receiver. docs/radon.md, "On real
//! sockets".
//!
//! One concern per module: [`wire`] (the data header), [`clock`] (clocks,
//! waits, pinning), [`stamp`] (receive stamps and their source), [`netns`]
//! (sockets in named namespaces), [`sock`] (sockets and their errors),
//! [`session`] (the I/O-free drivers), [`control`] (the TCP protocol),
//! [`config`] (the JSON contract), [`pacing`] (busy or hybrid, the
//! SO_TXTIME verdict), [`send`] and [`recv`] (the agents), [`tables`] (the
//! result), [`calibrate`] (knowing the machine), [`replay`] (the decision
//! trace through the sessions), [`error`].

pub mod calibrate;
pub mod clock;
pub mod config;
pub mod control;
pub mod error;
pub mod netns;
pub mod pacing;
pub mod recv;
pub mod replay;
pub mod send;
pub mod session;
pub mod sock;
pub mod stamp;
pub mod tables;
pub mod wire;

pub use error::{Error, Result};

/// Runs the receiver from its JSON config; returns its sessions as JSON.
pub fn recv_json(
    config: &str,
    cancelled: &mut dyn FnMut() -> bool,
    report: &mut dyn FnMut(&str),
) -> Result<String> {
    let cfg: config::RecvConfig = config::parse("receiver", config)?;
    let out = recv::run(&cfg, cancelled, report)?;
    Ok(serde_json::to_string(&out).expect("plain data"))
}

/// Runs the sender from its JSON config; returns the tables as JSON.
pub fn send_json(config: &str, cancelled: &mut dyn FnMut() -> bool) -> Result<String> {
    let cfg: config::SendConfig = config::parse("sender", config)?;
    let run = send::run(&cfg, cancelled)?;
    Ok(tables::result(&cfg, &run))
}

/// Measures the machine from its JSON config; returns the figures as JSON.
pub fn calibrate_json(config: &str) -> Result<String> {
    let cfg: calibrate::CalibrateConfig = config::parse("calibration", config)?;
    let cal = calibrate::run(&cfg)?;
    Ok(serde_json::to_string(&cal).expect("plain data"))
}

/// The warning for datagrams `spacing_us` apart on a calibrated machine.
pub fn spacing_warning_json(calibration: &str, spacing_us: f64) -> Result<Option<String>> {
    let cal: calibrate::Calibration = config::parse("calibration", calibration)?;
    Ok(calibrate::spacing_warning(&cal, spacing_us))
}
