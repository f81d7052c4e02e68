"""A HYPOTHESIS beside the Radon study's tables, never its model of the
testbed: the seed's receiving host as a per-flow fair (max-min) server of
about 800 Mb/s, the seed's own delivered aggregate (docs/radon.md,
"Experiments", "A hypothesis: the receiver as a max-min server").

In fairlab's model of the testbed (one 1 GbE drop-tail switch port as the
only bottleneck) the seed's large losses do not appear. The hypothesis asks
what a receive path of one fixed rate shared max-min among the streams
would give. It is modelled as a `[[port]]` override on the switch port
toward the receiver (radon_testbed.HYPOTHESIS_PORT), so its queue sits
before the receiver's timestamps. The rows here say, from the runs, which
of the seed's numbers it reproduces and which it contradicts; they are
claims (holds / does not hold), never "within" verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .base import Published, Tolerance
from .radon_runs import one_row_per_run
from .radon_seed import SeedTable
from .radon_testbed import (
    ADAPTIVE,
    DEFAULT_BUFFER,
    HYPOTHESIS,
    HYPOTHESIS_RATE_BPS,
    NON_ADAPTIVE,
    SWITCH,
    hypothesis_series,
    is_hypothesis,
)

SOURCE = (
    "a hypothesis of this study (docs/radon.md, 'A hypothesis: the receiver as a max-min "
    "server'), not the seed's"
)

#: What the experiments' setup says of the hypothesis series.
SETUP_TEXT = (
    f"Beside the model, a labelled series '{HYPOTHESIS}' (non-adaptive and adaptive, default "
    "buffer): the switch port toward h0 as a DRR (per-flow fair) server under an 800 Mb/s HTB "
    "shaper, a HYPOTHESIS for the seed's receiving host, reported as claims of what it "
    "reproduces and contradicts, never as the model."
)

#: How far an aggregate may exceed the hypothesis's rate and still fit it:
#: the send-rate tolerance of the tables (the seed's rates are one run).
AGGREGATE_SLACK = 0.03


def _rows(t: pd.DataFrame, series: str) -> pd.DataFrame:
    d = t[t["series"] == series] if "series" in t else t.iloc[0:0]
    return d[d["buffer"] == DEFAULT_BUFFER] if "buffer" in d else d


def _loss(d: pd.DataFrame, node: int) -> float | None:
    sel = d[d["node"] == node] if "node" in d else d.iloc[0:0]
    return float(sel["pct_lost"].astype(float).mean()) if len(sel) else None


def _concurrent(rates: dict[int, float], experiment: str) -> float:
    """The receive wire rate of the streams that run together: all six, or
    in the punctuated experiment the primary and one burst (their mean).
    The tables' rates are averages over each stream's own life; the
    punctuated primary runs alone about two thirds of its life, so there
    the sum is an upper reading of what arrived together."""
    if experiment == "punctuated":
        bursts = [v for n, v in rates.items() if n != 1]
        return rates.get(1, 0.0) + (sum(bursts) / len(bursts) if bursts else 0.0)
    return sum(rates.values())


def _loss_claim(table: SeedTable, nodes: Sequence[int], tol: Tolerance, what: str) -> Published:
    """Whether the hypothesis series run as ``table.series`` loses, per node
    of ``nodes``, what the seed's table lost (within the table's loss
    tolerance), beside the study's model of the same series."""
    hyp = hypothesis_series(table.series)

    def compare(t: pd.DataFrame) -> tuple[bool | None, list[str], list[str]]:
        d, model = _rows(t, hyp), _rows(t, table.series)
        shows, off = [], []
        for n in nodes:
            got = _loss(d, n)
            if got is None:
                return None, [f"the series '{hyp}' was not run"], []
            want = table.row(n).pct_lost
            base = _loss(model, n)
            fits = abs(got - want) <= tol.allowed(want)
            text = f"node {n}: {got:.2f} % (seed {want:g} %"
            text += f", the model {base:.2f} %)" if base is not None else ")"
            shows.append(text)
            if not fits:
                off.append(text)
        return not off, shows, off

    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        ok, shows, _ = compare(t)
        return ok, "; ".join(shows)

    def why(t: pd.DataFrame) -> str:
        _, _, off = compare(t)
        return f"the hypothesis contradicts Table {table.number} at " + "; ".join(off)

    return Published(
        f"{hyp}: {what} lose(s) what Table {table.number} lost",
        SOURCE + f"; the seed's Table {table.number}",
        claim=f"under the hypothesis (not the model), {what}'s %lost is within Table "
        f"{table.number}'s loss tolerance ({tol}) of the seed's",
        check=check,
        why=why,
    )


def _aggregate_claim(tables: Sequence[SeedTable], experiment: str) -> Published:
    """Whether the seed's streams ever received more together than the
    hypothesis's fixed rate (a fixed rate cannot deliver more), beside
    what the hypothesis runs delivered."""
    limit_mbps = HYPOTHESIS_RATE_BPS / 1e6

    def seed_sums() -> list[tuple[SeedTable, float]]:
        return [
            (st, _concurrent({r.node: r.recv_wire_rate_mbps for r in st.rows}, experiment))
            for st in tables
        ]

    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        shows, ok = [], True
        for st, total in seed_sums():
            d = _rows(t, hypothesis_series(st.series))
            rates = d.groupby("node")["recv_wire_rate_mbps"].mean() if len(d) else pd.Series()
            run = _concurrent({int(n): float(v) for n, v in rates.items()}, experiment)
            ok &= total <= limit_mbps * (1 + AGGREGATE_SLACK)
            shows.append(
                f"Table {st.number} ({st.series}): the seed's concurrent streams received "
                f"{total:.1f} Mb/s on the wire; the hypothesis run, read the same way, "
                f"{run:.1f} Mb/s"
            )
        return ok, "; ".join(shows)

    def why(t: pd.DataFrame) -> str:
        over = [
            f"Table {st.number} delivered {total:.1f} Mb/s"
            for st, total in seed_sums()
            if total > limit_mbps * (1 + AGGREGATE_SLACK)
        ]
        return (
            f"{', '.join(over)}, more than a fixed {limit_mbps:g} Mb/s receive path can: as a "
            "fixed rate the hypothesis contradicts it"
        )

    return Published(
        f"{HYPOTHESIS}: the seed's concurrent receive rates fit it",
        SOURCE
        + "; the seed's receive wire rates, "
        + ", ".join(f"Table {t.number}" for t in tables),
        claim=f"the seed's streams that ran together received at most {limit_mbps:g} Mb/s "
        f"(+{AGGREGATE_SLACK * 100:g} %) on the wire together (each table's receive wire rates, "
        "averages over each stream's life, summed; the punctuated experiment: the primary and "
        "one burst, an upper reading since the primary runs alone most of its life)",
        check=check,
        why=why,
    )


def hypothesis_published(
    tables: Sequence[SeedTable], experiment: str, tol: Tolerance
) -> list[Published]:
    """What the hypothesis reproduces and contradicts in one experiment: per
    series, node 1's loss and the other nodes' against the seed's tables;
    the aggregate; and the bound row of the shaped port."""
    out = [_aggregate_claim(tables, experiment)]
    for st in tables:
        out.append(_loss_claim(st, [1], tol, "node 1"))
        out.append(_loss_claim(st, [r.node for r in st.rows if r.node != 1], tol, "nodes 2-6"))
    out.append(HYPOTHESIS_BOUNDS)
    return out


#: The hypothesis's base series, in the order the experiments run them.
BASES = (NON_ADAPTIVE, ADAPTIVE)


def _bound_rows(t: pd.DataFrame) -> pd.DataFrame:
    """One row per hypothesis run and port, from a stream table (the port
    toward the receiver) or the bounds table (every port)."""
    if "series" not in t:
        return t.iloc[0:0]
    d = t[t["series"].map(is_hypothesis)]
    if "bound_status" in d:
        d = d.rename(columns={"bound_status": "status", "port_sum_u": "sum_u"})
        d = d.assign(port=f"{SWITCH}:h0")
    return one_row_per_run(d)


def _hypothesis_bounds(t: pd.DataFrame) -> tuple[bool | None, str]:
    d = _bound_rows(t)
    if d.empty:
        return None, "no hypothesis run"
    shaped = d["port"].astype(str) == f"{SWITCH}:h0"
    # sum_u is of the port's server: the shaper's 800 Mb/s there.
    over = d["sum_u"].astype(float) > 1.0 + 1e-9
    status = d["status"].astype(str)
    violated = status == "violated"
    unstable_where_over = bool((status[shaped & over] == "unstable").all())
    ok = bool(not violated.any() and unstable_where_over)
    at = d[shaped]
    counts = at["status"].value_counts().to_dict()
    sums = sorted({round(float(x), 4) for x in at["sum_u"]})
    return ok, (
        f"at the shaped port toward h0 over the hypothesis runs: status {counts}; Σr over the "
        f"{HYPOTHESIS_RATE_BPS / 1e6:g} Mb/s server {sums}; violated ports anywhere: "
        f"{int(violated.sum())}"
    )


def _why_hypothesis_bounds(t: pd.DataFrame) -> str:
    d = _bound_rows(t)
    bad = d[(d["status"].astype(str) == "violated")]
    return "; ".join(
        f"{r['series']}, seed {r.get('seed', '')}, port {r['port']}: violated with Σu "
        f"{float(r['sum_u']):.4f}"
        for _, r in bad.iterrows()
    )


HYPOTHESIS_BOUNDS = Published(
    f"{HYPOTHESIS}: the bounds of its shaped port",
    SOURCE + "; issue 21, item 7",
    claim="the bound serves the shaped port at its shaper's 800 Mb/s: no hypothesis run "
    "exceeds a bound, and where the streams ask more than 800 Mb/s on the wire the port has "
    "no finite bound ('unstable')",
    check=_hypothesis_bounds,
    why=_why_hypothesis_bounds,
)
