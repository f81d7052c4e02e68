//! A toy transport, for tests and for the worked example of
//! `docs/model.md`: a sender pacing datagrams at a fixed gap and a
//! receiver echoing each back (header only); the sender counts the echoes.
//! It is a transport as any other: its own file, a variant of
//! [`super::Endpoint`] and its arms there; the event loop, delivery, the
//! workloads and the other transports do not know it (its test opens it
//! with the udp workload's application).

use super::{ConnApp, Outbox, Step};
use crate::packet::{flags, FiveTuple, FlowHasher, NodeId, Packet, UDP_IP_HEADER};
use crate::units::Time;

#[derive(Clone, Debug)]
pub struct EchoFlow {
    pub app: ConnApp,
    /// Its index among the simulation's endpoints.
    pub id: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// Between datagrams.
    pub gap: Time,
    /// Payload bytes per datagram.
    pub payload: u32,
    /// Flow hash per side (datagrams, echoes).
    hash: [u32; 2],
    pub sent: u64,
    pub received: u64,
    pub echoed: u64,
}

impl EchoFlow {
    pub fn new(app: ConnApp, id: u32, src: NodeId, dst: NodeId, gap: Time, payload: u32) -> Self {
        EchoFlow {
            app,
            id,
            src,
            dst,
            gap,
            payload,
            hash: [0; 2],
            sent: 0,
            received: 0,
            echoed: 0,
        }
    }

    pub(super) fn set_flow(&mut self, t: FiveTuple, hasher: &FlowHasher) {
        self.hash = [hasher.hash(&t), hasher.hash(&t.reversed())];
    }

    pub(super) fn flow_hash(&self, side: usize) -> u32 {
        self.hash[side]
    }

    /// Side `side`'s packet of `payload` bytes to `dst`.
    fn packet(&self, side: usize, dst: NodeId, payload: u32) -> Packet {
        Packet {
            flow: 2 * self.id + side as u32,
            dst,
            hash: self.hash[side],
            header: UDP_IP_HEADER as u8,
            payload,
            flags: flags::UDP,
            ..Packet::blank()
        }
    }

    /// The next datagram, and a wake-up (token 0) for the one after it.
    pub(super) fn on_timer(&mut self, now: Time, out: &mut Outbox) -> Step {
        self.sent += 1;
        out.wake.push((now + self.gap, 0));
        out.host = self.src;
        out.packets.push(self.packet(0, self.dst, self.payload));
        Step::NONE
    }

    /// A datagram reaches the receiver, which echoes it and delivers its
    /// payload; or an echo reaches the sender.
    pub(super) fn on_packet(&mut self, pkt: &Packet, out: &mut Outbox) -> Step {
        if pkt.side() == 1 {
            self.echoed += 1;
            return Step::NONE;
        }
        self.received += 1;
        out.host = self.dst;
        out.packets.push(self.packet(1, self.src, 0));
        Step {
            side: 1,
            delivered: u64::from(pkt.payload),
            data: true,
            ..Step::NONE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::{star, LinkSpec};
    use crate::queue::{BufferLimit, DropTail, Queue};
    use crate::sim::{Series, Simulation};
    use crate::transport::Endpoint;
    use crate::units::BitsPerSec;
    use crate::workload::{Udp, Workload};

    #[test]
    fn a_transport_added_as_its_own_file_runs_under_an_unchanged_workload_and_event_loop() {
        let hosts = vec!["a".to_string(), "b".to_string()];
        let link = LinkSpec {
            rate: BitsPerSec(1_000_000_000),
            delay: Time::from_us(10),
        };
        let q = || Queue::DropTail(DropTail::new(BufferLimit::Packets(100)));
        let (net, _) = star(&hosts, link, &q, &q);
        let app = ConnApp {
            workload: 0,
            index: 0,
        };
        let flow = EchoFlow::new(app, 0, 0, 1, Time::from_us(100), 1000);
        // The udp workload's application opens it, as it opens a UDP flow.
        let workload = Workload::Udp(Udp::new(0, Time::ZERO));
        let series = Series {
            throughput_bin: Some(Time::from_ms(1)),
            ..Series::default()
        };
        let stop = Some(Time::from_ms(10));
        let eps = vec![Endpoint::Echo(flow)];
        let mut sim = Simulation::new(net, eps, vec![workload], stop, 1, "test", series);
        sim.index_flows();
        sim.run();
        let Endpoint::Echo(f) = &sim.endpoints[0] else {
            unreachable!()
        };
        // One datagram every 100 us from 0 to 10 ms (the last one still on
        // its way at the end), each echoed within 50 us.
        assert_eq!(f.sent, 101);
        assert_eq!((f.received, f.echoed), (100, 100));
        assert_eq!(sim.counters.packets_delivered, 200);
        // Its payload counts in the per-flow throughput series like any data.
        let bins = &sim.series.flow_bins[0];
        assert_eq!(bins.iter().sum::<u64>(), 100 * 1000);
        // A flows table has no row for it: that would be its own collector.
        let r = crate::metrics::collect(&sim);
        assert_eq!(r.table("flows").rows(), 0);
    }
}
