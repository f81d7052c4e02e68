"""The hash-cast probability model: exact counting against brute force and
Monte Carlo."""

import itertools
from fractions import Fraction

import pytest
from fairlab import hashcast


def brute_force(flows: int, queues: int, r: float) -> Fraction:
    hit = 0
    for a in itertools.product(range(queues), repeat=flows):
        counts = [c for c in (a.count(q) for q in range(queues)) if c]
        hit += max(counts) >= r * min(counts)
    return Fraction(hit, queues**flows)


@pytest.mark.parametrize(("flows", "queues"), [(1, 1), (3, 2), (5, 4), (6, 3), (5, 6)])
def test_exact_counting_equals_enumerating_every_assignment(flows, queues):
    for r in (1, 1.5, 2, 3):
        assert hashcast.exact(flows, queues, r) == brute_force(flows, queues, r)


def test_distribution_sums_to_one_and_five_flows_on_eight_queues_is_mostly_ratio_two():
    d = hashcast.distribution(5, 8)
    assert sum(d.values()) == 1
    # The source's "2 (often) or 3 (seldom)": 2 is the likeliest outcome,
    # 3 occurs less often. RT 1: all five alone, or all five together.
    assert max(d, key=d.get) == 2
    assert 0 < d[Fraction(3)] < d[Fraction(2)]
    assert d[Fraction(1)] == Fraction(8 * 7 * 6 * 5 * 4 + 8, 8**5)


def test_monte_carlo_agrees_with_exact_within_four_standard_errors():
    for flows, queues in [(5, 6), (10, 8), (20, 16)]:
        want = float(hashcast.exact(flows, queues, 2))
        est = hashcast.monte_carlo(flows, queues, 2, trials=40_000, seed=3)
        assert abs(est.p - want) <= 4 * est.stderr + 1e-12, (flows, queues, est, want)


def test_decimal_thresholds_are_taken_as_written():
    # 6/5 exactly: occupancies 6 and 5 reach RT 1.2.
    assert hashcast.ratio_threshold((6, 5)) >= hashcast._frac(1.2)
    assert hashcast.exact(11, 2, 1.2) > 0


def test_bad_counts_are_refused_with_the_field_named():
    with pytest.raises(ValueError, match="^flows: 0 is not allowed"):
        hashcast.exact(0, 4, 2)
    with pytest.raises(ValueError, match="^queues: 0 is not allowed"):
        hashcast.monte_carlo(3, 0, 2)


@pytest.mark.parametrize(("flows", "queues"), [(7, 3), (12, 5), (20, 8), (16, 16)])
def test_generating_functions_count_what_listing_patterns_counts(flows, queues):
    for r in (1.2, 1.5, 2, 3):
        assert hashcast.exact(flows, queues, r) == hashcast.exact_by_patterns(flows, queues, r)


def test_winner_loser_ratio_splits_at_the_widest_gap():
    # Two losers sharing a queue against three winners alone in theirs.
    assert hashcast.winner_loser_ratio([100, 110, 200, 210, 220]) == pytest.approx(210 / 105)
    assert hashcast.winner_loser_ratio([100, 101, 120]) == 1.0  # within 25 %: no pattern
    assert hashcast.winner_loser_ratio([0, 100]) == float("inf")


def test_clients_of_a_simulated_run_name_the_winners_alone_in_their_queues():
    import fairlab
    from fairlab.studies.hashcast import nfs_scenario

    # Seed 1, 8 queues: two clients share a queue, three are alone.
    res = fairlab.simulate(nfs_scenario(5, 8, duration_s=1.0, seed=1), seed=1)
    c = hashcast.clients(res, node="server")
    assert len(c) == 5
    assert sorted(c["queue_flows"]) == [1, 1, 1, 2, 2], c.to_string()
    assert (c["winner"] == (c["queue_flows"] == 1)).all(), c.to_string()
    assert c["over_slowest"].min() == 1.0
    assert c["over_slowest"].max() >= 1.9


def test_a_placement_the_backend_does_not_tell_is_unknown_not_ratio_one():
    """A kernel run reports every flow's transmit queue as -1: the placement's
    ratio is then unknown (NaN), not 1, so it cannot pass for RT 1."""
    import math
    from types import SimpleNamespace

    import pandas as pd
    from fairlab.studies.hashcast import _placement_rt

    known = SimpleNamespace(flows=pd.DataFrame({"tx_queue": [0, 0, 1, 2, 3]}))
    assert _placement_rt(known) == 2.0
    kernel = SimpleNamespace(flows=pd.DataFrame({"tx_queue": [-1] * 5}))
    assert math.isnan(_placement_rt(kernel))
