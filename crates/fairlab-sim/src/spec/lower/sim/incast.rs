//! An incast workload: one flow per server, opened by the client; each
//! server listens and sends the data (its share of every block).

use super::common::{Cx, Flow, Lowered, RNG_WORKLOAD};
use crate::engine::Rng;
use crate::spec::{IncastSpec, RequestOrder, ScenarioError};
use crate::units::Time;
use crate::workload::{Incast, Workload};

pub(super) fn lower<'a>(cx: &Cx, wi: u32, w: &'a IncastSpec) -> Result<Lowered<'a>, ScenarioError> {
    let at = |f: &str| format!("workload[{wi}].{f}");
    let client = cx.node(&at("client"), &w.client)?;
    let servers = w
        .servers(&cx.resolved.hosts)
        .iter()
        .map(|n| cx.node(&at("servers"), n))
        .collect::<Result<Vec<_>, _>>()?;
    let sru = match (w.sru, w.block) {
        (Some(s), _) => vec![s.get(); servers.len()],
        (None, Some(b)) => Incast::split_block(b.get(), servers.len()),
        (None, None) => {
            return Err(ScenarioError::new(
                at("sru"),
                "missing; an incast workload needs sru (bytes per server) or block",
            ))
        }
    };
    let flows = servers
        .iter()
        .map(|&s| Flow {
            opener: client,
            listener: s,
            data_side: 1,
        })
        .collect();
    let rng = Rng::stream(cx.seed, &[RNG_WORKLOAD, wi as u64]);
    let app = move |ids| {
        let incast = Incast::new(
            wi,
            w.start.unwrap_or(Time::ZERO),
            client,
            servers,
            ids,
            sru,
            w.request().get(),
            w.rounds(),
            w.response_jitter.unwrap_or(Time::ZERO),
            rng,
        )
        .with_warmup(w.warmup.unwrap_or(false))
        .with_random_order(w.request_order == Some(RequestOrder::Random));
        Workload::Incast(Box::new(incast))
    };
    Ok(Lowered {
        flows,
        app: Box::new(app),
    })
}
