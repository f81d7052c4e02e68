//! `[[workload]]`: what the hosts do. One struct per kind, chosen by `kind`
//! before the other fields are read: a field of another kind is refused by
//! name, a missing one is named, and each kind checks its own values.

use super::check::{check_number, check_rate, check_time};
use super::cost::{EstimateCtx, Estimated, Pace, Transfers, WorkloadCost};
use super::error::ScenarioError;
use super::limits::{approx, mul_div, segments, Term, HEADERS};
use super::radon::RadonSpec;
use super::tagged::{self, Value};
use super::tcp::{TcpSettings, TcpSpec};
use crate::units::{BitsPerSec, Bytes, Time, PS_PER_SEC};
use crate::vocab::named_enum;
pub use crate::vocab::Arrivals;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The most bytes one connection may carry in one direction over a run:
/// 2^60 (1 EiB), so that its byte counters and sequence numbers (u64) never
/// wrap, whatever is added to them.
pub const MAX_STREAM_BYTES: u64 = 1 << 60;

/// Default request size: a small read RPC (an NFS READ call is about 100-200 bytes).
pub const DEFAULT_REQUEST: Bytes = Bytes(100);
/// Default incast rounds: the 20 rounds of the incast studies' runs.
pub const DEFAULT_ROUNDS: u32 = 20;
/// Default UDP datagram: a full Ethernet frame's IP packet.
pub const DEFAULT_UDP_PACKET: Bytes = Bytes(1500);
/// Default NFS read size: the hash-cast study's 64 KB I/O size.
pub const DEFAULT_IO_SIZE: Bytes = Bytes(64 << 10);
/// Default READs in flight per client: Linux's NFS readahead of the study's
/// kernels, NFS_MAX_READAHEAD = RPC_DEF_SLOT_TABLE - 1 = 15 rsize-sized
/// reads (fs/nfs/internal.h; `ra_pages = rpages * NFS_MAX_READAHEAD`).
pub const DEFAULT_OUTSTANDING: u32 = 15;
/// The most READs in flight: sunrpc's largest slot table (RPC_MAX_SLOT_TABLE_LIMIT).
pub const MAX_OUTSTANDING: u32 = 65_536;
/// Default NFSv4.1 READ call on the wire (TCP payload): record mark, RPC
/// call header with AUTH_SYS credentials, COMPOUND of SEQUENCE, PUTFH and
/// READ: about 200 bytes.
pub const DEFAULT_NFS_REQUEST: Bytes = Bytes(200);
/// Default header before each READ reply's data: record mark (4), RPC
/// reply header (24), COMPOUND result (12), SEQUENCE (44), PUTFH (8) and
/// READ (16) results: 108 bytes.
pub const DEFAULT_REPLY_HEADER: Bytes = Bytes(108);
/// The largest reply header or request an NFS read may name: 1 MiB.
pub const MAX_RPC_MESSAGE: Bytes = Bytes(1 << 20);

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

named_enum! {
    /// The order in which an incast client sends a round's requests.
    pub enum RequestOrder ("request order") {
        /// Server order, every round (the default).
        Index = "index",
        /// A new random permutation every round, from the run's seed: the
        /// published ns-2 client shuffles its servers before each round
        /// (github.com/amarp/incast, IncastTcpAppClient::send_requests,
        /// seeded from the wall clock there).
        Random = "random",
    }
}

named_enum! {
    /// The transport a workload's flows run on (`transport`).
    pub enum Transport ("transport") {
        /// TCP connections: the default of incast, bulk, short and
        /// nfs_read, whose requests and replies need a reliable byte stream.
        Tcp = "tcp",
        /// Datagrams paced at a rate: the udp workload's.
        Udp = "udp",
        /// Radon streams: datagrams paced by a wait the sender adapts to
        /// the receiver's feedback on relative forward delay, under a
        /// reservation (docs/radon.md).
        Radon = "radon",
    }
}

/// Barrier-synchronized striped reads: one client, many servers.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IncastSpec {
    /// The transport its flows run on (see [`WorkloadSpec::transports`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    /// When the client opens its connections (default 0: at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Time>,
    pub client: String,
    /// Default "all": every host but the client, the incast studies' one
    /// client reading from every server.
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
    /// Each server answers after a uniform random think time in [0, jitter]
    /// (default 0: the published simulations answered at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_jitter: Option<Time>,
    /// Before the first round, the client exchanges one `request`-sized
    /// message with each server in turn, waiting for each answer (of
    /// `request` bytes) before asking the next (default false). The ns-2
    /// incast application of the published simulations does this
    /// (IncastTcpAppClient::process_init); it gives every connection an
    /// RTT sample on an idle network before the first block. Not counted in
    /// the goodput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<bool>,
    /// The order of each round's requests (default "index"). Requests leave
    /// the client one after another, so the order decides which server
    /// starts first; "random" draws it anew every round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_order: Option<RequestOrder>,
    /// TCP settings of this workload's connections, over the scenario's [tcp].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSpec>,
}

/// A long-lived TCP flow.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BulkSpec {
    /// The transport its flows run on (see [`WorkloadSpec::transports`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Time>,
    pub src: String,
    pub dst: String,
    /// Bytes to send; without it the flow sends until the run ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSpec>,
}

/// Many short TCP flows of one size, opening at instants spread over an
/// interval.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShortSpec {
    /// The transport its flows run on (see [`WorkloadSpec::transports`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Time>,
    pub src: String,
    pub dst: String,
    /// How many flows.
    pub count: u32,
    /// Bytes per flow (or `packets`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    /// Full segments (MSS bytes each) per flow, instead of `size`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<u32>,
    /// Flows open at instants drawn uniformly in [start, start + spread)
    /// (default 0: all at `start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSpec>,
}

/// NFS-like sequential reads: each client reads a file from one server over
/// its own connection, `io_size` bytes per READ RPC, `outstanding` in flight.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NfsReadSpec {
    /// The transport its flows run on (see [`WorkloadSpec::transports`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    /// When the clients open their connections (default 0: at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Time>,
    pub server: String,
    /// One client (or `clients`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// Several clients, each with its own connection and file: `"all"`
    /// (every host but the server, the default) or a list of names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<ServerList>,
    /// Bytes each client reads.
    pub file_size: Bytes,
    /// File bytes per READ (default 64KiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_size: Option<Bytes>,
    /// READs each client keeps in flight (default 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outstanding: Option<u32>,
    /// Bytes of each READ call (default 200B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Bytes>,
    /// Bytes before each reply's data (default 108B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_header: Option<Bytes>,
    /// The server answers no faster than its disk reads at this rate
    /// (shared by this workload's clients; default: from memory, at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_rate: Option<BitsPerSec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSpec>,
}

/// Constant-rate UDP datagrams (background load).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// The transport its flows run on (see [`WorkloadSpec::transports`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Time>,
    pub src: String,
    pub dst: String,
    /// Average rate of the datagrams' payload (with transport "radon", the
    /// reservation's rate; else give `utilization`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<BitsPerSec>,
    /// Radon: the reservation as a fraction of the slowest link on the
    /// stream's path, in place of `rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization: Option<f64>,
    /// Radon: the reservation's period (default 10ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Time>,
    /// Default "poisson" (transport "udp"); a Radon stream is paced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<Arrivals>,
    /// Datagram size as an IP packet (default 1500B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_size: Option<Bytes>,
    /// Send this many datagrams, then stop (UDPmon's count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<u64>,
    /// Send no datagram at or after this instant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Time>,
    /// Radon's settings over the scenario's `[radon]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radon: Option<RadonSpec>,
}

/// One workload.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadSpec {
    Incast(IncastSpec),
    Bulk(BulkSpec),
    Short(ShortSpec),
    Udp(UdpSpec),
    NfsRead(NfsReadSpec),
}

const KINDS: [&str; 5] = ["incast", "bulk", "short", "udp", "nfs_read"];

impl<'de> Deserialize<'de> for WorkloadSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::deserialize_tagged(d, "workload", &KINDS, |k, rest: Value| {
            let kind = KINDS[k];
            Ok(match k {
                0 => WorkloadSpec::Incast(tagged::read_as(rest, kind, "workload")?),
                1 => WorkloadSpec::Bulk(tagged::read_as(rest, kind, "workload")?),
                2 => WorkloadSpec::Short(tagged::read_as(rest, kind, "workload")?),
                3 => WorkloadSpec::Udp(tagged::read_as(rest, kind, "workload")?),
                _ => WorkloadSpec::NfsRead(tagged::read_as(rest, kind, "workload")?),
            })
        })
    }
}

#[derive(Serialize)]
struct Tagged<'a, T> {
    kind: &'static str,
    #[serde(flatten)]
    spec: &'a T,
}

impl Serialize for WorkloadSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let kind = self.kind();
        match self {
            WorkloadSpec::Incast(w) => Tagged { kind, spec: w }.serialize(s),
            WorkloadSpec::Bulk(w) => Tagged { kind, spec: w }.serialize(s),
            WorkloadSpec::Short(w) => Tagged { kind, spec: w }.serialize(s),
            WorkloadSpec::Udp(w) => Tagged { kind, spec: w }.serialize(s),
            WorkloadSpec::NfsRead(w) => Tagged { kind, spec: w }.serialize(s),
        }
    }
}

/// What a workload's check needs to know of the rest of the scenario.
pub struct Context<'a> {
    /// "workload[i]".
    pub path: String,
    pub hosts: &'a [String],
    pub index: &'a super::topology::HostIndex,
    /// The TCP settings of this workload's connections.
    pub tcp: &'a TcpSettings,
}

impl Context<'_> {
    fn at(&self, f: &str) -> String {
        format!("{}.{f}", self.path)
    }

    fn host(&self, f: &str, name: &str) -> Result<(), ScenarioError> {
        if self.index.contains_key(name) {
            Ok(())
        } else {
            Err(unknown_node(&self.at(f), name, self.hosts, &[]))
        }
    }

    fn pair(&self, src: &str, dst: &str) -> Result<(), ScenarioError> {
        self.host("src", src)?;
        self.host("dst", dst)?;
        if src == dst {
            return Err(ScenarioError::new(
                self.at("dst"),
                format!("{dst:?} is also the source; expected another host"),
            ));
        }
        Ok(())
    }

    /// `per` bytes `times` over on one connection fit [`MAX_STREAM_BYTES`].
    fn stream(&self, f: &str, per: u64, times: u64) -> Result<(), ScenarioError> {
        match per.checked_mul(times) {
            Some(n) if n <= MAX_STREAM_BYTES => Ok(()),
            _ => Err(ScenarioError::new(
                self.at(f),
                format!(
                    "{per} bytes x {times} on one connection is more than {} (1 EiB); expected less",
                    Bytes(MAX_STREAM_BYTES)
                ),
            )),
        }
    }

    fn positive(&self, f: &str, b: Option<Bytes>) -> Result<(), ScenarioError> {
        if b == Some(Bytes(0)) {
            return Err(ScenarioError::new(
                self.at(f),
                "\"0B\" is not allowed; expected a positive size",
            ));
        }
        Ok(())
    }
}

impl WorkloadSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadSpec::Incast(_) => KINDS[0],
            WorkloadSpec::Bulk(_) => KINDS[1],
            WorkloadSpec::Short(_) => KINDS[2],
            WorkloadSpec::Udp(_) => KINDS[3],
            WorkloadSpec::NfsRead(_) => KINDS[4],
        }
    }

    pub fn start(&self) -> Time {
        match self {
            WorkloadSpec::Incast(w) => w.start,
            WorkloadSpec::Bulk(w) => w.start,
            WorkloadSpec::Short(w) => w.start,
            WorkloadSpec::Udp(w) => w.start,
            WorkloadSpec::NfsRead(w) => w.start,
        }
        .unwrap_or(Time::ZERO)
    }

    /// This workload's TCP overrides (UDP has none).
    pub fn tcp(&self) -> Option<&TcpSpec> {
        match self {
            WorkloadSpec::Incast(w) => w.tcp.as_ref(),
            WorkloadSpec::Bulk(w) => w.tcp.as_ref(),
            WorkloadSpec::Short(w) => w.tcp.as_ref(),
            WorkloadSpec::NfsRead(w) => w.tcp.as_ref(),
            WorkloadSpec::Udp(_) => None,
        }
    }

    /// The transports it can run on, its default first: the application
    /// protocols of incast, short, bulk and NFS reads are byte streams
    /// (requests and sized replies) with no rate of their own, which a
    /// datagram flow paced at a rate does not carry; the udp workload is
    /// that paced flow.
    pub fn transports(&self) -> &'static [Transport] {
        match self {
            WorkloadSpec::Udp(_) => &[Transport::Udp, Transport::Radon],
            _ => &[Transport::Tcp],
        }
    }

    /// The transport its flows run on: the one given, or its kind's default.
    pub fn transport(&self) -> Transport {
        let given = match self {
            WorkloadSpec::Incast(w) => w.transport,
            WorkloadSpec::Bulk(w) => w.transport,
            WorkloadSpec::Short(w) => w.transport,
            WorkloadSpec::Udp(w) => w.transport,
            WorkloadSpec::NfsRead(w) => w.transport,
        };
        given.unwrap_or(self.transports()[0])
    }

    /// Refuses a transport its kind cannot run on, by field path.
    fn check_transport(&self, cx: &Context) -> Result<(), ScenarioError> {
        let (t, allowed) = (self.transport(), self.transports());
        if allowed.contains(&t) {
            return Ok(());
        }
        let names: Vec<String> = allowed.iter().map(|a| format!("{:?}", a.name())).collect();
        Err(ScenarioError::new(
            cx.at("transport"),
            format!(
                "{:?} cannot carry a {} workload; expected {}",
                t.name(),
                self.kind(),
                names.join(" or ")
            ),
        ))
    }

    /// Sends until the run's duration ends (a bulk flow without a size, UDP).
    pub fn unbounded(&self) -> bool {
        matches!(
            self,
            WorkloadSpec::Bulk(BulkSpec { size: None, .. }) | WorkloadSpec::Udp(_)
        )
    }

    /// The latest instant it opens a connection or starts sending.
    pub fn last_open(&self) -> Option<Time> {
        let spread = match self {
            WorkloadSpec::Short(w) => w.spread.unwrap_or(Time::ZERO),
            _ => Time::ZERO,
        };
        self.start().0.checked_add(spread.0).map(Time)
    }

    /// Checks the workload's own values and its hosts.
    pub fn validate(&self, cx: &Context) -> Result<(), ScenarioError> {
        for (f, t) in self.times() {
            check_time(&cx.at(f), t)?;
        }
        self.check_transport(cx)?;
        match self {
            WorkloadSpec::Incast(w) => w.validate(cx),
            WorkloadSpec::Bulk(w) => {
                cx.pair(&w.src, &w.dst)?;
                if w.size == Some(Bytes(0)) {
                    return Err(ScenarioError::new(cx.at("size"), "\"0B\" is not allowed; expected a positive size or no size (send until the run ends)"));
                }
                cx.stream("size", w.size.map_or(0, |s| s.get()), 1)
            }
            WorkloadSpec::Short(w) => w.validate(cx),
            WorkloadSpec::NfsRead(w) => w.validate(cx),
            WorkloadSpec::Udp(w) => w.validate(cx, self.transport() == Transport::Radon),
        }
    }

    /// Its time fields that are given, by name.
    fn times(&self) -> Vec<(&'static str, Time)> {
        let mut v = vec![("start", self.start())];
        match self {
            WorkloadSpec::Incast(w) => v.extend(w.response_jitter.map(|t| ("response_jitter", t))),
            WorkloadSpec::Short(w) => v.extend(w.spread.map(|t| ("spread", t))),
            WorkloadSpec::Udp(w) => v.extend(w.stop.map(|t| ("stop", t))),
            _ => {}
        }
        v
    }
}

/// Payload bytes a Radon datagram needs: its frame number and its send
/// timestamp, 8 bytes each.
pub const RADON_MIN_PAYLOAD: u64 = 16;

impl UdpSpec {
    /// Checks the stream's own values; `radon`: it runs on Radon.
    fn validate(&self, cx: &Context, radon: bool) -> Result<(), ScenarioError> {
        cx.pair(&self.src, &self.dst)?;
        match (self.rate, self.utilization) {
            (Some(r), None) => check_rate(&cx.at("rate"), r)?,
            (None, Some(u)) if radon => check_number(
                &cx.at("utilization"),
                u,
                |u| u > 0.0 && u <= 1.0,
                "a fraction in (0, 1] of the slowest link on the path",
            )?,
            (None, Some(_)) => {
                return Err(ScenarioError::new(
                    cx.at("utilization"),
                    "is a reservation; expected rate, or transport = \"radon\"",
                ))
            }
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    cx.at("utilization"),
                    "is given with rate; expected one of rate and utilization",
                ))
            }
            (None, None) => {
                return Err(ScenarioError::new(
                    cx.at("rate"),
                    "is missing; expected a rate such as \"500Mbps\" (or utilization, with transport = \"radon\")",
                ))
            }
        }
        let least = if radon { 28 + RADON_MIN_PAYLOAD } else { 28 };
        if let Some(sz) = self.packet_size {
            if sz.get() < least || sz.get() > 65_535 {
                let why = if radon {
                    " (UDP and IP headers, frame number and send timestamp)"
                } else {
                    " (UDP and IP headers)"
                };
                return Err(ScenarioError::new(
                    cx.at("packet_size"),
                    format!("\"{sz}\" is out of range; expected {least}B{why} to 65535B"),
                ));
            }
        }
        if self.packets == Some(0) {
            return Err(ScenarioError::new(
                cx.at("packets"),
                "0 is not allowed; expected a positive count, or no count (send until stop or the run ends)",
            ));
        }
        if let (Some(stop), start) = (self.stop, self.start.unwrap_or(Time::ZERO)) {
            if stop <= start {
                return Err(ScenarioError::new(
                    cx.at("stop"),
                    format!("\"{stop}\" is not after start \"{start}\"; expected a later instant"),
                ));
            }
        }
        if !radon {
            for (f, given) in [
                ("period", self.period.is_some()),
                ("radon", self.radon.is_some()),
            ] {
                if given {
                    return Err(ScenarioError::new(
                        cx.at(f),
                        "is a Radon setting; expected transport = \"radon\" with it",
                    ));
                }
            }
            return Ok(());
        }
        if self.arrivals == Some(Arrivals::Poisson) {
            return Err(ScenarioError::new(
                cx.at("arrivals"),
                "\"poisson\" is not how a Radon stream sends; expected \"periodic\" (its sender paces by a wait)",
            ));
        }
        if let Some(p) = self.period {
            check_time(&cx.at("period"), p)?;
            if p < Time::from_us(1) {
                return Err(ScenarioError::new(
                    cx.at("period"),
                    format!(
                        "\"{p}\" is shorter than 1us; expected a period of at least a microsecond"
                    ),
                ));
            }
        }
        if let Some(r) = &self.radon {
            r.validate(&cx.at("radon"))?;
            if let Some(v) = r.reserve {
                // Admission keeps one reserve per port, shared by every
                // stream that crosses it.
                return Err(ScenarioError::new(
                    cx.at("radon.reserve"),
                    format!("{v} is a port's setting, not a stream's; expected it in [radon]"),
                ));
            }
        }
        Ok(())
    }

    /// The datagrams' IP packet size.
    pub fn size(&self) -> Bytes {
        self.packet_size.unwrap_or(DEFAULT_UDP_PACKET)
    }
}

impl IncastSpec {
    pub fn rounds(&self) -> u32 {
        self.rounds.unwrap_or(DEFAULT_ROUNDS)
    }
    pub fn request(&self) -> Bytes {
        self.request.unwrap_or(DEFAULT_REQUEST)
    }

    /// The servers, resolved against the topology's hosts.
    pub fn servers(&self, hosts: &[String]) -> Vec<String> {
        match &self.servers {
            Some(ServerList::Names(v)) => v.clone(),
            None | Some(ServerList::All) => hosts
                .iter()
                .filter(|h| **h != self.client)
                .cloned()
                .collect(),
        }
    }

    /// How many servers, without making their names (the client is one of
    /// `hosts`, checked before).
    pub fn server_count(&self, hosts: &[String]) -> usize {
        match &self.servers {
            Some(ServerList::Names(v)) => v.len(),
            None | Some(ServerList::All) => hosts.len().saturating_sub(1),
        }
    }

    /// Reply bytes of every server in one round.
    pub fn round_bytes(&self, servers: u64) -> u64 {
        match (self.sru, self.block) {
            (Some(s), _) => s.get().saturating_mul(servers),
            (None, Some(b)) => b.get(),
            (None, None) => 0,
        }
    }

    fn validate(&self, cx: &Context) -> Result<(), ScenarioError> {
        cx.host("client", &self.client)?;
        if let Some(ServerList::Names(names)) = &self.servers {
            let mut seen = std::collections::HashSet::new();
            for (j, s) in names.iter().enumerate() {
                let at = cx.at(&format!("servers[{j}]"));
                cx.host(&format!("servers[{j}]"), s)?;
                if *s == self.client || !seen.insert(s.as_str()) {
                    return Err(ScenarioError::new(
                        at,
                        format!("{s:?} is the client or listed twice; expected distinct servers other than the client"),
                    ));
                }
            }
        }
        let servers = self.server_count(cx.hosts);
        if servers == 0 {
            return Err(ScenarioError::new(
                cx.at("servers"),
                "no servers; expected at least one host other than the client",
            ));
        }
        match (self.sru, self.block) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    cx.at("block"),
                    "both sru and block given; expected exactly one",
                ))
            }
            (None, None) => {
                return Err(ScenarioError::new(
                    cx.at("sru"),
                    "missing; an incast workload needs sru (bytes per server) or block (bytes per round)",
                ))
            }
            (None, Some(b)) if b.get() < servers as u64 => {
                return Err(ScenarioError::new(
                    cx.at("block"),
                    format!(
                        "\"{b}\" gives less than one byte per server; expected at least {servers} bytes"
                    ),
                ))
            }
            _ => {}
        }
        cx.positive("sru", self.sru)?;
        cx.positive("request", self.request)?;
        if self.rounds == Some(0) {
            return Err(ScenarioError::new(
                cx.at("rounds"),
                "0 is not allowed; expected at least 1 round",
            ));
        }
        let rounds = self.rounds() as u64;
        let reply = self.round_bytes(servers as u64).div_ceil(servers as u64);
        let (f, per) = match (self.sru, self.block) {
            (Some(_), _) => ("sru", reply),
            _ => ("block", reply),
        };
        cx.stream(f, per, rounds)?;
        cx.stream("request", self.request().get(), rounds)
    }
}

impl NfsReadSpec {
    pub fn io_size(&self) -> Bytes {
        self.io_size.unwrap_or(DEFAULT_IO_SIZE)
    }
    pub fn outstanding(&self) -> u32 {
        self.outstanding.unwrap_or(DEFAULT_OUTSTANDING)
    }
    pub fn request(&self) -> Bytes {
        self.request.unwrap_or(DEFAULT_NFS_REQUEST)
    }
    pub fn reply_header(&self) -> Bytes {
        self.reply_header.unwrap_or(DEFAULT_REPLY_HEADER)
    }
    /// READ RPCs per client.
    pub fn requests(&self) -> u64 {
        self.file_size.get().div_ceil(self.io_size().get().max(1))
    }
    /// Bytes the server sends each client: the file and a header per reply.
    pub fn reply_bytes(&self) -> u64 {
        self.requests()
            .saturating_mul(self.reply_header().get())
            .saturating_add(self.file_size.get())
    }

    /// The clients, resolved against the topology's hosts.
    pub fn clients(&self, hosts: &[String]) -> Vec<String> {
        match (&self.client, &self.clients) {
            (Some(c), _) => vec![c.clone()],
            (None, Some(ServerList::Names(v))) => v.clone(),
            (None, None | Some(ServerList::All)) => hosts
                .iter()
                .filter(|h| **h != self.server)
                .cloned()
                .collect(),
        }
    }

    /// How many clients, without making their names (the server is one of
    /// `hosts`, checked before).
    pub fn client_count(&self, hosts: &[String]) -> usize {
        match (&self.client, &self.clients) {
            (Some(_), _) => 1,
            (None, Some(ServerList::Names(v))) => v.len(),
            (None, None | Some(ServerList::All)) => hosts.len().saturating_sub(1),
        }
    }

    fn validate(&self, cx: &Context) -> Result<(), ScenarioError> {
        cx.host("server", &self.server)?;
        let other = |at: String, name: &str, what: &str| {
            ScenarioError::new(
                at,
                format!(
                    "{name:?} is the server{what}; expected distinct clients other than the server"
                ),
            )
        };
        match (&self.client, &self.clients) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    cx.at("clients"),
                    "both client and clients given; expected exactly one",
                ))
            }
            (Some(c), None) => {
                cx.host("client", c)?;
                if *c == self.server {
                    return Err(other(cx.at("client"), c, ""));
                }
            }
            (None, Some(ServerList::Names(names))) => {
                let mut seen = std::collections::HashSet::new();
                for (j, c) in names.iter().enumerate() {
                    let f = format!("clients[{j}]");
                    cx.host(&f, c)?;
                    if *c == self.server || !seen.insert(c.as_str()) {
                        return Err(other(cx.at(&f), c, " or listed twice"));
                    }
                }
            }
            (None, None | Some(ServerList::All)) => {}
        }
        if self.client_count(cx.hosts) == 0 {
            return Err(ScenarioError::new(
                cx.at("clients"),
                "no clients; expected at least one host other than the server",
            ));
        }
        cx.positive("file_size", Some(self.file_size))?;
        cx.positive("io_size", self.io_size)?;
        cx.positive("request", self.request)?;
        for (f, b) in [
            ("request", self.request),
            ("reply_header", self.reply_header),
        ] {
            if let Some(b) = b.filter(|b| *b > MAX_RPC_MESSAGE) {
                return Err(ScenarioError::new(
                    cx.at(f),
                    format!("\"{b}\" is larger than an RPC message here may be; expected at most \"{MAX_RPC_MESSAGE}\""),
                ));
            }
        }
        match self.outstanding {
            Some(n) if n == 0 || n > MAX_OUTSTANDING => {
                return Err(ScenarioError::new(
                    cx.at("outstanding"),
                    format!("{n} is out of range; expected 1 to {MAX_OUTSTANDING} READs in flight (sunrpc's largest slot table)"),
                ))
            }
            _ => {}
        }
        if let Some(r) = self.disk_rate {
            check_rate(&cx.at("disk_rate"), r)?;
        }
        cx.stream("file_size", self.reply_bytes(), 1)?;
        cx.stream("request", self.request().get(), self.requests())
    }
}

impl ShortSpec {
    /// Bytes of each flow.
    pub fn flow_bytes(&self, mss: u32) -> u64 {
        match (self.size, self.packets) {
            (Some(b), _) => b.get(),
            (None, Some(p)) => p as u64 * mss as u64,
            (None, None) => 0,
        }
    }

    fn validate(&self, cx: &Context) -> Result<(), ScenarioError> {
        cx.pair(&self.src, &self.dst)?;
        if self.count == 0 {
            return Err(ScenarioError::new(
                cx.at("count"),
                "0 is not allowed; expected at least 1 flow",
            ));
        }
        match (self.size, self.packets) {
            (Some(_), Some(_)) => Err(ScenarioError::new(
                cx.at("packets"),
                "both size and packets given; expected exactly one",
            )),
            (None, None) => Err(ScenarioError::new(
                cx.at("packets"),
                "missing; a short workload needs packets (full segments per flow) or size (bytes per flow)",
            )),
            (None, Some(0)) => Err(ScenarioError::new(
                cx.at("packets"),
                "0 is not allowed; expected at least 1 packet",
            )),
            (Some(_), None) => {
                cx.positive("size", self.size)?;
                cx.stream("size", self.flow_bytes(cx.tcp.mss), 1)
            }
            (None, Some(_)) => cx.stream("packets", self.flow_bytes(cx.tcp.mss), 1),
        }
    }
}

/// "`name` is not a host of the topology; expected one of ...".
pub fn unknown_node(path: &str, name: &str, hosts: &[String], switches: &[&str]) -> ScenarioError {
    let mut known: Vec<String> = hosts.iter().take(6).cloned().collect();
    if hosts.len() > 6 {
        known.push("...".into());
    }
    known.extend(switches.iter().take(6).map(|s| s.to_string()));
    if switches.len() > 6 {
        known.push("...".into());
    }
    ScenarioError::new(
        path,
        format!(
            "{name:?} is not a {} of the topology; expected one of {}",
            if switches.is_empty() { "host" } else { "node" },
            known.join(", ")
        ),
    )
}

// Each kind's estimate of itself (spec/cost.rs; added up in estimate.rs).

impl Estimated for WorkloadSpec {
    fn estimate(&self, cx: &EstimateCtx) -> WorkloadCost {
        match self {
            WorkloadSpec::Incast(w) => w.estimate(cx),
            WorkloadSpec::Bulk(w) => w.estimate(cx),
            WorkloadSpec::Short(w) => w.estimate(cx),
            WorkloadSpec::NfsRead(w) => w.estimate(cx),
            WorkloadSpec::Udp(w) => w.estimate(cx),
        }
    }
}

/// The MSS a workload's packets are counted in (UDP has none: 1460).
fn mss_of(cx: &EstimateCtx) -> u32 {
    cx.tcp.map_or(1460, |t| t.mss)
}

impl Estimated for IncastSpec {
    /// Every round's replies (sru or block) and requests, in segments, and
    /// the warm-up's request and answer per server.
    fn estimate(&self, cx: &EstimateCtx) -> WorkloadCost {
        let mss = mss_of(cx);
        let servers = self.servers(cx.hosts);
        let n = servers.len() as u64;
        let per_round = segments(self.round_bytes(n), mss)
            .saturating_add(n)
            .saturating_add(n.saturating_mul(segments(self.request().get(), mss)));
        let setup = if self.warmup == Some(true) { 2 * n } else { 0 };
        let round = self.round_bytes(n.max(1));
        let first = servers.first().map_or("", String::as_str);
        let end = cx.tcp.map(|tcp| {
            Transfers {
                src: first,
                dst: &self.client,
                last_open: self.start.unwrap_or(Time::ZERO),
                per_flow: round.div_ceil(n.max(1)),
                bytes: round,
                rounds: self.rounds() as u64,
                extra_rtts: setup,
                think: self.response_jitter.unwrap_or(Time::ZERO),
                at_least: Time::ZERO,
            }
            .end(cx, tcp)
        });
        WorkloadCost {
            connections: n,
            udp_flows: 0,
            hops: cx.most_hops(servers.iter().map(|s| (s.as_str(), self.client.as_str()))),
            pairs: servers
                .into_iter()
                .map(|s| (s, self.client.clone()))
                .collect(),
            end,
            packets: Some(Term {
                value: per_round
                    .saturating_mul(self.rounds() as u64)
                    .saturating_add(setup),
                path: cx.path.clone(),
                how: format!(
                    "{} rounds x {n} servers x their replies (sru or block) in {mss}-byte segments",
                    self.rounds()
                ),
            }),
            pace: Pace::Shared,
        }
    }
}

impl Estimated for BulkSpec {
    /// Its size in segments; without a size it sends until the run ends.
    fn estimate(&self, cx: &EstimateCtx) -> WorkloadCost {
        let mss = mss_of(cx);
        let size = self.size.map_or(0, |s| s.get());
        let packets = match self.size {
            Some(s) => Term {
                value: segments(s.get(), mss),
                path: format!("{}.size", cx.path),
                how: format!("\"{s}\" in {mss}-byte segments"),
            },
            None => Term {
                value: u64::MAX,
                path: "duration".into(),
                how: "a bulk flow without a size sends until the run ends".into(),
            },
        };
        let end = cx.tcp.map(|tcp| {
            Transfers {
                src: &self.src,
                dst: &self.dst,
                last_open: self.start.unwrap_or(Time::ZERO),
                per_flow: size,
                bytes: size,
                rounds: 1,
                extra_rtts: 0,
                think: Time::ZERO,
                at_least: Time::ZERO,
            }
            .end(cx, tcp)
        });
        WorkloadCost {
            connections: 1,
            udp_flows: 0,
            hops: cx.hops(&self.src, &self.dst),
            pairs: vec![(self.src.clone(), self.dst.clone())],
            end,
            packets: Some(packets),
            pace: Pace::Shared,
        }
    }
}

impl Estimated for ShortSpec {
    /// Its flows' bytes in segments.
    fn estimate(&self, cx: &EstimateCtx) -> WorkloadCost {
        let mss = mss_of(cx);
        let size = self.flow_bytes(mss);
        let end = cx.tcp.map(|tcp| {
            let spread = self.spread.unwrap_or(Time::ZERO);
            Transfers {
                src: &self.src,
                dst: &self.dst,
                last_open: self.start.unwrap_or(Time::ZERO).saturating_add(spread),
                per_flow: size,
                bytes: size.saturating_mul(self.count as u64),
                rounds: 1,
                extra_rtts: 0,
                think: Time::ZERO,
                at_least: Time::ZERO,
            }
            .end(cx, tcp)
        });
        WorkloadCost {
            connections: self.count as u64,
            udp_flows: 0,
            hops: cx.hops(&self.src, &self.dst),
            pairs: vec![(self.src.clone(), self.dst.clone())],
            end,
            packets: Some(Term {
                value: segments(size, mss).saturating_mul(self.count as u64),
                path: cx.path.clone(),
                how: format!(
                    "{} flows x {size} bytes each in {mss}-byte segments",
                    self.count
                ),
            }),
            pace: Pace::Shared,
        }
    }
}

impl Estimated for NfsReadSpec {
    /// Per reply, its segments and its request's; with a duration, no more
    /// replies than the server's link carries in that time (its clients
    /// share it). READs smaller than a segment are packets of their own.
    fn estimate(&self, cx: &EstimateCtx) -> WorkloadCost {
        let mss = mss_of(cx);
        let clients = self.clients(cx.hosts);
        let n = clients.len() as u64;
        let reply = self
            .io_size()
            .get()
            .saturating_add(self.reply_header().get());
        let reply_segments = segments(reply, mss);
        let per_reply = reply_segments.saturating_add(segments(self.request().get(), mss));
        let replies = self.requests().saturating_mul(n);
        let mut term = Term {
            value: replies.saturating_mul(per_reply),
            path: format!("{}.file_size", cx.path),
            how: format!(
                "{n} clients x {} READs x {per_reply} segments (reply and request)",
                self.requests()
            ),
        };
        let start = self.start.unwrap_or(Time::ZERO);
        if let Some(d) = cx.duration {
            let time = d.saturating_sub(start.min(d));
            let wire = reply.saturating_add(reply_segments.saturating_mul(HEADERS));
            let fit = mul_div(
                cx.access,
                time.0,
                (8 * PS_PER_SEC).saturating_mul(wire.max(1)),
            )
            .saturating_add(1);
            if fit < replies {
                term = Term {
                    value: fit.saturating_mul(per_reply),
                    path: "duration".into(),
                    how: format!(
                        "\"{time}\" of READ replies of {reply} bytes at {} bits/s (the server's link), {per_reply} segments each",
                        approx(cx.access)
                    ),
                };
            }
        }
        let first = clients.first().map_or("", String::as_str);
        let end = cx.tcp.map(|tcp| {
            // The server's disk, when slower than the network, sets the
            // pace: every client's file at its rate.
            let files = self.file_size.get().saturating_mul(n);
            let disk = self.disk_rate.map_or(Time::ZERO, |d| {
                Time(mul_div(files, 8 * PS_PER_SEC, d.get()))
            });
            Transfers {
                src: &self.server,
                dst: first,
                last_open: start,
                per_flow: self.reply_bytes(),
                bytes: self.reply_bytes().saturating_mul(n),
                rounds: 1,
                extra_rtts: self.requests().div_ceil(self.outstanding().max(1) as u64),
                think: Time::ZERO,
                at_least: disk,
            }
            .end(cx, tcp)
        });
        WorkloadCost {
            connections: n,
            udp_flows: 0,
            hops: cx.most_hops(clients.iter().map(|c| (self.server.as_str(), c.as_str()))),
            pairs: clients
                .iter()
                .map(|c| (self.server.clone(), c.clone()))
                .collect(),
            end,
            packets: Some(term),
            pace: Pace::Own,
        }
    }
}

impl Estimated for UdpSpec {
    /// Its rate over the time it sends (to `stop` or the duration: UDP
    /// needs one), at most `packets`; a Radon stream's feedback adds one
    /// datagram per `feedback_every` (its own, or 1: the most there can be).
    fn estimate(&self, cx: &EstimateCtx) -> WorkloadCost {
        let size = self.size();
        let end = match (cx.duration, self.stop) {
            (Some(d), Some(s)) => d.min(s),
            (d, s) => d.or(s).unwrap_or(Time::ZERO),
        };
        let time = end.saturating_sub(self.start.unwrap_or(Time::ZERO));
        // A reservation given as utilization: of a host link at most.
        let rate = self.rate.map_or_else(
            || (self.utilization.unwrap_or(1.0).clamp(0.0, 1.0) * cx.access as f64) as u64,
            |r| r.get(),
        );
        // A Radon sender releases a period's budget (rate x period) when the
        // period starts (the window responses send it at once), so by any
        // time it may have sent one period's more than the rate gives: a
        // period far beyond the run is a large burst, not a quiet stream.
        let budget_time = if self.transport == Some(Transport::Radon) {
            time.saturating_add(self.period.unwrap_or(super::radon::DEFAULT_PERIOD))
        } else {
            time
        };
        let mut value = mul_div(rate, budget_time.0, 8 * PS_PER_SEC * size.get().max(1));
        if let Some(n) = self.packets {
            value = value.min(n);
        }
        if let Some(r) = &self.radon {
            value = value.saturating_add(value / u64::from(r.feedback_every.unwrap_or(1).max(1)));
        }
        WorkloadCost {
            connections: 0,
            udp_flows: 1,
            hops: cx.hops(&self.src, &self.dst),
            pairs: Vec::new(),
            end: None,
            packets: Some(Term {
                value,
                path: format!("{}.rate", cx.path),
                how: format!("{} for \"{time}\" in {size} datagrams", BitsPerSec(rate)),
            }),
            pace: Pace::Datagrams,
        }
    }
}
