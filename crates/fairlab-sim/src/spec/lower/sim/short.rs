//! A short-flows workload: `count` flows from the source, each opened at
//! its own instant (drawn from the workload's stream) and sending its size.

use super::common::{Cx, Flow, Lowered, RNG_WORKLOAD};
use crate::engine::Rng;
use crate::spec::{ScenarioError, ShortSpec};
use crate::units::Time;
use crate::workload::{ShortFlows, Workload};

pub(super) fn lower<'a>(cx: &Cx, wi: u32, w: &'a ShortSpec) -> Result<Lowered<'a>, ScenarioError> {
    let src = cx.node(&format!("workload[{wi}].src"), &w.src)?;
    let dst = cx.node(&format!("workload[{wi}].dst"), &w.dst)?;
    let flows = (0..w.count)
        .map(|_| Flow {
            opener: src,
            listener: dst,
            data_side: 0,
        })
        .collect();
    // `packets` counts full segments of the workload's own MSS.
    let size = w.flow_bytes(cx.mss(wi as usize));
    let (start, spread) = (
        w.start.unwrap_or(Time::ZERO),
        w.spread.unwrap_or(Time::ZERO),
    );
    let seed = cx.seed;
    let app = move |ids| {
        let mut rng = Rng::stream(seed, &[RNG_WORKLOAD, wi as u64]);
        let short = ShortFlows::new(wi, start, spread, ids, size, &mut rng);
        Workload::Short(Box::new(short))
    };
    Ok(Lowered {
        flows,
        app: Box::new(app),
    })
}
