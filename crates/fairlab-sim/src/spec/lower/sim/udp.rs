//! A udp workload: one flow from the source, which its application starts
//! and lets run (the transport paces the datagrams).

use super::common::{Cx, Flow, Lowered};
use crate::spec::{ScenarioError, UdpSpec};
use crate::units::Time;
use crate::workload::{Udp, Workload};

pub(super) fn lower<'a>(cx: &Cx, wi: u32, w: &'a UdpSpec) -> Result<Lowered<'a>, ScenarioError> {
    let flow = Flow {
        opener: cx.node(&format!("workload[{wi}].src"), &w.src)?,
        listener: cx.node(&format!("workload[{wi}].dst"), &w.dst)?,
        data_side: 0,
    };
    let start = w.start.unwrap_or(Time::ZERO);
    Ok(Lowered {
        flows: vec![flow],
        app: Box::new(move |ids| Workload::Udp(Udp::new(ids[0], start))),
    })
}
