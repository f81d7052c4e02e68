//! UDP glue: a source's datagrams, each followed by its next send.

use super::{Event, Simulation};
use crate::workload::Workload;

impl Simulation {
    pub(super) fn udp_send(&mut self, w: u32) {
        let Workload::Udp(u) = &mut self.workloads[w as usize] else {
            return;
        };
        let (pkt, gap) = u.emit();
        let host = u.src;
        let now = self.events.now();
        self.events
            .schedule(now + gap, Event::UdpSend { workload: w });
        let _ = self.inject(host, pkt);
    }
}
