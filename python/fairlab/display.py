"""Rich display in Jupyter: a run (``Result``) and a results store as HTML,
each with its summary, its tables and the one plot that fits, inline.

Jupyter calls ``_repr_html_`` (``Result`` and ``Store`` define it by calling
here); nothing is drawn until a notebook asks. Plots are PNG, embedded as
data URIs, so a saved notebook shows them without fairlab installed.
"""

from __future__ import annotations

import base64
import html
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from .result import Result
    from .store import Store

#: Rows of a store's listing shown; label values listed per label.
SHOWN_RUNS = 10
SHOWN_VALUES = 8
#: Summary fields a run's table shows, in order, with how they are written.
_FIELDS = (
    ("profile", "profile", str),
    ("seed", "seed", str),
    ("sim_end_s", "simulated", lambda v: f"{v * 1e3:.3f} ms"),
    ("events", "events", lambda v: f"{v:,}"),
    ("packets_sent", "packets sent", lambda v: f"{v:,}"),
    ("tcp", "TCP", str),
    ("incast_goodput_bps", "incast goodput", lambda v: f"{v / 1e6:.1f} Mb/s"),
    ("rounds_completed", "rounds", str),
    ("total_timeouts", "retransmission timeouts", str),
    ("drops", "drops", lambda v: f"{v:,}"),
    ("digest", "digest", str),
)
_CSS = (
    "<style>.fl-box table{border-collapse:collapse;font-size:12px;margin:4px 0}"
    ".fl-box th,.fl-box td{border:1px solid #d0d7de;padding:2px 6px;text-align:left}"
    ".fl-box th{background:#f6f8fa}.fl-box h4{margin:6px 0 2px}</style>"
)


def _e(x: Any) -> str:
    return html.escape(str(x))


def _kv(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def _img(png: bytes | None, alt: str) -> str:
    if png is None:
        return ""
    b64 = base64.b64encode(png).decode()
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{b64}" style="max-width:640px">'


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and not math.isnan(v)


def _figure(width: float, height: float) -> tuple[Any, Any]:
    """A figure and its axes, without pyplot: nothing is shown twice in a
    notebook, and no backend is chosen for the user."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    return fig, fig.subplots()


def png_bytes(fig: Any) -> bytes:
    import io

    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def result_html(res: Result) -> str:
    """A run: its summary, its tables (rows and columns) and a plot of each
    flow's goodput (timeouts marked)."""
    s = res.summary
    rows = [
        (label, fmt(s[k]))
        for k, label, fmt in _FIELDS
        if k in s and s[k] is not None and (not isinstance(s[k], float) or _is_number(s[k]))
    ]
    tcp = res.tcp_text()
    if tcp:
        rows.append(("transport", tcp))
    tables = []
    for name in res.tables:
        count = getattr(res.tables, "num_rows", None)  # a plain mapping: its frames' lengths
        n = count(name) if count is not None else len(res.tables[name])
        tables.append((name, "not read yet" if n is None else f"{n:,} rows"))
    name = res.scenario.get("name", "")
    head = f"<h4>fairlab run{': ' + _e(name) if name else ''}</h4>"
    return (
        f'{_CSS}<div class="fl-box">{head}<div style="display:flex;gap:16px;flex-wrap:wrap">'
        f"<div>{_kv(rows)}<h4>tables</h4>{_kv(tables)}</div>"
        f"<div>{_img(_flows_png(res), 'goodput of each flow')}</div></div></div>"
    )


def _flows_png(res: Result) -> bytes | None:
    """Each flow's goodput (Mb/s), bars, red where the flow had a
    retransmission timeout; None without flows."""
    if "flows" not in res.tables:
        return None
    f = res.flows
    if not len(f) or "goodput_bps" not in f:
        return None
    fig, ax = _figure(6.0, 3.0)
    colors = ["#cf222e" if t > 0 else "#0969da" for t in f.get("timeouts", [0] * len(f))]
    ax.bar(range(len(f)), f["goodput_bps"] / 1e6, color=colors)
    ax.set_xlabel("flow (red: at least one retransmission timeout)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_title(f"{len(f)} flows", fontsize=10)
    return png_bytes(fig)


def store_html(store: Store) -> str:
    """A store: how many runs (and damaged ones), its labels and their
    values, its tables, the first runs, and a plot of the main summary
    metric against the first swept label."""
    db = store._db
    if db is not None:
        listing, damaged, labels = db.runs, db.damaged, db.labels
        views = dict(db.views)
    else:
        scan = store.scan(files=True)
        listing, damaged = scan.table, scan.damaged
        labels = list(listing.attrs.get("labels", []))
        views = {}
        for names in (scan.files or {}).values():
            for t in names:
                views[t] = views.get(t, 0) + 1
    runs = int(listing["key"].nunique()) if "key" in listing else 0
    rows = [("directory", str(store.root)), ("runs", f"{runs:,}")]
    if damaged:
        rows.append(("damaged (left out)", f"{len(damaged):,}: store.scan().damaged lists them"))
    for lab in labels:
        vals = list(dict.fromkeys(listing[lab].dropna().tolist())) if lab in listing else []
        more = f" … ({len(vals)} values)" if len(vals) > SHOWN_VALUES else ""
        rows.append((f"label {lab}", ", ".join(map(str, vals[:SHOWN_VALUES])) + more))
    tables = ", ".join(f"{t} ({n:,} runs)" for t, n in sorted(views.items()))
    rows.append(("tables (store.sql views)", tables or "none"))
    shown = [c for c in ["key", "name", *labels, _metric(listing) or ""] if c in listing]
    head = listing[shown].head(SHOWN_RUNS).copy() if shown else listing.head(0)
    if "key" in head:
        head["key"] = head["key"].str[:12]
    return (
        f'{_CSS}<div class="fl-box"><h4>fairlab results store</h4>'
        f'<div style="display:flex;gap:16px;flex-wrap:wrap"><div>{_kv(rows)}'
        f"<h4>first {min(SHOWN_RUNS, len(listing))} of {len(listing):,} rows of "
        f"store.table()</h4>{head.to_html(index=False, border=0)}</div>"
        f"<div>{_img(_store_png(listing, labels), 'summary against a label')}</div></div></div>"
    )


#: Summary metrics a store's plot shows, the first the runs have, with
#: their scale and unit.
_METRICS = (
    ("incast_goodput_bps", 1e-6, "Mb/s"),
    ("total_timeouts", 1.0, ""),
    ("drops", 1.0, "packets"),
)


def _metric(listing: pd.DataFrame) -> str | None:
    for m, _, _ in _METRICS:
        if m in listing and listing[m].notna().any():
            return m
    return None


def _store_png(listing: pd.DataFrame, labels: list[str]) -> bytes | None:
    """The first metric of _METRICS against the first numeric label with
    several values: the mean over the runs at each value (seeds and the
    other labels), one line per value of a second label with a few values."""
    import pandas as pd

    metric = _metric(listing)
    numeric = [
        lab
        for lab in labels
        if lab in listing
        and lab != "seed"
        and pd.api.types.is_numeric_dtype(listing[lab])
        and listing[lab].nunique() > 1
    ]
    if metric is None or not numeric:
        return None
    x = numeric[0]
    others = [
        lab
        for lab in labels
        if lab in listing and lab not in (x, "seed") and 1 < listing[lab].nunique() <= 6
    ]
    by = others[0] if others else None
    scale, unit = next((s, u) for m, s, u in _METRICS if m == metric)
    fig, ax = _figure(6.0, 3.5)
    groups = listing.groupby(by, sort=False) if by else [(None, listing)]
    for value, g in groups:
        mean = g.groupby(x)[metric].mean().sort_index() * scale
        ax.plot(mean.index, mean.values, marker="o", ms=4, label=f"{by} = {value}" if by else None)
    ax.set_xlabel(x)
    ax.set_ylabel(f"{metric} ({unit})" if unit else metric)
    ax.grid(True, alpha=0.3)
    if by:
        ax.legend(fontsize=8)
    ax.set_title(f"mean {metric} against {x} over {len(listing):,} runs", fontsize=10)
    return png_bytes(fig)
