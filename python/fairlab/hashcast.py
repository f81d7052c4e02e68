"""The probability of hash-cast: n flows hashed independently and uniformly
onto q transmit queues that a NIC serves in turn.

The model (source document 000, "Probability of Hash-Cast Occurring"):
every flow is backlogged and every non-empty queue gets an equal share of
the link, so a flow's throughput is 1 / (A c) of the link, where A is the
number of non-empty queues and c the number of flows in its queue. The
ratio threshold RT, highest over lowest per-flow throughput, is then the
largest queue occupancy over the smallest non-empty one. Two ways to get
P(RT >= r):

* :func:`exact` counts assignments with generating functions (see there);
  :func:`exact_by_patterns` and :func:`distribution` list occupancy
  patterns instead: a pattern (a partition of n into at most q parts) with
  part sizes c_1..c_A, m_k of them equal to k, arises in
  q! / ((q - A)! prod m_k!) * n! / prod c_i! of the q^n assignments. Both
  are ratios of integers, exact.
* :func:`monte_carlo` draws assignments and reports the estimate with its
  binomial standard error.

Where the model's assumptions fail (a queue that runs dry because its flows'
windows are small, a flow re-hashed mid-run), the simulator's measured
frequency departs from both; the hash-cast study shows where.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache


def partitions(n: int, max_parts: int, largest: int | None = None) -> Iterator[tuple[int, ...]]:
    """The partitions of ``n`` into at most ``max_parts`` positive parts,
    each a non-increasing tuple."""
    if largest is None:
        largest = n
    if n == 0:
        yield ()
        return
    if max_parts == 0:
        return
    for first in range(min(n, largest), 0, -1):
        # The rest must fit in max_parts - 1 parts of at most `first`.
        if first * max_parts < n:
            break
        for rest in partitions(n - first, max_parts - 1, first):
            yield (first, *rest)


@lru_cache(maxsize=1 << 16)
def ways(parts: tuple[int, ...], queues: int) -> int:
    """How many of the queues^n assignments of n = sum(parts) labelled flows
    to ``queues`` labelled queues have exactly this occupancy pattern."""
    n = sum(parts)
    a = len(parts)
    which = math.factorial(queues) // math.factorial(queues - a)
    for m in Counter(parts).values():
        which //= math.factorial(m)
    split = math.factorial(n)
    for c in parts:
        split //= math.factorial(c)
    return which * split


def ratio_threshold(parts: tuple[int, ...]) -> Fraction:
    """RT of an occupancy pattern under equal service per non-empty queue."""
    return Fraction(max(parts), min(parts))


def exact(flows: int, queues: int, r: float) -> Fraction:
    """P(RT >= r) for ``flows`` flows on ``queues`` queues, exactly.

    Counted by generating functions rather than by listing patterns: the
    assignments in which every queue holds 0 or between a and b flows number
    n! [x^n] (1 + sum_{k=a..b} x^k / k!)^q. RT < r with smallest non-empty
    occupancy m means every non-empty queue holds m .. b_m flows (b_m the
    largest count below r m) and some queue exactly m: the assignments with
    all in [m, b_m] less those with all in [m + 1, b_m]."""
    _check(flows, queues)
    bound = _frac(r)
    below = 0
    for m in range(1, flows + 1):
        # The largest count c with c < r m, i.e. c * den < num * m.
        b = min(flows, -(-bound.numerator * m // bound.denominator) - 1)
        if b < m:
            continue
        below += _count_within(flows, queues, m, b) - _count_within(flows, queues, m + 1, b)
    return 1 - Fraction(below, queues**flows)


@lru_cache(maxsize=1 << 12)
def _count_within(flows: int, queues: int, lo: int, hi: int) -> int:
    """Assignments of ``flows`` labelled flows to ``queues`` labelled
    queues with every queue empty or holding ``lo`` to ``hi`` flows (the
    generating function's coefficient, by a dynamic program in integers:
    queue by queue, choose which of the flows left it takes)."""
    sizes = [0] + list(range(max(lo, 1), min(hi, flows) + 1))
    ways_so_far = [1] + [0] * flows
    for _ in range(queues):
        nxt = [0] * (flows + 1)
        for placed, w in enumerate(ways_so_far):
            if w:
                left = flows - placed
                for k in sizes:
                    if k > left:
                        break
                    nxt[placed + k] += w * math.comb(left, k)
        ways_so_far = nxt
    return ways_so_far[flows]


def exact_by_patterns(flows: int, queues: int, r: float) -> Fraction:
    """P(RT >= r) by listing occupancy patterns (slow for many flows; the
    check of :func:`exact`)."""
    _check(flows, queues)
    bound = _frac(r)
    num, den = bound.numerator, bound.denominator
    # Patterns are non-increasing: the largest part first, the smallest last.
    hit = sum(ways(p, queues) for p in partitions(flows, queues) if p[0] * den >= num * p[-1])
    return Fraction(hit, queues**flows)


def distribution(flows: int, queues: int) -> dict[Fraction, Fraction]:
    """The exact distribution of RT: {ratio: probability}."""
    _check(flows, queues)
    out: dict[Fraction, int] = {}
    for p in partitions(flows, queues):
        rt = ratio_threshold(p)
        out[rt] = out.get(rt, 0) + ways(p, queues)
    total = queues**flows
    return {k: Fraction(v, total) for k, v in sorted(out.items())}


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate of a probability and its standard error."""

    p: float
    stderr: float
    trials: int


def monte_carlo(
    flows: int, queues: int, r: float, trials: int = 100_000, seed: int = 1
) -> Estimate:
    """P(RT >= r) by drawing ``trials`` uniform assignments."""
    import numpy as np

    _check(flows, queues)
    if trials < 1:
        raise ValueError(f"trials: {trials} is not allowed; expected at least 1")
    rng = np.random.default_rng(seed)
    hits = 0
    left = trials
    while left:
        batch = min(left, 20_000)
        picks = rng.integers(0, queues, size=(batch, flows))
        counts = np.zeros((batch, queues), dtype=np.int64)
        np.add.at(counts, (np.arange(batch)[:, None], picks), 1)
        biggest = counts.max(axis=1)
        smallest = np.where(counts > 0, counts, flows + 1).min(axis=1)
        bound = _frac(r)
        hits += int((biggest * bound.denominator >= bound.numerator * smallest).sum())
        left -= batch
    p = hits / trials
    return Estimate(p, math.sqrt(max(p * (1 - p), 1e-300) / trials), trials)


def _frac(r: float) -> Fraction:
    """``r`` as the decimal it was written as (1.2 is 6/5, not a binary
    neighbour)."""
    return Fraction(str(r)) if isinstance(r, float) else Fraction(r)


def _check(flows: int, queues: int) -> None:
    if flows < 1:
        raise ValueError(f"flows: {flows} is not allowed; expected at least 1")
    if queues < 1:
        raise ValueError(f"queues: {queues} is not allowed; expected at least 1")


# --------------------------------------------------------------------------
# Measured runs: per-client throughput, winners and losers.


def winner_loser_ratio(rates) -> float:
    """The winner/loser ratio of a run: the clients split into two clusters
    at the widest gap between consecutive rates (in log terms), and the
    faster cluster's mean rate over the slower's; 1.0 when all are within
    25 % of each other (no pattern), inf when a client got nothing."""
    r = sorted(float(x) for x in rates)
    if not r or r[0] <= 0:
        return math.inf if r else math.nan
    if r[-1] / r[0] < 1.25:
        return 1.0
    cut = _widest_gap(r)
    losers, winners = r[:cut], r[cut:]
    return (sum(winners) / len(winners)) / (sum(losers) / len(losers))


def _widest_gap(sorted_rates: list[float]) -> int:
    """The index of the first rate above the widest ratio between
    consecutive rates (at least 1)."""
    gaps = [sorted_rates[i + 1] / sorted_rates[i] for i in range(len(sorted_rates) - 1)]
    return max(range(len(gaps)), key=gaps.__getitem__) + 1


def clients(result, node: str | None = None):
    """One row per TCP flow of ``result`` (a :class:`fairlab.Result`) sent by
    ``node`` (default: every flow): its client (the receiving host), its
    transmit queue, how many of these flows share that queue, its goodput,
    whether it is a winner (above the widest gap between the flows' rates,
    when they are not all within 25 % of each other), and its goodput over
    the slowest flow's. RT is the largest value of the last column."""
    import pandas as pd

    f = result.flows
    if node is not None:
        f = f[f["src"] == node]
    f = f.sort_values("goodput_bps").reset_index(drop=True)
    g = f["goodput_bps"].astype(float)
    out = pd.DataFrame(
        {
            "flow_id": f["flow_id"],
            "client": f["dst"],
            "tx_queue": f["tx_queue"] if "tx_queue" in f.columns else -1,
            "goodput_bps": g,
        }
    )
    out["queue_flows"] = out.groupby("tx_queue")["flow_id"].transform("count")
    winner = [False] * len(out)
    if len(out) > 1 and g.iloc[0] > 0 and g.iloc[-1] / g.iloc[0] >= 1.25:
        cut = _widest_gap(list(g))
        winner = [i >= cut for i in range(len(out))]
    out["winner"] = winner
    out["over_slowest"] = g / g.iloc[0] if len(g) and g.iloc[0] > 0 else math.inf
    return out.sort_values("flow_id").reset_index(drop=True)
