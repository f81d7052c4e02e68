//! A decision trace replayed through the socket agent's sessions: the
//! recorded inputs fed to a fresh [`RecvSession`] and [`SendSession`], their
//! decisions compared with the recorded ones. Half of the decision test
//! (tests/decisions.rs); the simulator's `RadonFlow` has the other half.

use crate::session::{RecvSession, SendSession};
use fairlab_radon_core::trace::{compare, Event, Mismatch, StreamTrace};

/// The decisions the sessions make on `t`'s inputs, as a trace.
pub fn through_sessions(t: &StreamTrace) -> StreamTrace {
    let mut r = RecvSession::new(t.flow_id, t.receiver, usize::MAX, 0).with_trace();
    for ev in &t.receiver_events {
        if let Event::Datagram {
            frame,
            sent_ps,
            recv_ps,
        } = *ev
        {
            r.on_stamps(frame, sent_ps, recv_ps);
        }
    }
    // The recorded polls already stopped where the stream stopped: the
    // replay's session has no stop or count of its own.
    let mut s = SendSession::new(t.flow_id, t.sender, t.start_ps, i64::MAX, u64::MAX).with_trace();
    let mut out = Vec::new();
    for ev in &t.sender_events {
        match ev {
            Event::Poll { at_ps, u01 } => {
                s.force_due(*at_ps);
                s.poll(*at_ps, *u01, &mut out);
            }
            Event::Arrival { at_ps, bytes } => {
                let _ = s.on_feedback(*at_ps, bytes);
            }
            _ => {}
        }
    }
    StreamTrace {
        receiver_events: r.trace.take().unwrap_or_default(),
        sender_events: s.trace.take().unwrap_or_default(),
        ..t.clone()
    }
}

/// Where the sessions decide otherwise than `t` recorded (empty: the same).
pub fn mismatches(t: &StreamTrace) -> Vec<Mismatch> {
    let replayed = through_sessions(t);
    let mut out = compare(
        t.flow_id,
        "receiver",
        &t.receiver_events,
        &replayed.receiver_events,
    );
    out.extend(compare(
        t.flow_id,
        "sender",
        &t.sender_events,
        &replayed.sender_events,
    ));
    out
}
