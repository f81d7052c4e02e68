"""The description layer's estimate, exposed to Python and shown before a
long run (issue 23). Costs well under a second: nothing here simulates."""

import json

import fairlab
import pytest
from fairlab import _as_json, _core
from fairlab.cli import run as cli_run
from fairlab.scenarios import fat_tree_permutation, incast


def test_the_estimate_counts_the_work_and_states_its_bound():
    est = json.loads(_core.estimate_json(_as_json(incast(4, block="256KiB", rounds=5))))
    for k in ("packets", "packet_hops", "events", "memory_bytes", "flows", "horizon_ps"):
        assert est[k] > 0, k
    # An incast through one switch: every data packet crosses two links.
    assert est["packet_hops"] >= 2 * est["packets"]
    assert est["packet_hops_bound"] > est["packet_hops"]
    assert est["events_bound"] > est["events"]
    assert est["largest"]["packet_hops"]["field"]


def test_toml_and_json_give_the_same_estimate():
    toml = (
        '[topology]\nkind = "star"\nhosts = 3\nrate = "1Gbps"\ndelay = "10us"\n'
        '[[workload]]\nkind = "bulk"\nsrc = "h1"\ndst = "h0"\nsize = "1MB"\n'
    )
    sc = fairlab._parse_toml(toml)
    assert _core.estimate_toml(toml) == _core.estimate_json(_as_json(sc))


def test_a_scenario_beyond_its_limits_is_refused_in_one_line_naming_the_limit():
    sc = fat_tree_permutation(8, duration="10s")
    with pytest.raises(fairlab.ScenarioError) as e:
        _core.estimate_json(_as_json(sc))
    msg = str(e.value)
    assert "\n" not in msg and "[limits] max_" in msg


def test_fairlab_run_shows_the_estimate_and_an_eta_before_a_long_run(capsys):
    sc = fat_tree_permutation(8, duration="50ms")
    sc["limits"] = {"max_packet_hops": 10**10, "max_events": 10**11, "max_packets": 10**9}
    cli_run.show_estimate(sc)
    err = capsys.readouterr().err
    assert "estimate: about" in err and "packet-hops" in err and "ETA about" in err


def test_the_eta_assumes_slower_hops_on_larger_networks():
    speeds = [cli_run.eta_speed(p) for p in (16, 256, 1_000, 6_144, 50_000, 165_888, 10**6)]
    assert speeds == sorted(speeds, reverse=True)
    assert speeds[0] == speeds[1] == cli_run.ETA_SPEED[0][1]
    assert speeds[3] == cli_run.ETA_SPEED[1][1] and speeds[-1] == cli_run.ETA_SPEED[-1][1]
    est = json.loads(_core.estimate_json(_as_json(fat_tree_permutation(8, duration="1ms"))))
    # k = 8: 80 switches of 8 ports, and 128 hosts.
    assert est["ports"] == 80 * 8 + 128


def test_a_short_run_starts_without_a_word(capsys):
    cli_run.show_estimate(incast(2, block="64KiB", rounds=2))
    assert capsys.readouterr().err == ""
