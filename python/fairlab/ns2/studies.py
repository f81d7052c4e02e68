"""A study's experiments on real ns-2: which of their runs ns-2 can run,
those runs, their tables beside fairlab's, the three-way comparison
(published, ns-2, fairlab) and the stored ns-2 results a report shows when
`ns` is not installed.

Stored results live in `studies/ns2_results/<study>/<experiment>.*`: the
summary table and the per-run samples as CSV, and `provenance.json` (ns-2
version, date, fairlab version, the digest of every Tcl script run). They
are written by `fairlab reproduce STUDY --backend ns2 --save-ns2` on a
machine with ns-2, and read back as they are.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import ScenarioError

if TYPE_CHECKING:
    import pandas as pd

    from ..outcome import Outcome
    from ..runner import Task
    from ..studies.base import Experiment

#: fairlab's `ns2` host agrees with ns-2 at a point when the goodputs differ
#: by at most 10 % of ns-2's or 15 Mb/s (issue 19), and timeouts per round
#: by at most 25 %.
AGREE_REL = 0.10
AGREE_ABS_MBPS = 15.0
AGREE_TIMEOUTS_REL = 0.25

STORE = Path(__file__).resolve().parents[1] / "studies" / "ns2_results"


def split(tasks: Sequence[Task]) -> tuple[list[Task], str]:
    """The tasks ns-2 can run, and why the others cannot (the first
    refusal and how many were refused; "" when none)."""
    from .run import lower

    ok, refused, why = [], 0, ""
    cache: dict[str, str | None] = {}
    for t in tasks:
        text = json.dumps(t.scenario, sort_keys=True)
        if text not in cache:
            try:
                lower(text)
                cache[text] = None
            except ScenarioError as e:
                cache[text] = str(e)
        if cache[text] is None:
            ok.append(t)
        else:
            refused += 1
            why = why or cache[text]
    note = f"{refused} of {len(tasks)} runs not lowered to ns-2: {why}" if refused else ""
    return ok, note


def run_experiment(
    exp: Experiment, quick: bool, workers: int | None = None
) -> tuple[Outcome | None, str]:
    """The experiment's lowerable runs on ns-2, summarized and judged
    against the published numbers as fairlab's are; and a note on the runs
    left out."""
    import time

    from .. import backends
    from ..outcome import Outcome, runs_table
    from ..studies.base import verdicts

    t0 = time.perf_counter()
    ok, note = split(exp.tasks(quick))
    if not ok:
        return None, note or "no run"
    results = backends.get("ns2").run_tasks()(ok, jobs=workers)
    summary = exp.summarize(ok, results)
    runs = runs_table(ok, results)
    runs["ns_version"] = [r.summary["ns_version"] for r in results]
    runs["script_digest"] = [r.summary["script_digest"] for r in results]
    runs["wall_s"] = [r.summary["wall_s"] for r in results]
    table = summary.table if summary.samples is None else summary.samples
    v = verdicts(table, exp.published)
    o = Outcome(exp, quick, summary, v, runs, time.perf_counter() - t0, None)
    return o, note


# ------------------------------------------------------------------ store


def _dir(study: str, quick: bool) -> Path:
    return STORE / (f"{study}-quick" if quick else study)


def save(study: str, o: Outcome, version: str) -> Path:
    """Keeps an ns-2 outcome in the package's store (CSV and provenance)."""
    d = _dir(study, o.quick)
    d.mkdir(parents=True, exist_ok=True)
    name = o.experiment.name
    o.summary.table.to_csv(d / f"{name}.csv", index=False)
    if o.summary.samples is not None:
        o.summary.samples.to_csv(d / f"{name}-samples.csv", index=False)
    prov_path = d / "provenance.json"
    prov = json.loads(prov_path.read_text()) if prov_path.exists() else {}
    digests = sorted(set(o.runs["script_digest"]))
    prov[name] = {
        "ns_version": sorted(set(o.runs["ns_version"])),
        "date": _dt.date.today().isoformat(),
        "fairlab": version,
        "runs": int(len(o.runs)),
        "seeds": sorted({int(s) for s in o.runs["seed"]}),
        "scripts_digest": hashlib.sha256("".join(digests).encode()).hexdigest()[:16],
        "ns_wall_s": round(float(o.runs["wall_s"].sum()), 1),
    }
    prov_path.write_text(json.dumps(prov, indent=1, sort_keys=True) + "\n")
    return d


def load(study: str, exp: Experiment, quick: bool) -> tuple[Outcome | None, dict]:
    """A stored ns-2 outcome of the experiment (judged again against the
    published numbers), with its provenance; (None, {}) if none is kept."""
    import pandas as pd

    from ..outcome import Outcome
    from ..studies.base import Summary, verdicts

    d = _dir(study, quick)
    path = d / f"{exp.name}.csv"
    prov_path = d / "provenance.json"
    if not path.exists() or not prov_path.exists():
        return None, {}
    prov = json.loads(prov_path.read_text()).get(exp.name, {})
    table = pd.read_csv(path)
    sp = d / f"{exp.name}-samples.csv"
    samples = pd.read_csv(sp) if sp.exists() else None
    summary = Summary(table, samples=samples)
    v = verdicts(samples if samples is not None else table, exp.published)
    runs = pd.DataFrame({"run": range(int(prov.get("runs", 0)))})
    return Outcome(exp, quick, summary, v, runs, 0.0, None), prov


# ------------------------------------------------------------------ comparison


def agrees(fairlab: float, ns2: float, unit: str = "Mb/s") -> bool:
    """Within 10 % of ns-2's value; for a goodput in Mb/s also within 15 Mb/s
    (the floor is a goodput's: a share or a variance has only the 10 %)."""
    floor = AGREE_ABS_MBPS if unit == "Mb/s" else 0.0
    return abs(fairlab - ns2) <= max(floor, AGREE_REL * abs(ns2))


def agreement(
    fairlab: pd.DataFrame, ns2: pd.DataFrame, metric: str = "goodput_mbps"
) -> pd.DataFrame:
    """fairlab's and ns-2's summary tables of one experiment point by point
    (the rows both have, by their non-float columns): both values of the
    metric and of timeouts per round, their differences, and whether they
    agree (±10 % or ±15 Mb/s; timeouts ±25 %)."""
    import pandas as pd

    keys = [
        c
        for c in fairlab.columns
        if c in ns2.columns
        and not pd.api.types.is_float_dtype(fairlab[c])
        and c not in ("seeds", "rounds")
    ]
    cols = [metric] + [c for c in ("timeouts_per_round",) if c in fairlab and c in ns2]
    m = fairlab[keys + cols].merge(
        ns2[keys + cols], on=keys, suffixes=(" fairlab", " ns-2"), sort=False
    )
    f, n = m[f"{metric} fairlab"], m[f"{metric} ns-2"]
    m["diff"] = f - n
    m["diff_pct"] = 100 * (f - n) / n.where(n != 0)
    m["agrees"] = [agrees(a, b) for a, b in zip(f, n, strict=True)]
    if "timeouts_per_round" in cols:
        tf, tn = m["timeouts_per_round fairlab"], m["timeouts_per_round ns-2"]
        m["timeouts_agree"] = [
            abs(a - b) <= AGREE_TIMEOUTS_REL * max(b, 1e-9) or (a < 0.05 and b < 0.05)
            for a, b in zip(tf, tn, strict=True)
        ]
    return m


def three_way(o: Outcome) -> pd.DataFrame:
    """Each published number beside ns-2's and fairlab's, with the verdict
    of each against it and whether fairlab agrees with ns-2."""
    import pandas as pd

    fl, ns = o.verdicts, o.ns2.verdicts
    rows = []
    for (_, a), (_, b) in zip(fl.iterrows(), ns.iterrows(), strict=True):
        if a["verdict"] == "qualitative":
            continue
        f, n = a["fairlab"], b["fairlab"]
        unit = str(a.get("unit", "Mb/s"))
        if math.isnan(f) and math.isnan(n):
            continue  # a row neither ran (quick mode)
        rows.append(
            {
                "row": a["row"],
                "published": a["published"],
                "bound": a["bound"],
                "ns-2": n,
                "fairlab": f,
                "ns-2 vs published": b["verdict"],
                "fairlab vs published": a["verdict"],
                "fairlab vs ns-2": ("agrees" if agrees(f, n, unit) else "differs")
                if not (math.isnan(f) or math.isnan(n))
                else "not run",
            }
        )
    return pd.DataFrame(rows)
