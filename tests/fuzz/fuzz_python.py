"""Fuzzer for fairlab's Python surfaces: damaged results stores through
``fairlab.load``, the store's listing, ``repair.verify`` and a resuming sweep
(store_cases.py), and command lines through ``fairlab.cli.main``
(cli_cases.py). The scenario fuzzer is the Rust one
(crates/fairlab-sim/examples/fuzz_scenarios).

    python3 tests/fuzz/fuzz_python.py --cases 1000 --seed 1
    python3 tests/fuzz/fuzz_python.py --cases 1000 --seed 1 --surfaces load,list
    python3 tests/fuzz/fuzz_python.py --seed 1 --only 417 --surfaces cli   # one case

Every case is drawn from its seed and index alone, so a failure is
reproduced by its index. Cases run in worker processes (this file with
``--worker``), in-process there for speed, one at a time each; a case
FAILS when an exception escapes other than the refusals the surface
allows (one line each), when a rule of its surface is broken, when it runs
past ``--timeout`` (an alarm in the worker, and the parent kills a worker
that does not answer), or when the worker's peak RSS passes ``--mem-mib``
(its address space is capped at ``--as-mib`` too). A worker is started
anew after a case that timed out, blew memory or killed it. Prints counts
per surface and outcome; exits 1 if any case failed, each failure printed
with the command that reproduces it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
STORE_SURFACES = ("load", "list", "verify", "resume")
ALL_SURFACES = (*STORE_SURFACES, "cli")


class CaseTimeout(BaseException):
    """Raised by the alarm in a case that runs too long (a BaseException, so
    that the code under test does not swallow it)."""


def _alarm(signum: int, frame: object) -> None:
    raise CaseTimeout


def _work_root() -> Path:
    shm = Path("/dev/shm")
    return Path(tempfile.mkdtemp(prefix="fairlab-fuzz-", dir=shm if shm.is_dir() else None))


# -- worker --------------------------------------------------------------------


def _run_one(index: int, opts: argparse.Namespace, base: Path, digests: dict) -> dict:
    import cli_cases
    import store_cases

    rng = random.Random(f"{opts.seed}:{index}")
    surfaces = opts.surfaces.split(",")
    surface = surfaces[rng.randrange(len(surfaces))]
    work = Path(opts.work) / f"case-{os.getpid()}"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    signal.setitimer(signal.ITIMER_REAL, opts.timeout)
    said: list[str] = [""]  # the case's description, as soon as it is drawn

    def say(desc: str) -> None:
        # Also to the parent at once: a case stuck where no signal handler
        # runs is killed by the parent, which then still knows what it was.
        said.append(desc)
        sys.stdout.write(json.dumps({"desc": desc, "surface": surface}) + "\n")
        sys.stdout.flush()

    fatal = {"surface": surface, "exit": True}
    try:
        if surface == "cli":
            outcome, detail, desc = cli_cases.run_case(rng, work, base, say)
        else:
            outcome, detail, desc = store_cases.run_case(rng, surface, base, work, digests, say)
    except CaseTimeout:
        return {
            **fatal,
            "outcome": "FAIL hang",
            "detail": f"past {opts.timeout} s",
            "desc": said[-1],
        }
    except MemoryError:
        return {**fatal, "outcome": "FAIL memory", "detail": "MemoryError", "desc": said[-1]}
    except (store_cases.CaseFailure, cli_cases.CliFailure) as e:
        outcome, detail, desc = "FAIL rule", str(e), said[-1]
    except SystemExit as e:
        outcome, detail, desc = "FAIL exit", f"SystemExit({e.code!r}) escaped", said[-1]
    except BaseException as e:  # noqa: BLE001  (the fuzzer's point)
        desc = said[-1]
        frames = traceback.extract_tb(e.__traceback__)[-3:]
        where = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(frames))
        text = " ".join(str(e).split())[:300]
        outcome, detail = "FAIL traceback", f"{type(e).__name__}: {text} [{where}]"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if peak_mib > opts.mem_mib:
        return {
            **fatal,
            "outcome": "FAIL memory",
            "detail": f"peak RSS {peak_mib:.0f} MiB",
            "desc": said[-1],
        }
    return {"surface": surface, "outcome": outcome, "detail": detail, "desc": desc}


def worker(opts: argparse.Namespace) -> int:
    """Runs the case indices read from stdin; answers one JSON line each."""
    sys.path.insert(0, str(HERE))
    import cli_cases  # noqa: F401  (imported before the address-space cap)
    import store_cases  # noqa: F401

    cap = opts.as_mib << 20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _alarm)
    base = Path(opts.work) / "base"
    digests = json.loads((Path(opts.work) / "digests.json").read_text())
    for line in sys.stdin:
        index = int(line)
        ans = _run_one(index, opts, base, digests)
        ans["index"] = index
        sys.stdout.write(json.dumps(ans) + "\n")
        sys.stdout.flush()
        if ans.get("exit"):
            return 0
    return 0


# -- parent --------------------------------------------------------------------


class Worker:
    def __init__(self, opts: argparse.Namespace) -> None:
        argv = [sys.executable, __file__, "--worker", *opts.argv_for_worker]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        assert self.proc.stdout is not None
        # Read with os.read, not readline: a buffered reader may hold the
        # answer while select() says there is nothing to read.
        self.fd = self.proc.stdout.fileno()
        self.pending = b""
        self.index: int | None = None
        self.started = 0.0
        self.desc = ""
        self.surface = "?"

    def send(self, index: int) -> None:
        self.index = index
        self.desc = ""
        self.surface = "?"
        self.started = time.monotonic()
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{index}\n")
        self.proc.stdin.flush()

    def line(self) -> bytes | None:
        """The next whole line the worker wrote: b"" at its end, None if none yet."""
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.fd], [], [], 0)
            if not ready:
                return None
            data = os.read(self.fd, 1 << 16)
            if not data:
                return b""
            self.pending += data
        line, _, self.pending = self.pending.partition(b"\n")
        return line

    def known(self) -> dict:
        """What the worker said of its case before it died or hung."""
        return {"surface": self.surface, "desc": self.desc}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def _repro(opts: argparse.Namespace, index: int) -> str:
    return (
        f"python3 tests/fuzz/fuzz_python.py --seed {opts.seed} --only {index} "
        f"--surfaces {opts.surfaces}"
    )


def _record(opts, counts: Counter, failures: list, ans: dict) -> None:
    surface = ans.get("surface", "?")
    counts[(surface, ans["outcome"])] += 1
    if ans["outcome"].startswith("FAIL"):
        failures.append(ans)
        print(
            f"{ans['outcome']} case {ans['index']} [{surface}]: {ans['detail']}\n"
            f"  {ans.get('desc', '')}\n  reproduce: {_repro(opts, ans['index'])}",
            flush=True,
        )
    elif opts.verbose:
        print(f"{ans['outcome']} case {ans['index']} [{surface}]: {ans.get('desc', '')}")


def _deadline(w: Worker, opts: argparse.Namespace) -> float:
    """When the parent gives up on a worker's case: the worker's own alarm
    comes first, unless the case is stuck where no signal handler runs."""
    return w.started + opts.timeout * 2 + 10


def _answer(w: Worker, opts: argparse.Namespace) -> dict | None:
    """The worker's answer to its case, None while it runs, or a failure if
    it died or hung."""
    while True:
        line = w.line()
        if line is None:
            if time.monotonic() < _deadline(w, opts):
                return None
            w.stop()
            detail = "the worker did not answer (killed)"
            return {**w.known(), "outcome": "FAIL hang", "detail": detail, "dead": True}
        if not line:
            code = w.proc.wait()
            detail = f"the worker exited {code}"
            return {**w.known(), "outcome": "FAIL crash", "detail": detail, "dead": True}
        ans = json.loads(line)
        if "outcome" in ans:
            break
        w.desc, w.surface = ans["desc"], ans["surface"]  # the case so far
    if ans.get("exit"):
        w.stop()
        ans["dead"] = True
    return ans


def _run_all(opts: argparse.Namespace, indices: list[int]) -> tuple[Counter, list]:
    counts: Counter = Counter()
    failures: list = []
    todo = list(reversed(indices))
    workers = [Worker(opts) for _ in range(min(opts.workers, len(indices)))]
    busy = {}
    while todo or busy:
        for i, w in enumerate(workers):
            if i not in busy and todo:
                w.send(todo.pop())
                busy[i] = w
        streams = {w.fd: i for i, w in busy.items()}
        ready, _, _ = select.select(list(streams), [], [], 1.0)
        due = {streams[s] for s in ready} | {i for i, w in busy.items() if b"\n" in w.pending}
        due |= {i for i, w in busy.items() if time.monotonic() > _deadline(w, opts)}
        for i in sorted(due):
            w = busy[i]
            ans = _answer(w, opts)
            if ans is None:
                continue
            ans.setdefault("index", w.index)
            del busy[i]
            _record(opts, counts, failures, ans)
            if ans.get("dead"):
                w.stop()
                workers[i] = Worker(opts)
    for w in workers:
        if w.proc.stdin:
            w.proc.stdin.close()
        w.stop()
    return counts, failures


def _report(counts: Counter, failures: list, n: int, wall_s: float) -> None:
    surfaces = sorted({s for s, _ in counts})
    outcomes = sorted({o for _, o in counts})
    print(f"\n{n} cases in {wall_s:.1f} s ({n / max(wall_s, 1e-9):.1f} cases/s)")
    width = max(len(o) for o in outcomes) if outcomes else 4
    print(f"{'surface':8} " + " ".join(f"{o:>{width}}" for o in outcomes))
    for s in surfaces:
        print(f"{s:8} " + " ".join(f"{counts[(s, o)]:>{width}}" for o in outcomes))
    print(f"{len(failures)} failures")


def _make_base(work: Path) -> None:
    sys.path.insert(0, str(HERE))
    import store_cases

    digests = store_cases.make_base(work / "base")
    (work / "digests.json").write_text(json.dumps(digests))


def _base_intact(work: Path) -> str | None:
    """Why the base store changed (a case wrote into a shared file), or None."""
    from fairlab.store import Store

    st = Store(work / "base", create=False)
    bad = st.damaged(full=True)
    return None if not bad else f"the base store was changed in place: {bad[0]}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", type=int, default=0, help="first case index")
    p.add_argument("--only", type=int, default=None, help="run this case index alone, verbose")
    p.add_argument("--surfaces", default=",".join(ALL_SURFACES))
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per case")
    p.add_argument("--mem-mib", type=int, default=1536, help="peak RSS bound of a worker")
    p.add_argument("--as-mib", type=int, default=6144, help="address-space cap of a worker")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--worker", metavar="WORK", default=None, help=argparse.SUPPRESS)
    opts = p.parse_args(argv)
    bad = set(opts.surfaces.split(",")) - set(ALL_SURFACES)
    if bad:
        p.error(f"--surfaces: {', '.join(sorted(bad))}; expected some of {', '.join(ALL_SURFACES)}")
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    if opts.worker is not None:
        opts.work = opts.worker
        return worker(opts)
    # SIGTERM ends the run as Ctrl-C does: the work directory is removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    work = _work_root()
    try:
        _make_base(work)
        opts.argv_for_worker = [
            str(work),
            f"--seed={opts.seed}",
            f"--surfaces={opts.surfaces}",
            f"--timeout={opts.timeout}",
            f"--mem-mib={opts.mem_mib}",
            f"--as-mib={opts.as_mib}",
        ]
        if opts.only is not None:
            opts.verbose = True
            indices = [opts.only]
        else:
            indices = list(range(opts.start, opts.start + opts.cases))
        t0 = time.monotonic()
        counts, failures = _run_all(opts, indices)
        wall = time.monotonic() - t0
        changed = _base_intact(work)
        if changed:
            print(f"FAIL {changed}")
            failures.append({"outcome": "FAIL base"})
        _report(counts, failures, len(indices), wall)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
