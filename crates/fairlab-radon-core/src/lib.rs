//! fairlab-radon-core: Radon (RAD on networks), the algorithms of the seed's
//! chapters 3–5, as pure functions and small state machines. No clock, socket,
//! random-number generator or event loop of its own: the simulator drives it
//! from events, and a real implementation (issue 22) from UDP sockets. The
//! driver passes times (picoseconds, `i64`, names ending `_ps`; real sockets
//! give nanoseconds, ×1000) and uniform draws (`u01` in [0, 1)).
//!
//! # Modules
//!
//! - [`rad`]: the RAD model on a stream: reservation (u, p), budget e = u·p,
//!   jobs (release r, deadline d = r + p), budget left e′, pktS, m = e/pktS,
//!   laxity l = d − t − e′, %laxity, %budget.
//! - [`rfd`]: relative forward delay RFD_ij = (R_j − R_i) − (S_j − S_i).
//! - [`model`]: the queue-depth models, one module each: [`model::basic`]
//!   (TCP Santa Cruz, N = ΣRFD / (L/C)), [`model::pathload`] (trains, group
//!   medians, PCT and PDT), [`model::median5`] (the seed's continuous median
//!   of five with a sliding trend); [`model::Model`] holds any of them.
//! - [`receiver`]: the receiving host: loss by frame gaps, all three models on
//!   every datagram, one drives the feedback.
//! - [`feedback`]: the feedback and its fixed, versioned 40-byte encoding
//!   (magic `RDFB`, version 1); decode errors are values.
//! - [`response`]: the sender's responses: [`response::rate`] (rate-based
//!   Percent-Budget) and [`response::window`] (window-based Percent-Budget,
//!   Less-Laxity-More, the random dispatch offset).
//! - [`sender`]: the sending host as a state machine: non-adaptive (UDPmon's
//!   fixed wait), rate, or window mode.
//! - [`admission`]: per-port admission, Σu ≤ 1 − reserve with wire bytes.
//! - [`trace`]: a decision trace (inputs a driver fed, decisions made), for
//!   checking two drivers make the same decisions.
//! - [`calculus`]: network-calculus closed forms and feed-forward per-port
//!   bounds.
//!
//! # Departures from the shared design's sketch
//!
//! - [`calculus::PortBound::UpstreamUnstable`] is a fifth verdict: a port
//!   stable by its own Σr that a stream reaches through an unstable port has
//!   no finite bound either.
//! - [`Feedback`] lives in its own module, [`feedback`] (re-exported by
//!   [`receiver`] and here).
//! - Additions only: [`Trend::code`]/[`Trend::name`], [`Feedback::to_bytes`],
//!   [`Receiver::feedback`] and [`Receiver::estimates`], [`Sender::rad`],
//!   [`Sender::next_poll_ps`], [`Sender::config`], [`Receiver::config`],
//!   [`Rad::budget_left_packets`],
//!   [`RateResponse::reservation_wait_ps`], [`RateResponse::for_reservation`],
//!   [`RateResponse::wait_min_for`], [`calculus::RateLatency::for_port`],
//!   [`admission::ETHERNET_UDP_IPV4_OVERHEAD_BYTES`], and the reading enums
//!   [`model::BasicReading`] and [`response::WaitMinReading`].
//!
//! # Readings taken where the seed leaves a choice open
//!
//! RAD ([`rad`]):
//! - %budget: e′/(d − t) ([`BudgetReading::Remaining`], default: equals
//!   1 − %laxity, the seed's definition) or e/(d − t) ([`BudgetReading::Full`],
//!   the seed's literal right-hand side).
//! - %laxity and %budget are clamped to [0, 1]; a negative laxity is the most
//!   urgent (%laxity 0).
//! - m = e/pktS and the packets e′ pays for are rounded down.
//! - Jobs roll over at r₀ + k·p with the whole budget again; unspent budget is
//!   not carried over.
//!
//! Models ([`model`]):
//! - Basic: depth = ΣRFD over an interval of 5 RFDs / (L/C), the queue's
//!   growth during the interval (default [`model::BasicReading::Interval`],
//!   the seed's formula, which "stays close to zero" as the seed observed);
//!   [`model::BasicReading::Cumulative`] is Santa Cruz's running sum, floored
//!   at 0. No trend test: trend Unknown.
//! - Pathload: K = 100 received datagrams per train (losses neither end nor
//!   void a train), groups of ⌊√K⌋, Γ = ⌊K/⌊√K⌋⌋ (leftovers dropped), median
//!   of an even group = mean of the middle two; increasing when PCT > 0.605
//!   or PDT > 0.44, no trend when PCT < 0.495 and PDT < 0.36, ambiguous
//!   otherwise, fewer than 5 groups discarded (Unknown). PCT divides by Γ − 1
//!   by default (the paper's definition, around which the thresholds sit);
//!   [`model::PctDivisor::Gamma`] matches pathload 1.3.2's code. PDT of a flat
//!   sequence is 0. Depth = the last group median above the lowest group
//!   median seen on the stream, / (L/C).
//! - Median5: consecutive disjoint groups of five relative delays (RFD against
//!   the stream's first datagram); trend by PCT/PDT over a sliding window of
//!   the last 10 medians (50 datagrams, Pathload's Γ for K = 100), Unknown
//!   below 5 medians; depth = newest median above the lowest median seen so
//!   far (a running baseline), / (L/C), never negative.
//!
//! Receiver ([`receiver`]):
//! - Frames count from 0; gaps are losses; a late frame un-counts one loss; a
//!   duplicate within the last 1024 frames is ignored.
//! - Models see datagrams in arrival order.
//! - Feedback every 5 datagrams by default; congested ⇔ the driving model's
//!   depth ≥ 1 packet by default (depth, not trend, decides, as the seed's
//!   prototype steered by the modeled depth); Median5 drives by default.
//!
//! Responses ([`response`]):
//! - Rate: the move toward w_op is halfway, then clamped
//!   ([`response::WaitReading::Halfway`], default); the seed's literal clamp
//!   on the never-positive change (always wait_min) is
//!   [`response::WaitReading::SeedLiteral`]. wait_min = the reservation's pace
//!   L/(u·C) ([`response::WaitMinReading::ReservationPace`], default; the
//!   seed's tables) or the line rate, pktS
//!   ([`response::WaitMinReading::LineRate`]); wait_max = one period in
//!   [`response::RateResponse::for_reservation`]; not congested: w_op =
//!   wait_min; %budget = 0: w_op = wait_max.
//! - Window: w_change = −|w − w_op|/2 read as halfway toward w_op; not
//!   congested: w_op = w_max; result clamped to [w_min, w_max], then to the
//!   packets e′ pays for (budget beats w_min); Less-Laxity-More's l in packet
//!   service times, negative taken as 0; dispatch offset N_obs·pktS·rand
//!   (N_obs in packets).
//!
//! Sender ([`sender`]):
//! - Non-adaptive: next datagram `wait` after the previous; budget charged,
//!   not enforced. Rate: same, the new wait applies from the next send.
//!   Window: ⌊w⌋ (≥ 1) datagrams per slot of w_max·wait, cut to the budget
//!   left, plus the dispatch offset; with the budget spent, wait for the next
//!   release. Reordered (older) feedback is ignored.
//!
//! Admission ([`admission`]):
//! - In the given order; a refused stream reserves nothing; refused at the
//!   first port of its path that cannot hold it (a path lists each port
//!   once); tolerance 1e-9 on the sum; Ethernet UDP/IPv4 overhead 66 bytes
//!   (8192 → 8258).
//!
//! Network calculus ([`calculus`]):
//! - Σr = R is stable; Σr > R is unstable (relative tolerance 1e-9, the same
//!   as admission's, so a set admitted at exactly full utilization is not
//!   turned unstable by rounding); ports on or behind a cycle are
//!   Cyclic; a stream reaching a port through an unstable port makes it
//!   UpstreamUnstable; delay bounds round up to the next picosecond; a port's
//!   latency T is one largest packet's transmission time.

pub mod admission;
pub mod calculus;
pub mod feedback;
pub mod model;
pub mod rad;
pub mod receiver;
pub mod response;
pub mod rfd;
pub mod sender;
pub mod trace;

pub use admission::{admit, wire_bytes, Ledger, Refusal, StreamAsk};
pub use calculus::{
    backlog_bound_bytes, delay_bound_ps, output_arrival, port_bounds, PortBound, RateLatency,
    TokenBucket,
};
pub use feedback::{DecodeError, Feedback};
pub use model::{
    pathload_trend, Basic, Estimate, Median5, Model, ModelKind, Pathload, PathloadTrend,
    PctDivisor, Trend,
};
pub use rad::{BudgetReading, Rad, Reservation};
pub use receiver::{Observation, Receiver, ReceiverConfig};
pub use response::{RateResponse, WaitMinReading, WaitReading, WindowResponse, WindowRule};
pub use rfd::rfd_ps;
pub use sender::{Dispatch, Mode, Sender, SenderConfig};
