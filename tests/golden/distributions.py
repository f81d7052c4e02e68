"""Distributions over seeds: for a change that moves results without being wrong.

When a change alters results that are random anyway (a new hash places
flows in other buckets, a faster event loop orders simultaneous events
differently), the golden record cannot stay bit-identical; what must stay
the same is each metric's distribution over seeds. Run this with the build
before and the build after, then compare:

    python tests/golden/distributions.py run --seeds 20 --out before.json   # old build
    python tests/golden/distributions.py run --seeds 20 --out after.json    # new build
    python tests/golden/distributions.py compare before.json after.json

`compare` prints, per scenario and metric, the mean and standard deviation
before and after and Welch's t statistic; |t| above 3 is flagged.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from typing import Any


def _scenarios() -> dict[str, dict[str, Any]]:
    from fairlab import hcf

    out = {}
    for disc in ("droptail", "hcf", "sfq", "drr"):
        out[f"long-{disc}"] = hcf.long_flows_scenario(disc, flows=100, duration="20s", window="5s")
    out["baseline-hcf"] = hcf.long_flows_scenario("hcf")
    return out


def _metrics(res: Any) -> dict[str, float]:
    f = res.flows
    s = res.summary
    fs = res.flow_series
    out = {
        "delivered_bytes": float(f["bytes_delivered"].sum()),
        "timeouts": float(s["total_timeouts"]),
        "drops": float(s["drops"]),
        "retransmits": float(f["retransmits"].sum()),
    }
    if len(fs):
        last = fs[fs["t_s"] == fs["t_s"].max()]
        per_flow = last.set_index("flow_id")["bytes"].reindex(f["flow_id"], fill_value=0)
        x = per_flow.to_numpy(dtype=float)
        out["starved_share"] = float((x == 0).mean())
        out["jain_last_bin"] = float(x.sum() ** 2 / (len(x) * (x**2).sum())) if x.any() else 0.0
    return out


def run(seeds: int, path: str) -> None:
    import fairlab

    data: dict[str, dict[str, list[float]]] = {}
    for name, sc in _scenarios().items():
        for seed in range(1, seeds + 1):
            m = _metrics(fairlab.simulate(sc, seed=seed))
            for k, v in m.items():
                data.setdefault(name, {}).setdefault(k, []).append(v)
        print(f"  {name}: {seeds} seeds", file=sys.stderr)
    with open(path, "w") as fh:
        json.dump(data, fh, indent=1)


def compare(a_path: str, b_path: str) -> int:
    with open(a_path) as fa, open(b_path) as fb:
        a, b = json.load(fa), json.load(fb)
    flagged = 0
    head = ("scenario", "metric", "before mean (sd)", "after mean (sd)", "t")
    print(f"{head[0]:16} {head[1]:16} {head[2]:>26} {head[3]:>26} {head[4]:>6}")
    for name in a:
        for k in a[name]:
            x, y = a[name][k], b[name][k]
            mx, my = statistics.fmean(x), statistics.fmean(y)
            sx, sy = statistics.stdev(x), statistics.stdev(y)
            se = math.sqrt(sx**2 / len(x) + sy**2 / len(y))
            t = (my - mx) / se if se > 0 else 0.0
            mark = " *" if abs(t) > 3 else ""
            flagged += bool(mark)
            before, after = f"{mx:.5g} ({sx:.3g})", f"{my:.5g} ({sy:.3g})"
            print(f"{name:16} {k:16} {before:>26} {after:>26} {t:>6.2f}{mark}")
    print(f"{flagged} metrics with |t| > 3")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--seeds", type=int, default=20)
    r.add_argument("--out", required=True)
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    a = ap.parse_args()
    if a.cmd == "run":
        run(a.seeds, a.out)
        return 0
    return compare(a.before, a.after)


if __name__ == "__main__":
    sys.exit(main())
