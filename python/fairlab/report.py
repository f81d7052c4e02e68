"""Runs a study's experiments and writes what they found: one static HTML
page a person opens from disk (plots embedded, no server, nothing fetched),
the same tables as CSV and Parquet, and the text the command line prints.

Nothing here knows a particular study: headings, setups, published numbers
and plots all come from the study modules (fairlab.studies).
"""

from __future__ import annotations

import base64
import html
import math
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .outcome import Outcome
from .outcome import runs_table as _runs_table
from .studies.base import (
    NOT_RUN,
    OUTSIDE,
    QUALITATIVE,
    WITHIN,
    Experiment,
    Study,
    fmt_number,
    pct_text,
    verdict_text,
    verdicts,
)

if TYPE_CHECKING:
    import pandas as pd

    from .runner import Task


#: The HTML page's file name inside --out.
PAGE = "index.html"


def run_experiment(
    exp: Experiment,
    *,
    quick: bool = False,
    jobs: int | None = None,
    cluster: str | None = None,
    store: str | Path | None = None,
    progress: Any = None,
    backend: str = "sim",
    warn: Callable[[str], None] | None = None,
    tasks: Sequence[Task] | None = None,
) -> Outcome:
    """Runs one experiment's tasks on ``backend`` (fairlab.backends: "sim",
    "emu" or "ns2"), summarizes them and judges every published row; draws
    its plot. With ``store`` every run is kept in that results store (and runs
    already there are not run again; the simulator only)."""
    from . import backends

    run = backends.get(backend).run_tasks(warn)
    t0 = time.perf_counter()
    if tasks is None:
        tasks = exp.tasks(quick)
    results = run(tasks, jobs=jobs, cluster=cluster, progress=progress, store=store)
    summary = exp.summarize(tasks, results)
    runs = _runs_table(tasks, results)
    del results
    wall = time.perf_counter() - t0
    table = summary.table if summary.samples is None else summary.samples
    v = verdicts(table, exp.published)
    png = None
    if exp.plot:
        from .plots import png_bytes

        png = png_bytes(exp.plot(summary, exp.published))
    return Outcome(exp, quick, summary, v, runs, wall, png)


#: What the kernel's side-by-side compares when the experiment scales its
#: runs for the kernel.
KERNEL_SCALED = (
    "the runs scaled for the kernel (the experiment's setup says how), on the simulator and on "
    "the kernel: the same scenarios on both"
)


def _beside_kernel(o: Outcome) -> pd.DataFrame:
    """The simulator's table set beside the kernel's: of the same scaled
    runs where the experiment scales them, else the experiment's own."""
    return (o.kernel_sim or o).summary.table


# --------------------------------------------------------------------------
# Text, as the command line prints it.


def _table_text(df: pd.DataFrame) -> str:
    return df.to_string(index=False, float_format=lambda x: f"{x:.4g}")


def text(study: Study, o: Outcome) -> str:
    """An experiment's outcome as lines of text."""
    e = o.experiment
    lines = [f"== {study.name} {e.name}: {e.reproduces}" + (" [quick]" if o.quick else "")]
    lines += textwrap.wrap(e.setup, 100)
    lines.append(_table_text(o.summary.table))
    lines.append("published beside fairlab:")
    for _, r in o.verdicts.iterrows():
        if r["verdict"] == QUALITATIVE:
            lines.append(f"  {r['row']}: {verdict_text(r)}; fairlab: {r['shows']}")
        else:
            pub = _published_text(r)
            got = "not run" if r["verdict"] == NOT_RUN else _measured_text(r)
            tol = f", tolerance {r['tolerance']}" if r["tolerance"] else ""
            lines.append(f"  {r['row']}: paper {pub}, fairlab {got}{tol}: {verdict_text(r)}")
        if r.get("why"):
            lines.append(f"    why: {r['why']}")
    lines.append(f"  ({o.runs.shape[0]} runs, {o.wall_s:.1f} s wall)")
    if o.kernel is not None:
        from .emu.studies import side_by_side

        lines.append("the simulator beside the kernel (namespace backend):")
        if o.kernel_sim is not None:
            lines.append("  " + KERNEL_SCALED)
        lines.append(_table_text(side_by_side(_beside_kernel(o), o.kernel.summary.table)))
        lines.append(f"  ({o.kernel.runs.shape[0]} kernel runs, {o.kernel.wall_s:.1f} s wall)")
    elif o.kernel_note:
        lines.append(f"not run on the kernel: {o.kernel_note}")
    if o.ns2 is not None:
        from .ns2.studies import agreement, three_way

        lines.append("published, ns-2 and fairlab (" + _ns2_source(o) + "):")
        tw = three_way(o)
        if len(tw):
            lines.append(_table_text(tw))
        ag = agreement(o.summary.table, o.ns2.summary.table)
        if len(ag):
            lines.append(
                f"  fairlab agrees with ns-2 (±10 % or ±15 Mb/s) at {int(ag['agrees'].sum())} "
                f"of {len(ag)} points"
            )
    if o.ns2_note:
        lines.append(f"ns-2: {o.ns2_note}")
    return "\n".join(lines)


def _ns2_source(o: Outcome) -> str:
    p = o.ns2_provenance
    if not p:
        return "ns-2 run now"
    return (
        f"stored ns-2 {', '.join(p.get('ns_version', []))} results of {p.get('date', '?')}, "
        f"{p.get('runs', '?')} runs, scripts {p.get('scripts_digest', '?')}"
    )


def _published_text(r: Any) -> str:
    b = {"=": "", ">=": "≥ ", "<=": "≤ "}[r["bound"]]
    s = f"{b}{fmt_number(float(r['published']))}"
    if r["uncertainty"]:
        s += f" ± {fmt_number(float(r['uncertainty']))}"
    return s + (f" {r['unit']}" if r["unit"] else "")


def _measured_text(r: Any) -> str:
    s = fmt_number(float(r["fairlab"]))
    sd = r["fairlab_sd"]
    if isinstance(sd, float) and not math.isnan(sd):
        s += f" ± {fmt_number(float(f'{sd:.2g}'))} (sd over {r['fairlab_n']} seeds)"
    return s + (f" {r['unit']}" if r["unit"] else "")


# --------------------------------------------------------------------------
# Files: CSV and Parquet tables, PNG plots, the HTML page.


def _arrow_safe(df: pd.DataFrame) -> pd.DataFrame:
    """Object columns mixing types (a sweep's "baseline" among numbers)
    become strings, so that Parquet can store them."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            kinds = {type(x) for x in out[c] if x is not None}
            if len(kinds) > 1 or not kinds <= {str, bool}:
                out[c] = out[c].map(lambda x: "" if x is None else str(x))
    return out


def _write_table(df: pd.DataFrame, out: Path, stem: str) -> list[str]:
    df.to_csv(out / f"{stem}.csv", index=False)
    _arrow_safe(df).to_parquet(out / f"{stem}.parquet", index=False)
    return [f"{stem}.csv", f"{stem}.parquet"]


def write(
    study: Study,
    outcomes: Sequence[Outcome],
    out: str | Path,
    *,
    command: str = "",
    version: str = "",
    tables: bool = True,
    plot_src: Callable[[str], str] | None = None,
) -> Path:
    """Writes the page, plots and tables of ``outcomes`` into ``out``;
    returns the page's path.

    ``tables``: the tables as CSV and Parquet beside the page (False: the
    page alone, as the checked-in gallery keeps it). ``plot_src``: each
    experiment's plot is not embedded nor written but shown from the file
    it names (the gallery's thumbnail)."""
    import pandas as pd

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, list[str]] = {}
    for o in outcomes:
        name = o.experiment.name
        if not tables:
            files[name] = []
            continue
        f = _write_table(o.summary.table, out, name)
        if o.kernel is not None:
            from .emu.studies import side_by_side

            f += _write_table(o.kernel.summary.table, out, f"{name}-kernel")
            f += _write_table(
                side_by_side(_beside_kernel(o), o.kernel.summary.table), out, f"{name}-both"
            )
        if o.ns2 is not None:
            from .ns2.studies import agreement, three_way

            f += _write_table(o.ns2.summary.table, out, f"{name}-ns2")
            f += _write_table(three_way(o), out, f"{name}-three-way")
            f += _write_table(
                agreement(o.summary.table, o.ns2.summary.table), out, f"{name}-ns2-agreement"
            )
        f += _write_table(o.verdicts, out, f"{name}-verdicts")
        f += _write_table(o.runs, out, f"{name}-runs")
        if o.png is not None:
            (out / f"{name}.png").write_bytes(o.png)
            f.append(f"{name}.png")
        files[name] = f
    if outcomes and tables:
        allv = pd.concat(
            [o.verdicts.assign(experiment=o.experiment.name) for o in outcomes], ignore_index=True
        )
        _write_table(allv[["experiment", *o.verdicts.columns]], out, "verdicts")
    page = out / PAGE
    page.write_text(_html(study, outcomes, files, command, version, plot_src), encoding="utf-8")
    return page


_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       margin: 0 auto; max-width: 1180px; padding: 0 24px 48px; color: #1d2125; }
h1 { font-size: 26px; margin: 28px 0 4px; }
h2 { font-size: 21px; margin: 40px 0 6px; padding-top: 14px; border-top: 2px solid #d0d7de; }
h3 { font-size: 15px; margin: 18px 0 6px; color: #40464d; }
.sub { color: #57606a; margin: 0 0 8px; }
.banner { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px;
          border-radius: 6px; margin: 12px 0; }
table { border-collapse: collapse; font-size: 13px; margin: 4px 0 8px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; vertical-align: top; }
th { background: #f6f8fa; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.v-within { background: #dafbe1; }
.v-outside { background: #ffebe9; }
.v-holds { background: #dafbe1; }
.v-fails { background: #fff1e5; }
.v-none { background: #f6f8fa; }
td.verdict { white-space: nowrap; font-weight: 600; }
.small { font-size: 12px; color: #57606a; }
figure { margin: 10px 0; }
figure img { max-width: 100%; border: 1px solid #d0d7de; }
figcaption { font-size: 12px; color: #57606a; }
dl.prov { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px;
          font-size: 13px; margin: 4px 0; }
dl.prov dt { color: #57606a; }
dl.prov dd { margin: 0; }
ul.sources { list-style: none; padding-left: 0; margin: 2px 0 8px; }
code { font-size: 12px; background: #f6f8fa; padding: 1px 4px; border-radius: 4px; }
.toc td.num { text-align: center; }
"""


def _e(x: Any) -> str:
    return html.escape(str(x))


def _verdict_class(r: Any) -> str:
    v = r["verdict"]
    if v == WITHIN:
        return "v-within"
    if v == OUTSIDE:
        return "v-outside"
    if v == QUALITATIVE:
        return {True: "v-holds", False: "v-fails"}.get(r["holds"], "v-none")
    return "v-none"


def _counts(v: pd.DataFrame) -> dict[str, int]:
    q = v[v["verdict"] == QUALITATIVE]
    return {
        "within": int((v["verdict"] == WITHIN).sum()),
        "outside": int((v["verdict"] == OUTSIDE).sum()),
        "holds": int((q["holds"] == True).sum()),  # noqa: E712 (a column of True/False/None)
        "fails": int((q["holds"] == False).sum()),  # noqa: E712
        "not run": int((v["verdict"] == NOT_RUN).sum()),
    }


def _verdict_table(v: pd.DataFrame, anchor: str = "src") -> str:
    """Published beside fairlab, a verdict per row; provenance as numbered
    notes under the table. Rows this run did not include (quick mode) are
    counted, not listed (the CSV has them)."""
    # A departure a study explains from its own run gets a column of its own.
    has_why = "why" in v.columns and bool(v["why"].fillna("").astype(str).str.len().gt(0).any())
    head = (
        "<tr><th>row</th><th>published</th><th>fairlab</th><th>deviation</th>"
        "<th>tolerance</th><th>verdict</th><th>source</th>"
        + ("<th>why (from this run)</th>" if has_why else "")
        + "</tr>"
    )
    sources: dict[str, int] = {}
    body = []
    skipped = 0
    for _, r in v.iterrows():
        if r["verdict"] == NOT_RUN:
            skipped += 1
            continue
        ref = sources.setdefault(str(r["source"]), len(sources) + 1)
        cls = _verdict_class(r)
        if r["verdict"] == QUALITATIVE:
            pub = f"<td>{_e(r['claim'])}</td>"
            got = f"<td>{_e(r['shows'])}</td>"
            dev = "<td></td><td></td>"
        else:
            pub = f'<td class="num">{_e(_published_text(r))}</td>'
            got = f'<td class="num">{_e(_measured_text(r))}</td>'
            pct = r["deviation_pct"]
            d = fmt_number(float(r["deviation"]))
            if r["bound"] == "=" and isinstance(pct, float) and not math.isnan(pct):
                d += f" ({pct_text(pct)})"
            dev = f'<td class="num">{_e(d)}</td><td class="num">{_e(r["tolerance"])}</td>'
        why = f'<td class="why">{_e(r.get("why") or "")}</td>' if has_why else ""
        body.append(
            f"<tr><td>{_e(r['row'])}</td>{pub}{got}{dev}"
            f'<td class="verdict {cls}">{_e(verdict_text(r))}</td>'
            f'<td class="num"><a href="#{_e(anchor)}-{ref}" title="{_e(r["source"])}">[{ref}]</a>'
            f"</td>{why}</tr>"
        )
    notes = "".join(f'<li id="{_e(anchor)}-{i}">[{i}] {_e(src)}</li>' for src, i in sources.items())
    more = (
        f'<p class="small">{skipped} published row(s) not run in this mode (listed as "not run" '
        "in the verdicts CSV).</p>"
        if skipped
        else ""
    )
    return (
        f'<div class="scroll"><table class="verdicts">{head}{"".join(body)}</table></div>'
        f'<ul class="sources small">{notes}</ul>{more}'
    )


def _data_table(df: pd.DataFrame, cls: str) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in df.columns)
    rows = []
    for _, r in df.iterrows():
        cells = []
        for c in df.columns:
            x = r[c]
            num = isinstance(x, int | float) and not isinstance(x, bool)
            cells.append(
                f'<td class="num">{_e(fmt_number(x))}</td>' if num else f"<td>{_e(x)}</td>"
            )
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f'<div class="scroll"><table class="{cls}"><tr>{head}</tr>{"".join(rows)}</table></div>'


def _provenance(o: Outcome, version: str, files: list[str]) -> str:
    runs = o.runs
    seeds = sorted({int(s) for s in runs["seed"]}) if len(runs) else []
    digests = sorted(set(runs["scenario_digest"])) if len(runs) else []
    label_cols = [
        c
        for c in runs.columns
        if c not in ("run", "seed", "scenario_digest", "result_digest", "simulated_s")
    ]
    run_table = _data_table(
        runs[["run", *label_cols, "seed", "scenario_digest", "result_digest", "simulated_s"]],
        "runs",
    )
    links = " · ".join(f'<a href="{_e(f)}">{_e(f)}</a>' for f in files) or (
        "not kept beside this copy of the report"
    )
    return (
        '<h3>Provenance</h3><dl class="prov">'
        f"<dt>fairlab</dt><dd>{_e(version)}</dd>"
        f"<dt>mode</dt><dd>{'quick: ' + _e(o.experiment.quick) if o.quick else 'full'}</dd>"
        f"<dt>runs</dt><dd>{len(runs)}</dd>"
        f"<dt>seeds</dt><dd>{_e(', '.join(map(str, seeds)))}</dd>"
        f"<dt>scenario digests</dt><dd>{len(digests)} distinct (SHA-256 of the lowered "
        "scenario, first 16 hex digits; every run below)</dd>"
        f"<dt>wall time</dt><dd>{o.wall_s:.1f} s (runs and summary)</dd>"
        f"<dt>files</dt><dd>{links}</dd></dl>"
        f"<details><summary>every run</summary>{run_table}</details>"
    )


def _experiment_html(
    study: Study,
    o: Outcome,
    files: list[str],
    version: str,
    plot_src: Callable[[str], str] | None = None,
) -> str:
    e = o.experiment
    parts = [
        f'<section class="experiment" id="{_e(e.name)}">',
        f"<h2>{_e(e.name)}: {_e(e.reproduces)}</h2>",
        f'<p class="setup">{_e(e.setup)}</p>',
    ]
    if o.quick:
        parts.append(
            f'<p class="banner">Quick mode ({_e(e.quick)}): not the source\'s scale; the '
            "verdicts below judge these short runs.</p>"
        )
    parts.append("<h3>Published beside fairlab</h3>")
    parts.append(_verdict_table(o.verdicts, f"{e.name}-source"))
    if e.notes:
        parts.append(f'<p class="notes"><b>What explains the deviations:</b> {_e(e.notes)}</p>')
    if o.png is not None and plot_src is not None:
        src = plot_src(e.name)
        parts.append(
            f'<figure><img class="plot" alt="{_e(e.name)}: fairlab\'s results" '
            f'src="{_e(src)}"><figcaption>{_e(e.name)} (a reduced copy)</figcaption></figure>'
        )
    elif o.png is not None:
        b64 = base64.b64encode(o.png).decode()
        parts.append(
            f'<figure><img class="plot" alt="{_e(e.name)}: fairlab\'s results" '
            f'src="data:image/png;base64,{b64}"><figcaption>{_e(e.name)} '
            f'(<a href="{_e(e.name)}.png">{_e(e.name)}.png</a>)</figcaption></figure>'
        )
    parts.append("<h3>fairlab's table</h3>")
    parts.append(_data_table(o.summary.table, "fairlab"))
    if o.kernel is not None:
        from .emu.studies import side_by_side

        parts.append("<h3>The simulator beside the kernel (namespace backend)</h3>")
        parts.append(
            f'<p class="small">{o.kernel.runs.shape[0]} runs on this machine\'s Linux TCP in '
            f"network namespaces, {o.kernel.wall_s:.1f} s (docs/emulation.md).</p>"
        )
        if o.kernel_sim is not None:
            parts.append(f'<p class="small">{_e(KERNEL_SCALED)}</p>')
        parts.append(_data_table(side_by_side(_beside_kernel(o), o.kernel.summary.table), "both"))
    elif o.kernel_note:
        parts.append(f'<p class="small">Not run on the kernel: {_e(o.kernel_note)}</p>')
    if o.ns2 is not None:
        from .ns2.studies import agreement, three_way

        parts.append("<h3>Published, ns-2 2.35 and fairlab</h3>")
        parts.append(
            f'<p class="small">The same runs on real ns-2 ({_e(_ns2_source(o))}); fairlab '
            "agrees with ns-2 at a point within ±10 % or ±15 Mb/s (docs/ns2.md).</p>"
        )
        tw = three_way(o)
        if len(tw):
            parts.append(_data_table(tw, "three-way"))
        ag = agreement(o.summary.table, o.ns2.summary.table)
        if len(ag):
            parts.append(
                f'<p class="small">Point by point: fairlab agrees with ns-2 at '
                f"{int(ag['agrees'].sum())} of {len(ag)}.</p>"
            )
            parts.append(_data_table(ag, "ns2-agreement"))
    if o.ns2_note:
        parts.append(f'<p class="small">ns-2: {_e(o.ns2_note)}</p>')
    parts.append(_provenance(o, version, files))
    parts.append("</section>")
    return "\n".join(parts)


def _html(
    study: Study,
    outcomes: Sequence[Outcome],
    files: dict[str, list[str]],
    command: str,
    version: str,
    plot_src: Callable[[str], str] | None = None,
) -> str:
    toc = [
        "<tr><th>experiment</th><th>reproduces</th><th>within</th><th>outside</th>"
        "<th>claim holds</th><th>claim does not hold</th><th>runs</th><th>wall (s)</th></tr>"
    ]
    for o in outcomes:
        c = _counts(o.verdicts)
        e = o.experiment
        toc.append(
            f'<tr><td><a href="#{_e(e.name)}">{_e(e.name)}</a></td><td>{_e(e.reproduces)}</td>'
            f'<td class="num">{c["within"]}</td><td class="num">{c["outside"]}</td>'
            f'<td class="num">{c["holds"]}</td><td class="num">{c["fails"]}</td>'
            f'<td class="num">{len(o.runs)}</td><td class="num">{o.wall_s:.1f}</td></tr>'
        )
    quick = any(o.quick for o in outcomes)
    total_wall = sum(o.wall_s for o in outcomes)
    total_runs = sum(len(o.runs) for o in outcomes)
    head = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>fairlab reproduce {_e(study.name)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(study.title)}</h1>",
        f'<p class="sub">Source: {_e(study.source)}. Discussion: <code>{_e(study.doc)}</code>. '
        f"fairlab {_e(version)}; {total_runs} runs in {total_wall:.1f} s of wall time"
        + (f"; <code>{_e(command)}</code>" if command else "")
        + ".</p>",
    ]
    if quick:
        head.append(
            '<p class="banner">Quick mode: fewer and shorter runs than the source; the numbers '
            "are not the published scale. Run without <code>--quick</code> for the full study."
            "</p>"
        )
    head.append(
        '<p class="small">Verdicts: <b>within</b> the tolerance (plus the reading uncertainty of '
        "a number read off a figure) or <b>outside</b> it, with the deviation fairlab − "
        "published; <b>qualitative</b> rows state a claim of the source and whether fairlab's "
        "table shows it.</p>"
    )
    head.append(f'<table class="toc">{"".join(toc)}</table>')
    body = [
        _experiment_html(study, o, files[o.experiment.name], version, plot_src) for o in outcomes
    ]
    return "\n".join([*head, *body, "</body></html>\n"])
