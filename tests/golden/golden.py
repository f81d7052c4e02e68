"""Golden results: every shipped, tested and published scenario, column by column.

Refactors of the simulator must keep results bit-identical unless a named bug
fix changes them. This script records, for a fixed list of scenarios (the
shipped examples, the test scenarios, the README's incast table and HCF
baseline, one long-flow run per queue discipline, one dumbbell per congestion
control), a hash of every result column and every summary value, and checks
a build against the record.

    python tests/golden/golden.py record   # rewrite tests/golden/digests.json
    python tests/golden/golden.py check    # compare (tests/python/test_golden.py runs this)
    python tests/golden/golden.py extend   # record the columns a later build added

The scenarios themselves are stored in the record, so a change to a Python
scenario builder does not silently change what is compared. Columns or
summary keys a later build adds are allowed (reported) until `extend` records
them for the recorded scenarios, which it does only when every recorded one is
unchanged; a recorded one that is missing or different fails. `events` is
the simulator's own event count, not a result: it is recorded but not
compared (a faster event loop needs fewer events for the same packets).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
RECORD = Path(__file__).with_name("digests.json")
SCENARIO_DIR = Path(__file__).with_name("scenarios")
#: Summary keys that describe the simulator's work, not the network's behaviour.
INTERNAL = {"events", "digest"}


def _scenarios() -> list[tuple[str, dict[str, Any], int | None]]:
    """(name, scenario, seed) of every golden run, built from today's sources."""
    from fairlab import scenarios
    from fairlab.cli import build_parser, incast_table  # noqa: F401  (defaults below)
    from fairlab.studies import hcf

    out: list[tuple[str, dict[str, Any], int | None]] = []
    for p in sorted((ROOT / "examples").glob("*.toml")):
        out.append((f"examples/{p.name}", tomllib.loads(p.read_text()), None))
    for p in sorted((ROOT / "tests/python/data").glob("*.toml")):
        out.append((f"tests/python/data/{p.name}", tomllib.loads(p.read_text()), None))
    for p in sorted(SCENARIO_DIR.glob("*.toml")):
        out.append((f"tests/golden/scenarios/{p.name}", tomllib.loads(p.read_text()), None))
    # The README's incast table: `fairlab incast` on its defaults.
    args = build_parser().parse_args(["incast"])
    from fairlab.cli import _ints, _rto_settings

    for rto, res in _rto_settings(args.min_rto, args.resolution, args.hz):
        for n in _ints(args.servers, "--servers"):
            sc = scenarios.incast(n, min_rto=rto, resolution=res, hz=args.hz, rounds=args.rounds)
            out.append((f"readme/incast-{n}-{rto}-{res}", sc, 1))
    # The README's HCF baseline (180 s of 400 flows), FIFO and HCF.
    for disc in ("droptail", "hcf"):
        out.append((f"readme/hcf-baseline-{disc}", hcf.long_flows_scenario(disc), 1))
    # Every discipline on a shorter long-flow run, seed 2.
    for disc in ("droptail", "red", "sfq", "drr", "hcf"):
        sc = hcf.long_flows_scenario(disc, flows=100, duration="20s", window="1s", seed=2)
        out.append((f"disciplines/{disc}", sc, 2))
    # Short flows over long ones with HCF and FIFO.
    for disc in ("droptail", "hcf"):
        sc = hcf.long_flows_scenario(
            disc, flows=50, duration="10s", short_flows=[(10, 200)], short_spread="8s"
        )
        out.append((f"short/{disc}", sc, 1))
    # Every congestion control on a dumbbell, with and without SACK.
    for cc in ("reno", "newreno", "cubic", "bic", "bic_paper", "vegas", "dctcp"):
        for sack in (False, True):
            sc = scenarios.dumbbell(
                4,
                duration="200ms",
                tcp=cc,
                sack=sack,
                profile="linux",
                ecn_threshold="30pkt" if cc == "dctcp" else None,
            )
            out.append((f"dumbbell/{cc}-sack{int(sack)}", sc, 1))
    return out


def _column_hash(values: Any) -> str:
    arr = np.asarray(values)
    if len(arr) == 0:
        # An empty column has no values to compare (its dtype is the
        # binding's business: Arrow keeps int64 where lists gave float64).
        return "0:empty"
    h = hashlib.blake2b(digest_size=8)
    if arr.dtype.kind in "iuf":
        h.update(str(arr.dtype).encode())
        h.update(np.ascontiguousarray(arr).tobytes())
    else:
        h.update(b"str")
        for v in arr.tolist():
            h.update(str(v).encode())
            h.update(b"\0")
    return f"{len(arr)}:{h.hexdigest()}"


def digests(res: Any) -> dict[str, str]:
    d: dict[str, str] = {}
    for k, v in res.summary.items():
        d[f"summary.{k}"] = repr(v)
    for name, df in res.tables.items():
        for col in df.columns:
            d[f"{name}.{col}"] = _column_hash(df[col].to_numpy())
    return d


def run_all(entries: list[dict[str, Any]], verbose: bool = True) -> list[dict[str, str]]:
    import fairlab

    out = []
    for e in entries:
        res = fairlab.simulate(e["scenario"], seed=e["seed"])
        out.append(digests(res))
        if verbose:
            print(f"  {e['name']}: {res.summary.get('packet_hops')} hops", file=sys.stderr)
    return out


def record() -> None:
    entries = [{"name": n, "scenario": sc, "seed": seed} for n, sc, seed in _scenarios()]
    for e, d in zip(entries, run_all(entries), strict=True):
        e["digests"] = d
    RECORD.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(entries)} runs in {RECORD}")


def extend() -> int:
    """Adds to each recorded run the columns and summary keys recorded
    nowhere yet, keeping its scenario and every recorded digest; refuses
    (1) if any recorded digest has changed."""
    entries = json.loads(RECORD.read_text())
    added = 0
    for e, got in zip(entries, run_all(entries, verbose=False), strict=True):
        for key, want in e["digests"].items():
            if key.removeprefix("summary.") in INTERNAL:
                continue
            if got.get(key) != want:
                print(f"{e['name']}: {key} was {want}, now {got.get(key)}: not extending")
                return 1
        new = {k: v for k, v in got.items() if k not in e["digests"]}
        e["digests"].update(new)
        added += len(new)
    RECORD.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n")
    print(f"added {added} digests to {len(entries)} runs in {RECORD}")
    return 0


def check(names: list[str] | None = None) -> list[str]:
    """Problems found (empty: every recorded column and value is unchanged)."""
    entries = json.loads(RECORD.read_text())
    if names:
        entries = [e for e in entries if any(n in e["name"] for n in names)]
    problems = []
    for e, got in zip(entries, run_all(entries), strict=True):
        for key, want in e["digests"].items():
            if key.removeprefix("summary.") in INTERNAL:
                continue
            if key not in got:
                problems.append(f"{e['name']}: {key} missing")
            elif got[key] != want:
                problems.append(f"{e['name']}: {key} was {want}, now {got[key]}")
        added = sorted(set(got) - set(e["digests"]))
        if added:
            print(f"  {e['name']}: new {', '.join(added)}", file=sys.stderr)
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["record", "check", "extend"])
    ap.add_argument("names", nargs="*", help="check only runs whose name contains one of these")
    a = ap.parse_args()
    if a.mode == "record":
        record()
        return 0
    if a.mode == "extend":
        return extend()
    problems = check(a.names)
    for p in problems:
        print(p)
    print(f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
