//! The scenario description: what network, what workload, how long, which
//! seed. Written in terms of the network (hosts, links, ports, flows) so that
//! the simulator and the namespace emulator can both run it.
//!
//! Read from TOML or JSON (the Python dict); every problem becomes a
//! [`ScenarioError`] naming the field path, the value and what is allowed.

mod build;
mod error;
mod units_serde;

pub use build::build;
pub use error::ScenarioError;

use crate::packet::TCP_IP_HEADER;
use crate::queue::BufferLimit;
use crate::transport::tcp::cc::CcKind;
use crate::transport::tcp::{Profile, TcpConfig, TimerClock};
use crate::units::{BitsPerSec, Bytes, Time};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Stop simulated time here; without it the run ends when every workload is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Time>,
    pub topology: TopologySpec,
    #[serde(default)]
    pub queue: QueueSpec,
    #[serde(default, rename = "port", skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortSpec>,
    #[serde(default)]
    pub host: HostSpec,
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default, rename = "workload")]
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub metrics: MetricsSpec,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TopologyKind {
    Star,
    Dumbbell,
}

/// Hosts given as a count (named with a prefix) or as a list of names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostList {
    Count(u32),
    Names(Vec<String>),
}

impl HostList {
    pub fn names(&self, prefix: &str) -> Vec<String> {
        match self {
            HostList::Count(n) => (0..*n).map(|i| format!("{prefix}{i}")).collect(),
            HostList::Names(v) => v.clone(),
        }
    }
}

impl Serialize for HostList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            HostList::Count(n) => s.serialize_u32(*n),
            HostList::Names(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for HostList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HostList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number of hosts (1 or more) or a list of host names")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<HostList, E> {
                if v == 0 || v > 100_000 {
                    return Err(E::invalid_value(de::Unexpected::Unsigned(v), &self));
                }
                Ok(HostList::Count(v as u32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<HostList, E> {
                if v <= 0 {
                    return Err(E::invalid_value(de::Unexpected::Signed(v), &self));
                }
                self.visit_u64(v as u64)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<HostList, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<String>()? {
                    v.push(s);
                }
                Ok(HostList::Names(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// Incast servers: `"all"` (every host but the client) or a list of names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerList {
    All,
    Names(Vec<String>),
}

impl Serialize for ServerList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ServerList::All => s.serialize_str("all"),
            ServerList::Names(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ServerList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ServerList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"all\" or a list of host names")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ServerList, E> {
                if v == "all" {
                    Ok(ServerList::All)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<ServerList, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<String>()? {
                    v.push(s);
                }
                Ok(ServerList::Names(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// The topology. One struct for every kind so that field paths stay exact;
/// which fields a kind needs is checked in [`Scenario::validate`].
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    pub kind: TopologyKind,
    /// star: the hosts, named h0.. when given as a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<HostList>,
    /// Rate of every link (star) or of the access links (dumbbell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<BitsPerSec>,
    /// One-way propagation delay of those links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Time>,
    /// dumbbell: hosts on the left switch, named l0.. when given as a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<HostList>,
    /// dumbbell: hosts on the right switch, named r0.. when given as a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<HostList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck_rate: Option<BitsPerSec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck_delay: Option<Time>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Discipline {
    #[default]
    Droptail,
    /// Hashed Credits Fair (Shpiner and Keslassy); parameters in [queue.hcf].
    Hcf,
    /// Random Early Detection (Floyd and Jacobson); [queue.red].
    Red,
    /// Stochastic Fairness Queueing (McKenney); [queue.sfq].
    Sfq,
    /// Deficit Round Robin (Shreedhar and Varghese); [queue.drr].
    Drr,
    /// Strict priority pair; [queue.priority].
    Priority,
}

/// RED parameters. Defaults follow Floyd's recommendations: max_p = 0.1,
/// w_q = 0.002, max_th = 3 min_th; min_th = 5 packets.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RedSpec {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub ecn: bool,
}
impl Default for RedSpec {
    fn default() -> Self {
        RedSpec {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            ecn: false,
        }
    }
}

/// SFQ parameters: 1024 buckets and a 10 s perturbation (Linux's defaults
/// are 128 buckets (flows) and perturbation off; McKenney suggests seconds).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SfqSpec {
    pub buckets: u32,
    pub perturb: Time,
}
impl Default for SfqSpec {
    fn default() -> Self {
        SfqSpec {
            buckets: 1024,
            perturb: Time::from_secs(10),
        }
    }
}

/// DRR parameters: a quantum of one 1500-byte packet keeps it O(1).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DrrSpec {
    pub buckets: u32,
    pub quantum: Bytes,
}
impl Default for DrrSpec {
    fn default() -> Self {
        DrrSpec {
            buckets: 1024,
            quantum: Bytes(1500),
        }
    }
}

/// Strict priority: which packets go first ("udp" or "control": packets
/// without TCP payload), and the share of the limit for that class.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PrioritySpec {
    pub high: String,
    pub high_share: f64,
}
impl Default for PrioritySpec {
    fn default() -> Self {
        PrioritySpec {
            high: "control".into(),
            high_share: 0.5,
        }
    }
}

fn default_bins() -> u32 {
    20
}
fn default_c0() -> u32 {
    1
}
fn default_hashes() -> u32 {
    1
}
fn default_hp_share() -> f64 {
    0.5
}
fn default_true() -> bool {
    true
}
fn default_period() -> String {
    "dynamic".into()
}

/// HCF parameters; defaults are the baseline of the HCF study (Section V-B).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HcfSpec {
    /// K credit bins (20 in the baseline: "a few dozen suffice").
    #[serde(default = "default_bins")]
    pub bins: u32,
    /// c0 credits per bin per period (1: one bit per bin).
    #[serde(default = "default_c0")]
    pub c0: u32,
    /// "dynamic" (the period ends when HP empties) or a fixed duration.
    #[serde(default = "default_period")]
    pub period: String,
    /// kappa hash functions (Bloom counter with conservative update when > 1).
    #[serde(default = "default_hashes")]
    pub hashes: u32,
    /// Share of the port's limit given to the HP queue (B/2 each by default).
    #[serde(default = "default_hp_share")]
    pub hp_share: f64,
    /// Credits in bytes (c0 x 1500 B per bin) for variable-size packets.
    #[serde(default)]
    pub byte_credits: bool,
    /// Swap HP and LP at each period (prevents reordering; off only to study it).
    #[serde(default = "default_true")]
    pub swap: bool,
}

impl Default for HcfSpec {
    fn default() -> Self {
        HcfSpec {
            bins: default_bins(),
            c0: default_c0(),
            period: default_period(),
            hashes: default_hashes(),
            hp_share: default_hp_share(),
            byte_credits: false,
            swap: true,
        }
    }
}

impl HcfSpec {
    /// The queue configuration for a port of `limit`, or the error.
    pub fn config(
        &self,
        limit: BufferLimit,
        packet: Bytes,
        path: &str,
    ) -> Result<crate::queue::HcfConfig, ScenarioError> {
        use crate::queue::{HcfConfig, Period};
        let err = |f: &str, m: String| ScenarioError::new(format!("{path}.{f}"), m);
        if self.bins == 0 {
            return Err(err(
                "bins",
                "0 is not allowed; expected at least 1 bin".into(),
            ));
        }
        if self.c0 == 0 {
            return Err(err(
                "c0",
                "0 is not allowed; expected at least 1 credit".into(),
            ));
        }
        if self.hashes == 0 || self.hashes > self.bins {
            return Err(err(
                "hashes",
                format!(
                    "{} is not allowed; expected 1 to bins ({})",
                    self.hashes, self.bins
                ),
            ));
        }
        if !(self.hp_share > 0.0 && self.hp_share < 1.0) {
            return Err(err(
                "hp_share",
                format!(
                    "{} is not allowed; expected a fraction strictly between 0 and 1",
                    self.hp_share
                ),
            ));
        }
        let period = match self.period.as_str() {
            "dynamic" => Period::Dynamic,
            s => match Time::parse(s) {
                Ok(t) if t > Time::ZERO => Period::Fixed(t),
                _ => {
                    return Err(err("period", format!("{s:?} is not a priority period; expected \"dynamic\" or a positive duration such as \"1ms\"")))
                }
            },
        };
        let (hp, lp) = match limit {
            BufferLimit::Packets(n) => {
                let h = ((n as f64) * self.hp_share).round() as u32;
                (
                    BufferLimit::Packets(h),
                    BufferLimit::Packets(n.saturating_sub(h)),
                )
            }
            BufferLimit::Bytes(b) => {
                let h = ((b.get() as f64) * self.hp_share).round() as u64;
                (
                    BufferLimit::Bytes(Bytes(h)),
                    BufferLimit::Bytes(Bytes(b.get() - h)),
                )
            }
        };
        if !hp.holds_one(packet) || !lp.holds_one(packet) {
            return Err(ScenarioError::new(
                format!("{path}.hp_share"),
                format!("splitting {limit} into {hp} (HP) and {lp} (LP) leaves a queue smaller than one packet; expected each to hold at least {packet}"),
            ));
        }
        Ok(HcfConfig {
            hp_limit: hp,
            lp_limit: lp,
            bins: self.bins,
            c0: self.c0,
            period,
            hashes: self.hashes,
            byte_credits: self.byte_credits,
            swap: self.swap,
        })
    }
}

/// Default queue of every switch output port.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub discipline: Discipline,
    /// 64 KiB: the per-port buffer of the shallow commodity switches of the
    /// incast studies.
    #[serde(default = "QueueSpec::default_limit")]
    pub limit: BufferLimit,
    /// ECN marking threshold K (RFC 8257 (3.1)): ECN-capable packets that
    /// find the queue above K are marked CE. Off by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<BufferLimit>,
    /// HCF parameters (used when discipline = "hcf").
    #[serde(default)]
    pub hcf: HcfSpec,
    #[serde(default)]
    pub red: RedSpec,
    #[serde(default)]
    pub sfq: SfqSpec,
    #[serde(default)]
    pub drr: DrrSpec,
    #[serde(default)]
    pub priority: PrioritySpec,
}

impl QueueSpec {
    fn default_limit() -> BufferLimit {
        BufferLimit::Bytes(Bytes(64 << 10))
    }
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            discipline: Discipline::Droptail,
            limit: QueueSpec::default_limit(),
            ecn_threshold: None,
            hcf: HcfSpec::default(),
            red: RedSpec::default(),
            sfq: SfqSpec::default(),
            drr: DrrSpec::default(),
            priority: PrioritySpec::default(),
        }
    }
}

/// Override for the output port of `node` toward `peer`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    pub node: String,
    pub peer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discipline: Option<Discipline>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<BufferLimit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<BufferLimit>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// 1000 packets: Linux's default txqueuelen.
    #[serde(default = "HostSpec::default_nic_queue")]
    pub nic_queue: BufferLimit,
    /// Each packet a host sends reaches its NIC after U(0, send_jitter) of
    /// processing time (order kept). Real hosts have microseconds of such
    /// variation; without any, a deterministic simulator locks flows into
    /// drop-tail phase patterns (Floyd and Jacobson, 1992).
    #[serde(default = "HostSpec::default_send_jitter")]
    pub send_jitter: Time,
}

impl HostSpec {
    fn default_nic_queue() -> BufferLimit {
        BufferLimit::Packets(1000)
    }
    fn default_send_jitter() -> Time {
        Time::ZERO
    }
}

impl Default for HostSpec {
    fn default() -> Self {
        HostSpec {
            nic_queue: HostSpec::default_nic_queue(),
            send_jitter: HostSpec::default_send_jitter(),
        }
    }
}

/// TCP settings: a profile, then field-by-field overrides.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_window: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<Time>,
    /// "jiffy" (a tick of 1/hz) or a duration such as "1us".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hz: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_granularity: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_timeout: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupack_threshold: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_start_after_idle: Option<bool>,
    /// RFC 7661 (4.1): grow cwnd only while it limits sending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd_validation: Option<bool>,
    /// RFC 2018 / RFC 6675 SACK loss recovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// RFC 3168 ECN (on by default with dctcp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// Timeouts at RTO * (1 + U(0, 0.5)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub randomize_rto: Option<bool>,
    /// RFC 7323 (4) RTTM: RTO samples from echoed timestamps, so a timeout's
    /// backoff ends at the first ACK after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_timestamps: Option<bool>,
    /// Consecutive timeouts before the connection aborts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retransmits: Option<u32>,
    /// Open connections with a three-way handshake (default true). False
    /// starts them established, like ns-2's one-way TCP agents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
}

macro_rules! overlay {
    ($base:expr, $over:expr, $($f:ident),*) => {
        TcpSpec { $($f: $over.$f.clone().or_else(|| $base.$f.clone()),)* }
    };
}

impl TcpSpec {
    /// `over`'s fields where given, else this spec's.
    pub fn overlaid(&self, over: &TcpSpec) -> TcpSpec {
        overlay!(
            self,
            over,
            profile,
            cc,
            mss,
            initial_window,
            receive_window,
            min_rto,
            max_rto,
            initial_rto,
            resolution,
            hz,
            clock_granularity,
            delayed_ack,
            delayed_ack_timeout,
            dupack_threshold,
            slow_start_after_idle,
            cwnd_validation,
            sack,
            ecn,
            randomize_rto,
            rtt_timestamps,
            max_retransmits,
            handshake
        )
    }

    pub fn profile(&self) -> Result<Profile, ScenarioError> {
        match &self.profile {
            None => Ok(Profile::Rfc),
            Some(p) => Profile::parse(p).ok_or_else(|| {
                ScenarioError::new(
                    "tcp.profile",
                    format!("{p:?} is not a known profile; expected \"rfc\", \"linux\" or \"datacenter\""),
                )
            }),
        }
    }

    /// The profile's configuration with this spec's overrides applied.
    pub fn resolve(&self) -> Result<TcpConfig, ScenarioError> {
        let mut c = self.profile()?.config();
        if let Some(cc) = &self.cc {
            c.cc = CcKind::parse(cc).ok_or_else(|| {
                ScenarioError::new(
                    "tcp.cc",
                    format!("{cc:?} is not a known congestion control; expected one of reno, newreno, cubic, bic, vegas, dctcp"),
                )
            })?;
        }
        if let Some(m) = self.mss {
            if m.get() < 64 || m.get() > 65_000 {
                return Err(ScenarioError::new(
                    "tcp.mss",
                    format!("\"{m}\" is out of range; expected 64B to 65000B"),
                ));
            }
            c.mss = m.get() as u32;
        }
        if let Some(iw) = self.initial_window {
            if iw == 0 {
                return Err(ScenarioError::new(
                    "tcp.initial_window",
                    "0 is not allowed; expected at least 1 segment",
                ));
            }
            c.initial_window = iw;
        }
        if let Some(w) = self.receive_window {
            if w.get() < c.mss as u64 {
                return Err(ScenarioError::new(
                    "tcp.receive_window",
                    format!("\"{w}\" is smaller than one segment; expected at least the MSS"),
                ));
            }
            c.receive_window = w;
        }
        if let Some(hz) = self.hz {
            if !(1..=1_000_000).contains(&hz) {
                return Err(ScenarioError::new(
                    "tcp.hz",
                    format!("{hz} is out of range; expected 1 to 1000000 ticks per second"),
                ));
            }
        }
        let resolution = self.resolution.as_deref();
        match resolution {
            None if self.hz.is_some() => c.clock = TimerClock::jiffies(self.hz.unwrap()),
            None => {}
            Some("jiffy") | Some("jiffies") => {
                let hz = self.hz.unwrap_or(match c.clock.tick.0 {
                    t if t > 0 => (crate::units::PS_PER_SEC / t) as u32,
                    _ => 1000,
                });
                c.clock = TimerClock::jiffies(hz);
            }
            Some(s) => match Time::parse(s) {
                Ok(t) if t > Time::ZERO => c.clock = TimerClock::granular(t),
                _ => {
                    return Err(ScenarioError::new(
                        "tcp.resolution",
                        format!("{s:?} is not a timer resolution; expected \"jiffy\" or a positive duration such as \"1us\""),
                    ))
                }
            },
        }
        // G defaults to the timer's tick (RFC 6298 (2.2) clock granularity).
        c.granularity = self.clock_granularity.unwrap_or(c.clock.tick);
        if let Some(t) = self.min_rto {
            c.min_rto = t;
        }
        if let Some(t) = self.max_rto {
            c.max_rto = t;
        }
        if let Some(t) = self.initial_rto {
            c.initial_rto = t;
        }
        if c.min_rto == Time::ZERO && c.granularity == Time::ZERO {
            return Err(ScenarioError::new(
                "tcp.min_rto",
                "\"0s\" with a zero clock granularity gives a zero RTO; expected a positive min_rto",
            ));
        }
        if c.max_rto < c.min_rto {
            return Err(ScenarioError::new(
                "tcp.max_rto",
                format!(
                    "\"{}\" is below min_rto \"{}\"; expected max_rto >= min_rto",
                    c.max_rto, c.min_rto
                ),
            ));
        }
        if c.initial_rto == Time::ZERO {
            return Err(ScenarioError::new(
                "tcp.initial_rto",
                "\"0s\" is not allowed; expected a positive duration such as \"1s\"",
            ));
        }
        if let Some(b) = self.delayed_ack {
            c.delayed_ack = b;
        }
        if let Some(t) = self.delayed_ack_timeout {
            if t == Time::ZERO {
                return Err(ScenarioError::new(
                    "tcp.delayed_ack_timeout",
                    "\"0s\" is not allowed; expected a positive duration such as \"40ms\" (set delayed_ack = false to turn delayed ACKs off)",
                ));
            }
            c.delayed_ack_timeout = t;
        }
        if let Some(k) = self.dupack_threshold {
            if k == 0 {
                return Err(ScenarioError::new(
                    "tcp.dupack_threshold",
                    "0 is not allowed; expected at least 1 (RFC 5681 uses 3)",
                ));
            }
            c.dupack_threshold = k;
        }
        if let Some(b) = self.slow_start_after_idle {
            c.slow_start_after_idle = b;
        }
        if let Some(b) = self.cwnd_validation {
            c.cwnd_validation = b;
        }
        if let Some(b) = self.sack {
            c.sack = b;
        }
        // DCTCP is defined over ECN (RFC 8257 (3)): on unless turned off.
        c.ecn = self.ecn.unwrap_or(c.cc == CcKind::Dctcp || c.ecn);
        if c.cc == CcKind::Dctcp && !c.ecn {
            return Err(ScenarioError::new(
                "tcp.ecn",
                "false is not allowed with cc = \"dctcp\"; DCTCP needs ECN (RFC 8257 (3))",
            ));
        }
        if let Some(b) = self.randomize_rto {
            c.randomize_rto = b;
        }
        if let Some(b) = self.rtt_timestamps {
            c.rtt_timestamps = b;
        }
        if let Some(n) = self.max_retransmits {
            if n == 0 {
                return Err(ScenarioError::new(
                    "tcp.max_retransmits",
                    "0 is not allowed; expected at least 1 (Linux uses 15)",
                ));
            }
            c.max_retransmits = n;
        }
        Ok(c)
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    /// Barrier-synchronized striped reads: one client, many servers.
    Incast,
    /// A long-lived TCP flow.
    Bulk,
    /// Many short TCP flows of one size, opening at instants spread over an
    /// interval.
    Short,
    /// Constant-rate UDP datagrams (background load).
    Udp,
}

/// One workload. One struct for every kind so that field paths stay exact;
/// which fields a kind needs is checked in [`Scenario::validate`].
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    pub kind: WorkloadKind,
    /// When connections open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Time>,
    // incast
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<ServerList>,
    /// Server request unit: bytes each server returns per round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sru: Option<Bytes>,
    /// Block per round, split evenly over the servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<Bytes>,
    /// Request the client sends each server at the start of a round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Each server answers after a uniform random think time in [0, jitter].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_jitter: Option<Time>,
    // bulk
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
    /// Bytes to send; without it the flow sends until the run ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    // short
    /// How many flows a short workload opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Size of each short flow in full segments (MSS bytes each), instead of `size`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<u32>,
    /// Short flows open at instants drawn uniformly in [start, start + spread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Time>,
    /// TCP settings of this workload's connections, over the scenario's [tcp].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSpec>,
    // udp
    /// Average rate of a UDP workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<BitsPerSec>,
    /// "periodic" or "poisson" (default) inter-arrivals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<String>,
    /// Datagram size on the wire (default 1500B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_size: Option<Bytes>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct MetricsSpec {
    /// Per-flow delivered bytes in bins of this width (off by default: runs stay fast).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_bin: Option<Time>,
    /// Occupancy of every switch port sampled at this period (off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_sample: Option<Time>,
    /// Record cwnd, ssthresh, SRTT and RTO of each data sender at every
    /// change (off by default: it costs memory on long runs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trace: bool,
    /// Only these flow ids (default: every flow, when `trace` is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_flows: Option<Vec<u32>>,
}

/// The most hosts a topology may have: the per-node routing table holds one
/// entry per host, 4 x 5000 x 5000 bytes = 100 MB at this size.
pub const MAX_HOSTS: usize = 5000;

/// Default request size: a small read RPC (an NFS READ call is about 100-200 bytes).
pub const DEFAULT_REQUEST: Bytes = Bytes(100);
pub const DEFAULT_ROUNDS: u32 = 20;

/// Strips serde_json's " at line L column C" suffix: the field path says where.
fn strip_location(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn path_string(p: &serde_path_to_error::Path) -> String {
    let s = p.to_string();
    if s == "." {
        String::new()
    } else {
        s
    }
}

impl Scenario {
    /// Parses and validates a TOML scenario.
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        let de = toml::Deserializer::new(text);
        let sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = path_string(e.path());
            let inner = e.into_inner();
            let mut msg = inner.message().to_string();
            if let Some(span) = inner.span() {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                msg = format!("{msg} (line {line})");
            }
            ScenarioError::new(path, msg)
        })?;
        sc.validate()?;
        Ok(sc)
    }

    /// Parses and validates a JSON scenario (what Python dicts become).
    pub fn from_json_str(text: &str) -> Result<Scenario, ScenarioError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let sc: Scenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = path_string(e.path());
            ScenarioError::new(path, strip_location(&e.into_inner().to_string()))
        })?;
        sc.validate()?;
        Ok(sc)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serializes")
    }

    /// Host names in creation order.
    pub fn host_names(&self) -> Vec<String> {
        let t = &self.topology;
        match t.kind {
            TopologyKind::Star => t.hosts.as_ref().map(|h| h.names("h")).unwrap_or_default(),
            TopologyKind::Dumbbell => {
                let mut v = t.left.as_ref().map(|h| h.names("l")).unwrap_or_default();
                v.extend(t.right.as_ref().map(|h| h.names("r")).unwrap_or_default());
                v
            }
        }
    }

    /// Switch names of the topology.
    pub fn switch_names(&self) -> Vec<&'static str> {
        match self.topology.kind {
            TopologyKind::Star => vec!["sw"],
            TopologyKind::Dumbbell => vec!["swL", "swR"],
        }
    }

    /// Checks everything serde cannot: which fields a kind needs, that names
    /// exist, that buffers hold a packet, that the run ends.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let tcp = self.tcp.resolve()?;
        let packet = Bytes((tcp.mss + TCP_IP_HEADER) as u64);
        self.validate_topology()?;
        let hosts = self.host_names();
        let switches = self.switch_names();
        if hosts.len() > MAX_HOSTS {
            return Err(ScenarioError::new(
                "topology",
                format!("{} hosts; expected at most {MAX_HOSTS} (static routing tables grow as hosts x nodes)", hosts.len()),
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, h) in hosts.iter().enumerate() {
            if h.is_empty() || switches.contains(&h.as_str()) || !seen.insert(h.as_str()) {
                let field = match self.topology.kind {
                    TopologyKind::Star => format!("topology.hosts[{i}]"),
                    TopologyKind::Dumbbell => "topology".to_string(),
                };
                return Err(ScenarioError::new(
                    field,
                    format!("{h:?} is empty, repeated or a switch name; expected unique host names other than {switches:?}"),
                ));
            }
        }
        let is_host = |n: &str| hosts.iter().any(|h| h == n);
        let is_node = |n: &str| is_host(n) || switches.contains(&n);
        let limit_fits = |path: &str, l: &BufferLimit| {
            if l.holds_one(packet) {
                Ok(())
            } else {
                Err(ScenarioError::new(
                    path,
                    format!("\"{l}\" is smaller than one packet; expected at least {packet} (MSS + 40 bytes of headers) or \"1pkt\""),
                ))
            }
        };
        limit_fits("queue.limit", &self.queue.limit)?;
        if let Some(k) = &self.queue.ecn_threshold {
            limit_fits("queue.ecn_threshold", k)?;
        }
        limit_fits("host.nic_queue", &self.host.nic_queue)?;
        for (i, p) in self.ports.iter().enumerate() {
            if !is_node(&p.node) {
                return Err(unknown_node(
                    &format!("port[{i}].node"),
                    &p.node,
                    &hosts,
                    &switches,
                ));
            }
            if !is_node(&p.peer) {
                return Err(unknown_node(
                    &format!("port[{i}].peer"),
                    &p.peer,
                    &hosts,
                    &switches,
                ));
            }
            if !self.linked(&p.node, &p.peer) {
                return Err(ScenarioError::new(
                    format!("port[{i}].peer"),
                    format!(
                        "{:?} is not linked to {:?}; expected a neighbour of that node",
                        p.peer, p.node
                    ),
                ));
            }
            if let Some(l) = &p.limit {
                limit_fits(&format!("port[{i}].limit"), l)?;
            }
        }
        if self.workloads.is_empty() {
            return Err(ScenarioError::new(
                "workload",
                "no workload given; expected at least one [[workload]] (kind = \"incast\", \"bulk\", \"short\" or \"udp\")",
            ));
        }
        let mut unbounded = false;
        if self.queue.discipline == Discipline::Hcf {
            self.queue
                .hcf
                .config(self.queue.limit, packet, "queue.hcf")?;
        }
        for (i, w) in self.workloads.iter().enumerate() {
            let at = |f: &str| format!("workload[{i}].{f}");
            if let Some(t) = &w.tcp {
                self.tcp.overlaid(t).resolve().map_err(|e| {
                    ScenarioError::new(format!("workload[{i}].{}", e.path), e.message)
                })?;
            }
            let host_field = |f: &str, v: &Option<String>| -> Result<String, ScenarioError> {
                match v {
                    None => Err(ScenarioError::new(
                        at(f),
                        format!("missing; a {:?} workload needs a host name here", w.kind)
                            .to_lowercase(),
                    )),
                    Some(n) if !is_host(n) => Err(unknown_node(&at(f), n, &hosts, &[])),
                    Some(n) => Ok(n.clone()),
                }
            };
            let forbid = |f: &str, present: bool| -> Result<(), ScenarioError> {
                if present {
                    Err(ScenarioError::new(
                        at(f),
                        format!("not a field of a {} workload", kind_name(w.kind)),
                    ))
                } else {
                    Ok(())
                }
            };
            match w.kind {
                WorkloadKind::Incast => {
                    forbid("src", w.src.is_some())?;
                    forbid("dst", w.dst.is_some())?;
                    forbid("size", w.size.is_some())?;
                    forbid("count", w.count.is_some())?;
                    forbid("packets", w.packets.is_some())?;
                    forbid("spread", w.spread.is_some())?;
                    forbid("rate", w.rate.is_some())?;
                    forbid("arrivals", w.arrivals.is_some())?;
                    forbid("packet_size", w.packet_size.is_some())?;
                    let client = host_field("client", &w.client)?;
                    let servers = self.incast_servers(w, &client);
                    if let Some(ServerList::Names(names)) = &w.servers {
                        for (j, s) in names.iter().enumerate() {
                            if !is_host(s) {
                                return Err(unknown_node(
                                    &at(&format!("servers[{j}]")),
                                    s,
                                    &hosts,
                                    &[],
                                ));
                            }
                            if *s == client || names[..j].contains(s) {
                                return Err(ScenarioError::new(
                                    at(&format!("servers[{j}]")),
                                    format!("{s:?} is the client or listed twice; expected distinct servers other than the client"),
                                ));
                            }
                        }
                    }
                    if servers.is_empty() {
                        return Err(ScenarioError::new(
                            at("servers"),
                            "no servers; expected at least one host other than the client",
                        ));
                    }
                    match (w.sru, w.block) {
                        (Some(_), Some(_)) => {
                            return Err(ScenarioError::new(at("block"), "both sru and block given; expected exactly one"))
                        }
                        (None, None) => {
                            return Err(ScenarioError::new(at("sru"), "missing; an incast workload needs sru (bytes per server) or block (bytes per round)"))
                        }
                        (Some(b), None) if b.get() == 0 => {
                            return Err(ScenarioError::new(at("sru"), "\"0B\" is not allowed; expected a positive size"))
                        }
                        (None, Some(b)) if b.get() < servers.len() as u64 => {
                            return Err(ScenarioError::new(at("block"), format!("\"{b}\" gives less than one byte per server; expected at least {} bytes", servers.len())))
                        }
                        _ => {}
                    }
                    if let Some(r) = w.request {
                        if r.get() == 0 {
                            return Err(ScenarioError::new(
                                at("request"),
                                "\"0B\" is not allowed; expected a positive size",
                            ));
                        }
                    }
                    if w.rounds == Some(0) {
                        return Err(ScenarioError::new(
                            at("rounds"),
                            "0 is not allowed; expected at least 1 round",
                        ));
                    }
                }
                WorkloadKind::Udp => {}
                WorkloadKind::Bulk | WorkloadKind::Short => {
                    let bulk = w.kind == WorkloadKind::Bulk;
                    for (f, present) in [
                        ("client", w.client.is_some()),
                        ("servers", w.servers.is_some()),
                        ("sru", w.sru.is_some()),
                        ("block", w.block.is_some()),
                        ("request", w.request.is_some()),
                        ("rounds", w.rounds.is_some()),
                        ("response_jitter", w.response_jitter.is_some()),
                        ("rate", w.rate.is_some()),
                        ("arrivals", w.arrivals.is_some()),
                        ("packet_size", w.packet_size.is_some()),
                        ("count", bulk && w.count.is_some()),
                        ("packets", bulk && w.packets.is_some()),
                        ("spread", bulk && w.spread.is_some()),
                    ] {
                        forbid(f, present)?;
                    }
                    let src = host_field("src", &w.src)?;
                    let dst = host_field("dst", &w.dst)?;
                    if src == dst {
                        return Err(ScenarioError::new(
                            at("dst"),
                            format!("{dst:?} is also the source; expected another host"),
                        ));
                    }
                    if bulk {
                        match w.size {
                            Some(b) if b.get() == 0 => {
                                return Err(ScenarioError::new(at("size"), "\"0B\" is not allowed; expected a positive size or no size (send until the run ends)"))
                            }
                            None => unbounded = true,
                            _ => {}
                        }
                        continue;
                    }
                    match w.count {
                        None => {
                            return Err(ScenarioError::new(
                                at("count"),
                                "missing; a short workload needs the number of flows, such as 100",
                            ))
                        }
                        Some(0) => {
                            return Err(ScenarioError::new(
                                at("count"),
                                "0 is not allowed; expected at least 1 flow",
                            ))
                        }
                        _ => {}
                    }
                    match (w.size, w.packets) {
                        (Some(_), Some(_)) => {
                            return Err(ScenarioError::new(at("packets"), "both size and packets given; expected exactly one"))
                        }
                        (None, None) => {
                            return Err(ScenarioError::new(at("packets"), "missing; a short workload needs packets (full segments per flow) or size (bytes per flow)"))
                        }
                        (Some(b), None) if b.get() == 0 => {
                            return Err(ScenarioError::new(at("size"), "\"0B\" is not allowed; expected a positive size"))
                        }
                        (None, Some(0)) => {
                            return Err(ScenarioError::new(at("packets"), "0 is not allowed; expected at least 1 packet"))
                        }
                        _ => {}
                    }
                }
            }
        }
        for (i, w) in self.workloads.iter().enumerate() {
            if w.kind != WorkloadKind::Udp {
                continue;
            }
            let at = |f: &str| format!("workload[{i}].{f}");
            for (f, present) in [
                ("client", w.client.is_some()),
                ("servers", w.servers.is_some()),
                ("sru", w.sru.is_some()),
                ("block", w.block.is_some()),
                ("request", w.request.is_some()),
                ("rounds", w.rounds.is_some()),
                ("response_jitter", w.response_jitter.is_some()),
                ("size", w.size.is_some()),
                ("tcp", w.tcp.is_some()),
                ("count", w.count.is_some()),
                ("packets", w.packets.is_some()),
                ("spread", w.spread.is_some()),
            ] {
                if present {
                    return Err(ScenarioError::new(at(f), "not a field of a udp workload"));
                }
            }
            for (f, v) in [("src", &w.src), ("dst", &w.dst)] {
                match v {
                    None => {
                        return Err(ScenarioError::new(
                            at(f),
                            "missing; a udp workload needs a host name here",
                        ))
                    }
                    Some(n) if !is_host(n) => return Err(unknown_node(&at(f), n, &hosts, &[])),
                    _ => {}
                }
            }
            if w.src == w.dst {
                return Err(ScenarioError::new(
                    at("dst"),
                    "the same host as src; expected another host",
                ));
            }
            if w.rate.is_none() {
                return Err(ScenarioError::new(
                    at("rate"),
                    "missing; a udp workload needs an average rate such as \"5Mbps\"",
                ));
            }
            if let Some(a) = &w.arrivals {
                if a != "poisson" && a != "periodic" {
                    return Err(ScenarioError::new(
                        at("arrivals"),
                        format!("{a:?} is not allowed; expected \"poisson\" or \"periodic\""),
                    ));
                }
            }
            if let Some(sz) = w.packet_size {
                if sz.get() < 28 || sz.get() > 65_535 {
                    return Err(ScenarioError::new(
                        at("packet_size"),
                        format!("\"{sz}\" is out of range; expected 28B to 65535B"),
                    ));
                }
            }
            unbounded = true;
        }
        if unbounded && self.duration.is_none() {
            return Err(ScenarioError::new(
                "duration",
                "missing; a bulk workload without a size runs until the run ends, so the scenario needs a duration such as \"1s\"",
            ));
        }
        if self.duration == Some(Time::ZERO) {
            return Err(ScenarioError::new(
                "duration",
                "\"0s\" is not allowed; expected a positive duration",
            ));
        }
        for (f, v) in [
            ("metrics.throughput_bin", self.metrics.throughput_bin),
            ("metrics.queue_sample", self.metrics.queue_sample),
        ] {
            if v == Some(Time::ZERO) {
                return Err(ScenarioError::new(
                    f,
                    "\"0s\" is not allowed; expected a positive period such as \"1ms\"",
                ));
            }
        }
        Ok(())
    }

    fn validate_topology(&self) -> Result<(), ScenarioError> {
        let t = &self.topology;
        let need = |f: &str, present: bool| {
            if present {
                Ok(())
            } else {
                Err(ScenarioError::new(
                    format!("topology.{f}"),
                    format!("missing; a {} topology needs it", topo_name(t.kind)),
                ))
            }
        };
        let forbid = |f: &str, present: bool| {
            if present {
                Err(ScenarioError::new(
                    format!("topology.{f}"),
                    format!("not a field of a {} topology", topo_name(t.kind)),
                ))
            } else {
                Ok(())
            }
        };
        need("rate", t.rate.is_some())?;
        need("delay", t.delay.is_some())?;
        match t.kind {
            TopologyKind::Star => {
                need("hosts", t.hosts.is_some())?;
                forbid("left", t.left.is_some())?;
                forbid("right", t.right.is_some())?;
                forbid("bottleneck_rate", t.bottleneck_rate.is_some())?;
                forbid("bottleneck_delay", t.bottleneck_delay.is_some())?;
                if matches!(&t.hosts, Some(HostList::Names(v)) if v.len() < 2) {
                    return Err(ScenarioError::new(
                        "topology.hosts",
                        "fewer than 2 hosts; expected at least 2",
                    ));
                }
                if matches!(&t.hosts, Some(HostList::Count(n)) if *n < 2) {
                    return Err(ScenarioError::new(
                        "topology.hosts",
                        "1 host; expected at least 2",
                    ));
                }
            }
            TopologyKind::Dumbbell => {
                forbid("hosts", t.hosts.is_some())?;
                need("left", t.left.is_some())?;
                need("right", t.right.is_some())?;
                need("bottleneck_rate", t.bottleneck_rate.is_some())?;
                need("bottleneck_delay", t.bottleneck_delay.is_some())?;
                for (f, h) in [("left", &t.left), ("right", &t.right)] {
                    if matches!(h, Some(HostList::Names(v)) if v.is_empty()) {
                        return Err(ScenarioError::new(
                            format!("topology.{f}"),
                            "empty; expected at least one host",
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn linked(&self, a: &str, b: &str) -> bool {
        let hosts = self.host_names();
        let is_host = |n: &str| hosts.iter().any(|h| h == n);
        match self.topology.kind {
            TopologyKind::Star => (a == "sw" && is_host(b)) || (b == "sw" && is_host(a)),
            TopologyKind::Dumbbell => {
                let left = self
                    .topology
                    .left
                    .as_ref()
                    .map(|h| h.names("l"))
                    .unwrap_or_default();
                let side = |n: &str| {
                    if left.iter().any(|h| h == n) {
                        "swL"
                    } else {
                        "swR"
                    }
                };
                (a == "swL" && b == "swR")
                    || (a == "swR" && b == "swL")
                    || (is_host(a) && b == side(a))
                    || (is_host(b) && a == side(b))
            }
        }
    }

    /// The servers of an incast workload, resolved.
    pub fn incast_servers(&self, w: &WorkloadSpec, client: &str) -> Vec<String> {
        match &w.servers {
            Some(ServerList::Names(v)) => v.clone(),
            None | Some(ServerList::All) => self
                .host_names()
                .into_iter()
                .filter(|h| h != client)
                .collect(),
        }
    }
}

fn kind_name(k: WorkloadKind) -> &'static str {
    match k {
        WorkloadKind::Incast => "incast",
        WorkloadKind::Bulk => "bulk",
        WorkloadKind::Short => "short",
        WorkloadKind::Udp => "udp",
    }
}

fn topo_name(k: TopologyKind) -> &'static str {
    match k {
        TopologyKind::Star => "star",
        TopologyKind::Dumbbell => "dumbbell",
    }
}

fn unknown_node(path: &str, name: &str, hosts: &[String], switches: &[&str]) -> ScenarioError {
    let mut known: Vec<String> = hosts.iter().take(6).cloned().collect();
    if hosts.len() > 6 {
        known.push("...".into());
    }
    known.extend(switches.iter().map(|s| s.to_string()));
    ScenarioError::new(
        path,
        format!(
            "{name:?} is not a {} of the topology; expected one of {}",
            if switches.is_empty() { "host" } else { "node" },
            known.join(", ")
        ),
    )
}

#[cfg(test)]
mod tests;
