//! NFS-like sequential reads (the hash-cast study's NFSv4.1 benchmark:
//! clients each reading a big file from one server, 64 KB at a time).
//!
//! Each client holds one persistent TCP connection to the server and reads
//! a file of `file_size` bytes from its start as READ RPCs of `io_size`
//! bytes, keeping `outstanding` of them in flight: it sends that many
//! requests (`request` bytes each, one write per RPC) once connected, and
//! one more each time a reply has arrived in full, until every part of the
//! file has been asked for. The server answers each complete request with
//! `reply_header` bytes of RPC and NFS header and the part of the file
//! (`io_size` bytes, the last part the remainder), in request order: from
//! memory at once, or, with a disk rate, when its disk has read the part
//! (one disk per workload, shared by its clients, reading parts one after
//! another in the order the requests arrived: a FIFO served at the rate).
//!
//! The reply stream of a client is thus a sequence of (header, part)
//! records; the client counts file bytes as they arrive in order, and its
//! read is complete when the last byte of the last reply has arrived.

use super::AppAction;
use crate::net::NodeId;
use crate::units::{BitsPerSec, Bytes, OptTime, Time};

/// One client's read: what it asked for and received, and what the server
/// has answered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientRead {
    /// Requests the client has sent.
    pub sent: u64,
    /// Reply-stream bytes (headers and file data) the client has received.
    pub received: u64,
    /// Replies the client has received in full.
    pub done: u64,
    /// Request bytes the server has received.
    requested: u64,
    /// Requests the server has taken (answered, or queued at its disk).
    taken: u64,
    /// Replies the server has written.
    replied: u64,
    /// When the last byte of the file arrived.
    pub end: OptTime,
    /// The connection gave up (too many timeouts).
    pub aborted: bool,
}

/// The workload's parameters, as lowered from the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadParams {
    pub file_size: u64,
    pub io_size: u64,
    pub outstanding: u32,
    pub request: u64,
    pub reply_header: u64,
    /// The server's disk rate (None: answers from memory, at once).
    pub disk_rate: Option<BitsPerSec>,
}

impl ReadParams {
    /// READ RPCs per file.
    pub fn requests(&self) -> u64 {
        self.file_size.div_ceil(self.io_size)
    }
    /// File bytes of reply `k` (0-based).
    pub fn part(&self, k: u64) -> u64 {
        self.file_size
            .saturating_sub(k.saturating_mul(self.io_size))
            .min(self.io_size)
    }
    /// Reply-stream bytes of the first `k` replies.
    pub fn stream_after(&self, k: u64) -> u64 {
        k * self.reply_header + (k.saturating_mul(self.io_size)).min(self.file_size)
    }
    /// Reply-stream bytes of the whole file.
    pub fn stream_bytes(&self) -> u64 {
        self.stream_after(self.requests())
    }
}

#[derive(Clone, Debug)]
pub struct NfsRead {
    pub id: u32,
    pub start: Time,
    pub server: NodeId,
    pub clients: Vec<NodeId>,
    /// Connection of each client.
    pub conns: Vec<u32>,
    pub params: ReadParams,
    pub reads: Vec<ClientRead>,
    /// When the server's disk is free to read the next part.
    disk_free: Time,
    /// Clients complete or aborted.
    done: usize,
    pub finished: bool,
    /// Some client's connection aborted.
    pub aborted: bool,
}

impl NfsRead {
    pub fn new(
        id: u32,
        start: Time,
        server: NodeId,
        clients: Vec<NodeId>,
        conns: Vec<u32>,
        params: ReadParams,
    ) -> NfsRead {
        debug_assert!(params.io_size > 0 && params.request > 0 && params.outstanding > 0);
        let n = clients.len();
        NfsRead {
            id,
            start,
            server,
            clients,
            conns,
            params,
            reads: vec![ClientRead::default(); n],
            disk_free: Time::ZERO,
            done: 0,
            finished: n == 0,
            aborted: false,
        }
    }

    /// File bytes client `i` has received, in order.
    pub fn bytes_read(&self, i: usize) -> u64 {
        let r = &self.reads[i];
        let p = &self.params;
        let whole = (r.done.saturating_mul(p.io_size)).min(p.file_size);
        let partial = (r.received - p.stream_after(r.done)).saturating_sub(p.reply_header);
        whole + partial.min(p.part(r.done))
    }

    /// Fraction of all replies received.
    pub fn progress(&self) -> f64 {
        let all = self
            .params
            .requests()
            .saturating_mul(self.reads.len() as u64);
        let done: u64 = self.reads.iter().map(|r| r.done).sum();
        done as f64 / all.max(1) as f64
    }

    pub fn start(&mut self, _now: Time, acts: &mut Vec<AppAction>) {
        for &c in &self.conns {
            acts.push(AppAction::Connect { conn: c });
        }
    }

    /// The client, once connected, fills its window of requests.
    pub fn on_established(&mut self, i: u32, passive: bool, acts: &mut Vec<AppAction>) {
        if passive {
            return;
        }
        let first = (self.params.outstanding as u64).min(self.params.requests());
        for _ in 0..first {
            self.ask(i as usize, acts);
        }
    }

    /// Client `i` sends its next request.
    fn ask(&mut self, i: usize, acts: &mut Vec<AppAction>) {
        self.reads[i].sent += 1;
        acts.push(AppAction::Write {
            conn: self.conns[i],
            passive: false,
            bytes: self.params.request,
        });
    }

    pub fn on_delivered(
        &mut self,
        i: u32,
        passive: bool,
        bytes: u64,
        now: Time,
        acts: &mut Vec<AppAction>,
    ) {
        let i = i as usize;
        let p = self.params;
        let n = p.requests();
        if passive {
            // At the server: take each complete request.
            self.reads[i].requested += bytes;
            loop {
                let r = &mut self.reads[i];
                if r.taken >= n || r.requested < (r.taken + 1) * p.request {
                    break;
                }
                let k = r.taken;
                r.taken += 1;
                match p.disk_rate {
                    None => self.respond(i, acts),
                    Some(rate) => {
                        let ready = now.max(self.disk_free) + rate.serialization(Bytes(p.part(k)));
                        self.disk_free = ready;
                        acts.push(AppAction::WakeUp {
                            workload: self.id,
                            delay: ready - now,
                            token: i as u32,
                        });
                    }
                }
            }
            return;
        }
        // At the client: count whole replies, and ask again for each.
        let r = &mut self.reads[i];
        r.received += bytes;
        let mut asks = 0;
        while r.done < n && r.received >= p.stream_after(r.done + 1) {
            r.done += 1;
            if r.sent + asks < n {
                asks += 1;
            }
        }
        let complete = r.done == n && r.end.is_none() && !r.aborted;
        if complete {
            r.end = OptTime::some(now);
        }
        for _ in 0..asks {
            self.ask(i, acts);
        }
        if complete {
            self.client_done();
        }
    }

    /// The server writes its next reply to client `i`.
    fn respond(&mut self, i: usize, acts: &mut Vec<AppAction>) {
        let r = &mut self.reads[i];
        let k = r.replied;
        r.replied += 1;
        acts.push(AppAction::Write {
            conn: self.conns[i],
            passive: true,
            bytes: self.params.reply_header + self.params.part(k),
        });
    }

    /// The disk has read the next part client `token` asked for.
    pub fn on_wakeup(&mut self, token: u32, _now: Time, acts: &mut Vec<AppAction>) {
        let i = token as usize;
        if !self.reads[i].aborted {
            self.respond(i, acts);
        }
    }

    /// Client `i`'s connection gave up: its read ends unfinished; the
    /// others go on.
    pub fn on_aborted(&mut self, i: u32) {
        let r = &mut self.reads[i as usize];
        if r.end.is_none() && !r.aborted {
            r.aborted = true;
            self.aborted = true;
            self.client_done();
        }
    }

    fn client_done(&mut self) {
        self.done += 1;
        if self.done == self.reads.len() {
            self.finished = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::testing::writes;

    fn params(file: u64, io: u64, outstanding: u32) -> ReadParams {
        ReadParams {
            file_size: file,
            io_size: io,
            outstanding,
            request: 200,
            reply_header: 100,
            disk_rate: None,
        }
    }

    #[test]
    fn the_reply_stream_is_header_and_part_per_request_the_last_part_short() {
        let p = params(2500, 1000, 2);
        assert_eq!(p.requests(), 3);
        assert_eq!((p.part(0), p.part(2), p.part(3)), (1000, 500, 0));
        assert_eq!(p.stream_after(1), 1100);
        assert_eq!(p.stream_bytes(), 3 * 100 + 2500);
    }

    /// The client keeps `outstanding` requests in flight and asks for one
    /// more per complete reply; the server answers each complete request;
    /// the read ends with the last byte of the file.
    #[test]
    fn a_window_of_requests_slides_one_reply_at_a_time_to_the_files_end() {
        let t = Time::from_us;
        let mut w = NfsRead::new(0, Time::ZERO, 0, vec![1], vec![7], params(2500, 1000, 2));
        let mut acts = Vec::new();
        w.on_established(0, false, &mut acts);
        assert_eq!(writes(&acts), [(7, false, 200), (7, false, 200)]);
        // The server gets one and a half requests: one answer.
        acts.clear();
        w.on_delivered(0, true, 300, t(1), &mut acts);
        assert_eq!(writes(&acts), [(7, true, 1100)]);
        acts.clear();
        w.on_delivered(0, true, 100, t(2), &mut acts);
        assert_eq!(writes(&acts), [(7, true, 1100)]);
        // Half a reply: 400 file bytes so far, no new request.
        acts.clear();
        w.on_delivered(0, false, 500, t(3), &mut acts);
        assert!(acts.is_empty());
        assert_eq!(w.bytes_read(0), 400);
        // Both replies: two more asks would pass the file's 3 parts: one.
        w.on_delivered(0, false, 1700, t(4), &mut acts);
        assert_eq!(writes(&acts), [(7, false, 200)]);
        assert_eq!((w.reads[0].done, w.reads[0].sent), (2, 3));
        assert_eq!(w.bytes_read(0), 2000);
        acts.clear();
        w.on_delivered(0, true, 200, t(5), &mut acts);
        assert_eq!(writes(&acts), [(7, true, 600)]);
        acts.clear();
        w.on_delivered(0, false, 600, t(6), &mut acts);
        assert!(acts.is_empty() && w.finished && !w.aborted);
        assert_eq!(w.bytes_read(0), 2500);
        assert_eq!(w.reads[0].end, OptTime::some(t(6)));
    }

    /// With a disk rate, the server's answers wait for a disk that reads
    /// one part after another, whichever client asked.
    #[test]
    fn a_disk_reads_parts_one_after_another_at_its_rate() {
        let mut p = params(4000, 1000, 4);
        p.disk_rate = Some(BitsPerSec(8_000_000)); // 1 MB/s: 1 ms per part
        let mut w = NfsRead::new(3, Time::ZERO, 0, vec![1, 2], vec![5, 6], p);
        let mut acts = Vec::new();
        let now = Time::from_ms(10);
        w.on_delivered(0, true, 400, now, &mut acts);
        w.on_delivered(1, true, 200, now, &mut acts);
        let wakes: Vec<(u32, Time, u32)> = acts
            .iter()
            .filter_map(|a| match *a {
                AppAction::WakeUp {
                    workload,
                    delay,
                    token,
                } => Some((workload, delay, token)),
                _ => None,
            })
            .collect();
        let ms = Time::from_ms;
        assert_eq!(wakes, [(3, ms(1), 0), (3, ms(2), 0), (3, ms(3), 1)]);
        acts.clear();
        w.on_wakeup(1, now + ms(3), &mut acts);
        assert_eq!(writes(&acts), [(6, true, 1100)]);
    }

    #[test]
    fn an_aborted_client_ends_its_read_and_the_others_go_on() {
        let mut w = NfsRead::new(
            0,
            Time::ZERO,
            0,
            vec![1, 2],
            vec![0, 1],
            params(1000, 1000, 1),
        );
        let mut acts = Vec::new();
        w.on_aborted(0);
        assert!(!w.finished && w.aborted);
        w.on_delivered(1, false, 1100, Time::from_us(9), &mut acts);
        assert!(w.finished);
        assert!(w.reads[0].end.is_none() && w.reads[1].end.is_some());
    }
}
