//! `[tcp]` and `[workload.tcp]`: a named profile, then field-by-field
//! overrides, resolved into [`TcpSettings`] — plain data a backend maps to
//! its own TCP (the simulator's `TcpConfig` in `lower/sim.rs`; a Linux
//! host's sysctls and socket options later).

use super::check::{check_time, MAX_TIME};
use super::error::ScenarioError;
use crate::units::{Bytes, Time, PS_PER_SEC};
use crate::vocab::named_enum;
pub use crate::vocab::{CcKind, Clock, RtoDelay};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

named_enum! {
    /// Named default sets a scenario starts from (docs/model.md).
    pub enum ProfileName ("profile") {
        /// Textbook TCP as the incast simulations ran it.
        Rfc = "rfc",
        /// A Linux host.
        Linux = "linux",
        /// A tuned data-center host.
        Datacenter = "datacenter",
        /// ns-2's one-way TCP agents on their defaults.
        Ns2 = "ns2",
        /// CentOS 6.4's Linux 2.6.32-358.el6, the hash-cast study's server
        /// (also set by `[host] profile = "linux-2.6.32"`).
        Linux2632 = "linux-2.6.32",
        /// Linux 3.12.0, the study's newer kernel (also set by `[host]
        /// profile = "linux-3.12"`).
        Linux312 = "linux-3.12",
    }
}

/// `resolution` as written: "jiffy", "auto" or a granularity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    Jiffy,
    /// The jiffy clock (or the profile's) when the min RTO is at least one
    /// of its ticks, else [`FINE_RESOLUTION`]: see [`auto_clock`].
    Auto,
    Granular(Time),
}

const RESOLUTION_EXPECT: &str =
    "expected \"jiffy\", \"auto\" or a positive duration such as \"1us\"";

/// The clock "auto" picks below one tick: what needs high-resolution timers.
pub const FINE_RESOLUTION: Time = Time::from_us(1);

/// The clock `resolution = "auto"` resolves to: `base` (the jiffy clock of
/// `hz`, or the profile's clock without `hz`) when `min_rto` is at least one
/// of its ticks, as a stock kernel does; a 1 µs clock below it, as
/// millisecond-and-below RTOs need. The one home of this rule: the Python
/// builders pass "auto" through or ask `_core` for it.
pub fn auto_clock(min_rto: Time, base: Clock) -> Clock {
    if min_rto >= base.tick() {
        base
    } else {
        Clock::Granular {
            tick: FINE_RESOLUTION,
        }
    }
}

impl Serialize for Resolution {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Resolution::Jiffy => s.serialize_str("jiffy"),
            Resolution::Auto => s.serialize_str("auto"),
            Resolution::Granular(t) => s.serialize_str(&t.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Resolution {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Resolution;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(RESOLUTION_EXPECT)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Resolution, E> {
                match s {
                    "jiffy" | "jiffies" => Ok(Resolution::Jiffy),
                    "auto" => Ok(Resolution::Auto),
                    _ => match Time::parse(s) {
                        Ok(t) if t > Time::ZERO => Ok(Resolution::Granular(t)),
                        _ => Err(E::custom(format!(
                            "{s:?} is not a timer resolution; {RESOLUTION_EXPECT}"
                        ))),
                    },
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// Every TCP setting, resolved. Field meanings: docs/scenario.md.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpSettings {
    pub mss: u32,
    pub initial_window: u32,
    pub receive_window: Bytes,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    pub clock: Clock,
    pub granularity: Time,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Time,
    pub dupack_threshold: u32,
    pub slow_start_after_idle: bool,
    pub cwnd_validation: bool,
    pub cc: CcKind,
    pub sack: bool,
    pub ecn: bool,
    pub randomize_rto: bool,
    pub rto_delay: RtoDelay,
    pub limited_transmit: bool,
    pub recover_check: bool,
    pub slow_start: bool,
    pub rtt_timestamps: bool,
    pub max_retransmits: u32,
    pub handshake: bool,
    pub backoff_restarts_srtt: bool,
    pub max_backoff: u32,
    /// ns-2's window reduction (`TcpConfig::halve_window`); `ns2` only.
    pub halve_window: bool,
    /// ns-2's fast recovery (`TcpConfig::ns2_recovery`); `ns2` only.
    pub ns2_recovery: bool,
    /// ns-2's restart after idle (`TcpConfig::idle_restart`); `ns2` only.
    pub idle_restart: bool,
    /// ns-2's limited transmit (`TcpConfig::ns2_limited_transmit`); `ns2` only.
    pub ns2_limited_transmit: bool,
    /// ns-2's RTO arithmetic (`TcpConfig::ns2_rto`); `ns2` only.
    pub ns2_rto: bool,
    /// ns-2's Sack1 sender (`TcpConfig::ns2_sack1`); `ns2` only.
    pub ns2_sack1: bool,
    pub pacing: Pacing,
    /// TCP Small Queues: the most bytes of one socket in its host's qdisc
    /// and ring before it stops sending new data (None: off).
    pub small_queues: Option<Bytes>,
}

/// TCP pacing (docs/tcp-family.md, "Pacing"): the `pacing*` fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacing {
    pub enabled: bool,
    /// Percent of cwnd / SRTT while cwnd < ssthresh / 2.
    pub ss_ratio: u32,
    /// Percent of cwnd / SRTT otherwise.
    pub ca_ratio: u32,
    /// Data segments a connection sends before pacing starts.
    pub initial_burst: u32,
}

impl Pacing {
    /// Linux's defaults, off: `net.ipv4.tcp_pacing_ss_ratio` 200,
    /// `tcp_pacing_ca_ratio` 120, the first 10 segments unpaced
    /// (`tcp_update_skb_after_send`); no profile of the studied era paced.
    pub const OFF: Pacing = Pacing {
        enabled: false,
        ss_ratio: 200,
        ca_ratio: 120,
        initial_burst: 10,
    };
}

/// The largest pacing ratio, percent: Linux's bound on both sysctls
/// (sysctl_net_ipv4.c: `proc_dointvec_minmax` with `extra2` one thousand),
/// so every value maps to a host. Linux's lower bound is 0; here it is 1,
/// since a rate of 0 would never send.
pub const MAX_PACING_RATIO: u32 = 1000;

/// The largest unpaced initial burst, segments (as MAX_INITIAL_WINDOW).
pub const MAX_PACING_INITIAL_BURST: u32 = 1000;

/// `small_queues` as written: "off" or a size such as "128KiB".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmallQueues {
    Off,
    Limit(Bytes),
}

impl SmallQueues {
    pub fn limit(self) -> Option<Bytes> {
        match self {
            SmallQueues::Off => None,
            SmallQueues::Limit(b) => Some(b),
        }
    }
}

const SMALL_QUEUES_EXPECT: &str =
    "expected \"off\" or a size such as \"128KiB\" (Linux 3.12's tcp_limit_output_bytes)";

impl Serialize for SmallQueues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SmallQueues::Off => s.serialize_str("off"),
            SmallQueues::Limit(b) => s.serialize_str(&b.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for SmallQueues {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = SmallQueues;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(SMALL_QUEUES_EXPECT)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<SmallQueues, E> {
                match s {
                    "off" => Ok(SmallQueues::Off),
                    _ => match Bytes::parse(s) {
                        Ok(b) => Ok(SmallQueues::Limit(b)),
                        _ => Err(E::custom(format!(
                            "{s:?} is not a small-queue limit; {SMALL_QUEUES_EXPECT}"
                        ))),
                    },
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The largest TCP Small Queues limit (as MAX_RECEIVE_WINDOW).
pub const MAX_SMALL_QUEUES: Bytes = Bytes(1 << 30);

const RTO_DELAY_EXPECT: &str =
    "expected \"off\", \"adaptive\" or a positive duration such as \"5us\"";

impl Serialize for RtoDelay {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RtoDelay::Off => s.serialize_str("off"),
            RtoDelay::Adaptive => s.serialize_str("adaptive"),
            RtoDelay::Upto(t) => s.serialize_str(&t.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for RtoDelay {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RtoDelay;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(RTO_DELAY_EXPECT)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RtoDelay, E> {
                match s {
                    "off" => Ok(RtoDelay::Off),
                    "adaptive" => Ok(RtoDelay::Adaptive),
                    _ => match Time::parse(s) {
                        Ok(t) if t > Time::ZERO => Ok(RtoDelay::Upto(t)),
                        _ => Err(E::custom(format!(
                            "{s:?} is not an RTO delay; {RTO_DELAY_EXPECT}"
                        ))),
                    },
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl ProfileName {
    /// The profile's settings: the one table of profiles (the simulator's
    /// tests take theirs from it too).
    pub fn settings(&self) -> TcpSettings {
        match self {
            ProfileName::Rfc => rfc(),
            ProfileName::Linux => TcpSettings {
                initial_window: 10,
                clock: Clock::Jiffies { hz: 250 },
                granularity: Time::from_ms(4),
                // TCP_DELACK_MIN.
                delayed_ack: true,
                delayed_ack_timeout: Time::from_ms(40),
                // Linux's TCP_RTO_MAX.
                max_rto: Time::from_secs(120),
                // tcp_is_cwnd_limited.
                cwnd_validation: true,
                cc: CcKind::Cubic,
                sack: true,
                // net.ipv4.tcp_timestamps = 1 by default: every ACK is timed.
                rtt_timestamps: true,
                ..ProfileName::Rfc.settings()
            },
            ProfileName::Datacenter => TcpSettings {
                min_rto: Time::from_ms(1),
                clock: Clock::Granular {
                    tick: Time::from_us(1),
                },
                granularity: Time::from_us(1),
                delayed_ack: false,
                ..ProfileName::Linux.settings()
            },
            ProfileName::Ns2 => ns2(),
            // docs/model.md, "Host profiles": each value and where it comes from.
            ProfileName::Linux2632 => TcpSettings {
                // tcp_init_cwnd of 2.6.32: RFC 3390's 3 segments for a
                // 1460-byte MSS (TCP_INIT_CWND 10 came with 2.6.39).
                initial_window: 3,
                // CONFIG_HZ=1000 in CentOS 6's kernel configuration.
                clock: Clock::Jiffies { hz: 1000 },
                granularity: Time::from_ms(1),
                // TCP_TIMEOUT_INIT = 3 * HZ until 3.1 (RFC 6298's 1 s after).
                initial_rto: Time::from_secs(3),
                // What receive autotuning grows to: tcp_rmem[2] = 4 MiB
                // (tcp_init: min(4 MiB, memory / 128)) of which
                // tcp_adv_win_scale = 2 advertises three quarters.
                receive_window: Bytes(3 << 20),
                ..ProfileName::Linux.settings()
            },
            ProfileName::Linux312 => TcpSettings {
                // TCP_INIT_CWND = 10 (RFC 6928) since 2.6.39.
                initial_window: 10,
                // The study's vanilla 3.12.0 built with CentOS 6's
                // CONFIG_HZ=1000 (an assumption: Kconfig's default is 250).
                clock: Clock::Jiffies { hz: 1000 },
                granularity: Time::from_ms(1),
                // TCP_TIMEOUT_INIT = 1 s since 3.1 (RFC 6298).
                initial_rto: Time::from_secs(1),
                // tcp_rmem[2] = 6 MiB since 3.4, of which tcp_adv_win_scale
                // = 1 (since 3.4) advertises half: the same 3 MiB.
                receive_window: Bytes(3 << 20),
                // tcp_limit_output_bytes = 131072 (TSQ, 3.6 to 3.12: a
                // fixed cap on a socket's bytes in qdisc and ring).
                small_queues: Some(Bytes(131_072)),
                ..ProfileName::Linux.settings()
            },
        }
    }
}

/// Textbook TCP as the incast simulations ran it.
fn rfc() -> TcpSettings {
    TcpSettings {
        mss: 1460,
        // RFC 3390: min(4*MSS, max(2*MSS, 4380 bytes)) = 3 segments of 1460.
        initial_window: 3,
        // 64 KiB: the largest window without RFC 7323 scaling, and the
        // window a Linux 2.6 receiver of the incast studies advertised.
        receive_window: Bytes(64 << 10),
        // The 200 ms floor of BSD and Linux that causes incast collapse.
        min_rto: Time::from_ms(200),
        // RFC 6298 (2.5) allows a maximum of at least 60 s.
        max_rto: Time::from_secs(60),
        initial_rto: Time::from_secs(1),
        clock: Clock::Jiffies { hz: 1000 },
        granularity: Time::from_ms(1),
        // The published incast simulations ran without delayed ACKs.
        delayed_ack: false,
        delayed_ack_timeout: Time::from_ms(40),
        dupack_threshold: 3,
        slow_start_after_idle: true,
        // Textbook (and ns-2) TCP grows cwnd on every ACK.
        cwnd_validation: false,
        cc: CcKind::NewReno,
        sack: false,
        ecn: false,
        randomize_rto: false,
        rto_delay: RtoDelay::Off,
        limited_transmit: false,
        recover_check: true,
        slow_start: true,
        // ns-2's agents and the textbook estimator time one segment
        // per window, never a retransmission (Karn).
        rtt_timestamps: false,
        // Linux's tcp_retries2.
        max_retransmits: 15,
        // Connections open with a three-way handshake, as real ones do.
        handshake: true,
        // RFC 6298 keeps SRTT through any backoff.
        backoff_restarts_srtt: false,
        // RFC 6298 (5.5): double up to max_rto.
        max_backoff: 0,
        // RFC 5681 (3.1) eq. (4): half the FlightSize.
        halve_window: false,
        // RFC 5681 (3.2) and RFC 6582.
        ns2_recovery: false,
        // RFC 5681 (4.1) is slow_start_after_idle.
        idle_restart: false,
        // RFC 3042: limited transmit sends new data only.
        ns2_limited_transmit: false,
        // RFC 6298.
        ns2_rto: false,
        // RFC 6675.
        ns2_sack1: false,
        // No host of the incast era paced (fq and TCP pacing came
        // with Linux 3.12, 2013).
        pacing: Pacing::OFF,
        // TCP Small Queues came with Linux 3.6 (2012): no host of
        // the incast era had them.
        small_queues: None,
    }
}

/// ns-2's tcl/lib/ns-default.tcl (docs/model.md, "The ns2 profile").
fn ns2() -> TcpSettings {
    TcpSettings {
        // packetSize_ 1000.
        mss: 1000,
        // windowInit_ 2.
        initial_window: 2,
        // window_ 20 (packets).
        receive_window: Bytes(20 * 1000),
        // minrto_ 0.2, maxrto_ 60, rtxcur_init_ 3.0.
        min_rto: Time::from_ms(200),
        max_rto: Time::from_secs(60),
        initial_rto: Time::from_secs(3),
        // tcpTick_ 0.01.
        clock: Clock::Granular {
            tick: Time::from_ms(10),
        },
        granularity: Time::from_ms(10),
        // singledup_ 1.
        limited_transmit: true,
        // ns-2 restarts after idle its own way (idle_restart
        // below); QOption_ 0.
        slow_start_after_idle: false,
        // ns-2 never gives up.
        max_retransmits: MAX_RETRANSMITS,
        // One-way agents: no SYN exchange.
        handshake: false,
        // rtt_backoff(): past a backoff of 8, t_srtt_ = 0.
        backoff_restarts_srtt: true,
        // tcp.cc slowdown(): ssthresh = min(cwnd_, window_) / 2.
        halve_window: true,
        // tcp-reno.cc, tcp-newreno.cc: recv(), dupack_action().
        ns2_recovery: true,
        // tcp.cc newtimer(), timeout(): slow_start_restart_ true.
        idle_restart: true,
        // tcp.cc send_one(): the segment at t_seqno_, after a
        // timeout a go-back-N retransmission.
        ns2_limited_transmit: true,
        // tcp.cc rtt_update(), rtt_timeout(), rtt_backoff().
        ns2_rto: true,
        // tcp-sack1.cc: Agent/TCP/Sack1 with partial_ack_ true.
        ns2_sack1: true,
        ..ProfileName::Rfc.settings()
    }
}

/// The most consecutive timeouts before a connection aborts: Linux counts
/// them in a u8 (`icsk_retransmits`); more only makes a dead connection
/// retransmit for longer.
pub const MAX_RETRANSMITS: u32 = 255;

/// The largest initial window: 10 times RFC 6928's 10 segments. A burst
/// larger than a host's NIC queue is dropped there, and the simulator
/// resends the dropped rest on every ACK: about iw^2 attempts per
/// connection (100 short flows of 1000 segments: 670,000 attempts at 100,
/// 36 million at 1000; one flow at 100,000 never finished a 2 s run).
pub const MAX_INITIAL_WINDOW: u32 = 100;

/// The largest receive window: RFC 7323's 2^30 bytes.
pub const MAX_RECEIVE_WINDOW: Bytes = Bytes(1 << 30);

/// TCP settings: a profile, then field-by-field overrides.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<CcKind>,
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
    pub resolution: Option<Resolution>,
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
    /// A random delay added to each timeout: "off", "adaptive" or a bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_random_delay: Option<RtoDelay>,
    /// RFC 3042 limited transmit (ns-2's singledup_).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    /// RFC 6582 (3.2) step 2's check of `recover` (ns-2's bugFix_).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recover_check: Option<bool>,
    /// RFC 5681 slow start (false: congestion avoidance only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_start: Option<bool>,
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
    /// After the fourth consecutive timeout the next RTT sample restarts
    /// the estimator (ns-2's and 4.4BSD's backoff rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_restarts_srtt: Option<bool>,
    /// The largest factor timeouts multiply the RTO by (0: up to max_rto).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_backoff: Option<u32>,
    /// Linux's TCP pacing (fq-style spacing at a ratio of cwnd / SRTT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<bool>,
    /// Pacing rate in slow start, percent of cwnd / SRTT (Linux: 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_ss_ratio: Option<u32>,
    /// Pacing rate in congestion avoidance, percent of cwnd / SRTT (120).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_ca_ratio: Option<u32>,
    /// Data segments sent unpaced at a connection's start (Linux: 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_initial_burst: Option<u32>,
    /// TCP Small Queues: "off" or the most bytes of a socket in its host's
    /// qdisc and ring (Linux 3.12: "128KiB").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small_queues: Option<SmallQueues>,
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
            rto_random_delay,
            limited_transmit,
            recover_check,
            slow_start,
            rtt_timestamps,
            max_retransmits,
            handshake,
            backoff_restarts_srtt,
            max_backoff,
            pacing,
            pacing_ss_ratio,
            pacing_ca_ratio,
            pacing_initial_burst,
            small_queues
        )
    }

    /// The profile named, or the default: "rfc", the textbook TCP the
    /// incast studies simulated.
    pub fn profile(&self) -> ProfileName {
        self.profile.unwrap_or(ProfileName::Rfc)
    }

    /// The profile's settings with this spec's overrides applied; errors
    /// name fields under `path` ("tcp" or "workload[2].tcp").
    pub fn resolve(&self, path: &str) -> Result<TcpSettings, ScenarioError> {
        self.resolve_from(path, ProfileName::Rfc)
    }

    /// As [`TcpSpec::resolve`], from `default` when no profile is named
    /// (the host profile's: `[host] profile`).
    pub fn resolve_from(
        &self,
        path: &str,
        default: ProfileName,
    ) -> Result<TcpSettings, ScenarioError> {
        let at = |f: &str| format!("{path}.{f}");
        let mut c = self.profile.unwrap_or(default).settings();
        for (f, t) in [
            ("min_rto", self.min_rto),
            ("max_rto", self.max_rto),
            ("initial_rto", self.initial_rto),
            ("clock_granularity", self.clock_granularity),
            ("delayed_ack_timeout", self.delayed_ack_timeout),
        ] {
            if let Some(t) = t {
                check_time(&at(f), t)?;
            }
        }
        if let Some(Resolution::Granular(t)) = self.resolution {
            check_time(&at("resolution"), t)?;
        }
        self.apply_sizes(&mut c, &at)?;
        self.apply_timers(&mut c, &at)?;
        self.apply_recovery(&mut c, &at)?;
        self.apply_pacing(&mut c, &at)?;
        Ok(c)
    }

    /// Congestion control, MSS and windows.
    fn apply_sizes(
        &self,
        c: &mut TcpSettings,
        at: &dyn Fn(&str) -> String,
    ) -> Result<(), ScenarioError> {
        if let Some(cc) = self.cc {
            c.cc = cc;
        }
        if let Some(m) = self.mss {
            if m.get() < 64 || m.get() > 65_000 {
                return Err(ScenarioError::new(
                    at("mss"),
                    format!("\"{m}\" is out of range; expected 64B to 65000B"),
                ));
            }
            c.mss = m.get() as u32;
        }
        if let Some(iw) = self.initial_window {
            if iw == 0 || iw > MAX_INITIAL_WINDOW {
                return Err(ScenarioError::new(
                    at("initial_window"),
                    format!("{iw} is not allowed; expected 1 to {MAX_INITIAL_WINDOW} segments (RFC 6928 uses 10)"),
                ));
            }
            c.initial_window = iw;
        }
        if let Some(w) = self.receive_window {
            if w.get() < c.mss as u64 || w > MAX_RECEIVE_WINDOW {
                return Err(ScenarioError::new(
                    at("receive_window"),
                    format!("\"{w}\" is out of range; expected at least the MSS ({}B) and at most {MAX_RECEIVE_WINDOW} (RFC 7323's largest window)", c.mss),
                ));
            }
            c.receive_window = w;
        }
        Ok(())
    }

    /// The clock, the RTO bounds, delayed ACKs and the duplicate-ACK threshold.
    fn apply_timers(
        &self,
        c: &mut TcpSettings,
        at: &dyn Fn(&str) -> String,
    ) -> Result<(), ScenarioError> {
        if let Some(hz) = self.hz {
            if !(1..=1_000_000).contains(&hz) {
                return Err(ScenarioError::new(
                    at("hz"),
                    format!("{hz} is out of range; expected 1 to 1000000 ticks per second"),
                ));
            }
        }
        match (self.resolution, self.hz) {
            (None, Some(hz)) => c.clock = Clock::Jiffies { hz },
            (None, None) => {}
            (Some(Resolution::Jiffy), hz) => {
                // Without hz, the profile's tick as a rate (1 MHz for a
                // microsecond clock).
                let hz = hz.unwrap_or((PS_PER_SEC / c.clock.tick().0) as u32);
                c.clock = Clock::Jiffies { hz };
            }
            (Some(Resolution::Granular(t)), _) => c.clock = Clock::Granular { tick: t },
            (Some(Resolution::Auto), hz) => {
                let base = hz.map_or(c.clock, |hz| Clock::Jiffies { hz });
                c.clock = auto_clock(self.min_rto.unwrap_or(c.min_rto), base);
            }
        }
        // G defaults to the timer's tick (RFC 6298 (2.2) clock granularity).
        c.granularity = self.clock_granularity.unwrap_or(c.clock.tick());
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
                at("min_rto"),
                "\"0s\" with a zero clock granularity gives a zero RTO; expected a positive min_rto",
            ));
        }
        if c.max_rto < c.min_rto || c.max_rto == Time::ZERO {
            return Err(ScenarioError::new(
                at("max_rto"),
                format!(
                    "\"{}\" is below min_rto \"{}\" or zero; expected a positive max_rto >= min_rto",
                    c.max_rto, c.min_rto
                ),
            ));
        }
        if c.initial_rto == Time::ZERO {
            return Err(ScenarioError::new(
                at("initial_rto"),
                "\"0s\" is not allowed; expected a positive duration such as \"1s\"",
            ));
        }
        if let Some(b) = self.delayed_ack {
            c.delayed_ack = b;
        }
        if let Some(t) = self.delayed_ack_timeout {
            if t == Time::ZERO {
                return Err(ScenarioError::new(
                    at("delayed_ack_timeout"),
                    "\"0s\" is not allowed; expected a positive duration such as \"40ms\" (set delayed_ack = false to turn delayed ACKs off)",
                ));
            }
            c.delayed_ack_timeout = t;
        }
        if let Some(k) = self.dupack_threshold {
            if k == 0 {
                return Err(ScenarioError::new(
                    at("dupack_threshold"),
                    "0 is not allowed; expected at least 1 (RFC 5681 uses 3)",
                ));
            }
            c.dupack_threshold = k;
        }
        Ok(())
    }

    /// Loss recovery and retransmission timeouts.
    fn apply_recovery(
        &self,
        c: &mut TcpSettings,
        at: &dyn Fn(&str) -> String,
    ) -> Result<(), ScenarioError> {
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
                at("ecn"),
                "false is not allowed with cc = \"dctcp\"; DCTCP needs ECN (RFC 8257 (3))",
            ));
        }
        if let Some(b) = self.randomize_rto {
            c.randomize_rto = b;
        }
        if let Some(d) = self.rto_random_delay {
            if let RtoDelay::Upto(t) = d {
                check_time(&at("rto_random_delay"), t)?;
            }
            c.rto_delay = d;
        }
        if let Some(b) = self.limited_transmit {
            c.limited_transmit = b;
        }
        if let Some(b) = self.recover_check {
            c.recover_check = b;
        }
        if let Some(b) = self.slow_start {
            c.slow_start = b;
        }
        if let Some(b) = self.rtt_timestamps {
            c.rtt_timestamps = b;
        }
        if let Some(b) = self.backoff_restarts_srtt {
            c.backoff_restarts_srtt = b;
        }
        if let Some(n) = self.max_backoff {
            if n != 0 && !n.is_power_of_two() {
                return Err(ScenarioError::new(
                    at("max_backoff"),
                    format!(
                        "{n} is not allowed; expected 0 (no limit) or a power of two such as 64"
                    ),
                ));
            }
            c.max_backoff = n;
        }
        if let Some(n) = self.max_retransmits {
            if n == 0 || n > MAX_RETRANSMITS {
                return Err(ScenarioError::new(
                    at("max_retransmits"),
                    format!("{n} is not allowed; expected 1 to {MAX_RETRANSMITS} (Linux uses 15)"),
                ));
            }
            c.max_retransmits = n;
        }
        // A connection that stops getting answers gives up within the
        // largest time a scenario may name, so a stalled run still ends
        // long before the simulator's clock (213 days) runs out.
        let give_up = c.max_rto.times(c.max_retransmits as u64 + 1);
        if give_up > MAX_TIME {
            return Err(ScenarioError::new(
                at("max_rto"),
                format!(
                    "\"{}\" x (max_retransmits {} + 1) = \"{give_up}\" of consecutive timeouts before a connection gives up; expected at most \"{MAX_TIME}\"",
                    c.max_rto, c.max_retransmits
                ),
            ));
        }
        Ok(())
    }

    /// The handshake, pacing and TCP Small Queues.
    fn apply_pacing(
        &self,
        c: &mut TcpSettings,
        at: &dyn Fn(&str) -> String,
    ) -> Result<(), ScenarioError> {
        if let Some(b) = self.handshake {
            c.handshake = b;
        }
        if let Some(b) = self.pacing {
            c.pacing.enabled = b;
        }
        for (f, v, slot) in [
            (
                "pacing_ss_ratio",
                self.pacing_ss_ratio,
                &mut c.pacing.ss_ratio,
            ),
            (
                "pacing_ca_ratio",
                self.pacing_ca_ratio,
                &mut c.pacing.ca_ratio,
            ),
        ] {
            if let Some(r) = v {
                if !(1..=MAX_PACING_RATIO).contains(&r) {
                    return Err(ScenarioError::new(
                        at(f),
                        format!("{r} is out of range; expected 1 to {MAX_PACING_RATIO} percent of cwnd / SRTT (Linux uses 200 in slow start, 120 after)"),
                    ));
                }
                *slot = r;
            }
        }
        if let Some(n) = self.pacing_initial_burst {
            if n > MAX_PACING_INITIAL_BURST {
                return Err(ScenarioError::new(
                    at("pacing_initial_burst"),
                    format!("{n} is out of range; expected 0 to {MAX_PACING_INITIAL_BURST} segments (Linux leaves 10 unpaced)"),
                ));
            }
            c.pacing.initial_burst = n;
        }
        if let Some(q) = self.small_queues {
            if let SmallQueues::Limit(b) = q {
                if b.get() == 0 || b > MAX_SMALL_QUEUES {
                    return Err(ScenarioError::new(
                        at("small_queues"),
                        format!("\"{b}\" is out of range; expected \"off\" or 1B to {MAX_SMALL_QUEUES} (Linux 3.12 uses 128KiB)"),
                    ));
                }
            }
            c.small_queues = q.limit();
        }
        Ok(())
    }
}
