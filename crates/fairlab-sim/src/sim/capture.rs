//! Packet captures (`[metrics] pcap`): libpcap files of the packets
//! crossing chosen points, as tcpdump there would write them (headers
//! only, see [`crate::packet::frame`]).
//!
//! A point is an output port (what leaves it, stamped when its
//! transmission starts, as tcpdump on the egress interface sees it) or a
//! host (its interfaces both ways: what it sends, stamped as its port
//! starts transmitting it, and what it receives, stamped when its last bit
//! arrives). The capture hangs off the port watch (`Simulation::watch`),
//! so a run without it pays nothing new per packet.
//!
//! A host's arrivals are known when the port before it starts
//! transmitting, ahead of time, so its two directions are written apart,
//! each in time order, and merged at the end. Caps bound each point; once
//! one refuses a packet, the file is cut before the earliest refused
//! packet's time, so that it holds every packet up to some instant.

use super::Simulation;
use crate::net::PortId;
use crate::packet::frame::{self, FlowFrame, MAX_FRAME_HEADER};
use crate::packet::pcap::{self, PcapBuf, RECORD_HEADER};
use crate::packet::{Packet, Protocol};
use crate::transport::Endpoint;
use crate::units::Time;

/// Where a point captures: an output port or a host's interfaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CapturePoint {
    Port(PortId),
    Host(u32),
}

/// One point's file being written.
#[derive(Clone, Debug)]
struct Point {
    name: String,
    /// Sent, then received (a port point only sends).
    dirs: [PcapBuf; 2],
    /// Packets seen, kept or not.
    seen: u64,
    /// Bytes of both files so far.
    bytes: u64,
    /// The earliest time of a packet refused by a cap.
    cut: Time,
}

/// A finished capture: the point's name, the file, the packets it holds
/// and the packets it left out.
#[derive(Clone, Debug)]
pub struct PcapFile {
    pub name: String,
    pub bytes: Vec<u8>,
    pub packets: u64,
    pub left_out: u64,
}

#[derive(Clone, Debug)]
pub struct Capture {
    /// By port: the points that see what it sends.
    sent: Vec<Vec<u32>>,
    /// By port: the points that see what reaches its far end.
    received: Vec<Vec<u32>>,
    /// By flow key (`Packet::flow`): what its frames share.
    flows: Vec<FlowFrame>,
    points: Vec<Point>,
    max_packets: u64,
    max_bytes: u64,
}

impl Capture {
    /// Packet `pkt` starts its transmission on port `p` from `node` to
    /// `peer` at `start`; its last bit reaches `peer` at `arrive`.
    pub fn transmitting(
        &mut self,
        p: PortId,
        (node, peer): (u32, u32),
        pkt: &Packet,
        start: Time,
        arrive: Time,
    ) {
        let (sent, received) = (&self.sent[p as usize], &self.received[p as usize]);
        if sent.is_empty() && received.is_empty() {
            return;
        }
        let mut hdr = [0u8; MAX_FRAME_HEADER];
        let f = &self.flows[pkt.flow as usize];
        let (n, orig) = frame::write_headers(pkt, f, node, peer, &mut hdr);
        let rec = (RECORD_HEADER + n) as u64;
        let (max_packets, max_bytes) = (self.max_packets, self.max_bytes);
        for (dir, at, list) in [(0, start, sent), (1, arrive, received)] {
            for &i in list {
                let pt = &mut self.points[i as usize];
                pt.seen += 1;
                let kept = pt.dirs[0].packets() + pt.dirs[1].packets();
                if kept >= max_packets || pt.bytes + rec > max_bytes {
                    pt.cut = pt.cut.min(at);
                    continue;
                }
                pt.bytes += rec;
                pt.dirs[dir].record(at, &hdr[..n], orig);
            }
        }
    }

    /// The files, cut at the run's end `end` (a packet still on its way to
    /// a host then has not arrived).
    pub fn finish(&self, end: Time) -> Vec<PcapFile> {
        self.points
            .iter()
            .map(|pt| {
                let before = pt.cut.min(Time(end.0.saturating_add(1)));
                // Received first at equal times: what a host sends at the
                // instant a packet arrives is its answer to it.
                let (sent, received) = (pt.dirs[0].bytes(), pt.dirs[1].bytes());
                let (bytes, packets) = pcap::merge(received, sent, before);
                PcapFile {
                    name: pt.name.clone(),
                    bytes,
                    packets,
                    left_out: pt.seen - packets,
                }
            })
            .collect()
    }
}

impl Simulation {
    /// Captures packets at `points` (each named, for its file), at most
    /// `max_packets` and `max_bytes` of file per point. Call once the
    /// flows are named (`index_flows`).
    pub fn capture(
        &mut self,
        points: Vec<(String, CapturePoint)>,
        max_packets: u64,
        max_bytes: u64,
    ) {
        let ports = self.net.ports.len();
        let mut sent = vec![Vec::new(); ports];
        let mut received = vec![Vec::new(); ports];
        for (i, (_, at)) in points.iter().enumerate() {
            let i = i as u32;
            match *at {
                CapturePoint::Port(p) => sent[p as usize].push(i),
                CapturePoint::Host(h) => {
                    for (p, port) in self.net.ports.iter().enumerate() {
                        if port.node == h {
                            sent[p].push(i);
                        }
                        if port.peer == h {
                            received[p].push(i);
                        }
                    }
                }
            }
        }
        let points = points
            .into_iter()
            .map(|(name, _)| Point {
                name,
                dirs: [PcapBuf::new(), PcapBuf::new()],
                seen: 0,
                bytes: 2 * pcap::FILE_HEADER as u64,
                cut: Time::MAX,
            })
            .collect();
        let capture = Capture {
            sent,
            received,
            flows: self.flow_frames(),
            points,
            max_packets,
            max_bytes,
        };
        self.watch_ports_for(capture);
    }

    /// Hangs `capture` off the port watch, made for it if need be (then
    /// without the backlog and delay).
    fn watch_ports_for(&mut self, capture: Capture) {
        let n = self.net.ports.len();
        let w = self.watch.get_or_insert_with(|| {
            let mut w = Box::new(super::PortWatch::new(n));
            w.bounds = false;
            w
        });
        w.capture = Some(Box::new(capture));
    }

    /// The captures' files so far, cut at the run's end (none without
    /// `[metrics] pcap`).
    pub fn pcap_files(&self) -> Vec<PcapFile> {
        let capture = self.watch.as_deref().and_then(|w| w.capture.as_deref());
        capture.map_or_else(Vec::new, |c| c.finish(self.end_time()))
    }

    /// Per flow key, what its frames share (see [`FlowFrame`]).
    fn flow_frames(&self) -> Vec<FlowFrame> {
        let mut out = Vec::with_capacity(2 * self.endpoints.len());
        for ep in &self.endpoints {
            let tuple = |side: usize| -> Option<crate::packet::FiveTuple> {
                let t = match ep {
                    Endpoint::Tcp(c) => return c.tuple(side, &self.net),
                    Endpoint::Udp(u) => u.tuple?,
                    Endpoint::Radon(r) => r.tuple?,
                    #[allow(unreachable_patterns)]
                    _ => return None,
                };
                Some(if side == 0 { t } else { t.reversed() })
            };
            let ts = [0, 1].map(|s| {
                tuple(s).unwrap_or(crate::packet::FiveTuple {
                    src: crate::packet::Addr::default(),
                    dst: crate::packet::Addr::default(),
                    sport: 0,
                    dport: 0,
                    proto: ep.protocol(),
                })
            });
            let isn = ts.map(|t| frame::initial_seq(&t));
            for side in 0..2 {
                let (mss, sack_ok, wscale, timestamps) = match ep {
                    Endpoint::Tcp(c) => {
                        let cfg = c.sock[side].config();
                        let wnd = cfg.receive_window.get().min(u64::from(u32::MAX));
                        let mss = cfg.mss.min(0xffff) as u16;
                        (mss, cfg.sack, frame::window_scale(wnd), cfg.rtt_timestamps)
                    }
                    _ => (0, false, 0, false),
                };
                debug_assert!(ts[side].proto == Protocol::Tcp || mss == 0);
                out.push(FlowFrame {
                    tuple: ts[side],
                    isn: isn[side],
                    peer_isn: isn[1 - side],
                    wscale,
                    mss,
                    sack_ok,
                    timestamps,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::RECORD_HEADER;
    use crate::spec::lower::sim::build;
    use crate::spec::Scenario;

    /// A bulk flow from a to b through sw, and the `[metrics]` lines.
    fn run(metrics: &str) -> super::Simulation {
        let text = format!(
            r#"
seed = 3
duration = "5ms"
[topology]
kind = "star"
hosts = ["a", "b"]
rate = "1Gbps"
delay = "10us"
[[workload]]
kind = "bulk"
src = "a"
dst = "b"
[metrics]
{metrics}
"#
        );
        let sc = Scenario::from_toml_str(&text).unwrap();
        let mut sim = build(&sc, None).unwrap();
        sim.run();
        sim
    }

    fn times_ns(file: &[u8]) -> Vec<u64> {
        super::pcap::records_ns(file).collect()
    }

    #[test]
    fn a_port_holds_what_left_it_and_a_host_both_directions_in_time_order() {
        let sim = run(r#"pcap = ["sw:b", "a"]"#);
        let files = sim.pcap_files();
        let port = |a: &str, b: &str| {
            let net = &sim.net;
            let p = net.ports.iter().position(|p| {
                net.nodes[p.node as usize].name == a && net.nodes[p.peer as usize].name == b
            });
            &net.ports[p.unwrap()]
        };
        assert_eq!(files[0].name, "sw:b");
        assert_eq!(files[0].packets, port("sw", "b").stats.deq_pkts);
        // Sent by a, and received from sw (all of which had arrived: the
        // run stops with the link idle or not, minus what was in flight).
        let sent = port("a", "sw").stats.deq_pkts;
        let received = port("sw", "a").stats.deq_pkts;
        assert!(files[1].packets <= sent + received && files[1].packets + 2 >= sent + received);
        assert!(files
            .iter()
            .all(|f| f.left_out == sent + received - files[1].packets || f.name == "sw:b"));
        for f in &files {
            let t = times_ns(&f.bytes);
            assert_eq!(t.len() as u64, f.packets);
            assert!(
                t.windows(2).all(|w| w[0] <= w[1]),
                "{} in time order",
                f.name
            );
            assert!(*t.last().unwrap() <= sim.end_time().0 / 1000);
        }
        assert!(sim.watch.as_deref().is_some_and(|w| !w.bounds));
    }

    #[test]
    fn at_one_instant_a_host_receives_before_it_answers() {
        let sim = run(r#"pcap = ["b"]"#);
        let f = &sim.pcap_files()[0].bytes;
        // The SYN arrives, and b answers with its SYN-ACK at that instant.
        let first = times_ns(f);
        assert_eq!(first[0], first[1]);
        let flags = |i: usize| {
            let mut at = super::pcap::FILE_HEADER;
            for _ in 0..i {
                at += RECORD_HEADER
                    + u32::from_le_bytes(f[at + 8..at + 12].try_into().unwrap()) as usize;
            }
            f[at + RECORD_HEADER + 14 + 20 + 13]
        };
        assert_eq!((flags(0), flags(1)), (0x02, 0x12));
    }

    #[test]
    fn a_capped_capture_is_a_prefix_of_the_whole_and_counts_the_rest() {
        let full = run(r#"pcap = ["a"]"#).pcap_files().remove(0);
        let capped = run("pcap = [\"a\"]\npcap_max_packets = 50")
            .pcap_files()
            .remove(0);
        assert_eq!(capped.packets, 50);
        assert_eq!(
            capped.packets + capped.left_out,
            full.packets + full.left_out
        );
        assert!(full.bytes.starts_with(&capped.bytes));
        let by_bytes = run("pcap = [\"a\"]\npcap_max_bytes = \"4KiB\"")
            .pcap_files()
            .remove(0);
        assert!(by_bytes.bytes.len() <= 4096 && by_bytes.packets > 0);
        assert!(full.bytes.starts_with(&by_bytes.bytes));
    }

    #[test]
    fn the_estimate_holds_the_captures() {
        let m = r#"pcap = ["a", "sw:b"]"#;
        let files = run(m).pcap_files();
        let text = format!(
            "seed = 3\nduration = \"5ms\"\n[topology]\nkind = \"star\"\nhosts = [\"a\", \"b\"]\n\
             rate = \"1Gbps\"\ndelay = \"10us\"\n[[workload]]\nkind = \"bulk\"\nsrc = \"a\"\n\
             dst = \"b\"\n[metrics]\n{m}"
        );
        let est = Scenario::from_toml_str(&text)
            .unwrap()
            .resolve()
            .unwrap()
            .estimate;
        let term = est
            .memory
            .iter()
            .find(|t| t.path == "metrics.pcap")
            .unwrap();
        let held: u64 = files.iter().map(|f| f.bytes.len() as u64).sum();
        assert!(term.value >= 2 * held, "{} < 2 x {held}", term.value);
    }

    #[test]
    fn without_pcap_nothing_watches_the_ports() {
        let sim = run("");
        assert!(sim.watch.is_none());
        assert!(sim.pcap_files().is_empty());
    }

    #[test]
    fn bad_points_and_caps_are_refused_in_one_line_by_field_path() {
        let base = |m: &str| {
            format!(
                "duration = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = [\"a\", \"b\"]\nrate = \"1Gbps\"\ndelay = \"10us\"\n\
                 [[workload]]\nkind = \"bulk\"\nsrc = \"a\"\ndst = \"b\"\n[metrics]\n{m}"
            )
        };
        for (m, want) in [
            (r#"pcap = ["sw:c"]"#, "metrics.pcap[0]: \"sw:c\" is neither a host nor an output port; expected a host or \"node:peer\", one of sw:a, sw:b"),
            (r#"pcap = ["a", "zz"]"#, "metrics.pcap[1]: \"zz\" is neither a host nor an output port; expected a host or \"node:peer\", one of a, b, a:sw, b:sw, sw:a, sw:b"),
            (r#"pcap = ["sw"]"#, "metrics.pcap[0]: \"sw\" is neither"),
            (r#"pcap = ["a", "a"]"#, "metrics.pcap[1]: \"a\" is listed twice"),
            ("pcap = []", "metrics.pcap: [] captures nothing"),
            ("pcap_max_packets = 5", "metrics.pcap_max_packets: given without pcap"),
            ("pcap = [\"a\"]\npcap_max_packets = 0", "metrics.pcap_max_packets: 0 is not allowed"),
            ("pcap = [\"a\"]\npcap_max_bytes = \"100B\"", "metrics.pcap_max_bytes: 100 bytes is too small; expected at least \"134B\""),
            ("pcap = \"a\"", "metrics.pcap"),
        ] {
            let e = Scenario::from_toml_str(&base(m)).expect_err(m).to_string();
            assert!(e.starts_with(want), "{m}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
