"""What a study is: experiments, each with its runs, its summary, the
published numbers it is compared with, and a verdict for every row.

A study module builds one :class:`Study`. Nothing here knows any study:
the command line, the report and the tests read studies only through these
types.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from ..result import Result
    from ..runner import Task

WITHIN = "within"
OUTSIDE = "outside"
QUALITATIVE = "qualitative"
NOT_RUN = "not run"


@dataclass(frozen=True)
class Tolerance:
    """How far fairlab may be from a published number and still be "within":
    ``abs`` in the metric's unit plus ``rel`` of the published value; the
    reading's uncertainty of a number read off a figure is added to it."""

    abs: float = 0.0
    rel: float = 0.0
    unit: str = ""

    def allowed(self, published: float) -> float:
        return self.abs + self.rel * abs(published)

    def __str__(self) -> str:
        parts = []
        if self.abs:
            parts.append(f"±{self.abs:g}{' ' + self.unit if self.unit else ''}")
        if self.rel:
            parts.append(f"±{self.rel * 100:g} %")
        return " + ".join(parts) if parts else "exact"


#: What a qualitative check returns: whether fairlab's table shows the claim
#: (None: it cannot tell) and what it shows, in words.
CheckResult = tuple[bool | None, str]


@dataclass(frozen=True)
class Published:
    """One published number (or claim) and where fairlab's value for it is.

    ``row`` selects fairlab's rows by column values (several seeds: their
    mean); ``metric`` is fairlab's column. ``bound`` is "=" for a number,
    ">=" or "<=" for a stated bound. A claim has no ``value``: its
    ``check`` reads fairlab's whole table. ``source`` is the provenance
    ("stated in the text, Section V-B", "read off Fig. 4"), ``uncertainty``
    the reading's uncertainty in the metric's unit. ``why``, where given,
    says from the run itself why fairlab departs: it is called with the
    rows the number was read from (a claim: the whole table) when the
    verdict is outside (a claim: does not hold), and its text is shown
    beside the verdict.
    """

    label: str
    source: str
    row: Mapping[str, Any] = field(default_factory=dict)
    metric: str = ""
    value: float | None = None
    bound: str = "="
    unit: str = ""
    uncertainty: float = 0.0
    tolerance: Tolerance = field(default_factory=Tolerance)
    claim: str = ""
    check: Callable[[pd.DataFrame], CheckResult] | None = None
    why: Callable[[pd.DataFrame], str] | None = None


@dataclass
class Summary:
    """An experiment's summary: fairlab's table (one row per run or per
    point, as the published table is laid out) and whatever else its plot
    needs."""

    table: pd.DataFrame
    extra: Any = None
    #: One row per run (several seeds of a point), if the verdicts should
    #: see the spread over seeds that ``table`` averages away.
    samples: pd.DataFrame | None = None


@dataclass(frozen=True)
class Experiment:
    """One figure or table of a source document, reproduced.

    ``tasks(quick)`` lists the runs; ``summarize(tasks, results)`` turns
    them into fairlab's table; ``published`` are the source's numbers and
    claims; ``plot(summary, published)`` draws fairlab's curves over the
    published points (None: no plot). ``setup`` is one paragraph; ``quick``
    says what quick mode changes; ``notes`` explains the rows outside.
    """

    name: str
    reproduces: str
    setup: str
    tasks: Callable[[bool], list[Task]]
    summarize: Callable[[Sequence[Task], Sequence[Result]], Summary]
    published: Sequence[Published]
    quick: str
    plot: Callable[[Summary, Sequence[Published]], Figure] | None = None
    notes: str = ""
    #: The runs for the kernel (namespace backend) where they differ from
    #: ``tasks``: scaled to what one machine sustains (Radon: 100 Mb/s).
    #: ``--backend both`` then runs them on the simulator and the kernel and
    #: sets the two side by side; None: the kernel runs ``tasks``.
    kernel_tasks: Callable[[bool], list[Task]] | None = None


@dataclass(frozen=True)
class Study:
    """The experiments of one source document."""

    name: str
    title: str
    source: str
    doc: str
    experiments: Sequence[Experiment]

    def experiment(self, name: str) -> Experiment:
        for e in self.experiments:
            if e.name == name:
                return e
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.experiments]


def _select(table: pd.DataFrame, row: Mapping[str, Any]) -> pd.DataFrame:
    mask = None
    for col, want in row.items():
        if col not in table.columns:
            return table.iloc[0:0]
        m = table[col].astype(str) == str(want)
        mask = m if mask is None else mask & m
    return table if mask is None else table[mask]


def verdicts(table: pd.DataFrame, published: Sequence[Published]) -> pd.DataFrame:
    """One row per published number or claim: the published value, fairlab's
    (mean and spread over the matching rows), the deviation, the tolerance
    and the verdict: within, outside, qualitative (with whether the claim
    holds), or not run (the row is not in this run, e.g. in quick mode);
    ``why``: the published row's own explanation of a departure, from this
    run (empty where it has none or fairlab does not depart)."""
    import pandas as pd

    rows = []
    for p in published:
        r: dict[str, Any] = {
            "row": p.label,
            "metric": p.metric,
            "published": math.nan,
            "bound": p.bound,
            "uncertainty": p.uncertainty,
            "unit": p.unit,
            "source": p.source,
            "fairlab": math.nan,
            "fairlab_sd": math.nan,
            "fairlab_n": 0,
            "deviation": math.nan,
            "deviation_pct": math.nan,
            "tolerance": "",
            "verdict": NOT_RUN,
            "holds": None,
            "shows": "",
            "why": "",
        }
        if p.value is None:
            r["tolerance"] = ""
            r["claim"] = p.claim
            if p.check is None:
                r["verdict"], r["shows"] = QUALITATIVE, "(no check: read the plot)"
            else:
                holds, shows = p.check(table)
                r["verdict"], r["holds"], r["shows"] = QUALITATIVE, holds, shows
                if holds is False and p.why is not None:
                    r["why"] = p.why(table)
            rows.append(r)
            continue
        r["published"] = p.value
        r["claim"] = p.claim
        r["tolerance"] = str(p.tolerance) if p.bound == "=" else "the bound"
        sel = _select(table, p.row)
        vals = sel[p.metric].astype(float).dropna() if p.metric in sel else sel.iloc[0:0]
        if len(vals) == 0:
            r["shows"] = "this row was not run"
            rows.append(r)
            continue
        m = float(vals.mean())
        dev = m - p.value
        allowed = p.tolerance.allowed(p.value) + p.uncertainty
        if p.bound == ">=":
            ok = m >= p.value - allowed
        elif p.bound == "<=":
            ok = m <= p.value + allowed
        else:
            ok = abs(dev) <= allowed
        r.update(
            fairlab=m,
            fairlab_sd=float(vals.std(ddof=1)) if len(vals) > 1 else math.nan,
            fairlab_n=len(vals),
            deviation=dev,
            deviation_pct=100 * dev / p.value if p.value else math.nan,
            verdict=WITHIN if ok else OUTSIDE,
        )
        if not ok and p.why is not None:
            r["why"] = p.why(sel)
        rows.append(r)
    return pd.DataFrame(rows)


def verdict_text(row: Mapping[str, Any]) -> str:
    """The verdict as a person reads it: "within (+6 %)", "outside
    (+254 %)", "qualitative: holds", "not run"."""
    v = row["verdict"]
    if v == QUALITATIVE:
        holds = row.get("holds")
        return "qualitative: " + {True: "holds", False: "does not hold"}.get(
            holds, "not shown by this run"
        )
    if v in (WITHIN, OUTSIDE):
        if row["bound"] in (">=", "<="):
            return f"{v} ({_signed(row['deviation'])} from the bound)"
        pct = row["deviation_pct"]
        if isinstance(pct, float) and not math.isnan(pct):
            return f"{v} ({_signed(row['deviation'])}, {pct_text(pct)})"
        return f"{v} ({_signed(row['deviation'])})"
    return v


def pct_text(pct: float) -> str:
    """A relative deviation: "+254 %", "-0.0032 %"."""
    return f"{pct:+.0f} %" if abs(pct) >= 1 else f"{pct:+.2g} %"


def _signed(x: float) -> str:
    return f"{x:+.3g}"


def fmt_number(x: Any) -> str:
    """A number as the tables print it: 4 significant digits, no noise."""
    if isinstance(x, bool) or x is None:
        return "" if x is None else str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return ""
        if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-3):
            return f"{x:.3g}"
        return f"{x:.4g}"
    return str(x)
