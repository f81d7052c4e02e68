"""The Radon study's measurement experiments: the three queue-depth models
against the simulator's true queue (the seed's Figures 5.2-5.9), and the
timestamp capture point's noise (Section 5.2, Figure 5.1; issue 21, item 3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..runner import Task
from . import radon_seed as seed
from .base import Experiment, Published, Summary, Tolerance
from .radon_runs import node_of, run_table
from .radon_seed import ISSUE_ITEM3
from .radon_testbed import (
    ADAPTIVE,
    NON_ADAPTIVE,
    PAYLOAD_BITS,
    QUICK_SCALE,
    Readings,
    fair_streams,
    punctuated_streams,
    radon_stream,
    scaled,
    setup_text,
    single_streams,
    testbed,
    unfair_streams,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

MODELS = [("basic", "basic_pkts"), ("pathload", "pathload_pkts"), ("median5", "median5_pkts")]

#: (case, series, streams builder): the runs whose series the models are
#: read from, one per figure of Chapter 5.
MODEL_CASES: list[tuple[str, str, str, Callable[[bool], list[dict[str, Any]]]]] = [
    ("single", NON_ADAPTIVE, "Fig. 5.2", single_streams),
    ("single", ADAPTIVE, "Fig. 5.3", single_streams),
    ("punctuated", NON_ADAPTIVE, "Fig. 5.4", punctuated_streams),
    ("punctuated", ADAPTIVE, "Fig. 5.5", punctuated_streams),
    ("fair", NON_ADAPTIVE, "Fig. 5.6", fair_streams),
    ("fair", ADAPTIVE, "Fig. 5.7", fair_streams),
    ("unfair", NON_ADAPTIVE, "Fig. 5.8", unfair_streams),
    ("unfair", ADAPTIVE, "Fig. 5.9", lambda q: unfair_streams(q, series=ADAPTIVE)),
]

#: Points per curve kept for the plot.
PLOT_POINTS = 1500


def model_tasks(quick: bool) -> list[Task]:
    """One run per figure (seed 1, default buffer) with the per-datagram
    series."""
    out = []
    for case, series, fig, build in MODEL_CASES:
        sc = testbed(
            f"radon models, {case}, {series}",
            build(quick),
            adaptive=series == ADAPTIVE,
            series=True,
        )
        labels = {"case": case, "series": series, "figure": fig, "seed": 1}
        out.append(Task(sc, 1, labels))
    return out


def _rank_corr(a: pd.Series, b: pd.Series) -> float:
    """Spearman's rank correlation (ranks, then Pearson's)."""
    if len(a) < 3:
        return math.nan
    return float(a.rank().corr(b.rank()))


def model_rows(task: Task, r: Result) -> tuple[list[dict[str, Any]], dict[Any, pd.DataFrame]]:
    """Per stream and model: how the model's depth compares with the true
    depth the datagrams found at the bottleneck port; and node 1's series
    (thinned) for the plot."""
    rs = run_table(r, "radon_series")
    st = run_table(r, "streams")
    node = {int(f): node_of(s) for f, s in zip(st["flow_id"], st["src"], strict=True)}
    rows, curves = [], {}
    for fid, g in rs.groupby("flow_id", sort=True):
        g = g.sort_values("frame")
        true = g["true_queue_pkts"].astype(float)
        q = max(1, len(g) // 4)
        for model, col in MODELS:
            est = g[col].astype(float)
            ok = est.notna()
            e, tr, fr = est[ok], true[ok], g["frame"][ok].astype(float)
            rows.append(
                {
                    **task.labels,
                    "node": node.get(int(fid), -1),
                    "model": model,
                    "estimates": int(ok.sum()),
                    "mean_true_pkts": float(true.mean()),
                    "max_true_pkts": float(true.max()),
                    "mean_model_pkts": float(e.mean()) if len(e) else math.nan,
                    "mae_pkts": float((e - tr).abs().mean()) if len(e) else math.nan,
                    "corr_true": float(e.corr(tr)) if len(e) > 2 else math.nan,
                    "rank_corr_frame": _rank_corr(e, fr),
                    "first_quarter_pkts": float(est.iloc[:q].mean()),
                    "last_quarter_pkts": float(est.iloc[-q:].mean()),
                }
            )
        if node.get(int(fid)) == 1:
            step = max(1, len(g) // PLOT_POINTS)
            curves[(task.labels["case"], task.labels["series"])] = g.iloc[::step][
                ["frame", "true_queue_pkts", *[c for _, c in MODELS]]
            ]
    return rows, curves


def summarize_models(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    rows, curves = [], {}
    for t, r in zip(tasks, results, strict=True):
        more, c = model_rows(t, r)
        rows += more
        curves.update(c)
    return Summary(pd.DataFrame(rows), extra=curves)


def _model(t: pd.DataFrame, case: str, series: str, model: str, node: int = 1) -> pd.Series | None:
    sel = t[(t["case"] == case) & (t["series"] == series) & (t["model"] == model)]
    sel = sel[sel["node"] == node]
    return None if sel.empty else sel.iloc[0]


def _claim_small(case: str, series: str, models: Sequence[str], limit_pkts: float = 1.0):
    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        got = {m: _model(t, case, series, m) for m in models}
        if any(v is None for v in got.values()):
            return None, f"{case} {series} was not run"
        shows = "; ".join(
            f"{m}: mean {v['mean_model_pkts']:.2f} pkts (true {v['mean_true_pkts']:.2f})"
            for m, v in got.items()
        )
        return all(v["mean_model_pkts"] <= limit_pkts for v in got.values()), shows

    return check


def _claim_increasing(case: str, series: str, model: str, want: bool = True):
    """The model's depth rises through the run (rank correlation with the
    frame number at least 0.5, last quarter above the first) while the true
    queue does not explain it."""

    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        v = _model(t, case, series, model)
        if v is None:
            return None, f"{case} {series} was not run"
        rising = bool(
            v["rank_corr_frame"] >= 0.5 and v["last_quarter_pkts"] > v["first_quarter_pkts"]
        )
        return rising == want, (
            f"{model}: rank correlation with the frame number {v['rank_corr_frame']:.2f}, first "
            f"quarter {v['first_quarter_pkts']:.2f}, last quarter {v['last_quarter_pkts']:.2f} "
            f"pkts; true queue mean {v['mean_true_pkts']:.2f}, max {v['max_true_pkts']:.0f}"
        )

    return check


def _claim_smaller_adaptive(case: str):
    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        pairs = [
            (m, _model(t, case, NON_ADAPTIVE, m), _model(t, case, ADAPTIVE, m)) for m, _ in MODELS
        ]
        if any(a is None or b is None for _, a, b in pairs):
            return None, f"{case} was not run in both series"
        shows = "; ".join(
            f"{m}: {b['mean_model_pkts']:.2f} adaptive against {a['mean_model_pkts']:.2f}"
            for m, a, b in pairs
        )
        return all(b["mean_model_pkts"] < a["mean_model_pkts"] for _, a, b in pairs), shows

    return check


def _claim_tracks(case: str, series: str, better: str, worse: str):
    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        a, b = _model(t, case, series, better), _model(t, case, series, worse)
        if a is None or b is None:
            return None, f"{case} {series} was not run"
        return bool(a["corr_true"] > b["corr_true"]), (
            f"correlation with the true queue: {better} {a['corr_true']:.2f}, "
            f"{worse} {b['corr_true']:.2f}"
        )

    return check


def _why_models(case: str, series: str):
    """Every model's figures on node 1 of one run, against the true queue."""

    def why(t: pd.DataFrame) -> str:
        sel = t[(t["case"] == case) & (t["series"] == series) & (t["node"] == 1)]
        return "; ".join(
            f"{r['model']}: {r['estimates']:.0f} estimates, mean {r['mean_model_pkts']:.2f} pkts "
            f"(true {r['mean_true_pkts']:.2f}, max {r['max_true_pkts']:.0f}), mean error "
            f"{r['mae_pkts']:.2f}, correlation with the true queue {r['corr_true']:.2f}, with "
            f"the frame number {r['rank_corr_frame']:.2f}"
            for _, r in sel.iterrows()
        )

    return why


def _models_published() -> list[Published]:
    s52 = f"stated in the text, Section 5.2 ({seed.SOURCE})"
    s53 = f"stated in the text, Section 5.3 ({seed.SOURCE})"
    return [
        Published(
            "single stream: basic and Pathload show a small queue",
            s52 + ", Fig. 5.2",
            claim="basic and Pathload models: mean depth at most one packet on the single stream",
            check=_claim_small("single", NON_ADAPTIVE, ["basic", "pathload"]),
            why=_why_models("single", NON_ADAPTIVE),
        ),
        Published(
            "single stream: the median-filter model rises throughout",
            s52 + ", Fig. 5.2: 'an unreasonable, ever-increasing trend'",
            claim="median-of-five depth rises through the run (rank correlation with the frame "
            "≥ 0.5, last quarter above the first)",
            check=_claim_increasing("single", NON_ADAPTIVE, "median5"),
            why=_why_models("single", NON_ADAPTIVE),
        ),
        Published(
            "single adaptive stream: every model shows a smaller queue",
            s52 + ", Fig. 5.3",
            claim="each model's mean depth is smaller in the adaptive run than the non-adaptive",
            check=_claim_smaller_adaptive("single"),
            why=_why_models("single", ADAPTIVE),
        ),
        Published(
            "single adaptive stream: the median-filter model no longer rises",
            s52 + ", Fig. 5.3",
            claim="median-of-five depth does not rise through the adaptive run",
            check=_claim_increasing("single", ADAPTIVE, "median5", want=False),
            why=_why_models("single", ADAPTIVE),
        ),
        Published(
            "punctuated: the Pathload model rises throughout",
            s53 + ", Fig. 5.4: 'an always increasing trend ... groups of 100'",
            claim="Pathload depth rises through the punctuated run",
            check=_claim_increasing("punctuated", NON_ADAPTIVE, "pathload"),
            why=_why_models("punctuated", NON_ADAPTIVE),
        ),
        Published(
            "punctuated: the median filter follows filling and draining",
            s53 + ", Fig. 5.4: 'reflects the filling and draining of the queue more quickly'",
            claim="median-of-five depth correlates with the true queue better than Pathload's",
            check=_claim_tracks("punctuated", NON_ADAPTIVE, "median5", "pathload"),
            why=_why_models("punctuated", NON_ADAPTIVE),
        ),
        Published(
            "punctuated: the basic model stays close to zero",
            s53 + ": 'The basic model stays close to zero'",
            claim="basic model: mean depth at most one packet on the punctuated primary",
            check=_claim_small("punctuated", NON_ADAPTIVE, ["basic"]),
            why=_why_models("punctuated", NON_ADAPTIVE),
        ),
    ]


def plot_models(summary: Summary, published: Sequence[Published]) -> Figure:
    """Node 1's true queue and the three models against the frame number,
    one panel per figure of Chapter 5."""
    from ..plots import figure

    curves = summary.extra or {}
    keys = list(curves) or [("none", "")]
    fig, axes = figure(len(keys), 14, 3.2 * math.ceil(len(keys) / 2), rows=math.ceil(len(keys) / 2))
    for ax, key in zip(axes, keys, strict=True):
        g = curves.get(key)
        if g is not None:
            ax.plot(g["frame"], g["true_queue_pkts"], color="black", lw=1.2, label="true queue")
            for model, col in MODELS:
                ax.plot(g["frame"], g[col], lw=0.8, label=model)
        ax.set_title(f"{key[0]}, {key[1]}: node 1", fontsize=9)
        ax.set_xlabel("frame")
        ax.set_ylabel("queue depth (pkts)")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    return fig


STAMPS = ["nic", "socket", "application"]

#: The calibration stream: one datagram every 100 µs (issue 21's spacing).
STAMP_SPACING_US = 100.0

STAMP_PACKETS = 20000


def stamp_tasks(quick: bool) -> list[Task]:
    """A single non-adaptive stream at 100 µs spacing, no contention, per
    capture point: its RFD is the timestamps' noise and nothing else."""
    rate = PAYLOAD_BITS / (STAMP_SPACING_US * 1e-6)
    n = scaled(STAMP_PACKETS, quick)
    out = []
    for point in STAMPS:
        sc = testbed(
            f"radon timestamps, {point}",
            [radon_stream("h1", rate_bps=rate, packets=n)],
            adaptive=False,
            readings=Readings(stamp=point),
            series=True,
        )
        out.append(Task(sc, 1, {"stamp": point, "seed": 1}))
    return out


def summarize_stamps(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    """Per capture point: RFD percentiles, and of the medians of five."""
    rows, hist = [], {}
    for t, r in zip(tasks, results, strict=True):
        rfd = run_table(r, "radon_series")["rfd_us"].astype(float).dropna()
        med5 = rfd.groupby(pd.RangeIndex(len(rfd)) // 5).median()
        rows.append(
            {
                **t.labels,
                "samples": len(rfd),
                "rfd_p1_us": float(rfd.quantile(0.01)),
                "rfd_p50_us": float(rfd.quantile(0.5)),
                "rfd_p99_us": float(rfd.quantile(0.99)),
                "rfd_spread_us": float(rfd.quantile(0.99) - rfd.quantile(0.01)),
                "median5_p1_us": float(med5.quantile(0.01)),
                "median5_p99_us": float(med5.quantile(0.99)),
                "median5_extreme_us": float(
                    max(abs(med5.quantile(0.01)), abs(med5.quantile(0.99)))
                ),
            }
        )
        hist[t.labels["stamp"]] = rfd.to_numpy()
    return Summary(pd.DataFrame(rows), extra=hist)


def _stamp_order(t: pd.DataFrame) -> tuple[bool | None, str]:
    s = t.set_index("stamp")["rfd_spread_us"]
    if not set(STAMPS) <= set(s.index):
        return None, "not every capture point was run"
    shows = ", ".join(f"{p} {s[p]:.1f} µs" for p in STAMPS)
    return bool(s["application"] > s["socket"] >= s["nic"]), f"RFD p1-p99 spread: {shows}"


def _why_stamp(sel: pd.DataFrame) -> str:
    """The capture point's RFD as this run measured it."""
    return "; ".join(
        f"{r['stamp']} stamps in this run: RFD p1 {r['rfd_p1_us']:.1f}, p50 {r['rfd_p50_us']:.1f}, "
        f"p99 {r['rfd_p99_us']:.1f} µs over {r['samples']:.0f} datagrams; medians of five "
        f"p1 {r['median5_p1_us']:.2f}, p99 {r['median5_p99_us']:.2f} µs"
        for _, r in sel.iterrows()
    )


def _stamps_published() -> list[Published]:
    tol = Tolerance(abs=1.0, rel=0.25, unit="µs")
    rows = [
        ("socket", "rfd_p1_us", -7.4, "p1"),
        ("socket", "rfd_p99_us", 6.9, "p99"),
        ("application", "rfd_p1_us", -94.0, "p1"),
        ("application", "rfd_p99_us", 17.5, "p99"),
    ]
    out = [
        Published(
            f"RFD from {point} timestamps, {q}",
            ISSUE_ITEM3,
            {"stamp": point},
            metric,
            value,
            unit="µs",
            tolerance=tol,
            why=_why_stamp,
        )
        for point, metric, value, q in rows
    ]
    out.append(
        Published(
            "median of five socket RFDs within ±1.8 µs",
            ISSUE_ITEM3,
            {"stamp": "socket"},
            "median5_extreme_us",
            1.8,
            bound="<=",
            unit="µs",
            why=_why_stamp,
        )
    )
    out.append(
        Published(
            "application stamps spread widest, socket close to the NIC",
            f"stated in the text, Section 5.2, Fig. 5.1 ({seed.SOURCE})",
            claim="RFD spread (p1 to p99): application > socket ≥ nic",
            check=_stamp_order,
            why=_why_stamp,
        )
    )
    return out


def plot_stamps(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    fig, (ax,) = figure(1, 10, 4.2)
    for point, vals in (summary.extra or {}).items():
        if len(vals):
            ax.hist(vals, bins=120, histtype="step", density=True, label=point)
    ax.set_yscale("log")
    ax.set_xlabel("relative forward delay between consecutive datagrams (µs)")
    ax.set_ylabel("density")
    ax.set_title("RFD of an uncontended stream at 100 µs spacing, per capture point", fontsize=10)
    ax.legend(fontsize=8)
    return fig


QUEUE_MODELS = Experiment(
    name="queue-models",
    reproduces="Figures 5.2-5.9: the basic, Pathload and median-of-five queue models "
    "against the true queue depth",
    setup=setup_text(
        "Every table experiment's run (seed 1, default buffer) with the per-datagram series: "
        "each stream's modelled queue depth under the three models beside the depth its "
        "datagrams found at the switch port (which the seed's switch could not show)."
    ),
    tasks=model_tasks,
    summarize=summarize_models,
    published=_models_published(),
    quick=f"{QUICK_SCALE:g} of every stream's datagrams",
    plot=plot_models,
)

TIMESTAMPS = Experiment(
    name="timestamps",
    reproduces="Section 5.2, Figure 5.1: where timestamps are taken, and their noise",
    setup=setup_text(
        f"One uncontended non-adaptive stream h1 -> h0 at one datagram every "
        f"{STAMP_SPACING_US:g} µs ({STAMP_PACKETS} datagrams), its stamps taken at the NIC, "
        "the socket or the application: the relative forward delay of consecutive datagrams "
        "is the capture point's noise alone."
    ),
    tasks=stamp_tasks,
    summarize=summarize_stamps,
    published=_stamps_published(),
    quick=f"{QUICK_SCALE:g} of the datagrams",
    plot=plot_stamps,
)
