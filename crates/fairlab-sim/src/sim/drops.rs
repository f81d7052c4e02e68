//! Drops by input port: at each switch output port, what each input port
//! (the link a packet came in on) brought and lost, and the runs of
//! consecutive drops there (the "port blackout" of Prakash et al., "The TCP
//! Outcast Problem", NSDI 2012: one input port's packets dropped several
//! in a row while another's get in). Also each flow's own runs, and on
//! request the admit/drop trace of one port.
//!
//! Definitions (docs/binding.md repeats them):
//!
//! * Every packet arriving at a switch output port is an *arrival* of the
//!   input port it came in on. An arrival ends in an *admission* (the port
//!   kept it and dropped nothing) or a *drop*: of the arriving packet, or,
//!   under a discipline that pushes out (SFQ, DRR), of a packet held
//!   before, which is counted against its own input port and flow.
//! * A *port run* is a maximal sequence of drops at one output port with no
//!   admission at that port in between; its length is its drops. It *hits*
//!   every input port (and flow) one of its drops belonged to.
//! * An input port's *own run* at an output port is a maximal sequence of
//!   drops of that input's packets there with no admission of that input's
//!   packets in between (other inputs' admissions do not end it): the
//!   blackout of one input while another's packets get in.
//! * A flow's *own run* at a port is a maximal sequence of drops of that
//!   flow's packets at that port with no admission of that flow's packets at
//!   that port in between (other flows' admissions do not end it). A drop of
//!   the flow at another port ends it too (a flow's state is one open run,
//!   so that it stays O(1) per flow; a flow meets congestion at one port at
//!   a time in every topology here).
//!
//! State: per output port, a packed count of arrivals by input index
//! (what every admission writes, eight bytes an input), and one slot per
//! input port that has dropped or been counted out (the first [`SMALL`]
//! found by their indices, the rest by a dense index); per flow
//! direction, one open run. Histograms grow with the longest run. The
//! counts are added into the slots when the run ends
//! ([`DropTally::close_all`]) and when one would overflow.

use crate::net::PortId;
use crate::units::Time;
use std::collections::BTreeMap;

/// Inputs a port finds by linear search before it builds a dense index.
const SMALL: usize = 4;

/// Bits of a packet's `stamp` that hold the input index (the rest: the
/// arrival count at the port, so that stamps still order arrivals).
pub const INPUT_BITS: u32 = 24;
pub const INPUT_MASK: u64 = (1 << INPUT_BITS) - 1;
/// The input of a host's own packets (its NIC's queue is not counted).
pub const HOST_INPUT: u32 = INPUT_MASK as u32;

/// One input port of one output port: what a drop updates, in one cache
/// line of its own (56 bytes aligned to 64: unaligned, most slots
/// straddled two lines, and a drop read both); the histograms, written
/// only when a run ends, apart behind a box. Its arrivals are counted in
/// [`PortTally`]'s packed counts first.
#[derive(Clone, Debug, Default)]
#[repr(align(64))]
pub struct InputStats {
    /// The input's index among the ports entering the switch.
    index: u32,
    /// This input's own open run: its drops since its last admission.
    own_run: u32,
    /// Drops of this input's packets in the port's open run.
    in_run: u32,
    pub arrival_pkts: u64,
    pub arrival_bytes: u64,
    pub drop_pkts: u64,
    pub drop_bytes: u64,
    hist: Box<InputHist>,
}

/// An input's histograms, by run length.
#[derive(Clone, Debug, Default)]
struct InputHist {
    /// This input's own runs (drops of its packets at the port with no
    /// admission of its packets in between).
    own: Vec<u64>,
    /// Port runs that hit this input; those that hit only this input;
    /// this input's drops in them.
    hit: Vec<u64>,
    alone: Vec<u64>,
    hit_drops: Vec<u64>,
}

/// One output port. In C order, what every admission reads and writes
/// (the open runs' gates and the counts' place) in the first cache line,
/// aligned; its count is then the only other line it writes. A slot
/// (64 bytes) per input written at every admission made a k = 16 fat
/// tree's switch ports 5 MB of slots, and finding one read the dense
/// index first (issue 23, eighth pass).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct PortTally {
    /// Drops in the open run (0: none open).
    run: u32,
    /// Flow directions whose open own run is at this port: an admission
    /// here reads its flow's run only when some are (the flows' array is
    /// as large as the run's flows, and a k = 48 fat tree, where some
    /// flow's run is almost always open somewhere, waited for it on one
    /// admission in ten; issue 23, seventh pass).
    open_flows: u32,
    /// Inputs whose own run is open at this port: an admission reads its
    /// input's slot only when some are.
    open_inputs: u32,
    /// By input index: arrivals not yet added into the input's slot,
    /// packed (see [`ARRIVAL`]); as long as the largest index seen.
    counts: Box<[u64]>,
    pub inputs: Vec<InputStats>,
    /// The input index of each of the first [`SMALL`] slots (`NO_INPUT`:
    /// none yet).
    first: [u32; SMALL],
    /// By input index: slot + 1 (0: not seen); empty while few inputs.
    slot_of: Box<[u32]>,
    /// Slots the open run hit.
    run_inputs: Vec<u32>,
    /// By run length: the port's runs.
    pub runs: Vec<u64>,
    /// By run length: runs that hit a single input port.
    pub runs_alone: Vec<u64>,
}

/// One arrival in a packed count: packets above bit 40, bytes below.
const ARRIVAL: u64 = 1 << 40;
const BYTES_MASK: u64 = ARRIVAL - 1;
/// A count with either of these bits set is added into its slot and
/// cleared: an arrival (of fewer than 2^39 bytes) then overflows neither
/// field.
const COUNT_FULL: u64 = 1 << 63 | 1 << 39;

// What an admission reads of its port's tally fits the first line.
const _: () = assert!(std::mem::offset_of!(PortTally, first) <= 64);
const _: () = assert!(std::mem::size_of::<InputStats>() == 64);

/// No input has this index (they stay below 2^[`INPUT_BITS`]).
const NO_INPUT: u32 = u32::MAX;

impl Default for PortTally {
    fn default() -> Self {
        PortTally {
            run: 0,
            open_flows: 0,
            open_inputs: 0,
            counts: Box::default(),
            first: [NO_INPUT; SMALL],
            inputs: Vec::new(),
            slot_of: Box::default(),
            run_inputs: Vec::new(),
            runs: Vec::new(),
            runs_alone: Vec::new(),
        }
    }
}

/// A flow direction's open own run.
#[derive(Clone, Copy, Debug, Default)]
struct FlowRun {
    port: PortId,
    len: u32,
}

/// One row of the drop trace.
#[derive(Clone, Copy, Debug)]
pub struct TraceRow {
    pub t: Time,
    /// The input index (see [`DropTally::in_index`]).
    pub input: u32,
    pub flow: u32,
    pub dst: u32,
    pub seq: u64,
    pub payload: u32,
    pub admitted: bool,
    pub queue_pkts: u32,
    pub queue_bytes: u64,
}

/// What the port did with one arrival.
#[derive(Clone, Copy, Debug)]
pub struct Dropped {
    pub input: u32,
    pub flow: u32,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default)]
pub struct DropTally {
    /// Per port, as an input: its index among the ports entering its peer.
    pub in_index: Vec<u32>,
    /// Per port, as an output (switch ports only see arrivals).
    pub ports: Vec<PortTally>,
    flows: Vec<FlowRun>,
    /// (flow direction, port, length) -> own runs.
    pub flow_runs: BTreeMap<(u32, PortId, u32), u64>,
    /// The traced port (`PortId::MAX`: none), its rows and cap.
    pub trace_port: PortId,
    pub trace: Vec<TraceRow>,
    pub trace_max_rows: usize,
    /// Rows the cap left out.
    pub trace_dropped_rows: u64,
}

fn bump(h: &mut Vec<u64>, len: u32, by: u64) {
    let i = len as usize;
    if h.len() <= i {
        h.resize(i + 1, 0);
    }
    h[i] += by;
}

impl InputStats {
    /// The input's index among the ports entering the switch.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// By length: this input's own runs.
    pub fn own(&self) -> &[u64] {
        &self.hist.own
    }

    /// By length: port runs that hit this input.
    pub fn hit(&self) -> &[u64] {
        &self.hist.hit
    }

    /// By length: port runs that hit this input alone.
    pub fn alone(&self) -> &[u64] {
        &self.hist.alone
    }

    /// By length: this input's drops in the port runs that hit it.
    pub fn hit_drops(&self) -> &[u64] {
        &self.hist.hit_drops
    }

    /// Ends the input's own open run (the port's count of open ones is
    /// its caller's).
    #[cold]
    #[inline(never)]
    fn close_own(&mut self) {
        let len = std::mem::take(&mut self.own_run);
        bump(&mut self.hist.own, len, 1);
    }
}

impl PortTally {
    /// The slot of input `index`, if it has one.
    #[inline(always)]
    fn find(&self, index: u32) -> Option<usize> {
        if let Some(i) = self.first.iter().position(|&f| f == index) {
            return Some(i);
        }
        match self.slot_of.get(index as usize) {
            Some(&s) if s != 0 => Some(s as usize - 1),
            _ => None,
        }
    }

    /// The slot of input `index` (`from` names it, for a new slot).
    #[inline]
    fn slot(&mut self, index: u32) -> usize {
        match self.find(index) {
            Some(i) => i,
            None => self.add(index),
        }
    }

    /// Hints what an admission reads first: the open runs' gates and the
    /// counts' place.
    #[inline(always)]
    pub(super) fn prefetch_head(&self) {
        crate::engine::prefetch(self as *const PortTally);
    }

    /// Hints input `index`'s count, which an admission writes.
    #[inline(always)]
    pub(super) fn prefetch_count(&self, index: u32) {
        if let Some(c) = self.counts.get(index as usize) {
            crate::engine::prefetch(c);
        }
    }

    /// Counts an arrival of `bytes` from input `index`.
    #[inline(always)]
    fn count(&mut self, index: u32, bytes: u64) {
        debug_assert!(bytes < 1 << 39);
        match self.counts.get_mut(index as usize) {
            Some(c) => {
                *c += ARRIVAL | bytes;
                if *c & COUNT_FULL != 0 {
                    self.add_count(index);
                }
            }
            None => self.count_new(index, bytes),
        }
    }

    /// [`PortTally::count`] from an input beyond the counts so far.
    #[cold]
    #[inline(never)]
    fn count_new(&mut self, index: u32, bytes: u64) {
        let mut counts = vec![0; index as usize + 1];
        counts[..self.counts.len()].copy_from_slice(&self.counts);
        counts[index as usize] = ARRIVAL | bytes;
        self.counts = counts.into_boxed_slice();
    }

    /// Adds input `index`'s count into its slot (made if need be) and
    /// clears it.
    #[cold]
    #[inline(never)]
    fn add_count(&mut self, index: u32) {
        let c = std::mem::take(&mut self.counts[index as usize]);
        let s = self.slot(index);
        let inp = &mut self.inputs[s];
        inp.arrival_pkts += c / ARRIVAL;
        inp.arrival_bytes += c & BYTES_MASK;
    }

    /// Every count into its slot, in input order.
    fn add_counts(&mut self) {
        for i in 0..self.counts.len() {
            if self.counts[i] != 0 {
                self.add_count(i as u32);
            }
        }
    }

    /// An admission from input `index` ends the input's own open run.
    #[cold]
    #[inline(never)]
    fn admit_input(&mut self, index: u32) {
        if let Some(s) = self.find(index) {
            let inp = &mut self.inputs[s];
            if inp.own_run != 0 {
                inp.close_own();
                self.open_inputs -= 1;
            }
        }
    }

    #[inline(never)]
    fn add(&mut self, index: u32) -> usize {
        let slot = self.inputs.len();
        self.inputs.push(InputStats {
            index,
            ..InputStats::default()
        });
        if slot < SMALL {
            self.first[slot] = index;
        } else {
            let n = self.inputs.iter().map(|s| s.index).max().unwrap_or(0) as usize + 1;
            if self.slot_of.len() < n {
                self.slot_of = vec![0; n].into_boxed_slice();
            }
            for (i, s) in self.inputs.iter().enumerate() {
                self.slot_of[s.index as usize] = i as u32 + 1;
            }
        }
        slot
    }

    /// Ends the open run, if any.
    #[cold]
    #[inline(never)]
    fn close(&mut self) {
        let len = self.run;
        if len == 0 {
            return;
        }
        bump(&mut self.runs, len, 1);
        let alone = self.run_inputs.len() == 1;
        if alone {
            bump(&mut self.runs_alone, len, 1);
        }
        for &s in &self.run_inputs {
            let inp = &mut self.inputs[s as usize];
            let in_run = inp.in_run as u64;
            let h = &mut inp.hist;
            bump(&mut h.hit, len, 1);
            bump(&mut h.hit_drops, len, in_run);
            if alone {
                bump(&mut h.alone, len, 1);
            }
            inp.in_run = 0;
        }
        self.run_inputs.clear();
        self.run = 0;
    }
}

impl DropTally {
    pub fn new(ports: &[crate::net::Port], nodes: usize, flow_keys: usize) -> DropTally {
        let mut count = vec![0u32; nodes];
        let in_index = ports
            .iter()
            .map(|p| {
                let c = &mut count[p.peer as usize];
                *c += 1;
                *c - 1
            })
            .collect();
        debug_assert!(count.iter().all(|&c| (c as u64) <= INPUT_MASK));
        DropTally {
            in_index,
            ports: vec![PortTally::default(); ports.len()],
            flows: vec![FlowRun::default(); flow_keys],
            flow_runs: BTreeMap::new(),
            trace_port: PortId::MAX,
            trace: Vec::new(),
            trace_max_rows: 0,
            trace_dropped_rows: 0,
        }
    }

    /// An arrival at switch port `out` from input `index` (port `from`),
    /// of `bytes` of flow direction `flow`, that the port admitted.
    #[inline(always)]
    pub fn admitted(&mut self, out: PortId, index: u32, flow: u32, bytes: u64) {
        let t = &mut self.ports[out as usize];
        t.count(index, bytes);
        if t.open_inputs != 0 {
            t.admit_input(index);
        }
        if t.run != 0 {
            t.close();
        }
        if t.open_flows != 0 {
            if let Some(f) = self.flows.get(flow as usize) {
                if f.len != 0 && f.port == out {
                    self.admit_flow(out, flow);
                }
            }
        }
    }

    /// As [`DropTally::admitted`], for an arrival that ended in the drop `d`
    /// (of the arriving packet, or of one pushed out).
    #[inline(never)]
    pub fn dropped(&mut self, out: PortId, index: u32, flow: u32, bytes: u64, d: Dropped) {
        let t = &mut self.ports[out as usize];
        t.count(index, bytes);
        if d.input != index && t.open_inputs != 0 {
            // Another input's packet was pushed out: this one got in.
            t.admit_input(index);
        }
        self.drop(out, index, flow, d);
    }

    /// The same, `dropped` None for an admission (tests).
    #[cfg(test)]
    pub fn arrival(
        &mut self,
        out: PortId,
        index: u32,
        flow: u32,
        bytes: u64,
        dropped: Option<Dropped>,
    ) {
        match dropped {
            None => self.admitted(out, index, flow, bytes),
            Some(d) => self.dropped(out, index, flow, bytes, d),
        }
    }

    #[cold]
    #[inline(never)]
    fn admit_flow(&mut self, out: PortId, flow: u32) {
        if let Some(f) = self.flows.get_mut(flow as usize) {
            if f.len != 0 && f.port == out {
                let len = std::mem::take(&mut f.len);
                self.ports[out as usize].open_flows -= 1;
                *self.flow_runs.entry((flow, out, len)).or_insert(0) += 1;
            }
        }
    }

    #[inline(never)]
    fn drop(&mut self, out: PortId, index: u32, flow: u32, d: Dropped) {
        let pushed_out = d.input != index || d.flow != flow;
        let t = &mut self.ports[out as usize];
        let s = t.slot(d.input);
        let inp = &mut t.inputs[s];
        inp.drop_pkts += 1;
        inp.drop_bytes += d.bytes;
        if inp.in_run == 0 {
            t.run_inputs.push(s as u32);
        }
        inp.in_run += 1;
        if inp.own_run == 0 {
            t.open_inputs += 1;
        }
        inp.own_run += 1;
        t.run += 1;
        if pushed_out && t.open_flows != 0 {
            // The arriving packet got in.
            self.admit_flow(out, flow);
        }
        if let Some(f) = self.flows.get_mut(d.flow as usize) {
            if f.len != 0 && f.port != out {
                // A drop at another port ends the flow's run there.
                let len = std::mem::take(&mut f.len);
                *self.flow_runs.entry((d.flow, f.port, len)).or_insert(0) += 1;
                self.ports[f.port as usize].open_flows -= 1;
            }
            if f.len == 0 {
                self.ports[out as usize].open_flows += 1;
            }
            f.port = out;
            f.len += 1;
        }
    }

    /// Ends every open run (the run is over).
    pub fn close_all(&mut self) {
        for t in &mut self.ports {
            t.close();
            t.open_flows = 0;
            t.open_inputs = 0;
            for inp in &mut t.inputs {
                if inp.own_run != 0 {
                    inp.close_own();
                }
            }
            t.add_counts();
        }
        for (k, f) in self.flows.iter_mut().enumerate() {
            if f.len != 0 {
                let len = std::mem::take(&mut f.len);
                *self.flow_runs.entry((k as u32, f.port, len)).or_insert(0) += 1;
            }
        }
    }

    /// Traces port `port`, keeping at most `max_rows` rows.
    pub fn trace_port(&mut self, port: PortId, max_rows: usize) {
        self.trace_port = port;
        self.trace_max_rows = max_rows;
    }

    /// Adds a trace row, if the cap allows.
    #[inline(never)]
    pub fn record(&mut self, row: TraceRow) {
        if self.trace.len() < self.trace_max_rows {
            self.trace.push(row);
        } else {
            self.trace_dropped_rows += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tally of one output port (0) fed by inputs 0..3 (ports 10..13);
    /// each input's packets are flow `input` (flow direction keys 0..3).
    fn tally() -> DropTally {
        DropTally {
            in_index: vec![],
            ports: vec![PortTally::default()],
            flows: vec![FlowRun::default(); 4],
            flow_runs: BTreeMap::new(),
            trace_port: PortId::MAX,
            trace: vec![],
            trace_max_rows: 0,
            trace_dropped_rows: 0,
        }
    }

    /// Feeds events: (input, dropped?).
    fn feed(t: &mut DropTally, events: &[(u32, bool)]) {
        for &(i, drop) in events {
            let d = drop.then_some(Dropped {
                input: i,
                flow: i,
                bytes: 1500,
            });
            t.arrival(0, i, i, 1500, d);
        }
        t.close_all();
    }

    fn runs(t: &DropTally) -> &[u64] {
        &t.ports[0].runs
    }

    fn input(t: &DropTally, i: u32) -> &InputStats {
        t.ports[0].inputs.iter().find(|s| s.index == i).unwrap()
    }

    #[test]
    fn runs_of_one_two_and_three() {
        let mut t = tally();
        let (a, d) = (false, true);
        feed(
            &mut t,
            &[
                (0, a),
                (0, d),
                (0, a),
                (0, d),
                (0, d),
                (0, a),
                (0, d),
                (0, d),
                (0, d),
            ],
        );
        assert_eq!(runs(&t), &[0, 1, 1, 1]);
        assert_eq!(t.ports[0].runs_alone, vec![0, 1, 1, 1]);
        let s = input(&t, 0);
        assert_eq!((s.arrival_pkts, s.drop_pkts, s.drop_bytes), (9, 6, 9000));
        assert_eq!(s.hit(), vec![0, 1, 1, 1]);
        assert_eq!(s.hit_drops(), vec![0, 1, 2, 3]);
        assert_eq!(s.own(), vec![0, 1, 1, 1]);
        // The flow's own runs are the same: it is alone.
        let own: Vec<_> = t.flow_runs.iter().map(|(k, v)| (k.2, *v)).collect();
        assert_eq!(own, vec![(1, 1), (2, 1), (3, 1)]);
    }

    #[test]
    fn an_admission_from_another_input_ends_the_port_run_not_the_flows() {
        let mut t = tally();
        // Input 0 dropped, input 1 admitted, input 0 dropped twice: the
        // port sees runs of 1 and 2; flow 0 never had an admission of its
        // own in between, so its own run is 3 long.
        feed(&mut t, &[(0, true), (1, false), (0, true), (0, true)]);
        assert_eq!(runs(&t), &[0, 1, 1]);
        assert_eq!(input(&t, 0).hit(), vec![0, 1, 1]);
        assert!(input(&t, 1).hit().is_empty());
        assert_eq!(input(&t, 1).arrival_pkts, 1);
        assert_eq!(t.flow_runs.get(&(0, 0, 3)), Some(&1));
        assert_eq!(t.flow_runs.len(), 1);
        // Input 0's own run is 3 long too: input 1's admission does not end it.
        assert_eq!(input(&t, 0).own(), vec![0, 0, 0, 1]);
        assert!(input(&t, 1).own().is_empty());
    }

    #[test]
    fn a_run_hitting_two_inputs_counts_under_both_and_alone_under_neither() {
        let mut t = tally();
        // A run of 3: input 0, input 1, input 0; then a run of 1 on input 1.
        feed(
            &mut t,
            &[(0, true), (1, true), (0, true), (2, false), (1, true)],
        );
        assert_eq!(runs(&t), &[0, 1, 0, 1]);
        assert_eq!(t.ports[0].runs_alone, vec![0, 1]);
        let (s0, s1) = (input(&t, 0), input(&t, 1));
        assert_eq!(s0.hit(), vec![0, 0, 0, 1]);
        assert_eq!(s0.hit_drops(), vec![0, 0, 0, 2]);
        assert!(s0.alone().iter().all(|&x| x == 0));
        assert_eq!(s1.hit(), vec![0, 1, 0, 1]);
        assert_eq!(s1.hit_drops(), vec![0, 1, 0, 1]);
        assert_eq!(s1.alone(), vec![0, 1]);
        // Own runs: input 0's two drops (input 2's admission between does
        // not end it), input 1's two.
        assert_eq!(s0.own(), vec![0, 0, 1]);
        assert_eq!(s1.own(), vec![0, 0, 1]);
        // Drops over inputs = port drops; length x runs = drops.
        let drops: u64 = t.ports[0].inputs.iter().map(|s| s.drop_pkts).sum();
        let by_len: u64 = runs(&t).iter().enumerate().map(|(l, n)| l as u64 * n).sum();
        assert_eq!((drops, by_len), (4, 4));
        // Flow 0: own run of 2 (flow 1's drop does not end it); flow 1:
        // its two drops have no admission of its own between: one run of 2.
        assert_eq!(t.flow_runs.get(&(0, 0, 2)), Some(&1));
        assert_eq!(t.flow_runs.get(&(1, 0, 2)), Some(&1));
    }

    #[test]
    fn a_pushed_out_packet_counts_against_its_own_input() {
        let mut t = tally();
        feed(&mut t, &[(0, false)]);
        // Input 1's packet arrives and input 0's is pushed out.
        t.arrival(
            0,
            1,
            1,
            1500,
            Some(Dropped {
                input: 0,
                flow: 0,
                bytes: 1000,
            }),
        );
        t.close_all();
        let (s0, s1) = (input(&t, 0), input(&t, 1));
        assert_eq!((s0.arrival_pkts, s0.drop_pkts, s0.drop_bytes), (1, 1, 1000));
        assert_eq!((s1.arrival_pkts, s1.drop_pkts), (1, 0));
        assert_eq!(runs(&t), &[0, 1]);
    }

    /// Each port's count of open flow runs against the flows' runs
    /// themselves.
    fn open_counts_hold(t: &DropTally) -> bool {
        let mut by_port = vec![0u32; t.ports.len()];
        for f in t.flows.iter().filter(|f| f.len != 0) {
            by_port[f.port as usize] += 1;
        }
        t.ports.iter().map(|p| p.open_flows).eq(by_port)
    }

    #[test]
    fn a_flows_run_moving_between_ports_is_counted_open_at_one_port_at_a_time() {
        let mut t = tally();
        t.ports.push(PortTally::default());
        let drop = |i: u32, f: u32| Dropped {
            input: i,
            flow: f,
            bytes: 1500,
        };
        // Flow 0 dropped at port 0, then at port 1 (its run at port 0 ends
        // there), admitted at port 0 (nothing open there), then at port 1.
        t.arrival(0, 0, 0, 1500, Some(drop(0, 0)));
        assert!(open_counts_hold(&t) && t.ports[0].open_flows == 1);
        t.arrival(1, 0, 0, 1500, Some(drop(0, 0)));
        assert!(open_counts_hold(&t));
        assert_eq!((t.ports[0].open_flows, t.ports[1].open_flows), (0, 1));
        t.arrival(0, 0, 0, 1500, None);
        assert!(open_counts_hold(&t) && t.ports[1].open_flows == 1);
        // Flow 1 dropped at port 1 too, then flow 0 admitted there.
        t.arrival(1, 1, 1, 1500, Some(drop(1, 1)));
        assert_eq!(t.ports[1].open_flows, 2);
        t.arrival(1, 0, 0, 1500, None);
        assert!(open_counts_hold(&t) && t.ports[1].open_flows == 1);
        t.close_all();
        assert!(open_counts_hold(&t) && t.ports.iter().all(|p| p.open_flows == 0));
        // Flow 0's runs: 1 at port 0, 1 at port 1; flow 1's: 1 at port 1.
        let runs: Vec<_> = t.flow_runs.iter().map(|(&k, &n)| (k, n)).collect();
        assert_eq!(runs, vec![((0, 0, 1), 1), ((0, 1, 1), 1), ((1, 1, 1), 1)]);
    }

    /// Each port's count of open input runs against the inputs' runs.
    fn open_inputs_hold(t: &DropTally) -> bool {
        t.ports
            .iter()
            .all(|p| p.open_inputs as usize == p.inputs.iter().filter(|s| s.own_run != 0).count())
    }

    #[test]
    fn arrivals_counted_packed_add_up_in_the_slots_through_overflow_and_growth() {
        let mut t = tally();
        t.flows = vec![FlowRun::default(); 64];
        // Inputs met from high to low index and back (the counts grow),
        // arrivals of up to 2^38 bytes (a count reaches bit 39 within
        // three and is added into its slot mid-run), one drop in five.
        let mut rng = crate::engine::Rng::new(7);
        let mut want = [(0u64, 0u64); 24];
        for n in 0..20_000u32 {
            let i = match n {
                0..=23 => 23 - n,
                _ => rng.below_inclusive(23) as u32,
            };
            let bytes = if rng.below_inclusive(7) == 0 {
                (1 << 38) + rng.below_inclusive(999)
            } else {
                40 + rng.below_inclusive(1459)
            };
            let d = (rng.below_inclusive(4) == 0).then_some(Dropped {
                input: i,
                flow: i,
                bytes,
            });
            t.arrival(0, i, i, bytes, d);
            want[i as usize].0 += 1;
            want[i as usize].1 += bytes;
            assert!(open_inputs_hold(&t));
        }
        assert_eq!(t.ports[0].counts.len(), 24);
        t.close_all();
        assert!(t.ports[0].counts.iter().all(|&c| c == 0));
        assert_eq!((t.ports[0].open_inputs, open_inputs_hold(&t)), (0, true));
        for (i, &(pkts, bytes)) in want.iter().enumerate() {
            let s = input(&t, i as u32);
            assert_eq!(
                (s.arrival_pkts, s.arrival_bytes),
                (pkts, bytes),
                "input {i}"
            );
        }
        // Closing again adds nothing twice.
        t.close_all();
        assert_eq!(input(&t, 3).arrival_pkts, want[3].0);
    }

    #[test]
    fn many_inputs_use_the_dense_index() {
        let mut t = tally();
        t.flows = vec![FlowRun::default(); 64];
        let ev: Vec<(u32, bool)> = (0..40).map(|i| ((i * 7) % 20, i % 3 == 0)).collect();
        feed(&mut t, &ev);
        assert_eq!(t.ports[0].inputs.len(), 20);
        let arr: u64 = t.ports[0].inputs.iter().map(|s| s.arrival_pkts).sum();
        assert_eq!(arr, 40);
        for s in &t.ports[0].inputs {
            assert_eq!(s.arrival_pkts, 2);
        }
    }
}
