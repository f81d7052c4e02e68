//! A bulk workload: one flow, opened by the source, which sends the data.

use super::common::{Cx, Flow, Lowered};
use crate::spec::{BulkSpec, ScenarioError};
use crate::units::Time;
use crate::workload::{Bulk, Workload};

pub(super) fn lower<'a>(cx: &Cx, wi: u32, w: &'a BulkSpec) -> Result<Lowered<'a>, ScenarioError> {
    let flow = Flow {
        opener: cx.node(&format!("workload[{wi}].src"), &w.src)?,
        listener: cx.node(&format!("workload[{wi}].dst"), &w.dst)?,
        data_side: 0,
    };
    let start = w.start.unwrap_or(Time::ZERO);
    let size = w.size.map(|s| s.get());
    Ok(Lowered {
        flows: vec![flow],
        app: Box::new(move |ids| Workload::Bulk(Bulk::new(ids[0], start, size))),
    })
}
