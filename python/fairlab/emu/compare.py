"""The simulator and another backend (the kernel, or real ns-2) on the same
scenario: per metric both means, their difference, and each backend's
run-to-run spread."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..result import Result

#: What `fairlab compare` shows, in order: (metric, label).
METRICS = (
    ("incast_goodput_bps", "incast goodput (Mb/s)"),
    ("flow_goodput_mean_bps", "mean flow goodput (Mb/s)"),
    ("flow_goodput_min_bps", "min flow goodput (Mb/s)"),
    ("jain_index", "Jain's index of flow goodputs"),
    ("winner_loser_ratio", "winner/loser ratio of flows"),
    ("total_timeouts", "retransmission timeouts"),
    ("retransmits", "retransmitted segments"),
    ("drops", "switch drops (packets)"),
    ("rounds_completed", "incast rounds completed"),
    ("udp_delivered", "UDP datagrams delivered"),
    ("radon_sent", "Radon datagrams sent"),
    ("radon_lost_pct", "Radon datagrams lost (%)"),
    ("radon_max_lost_pct", "Radon worst stream lost (%)"),
    ("radon_recv_rate_mbps", "Radon received payload (Mb/s)"),
    ("radon_mean_wait_us", "Radon mean wait (µs)"),
    ("radon_feedback_received", "Radon feedback received"),
)
_BPS = {"incast_goodput_bps", "flow_goodput_mean_bps", "flow_goodput_min_bps"}


def metrics(res: Result) -> dict[str, float]:
    """The compared numbers of one run, either backend."""
    from ..sweep import jain_index

    s = res.summary
    # A Radon run between real machines has no flows table.
    f = res.flows if "flows" in res.tables else ()
    row: dict[str, float] = {
        k: float(s[k])
        for k in ("incast_goodput_bps", "total_timeouts", "drops", "rounds_completed")
        if k in s
    }
    row["udp_delivered"] = float(s.get("udp_delivered", 0))
    if len(f):
        g = [float(x) for x in f["goodput_bps"]]
        row["flow_goodput_mean_bps"] = sum(g) / len(g)
        row["flow_goodput_min_bps"] = min(g)
        row["jain_index"] = jain_index(g)
        if len(g) >= 2:
            from ..studies.hashcast import winner_loser_ratio

            row["winner_loser_ratio"] = winner_loser_ratio(g)
        row["retransmits"] = float(sum(int(x) for x in f["retransmits"] if int(x) >= 0))
    row.update(_radon_metrics(res))
    return row


def _radon_metrics(res: Result) -> dict[str, float]:
    """The Radon streams' totals (admitted streams; the `streams` table has
    the same columns on every backend)."""
    if "streams" not in res.tables:
        return {}
    st = res.tables["streams"]
    st = st[st["admitted"].astype(bool)]
    if not len(st):
        return {}
    sent = float(st["num_sent"].sum())
    lost = float(st["num_lost"].sum())
    return {
        "radon_sent": sent,
        "radon_lost_pct": 100 * lost / sent if sent else math.nan,
        "radon_max_lost_pct": float(st["pct_lost"].max()),
        "radon_recv_rate_mbps": float(st["recv_rate_mbps"].sum()),
        "radon_mean_wait_us": float(st["mean_wait_us"].mean()),
        "radon_feedback_received": float(st["feedback_received"].sum()),
    }


def _mean_std(xs: Sequence[float]) -> tuple[float, float]:
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return math.nan, math.nan
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, math.nan
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def table(
    sim_runs: list[dict[str, float]], emu_runs: list[dict[str, float]], other: str = "kernel"
) -> list[dict]:
    """One row per metric both backends have; the other backend's columns
    are named ``other`` and ``other_std``."""
    rows = []
    for key, label in METRICS:
        a = [r[key] for r in sim_runs if key in r]
        b = [r[key] for r in emu_runs if key in r]
        if not a or not b:
            continue
        (ma, sa), (mb, sb) = _mean_std(a), _mean_std(b)
        if math.isnan(ma) and math.isnan(mb):
            continue
        scale = 1e6 if key in _BPS else 1.0
        diff = mb - ma
        rows.append(
            {
                "metric": key,
                "label": label,
                "sim": ma / scale,
                "sim_std": sa / scale,
                other: mb / scale,
                f"{other}_std": sb / scale,
                "diff": diff / scale,
                "diff_pct": 100 * diff / ma if ma else math.nan,
            }
        )
    return rows


def compare(
    scenario: dict[str, Any],
    seeds: Sequence[int],
    simulate: Callable[..., Result],
    emulate: Callable[..., Result],
    other: str = "kernel",
) -> tuple[list[dict], list[dict], list[dict]]:
    """Runs both backends on every seed; (table, sim runs, other runs)."""
    sim_runs = [metrics(simulate(scenario, seed=s)) | {"seed": s} for s in seeds]
    emu_runs = [metrics(emulate(scenario, seed=s)) | {"seed": s} for s in seeds]
    return table(sim_runs, emu_runs, other), sim_runs, emu_runs


def format_table(rows: list[dict], other: str = "kernel") -> str:
    def f(x: float) -> str:
        if math.isnan(x):
            return "-"
        return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"

    out = [
        f"{'metric':32} {'simulator':>12} {other:>12} {'± ' + other + ' sd':>12} "
        f"{'difference':>12} {'diff %':>8}"
    ]
    for r in rows:
        out.append(
            f"{r['label']:32} {f(r['sim']):>12} {f(r[other]):>12} {f(r[other + '_std']):>12} "
            f"{f(r['diff']):>12} {f(r['diff_pct']):>8}"
        )
    return "\n".join(out)
