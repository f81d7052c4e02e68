//! The agents' configurations (the JSON contract the namespace lowering and
//! `fairlab radon send --config` produce), with a check that names the
//! field, the value and what is allowed.

use crate::error::{Error, Result};
use crate::wire::HEADER_BYTES;
use fairlab_radon_core::{ReceiverConfig, SenderConfig};
use serde::{Deserialize, Serialize};

/// One listener of the receiver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Listen {
    #[serde(default)]
    pub netns: Option<String>,
    #[serde(default = "any_addr")]
    pub addr: String,
    pub port: u16,
}

fn any_addr() -> String {
    "0.0.0.0".into()
}

/// The receiver agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecvConfig {
    pub listen: Vec<Listen>,
    #[serde(default = "default_deadline")]
    pub deadline_s: f64,
    /// Sessions each listener serves before the agent returns (0: until
    /// the deadline or Ctrl-C).
    #[serde(default = "one")]
    pub sessions: u32,
    #[serde(default = "default_max_records")]
    pub max_records: u64,
}

fn default_deadline() -> f64 {
    30.0
}
fn one() -> u32 {
    1
}
fn default_max_records() -> u64 {
    5_000_000
}

/// One stream of the sender.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamConfig {
    pub id: u32,
    #[serde(default)]
    pub netns: Option<String>,
    #[serde(default)]
    pub src_addr: Option<String>,
    pub dst_addr: String,
    pub port: u16,
    pub payload_bytes: usize,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub packets: Option<u64>,
    #[serde(default)]
    pub stop_s: Option<f64>,
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
}

/// How the sender waits between datagrams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pacing {
    Auto,
    Busy,
    Hybrid,
    Txtime,
}

/// The sender agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendConfig {
    pub streams: Vec<StreamConfig>,
    pub duration_s: f64,
    #[serde(default = "default_drain")]
    pub drain_s: f64,
    #[serde(default = "auto")]
    pub pacing: Pacing,
    #[serde(default)]
    pub cpu: Option<usize>,
    /// Run the sending loop under SCHED_FIFO at this priority (1..99;
    /// root): off by default, since it holds a core against everything.
    #[serde(default)]
    pub rt_priority: Option<i32>,
    #[serde(default = "default_deadline")]
    pub deadline_s: f64,
    #[serde(default)]
    pub trace: bool,
    /// Cap of the run's connect attempts, s (a receiver started a moment
    /// later is still found).
    #[serde(default = "default_connect")]
    pub connect_s: f64,
}

fn default_drain() -> f64 {
    0.2
}
fn auto() -> Pacing {
    Pacing::Auto
}
fn default_connect() -> f64 {
    2.0
}

/// Parses JSON, naming the offending field on error.
pub fn parse<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Config(format!("{what} config: {e}")))
}

fn seconds(field: &str, v: f64, max: f64) -> Result<()> {
    if v.is_finite() && (0.0..=max).contains(&v) {
        return Ok(());
    }
    Err(Error::Config(format!(
        "{field} = {v}: seconds from 0 to {max}"
    )))
}

impl RecvConfig {
    pub fn check(&self) -> Result<()> {
        if self.listen.is_empty() {
            return Err(Error::Config("listen = []: at least one listener".into()));
        }
        seconds("deadline_s", self.deadline_s, 86_400.0)?;
        if self.max_records == 0 || self.max_records > 100_000_000 {
            return Err(Error::Config(format!(
                "max_records = {}: from 1 to 100000000",
                self.max_records
            )));
        }
        for (i, l) in self.listen.iter().enumerate() {
            if l.port == 0 {
                return Err(Error::Config(format!("listen[{i}].port = 0: 1 to 65535")));
            }
        }
        Ok(())
    }
}

impl SendConfig {
    pub fn check(&self) -> Result<()> {
        if self.streams.is_empty() {
            return Err(Error::Config("streams = []: at least one stream".into()));
        }
        seconds("duration_s", self.duration_s, 86_400.0)?;
        seconds("drain_s", self.drain_s, 60.0)?;
        seconds("deadline_s", self.deadline_s, 86_400.0)?;
        seconds("connect_s", self.connect_s, 600.0)?;
        if self.duration_s + self.drain_s + 1.0 > self.deadline_s {
            return Err(Error::Config(format!(
                "deadline_s = {}: must exceed duration_s + drain_s + 1 s of control ({} s)",
                self.deadline_s,
                self.duration_s + self.drain_s + 1.0
            )));
        }
        let mut ids = std::collections::BTreeSet::new();
        for (i, s) in self.streams.iter().enumerate() {
            s.check(i, self.duration_s)?;
            if !ids.insert(s.id) {
                return Err(Error::Config(format!(
                    "streams[{i}].id = {}: ids must be unique",
                    s.id
                )));
            }
        }
        Ok(())
    }
}

impl StreamConfig {
    fn check(&self, i: usize, duration_s: f64) -> Result<()> {
        let f = |name: &str| format!("streams[{i}].{name}");
        if !(HEADER_BYTES..=65_507).contains(&self.payload_bytes) {
            return Err(Error::Config(format!(
                "{} = {}: from {HEADER_BYTES} (the header) to 65507 bytes",
                f("payload_bytes"),
                self.payload_bytes
            )));
        }
        seconds(&f("start_s"), self.start_s, duration_s)?;
        if let Some(stop) = self.stop_s {
            seconds(&f("stop_s"), stop, 86_400.0)?;
        }
        if self.port == 0 {
            return Err(Error::Config(format!("{} = 0: 1 to 65535", f("port"))));
        }
        let s = &self.sender;
        if s.wait_ps <= 0 || s.packet_service_ps <= 0 || s.reservation.period_ps <= 0 {
            return Err(Error::Config(format!(
                "{}: wait_ps, packet_service_ps and reservation.period_ps must be > 0 (got {}, {}, {})",
                f("sender"),
                s.wait_ps,
                s.packet_service_ps,
                s.reservation.period_ps
            )));
        }
        if !(s.reservation.utilization > 0.0 && s.reservation.utilization <= 1.0) {
            return Err(Error::Config(format!(
                "{} = {}: in (0, 1]",
                f("sender.reservation.utilization"),
                s.reservation.utilization
            )));
        }
        if self.receiver.service_ps <= 0 {
            return Err(Error::Config(format!(
                "{} = {}: > 0",
                f("receiver.service_ps"),
                self.receiver.service_ps
            )));
        }
        Ok(())
    }

    /// The instant the stream stops, s from t0.
    pub fn stop_at_s(&self, duration_s: f64) -> f64 {
        self.stop_s.map_or(duration_s, |s| s.min(duration_s))
    }

    /// The most datagrams it can send: its count, or its span at its
    /// shortest wait (a rate response never waits less than wait_min, a
    /// window sends at most w_max per w_max waits), plus one window.
    pub fn max_packets(&self, duration_s: f64) -> u64 {
        let span_ps = ((self.stop_at_s(duration_s) - self.start_s).max(0.0) * 1e12) as i64;
        let s = &self.sender;
        let (min_wait, burst) = match s.mode {
            fairlab_radon_core::Mode::Rate(r) => (s.wait_ps.min(r.wait_min_ps), 1.0),
            fairlab_radon_core::Mode::Window(w) => (s.wait_ps, w.w_max.ceil()),
            fairlab_radon_core::Mode::NonAdaptive => (s.wait_ps, 1.0),
        };
        let by_time = span_ps / min_wait.max(1) + 1 + burst as i64;
        let cap = by_time.max(0) as u64;
        self.packets.map_or(cap, |p| p.min(cap))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn stream_json() -> String {
        r#"{"id":0,"dst_addr":"127.0.0.1","port":5201,"payload_bytes":1472,
            "sender":{"reservation":{"utilization":0.2,"period_ps":10000000000},
                      "packet_service_ps":12000000,"wait_ps":600000000,"mode":"non_adaptive"},
            "receiver":{"service_ps":12000000,"model":"median5","feedback_every":5,
                        "congested_depth_pkts":1.0,"pct_divisor":"pairs_gamma_minus_one","all_models":true}}"#
            .into()
    }

    #[test]
    fn the_contract_parses_and_checks() {
        let text = format!(r#"{{"streams":[{}],"duration_s":1.0}}"#, stream_json());
        let c: SendConfig = parse("send", &text).unwrap();
        c.check().unwrap();
        assert_eq!(c.pacing, Pacing::Auto);
        // 1 s at 600 µs: 1667 waits, one more datagram and one window.
        assert_eq!(c.streams[0].max_packets(1.0), 1668);
    }

    #[test]
    fn bad_fields_are_named() {
        let text = format!(
            r#"{{"streams":[{}],"duration_s":1.0,"pacing":"warp"}}"#,
            stream_json()
        );
        let e = parse::<SendConfig>("send", &text).unwrap_err().to_string();
        assert!(e.contains("warp"), "{e}");
        let text = format!(r#"{{"streams":[{}],"duration_s":-1}}"#, stream_json());
        let e = parse::<SendConfig>("send", &text)
            .unwrap()
            .check()
            .unwrap_err();
        assert_eq!(e.to_string(), "duration_s = -1: seconds from 0 to 86400");
        let text = format!(
            r#"{{"streams":[{}],"duration_s":1,"colour":1}}"#,
            stream_json()
        );
        let e = parse::<SendConfig>("send", &text).unwrap_err().to_string();
        assert!(e.contains("colour"), "{e}");
        let bad = stream_json().replace("1472", "12");
        let text = format!(r#"{{"streams":[{bad}],"duration_s":1}}"#);
        let e = parse::<SendConfig>("send", &text)
            .unwrap()
            .check()
            .unwrap_err();
        assert!(
            e.to_string().starts_with("streams[0].payload_bytes = 12"),
            "{e}"
        );
    }
}
