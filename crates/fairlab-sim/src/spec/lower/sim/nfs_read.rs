//! An NFS-read workload: one flow per client, opened by the client, which
//! asks; the server listens and sends the data (the replies).

use super::common::{Cx, Flow, Lowered};
use crate::spec::{NfsReadSpec, ScenarioError};
use crate::units::Time;
use crate::workload::{NfsRead, ReadParams, Workload};

pub(super) fn lower<'a>(
    cx: &Cx,
    wi: u32,
    w: &'a NfsReadSpec,
) -> Result<Lowered<'a>, ScenarioError> {
    let server = cx.node(&format!("workload[{wi}].server"), &w.server)?;
    let clients = w
        .clients(&cx.resolved.hosts)
        .iter()
        .map(|n| cx.node(&format!("workload[{wi}].clients"), n))
        .collect::<Result<Vec<_>, _>>()?;
    let flows = clients
        .iter()
        .map(|&c| Flow {
            opener: c,
            listener: server,
            data_side: 1,
        })
        .collect();
    let params = ReadParams {
        file_size: w.file_size.get(),
        io_size: w.io_size().get(),
        outstanding: w.outstanding(),
        request: w.request().get(),
        reply_header: w.reply_header().get(),
        disk_rate: w.disk_rate,
    };
    let start = w.start.unwrap_or(Time::ZERO);
    let app = move |ids| {
        Workload::NfsRead(Box::new(NfsRead::new(
            wi, start, server, clients, ids, params,
        )))
    };
    Ok(Lowered {
        flows,
        app: Box::new(app),
    })
}
