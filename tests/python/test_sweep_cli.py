"""`fairlab sweep` and `fairlab results` as a user runs them."""

from __future__ import annotations

import fairlab
import pandas as pd
import pytest
from fairlab.cli import main
from fairlab.sweep import parse_param, set_field, sweep_tasks


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("param", "message"),
    [
        (
            "topology.rate=1Gbps,-3Gbps",
            '--param topology.rate=-3Gbps: topology.rate: "-3Gbps" is not a valid rate; '
            "expected a positive rate",
        ),
        ("topology.rat=1Gbps", "--param topology.rat=1Gbps: topology.rat: not a field"),
        ("workload.3.sru=1KiB", "--param workload.3.sru: workload has 1 entries; expected an"),
        ("tcp.cc=cubic,foo", '--param tcp.cc=foo: tcp.cc: "foo" is not a known congestion'),
        ("queue.limit=100B", '--param queue.limit=100B: queue.limit: "100B" is smaller than'),
        ("topology.rate", "--param topology.rate: expected PATH=V1,V2,..."),
    ],
)
def test_every_value_is_checked_before_anything_runs(capsys, small_toml, tmp_path, param, message):
    code, out, err = run(capsys, "sweep", str(small_toml), "--param", param, "--store",
                         str(tmp_path / "s"))  # fmt: skip
    assert code == 2 and out == ""
    assert err.startswith(f"fairlab: error: {message}")
    assert err.count("\n") == 1
    assert not (tmp_path / "s" / "runs").exists() or not list((tmp_path / "s" / "runs").iterdir())


def test_a_combination_the_simulator_refuses_names_its_parameter(small_toml):
    base = fairlab.load_scenario(small_toml)
    # Each limit alone is valid with the default MSS; 1000B is not with a 9000-byte MSS.
    params = [parse_param("tcp.mss=1460B,9000B"), parse_param("queue.limit=64KiB,1000B")]
    with pytest.raises(fairlab.ScenarioError, match=r"^--param queue.limit=1000B: queue.limit"):
        sweep_tasks(base, params)


def test_paths_values_and_labels():
    sc = {"workload": [{"kind": "incast"}]}
    set_field(sc, "workload[0].servers", 4)
    set_field(sc, "queue.limit", "32KiB")
    assert sc == {"workload": [{"kind": "incast", "servers": 4}], "queue": {"limit": "32KiB"}}
    assert parse_param("workload.0.servers=4,8,all") == ("workload.0.servers", [4, 8, "all"])
    assert parse_param('workload.0.servers=["s1","s2"],["s3"]')[1] == [["s1", "s2"], ["s3"]]
    assert parse_param("tcp.sack=true,false")[1] == [True, False]


def test_sweep_table_plot_and_results(capsys, small_toml, tmp_path):
    store, out, png = tmp_path / "s", tmp_path / "sum.parquet", tmp_path / "p.png"
    args = ["sweep", str(small_toml), "--param", "host.send_jitter=0us,2us"]
    args += ["--param", "queue.limit=32KiB,64KiB", "--seeds", "2", "--store", str(store)]
    code, text, err = run(capsys, *args, "--out", str(out), "--plot",
                          "incast_goodput_bps:host.send_jitter", str(png))  # fmt: skip
    assert code == 0, err
    assert "8 runs: 4 parameter combinations x 2 seed(s); store" in err and "holds 0" in err
    assert "incast_goodput_bps (Mb/s)" in text and "±" in text
    table = pd.read_parquet(out)
    assert len(table) == 4 and (table["seeds"] == 2).all()
    assert {"incast_goodput_bps_mean", "incast_goodput_bps_std", "jain_index_mean"} <= set(table)
    assert png.stat().st_size > 10_000
    # The means are those of the runs themselves.
    sc = fairlab.load_scenario(small_toml)
    sc["host"] = {"send_jitter": "2us"}
    sc["queue"]["limit"] = "32KiB"
    g = [fairlab.simulate(sc, seed=s).summary["incast_goodput_bps"] for s in (1, 2)]
    row = table[(table["host.send_jitter"] == "2us") & (table["queue.limit"] == "32KiB")]
    assert row["incast_goodput_bps_mean"].item() == pytest.approx(sum(g) / 2, rel=1e-12)
    # A rerun finds every run stored.
    code, _, err = run(capsys, *args)
    assert code == 0 and "holds 8 of them" in err

    code, text, _ = run(capsys, "results", str(store), "--where", "queue.limit=32KiB",
                        "--where", "seed=2")  # fmt: skip
    assert code == 0 and text.startswith("2 runs in")
    csv = tmp_path / "runs.csv"
    code, _, _ = run(capsys, "results", str(store), "--export", str(csv))
    assert code == 0 and len(pd.read_csv(csv)) == 8
    code, text, _ = run(capsys, "results", str(store), "--table", "rounds", "--where", "seed=1")
    rounds = text.splitlines()
    assert code == 0 and rounds[0].startswith("key,") and len(rounds) == 1 + 4 * 2
    code, _, err = run(capsys, "results", str(tmp_path), "--where", "x=1")
    assert code == 2 and "not a fairlab results store" in err
