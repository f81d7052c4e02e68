"""The command line: outputs, files and error reporting."""

import io
import subprocess
import sys

import fairlab
import pandas as pd
import pytest
from fairlab.cli import main


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "fairlab", *args], capture_output=True, text=True, timeout=300
    )


def test_run_prints_summary_and_writes_parquet(small_toml, tmp_path):
    p = run_cli("run", str(small_toml), "--seed", "3", "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert "incast goodput" in p.stdout and "profile rfc" in p.stdout and "seed 3" in p.stdout
    flows = pd.read_parquet(tmp_path / "o" / "flows.parquet")
    assert len(flows) == 2


def test_incast_csv_has_the_documented_columns(capsys):
    assert (
        main(["incast", "--servers", "1,2", "--rounds", "2", "--format", "csv", "--jobs", "1"]) == 0
    )
    df = pd.read_csv(io.StringIO(capsys.readouterr().out))
    for col in ["servers", "min_rto", "goodput_mbps", "timeouts"]:
        assert col in df.columns
    assert len(df) == 2 * 3
    assert set(df["min_rto"]) == {"200ms", "5ms", "200us"}
    assert (df["goodput_mbps"] > 100).all()
    assert (df["goodput_mbps"] < 1000 * 1460 / 1500).all()
    # One server loses nothing, so the RTO never fires and every min RTO
    # gives the same run.
    one = df[df["servers"] == 1]
    assert (one["drops"] == 0).all() and (one["timeouts"] == 0).all()
    assert one["goodput_mbps"].nunique() == 1


def test_incast_ns2_host_keeps_its_tick_and_takes_packet_buffers(capsys):
    args = ["incast", "--profile", "ns2", "--buffer", "32pkt", "--servers", "8"]
    args += ["--min-rto", "200ms,20ms", "--rounds", "3", "--format", "csv", "--jobs", "1"]
    assert main(args) == 0
    df = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("min_rto")
    assert set(df["buffer"]) == {"32pkt"} and set(df["resolution"]) == {"auto"}
    # Eight servers overflow 32 packets: a 20 ms floor (two ns-2 ticks)
    # recovers far sooner than a 200 ms one.
    assert df.loc["20ms", "goodput_mbps"] > 2 * df.loc["200ms", "goodput_mbps"]
    # The profile's clock is not overridden by the CLI's 1 ms jiffy default:
    # "auto" without hz keeps ns-2's 10 ms tick for these min RTOs.
    from fairlab.scenarios import incast

    sc = incast(8, profile="ns2", min_rto="20ms", rounds=3, buffer="32pkt")
    assert sc["tcp"]["resolution"] == "auto" and "hz" not in sc["tcp"]
    tick = {**sc, "tcp": {k: v for k, v in sc["tcp"].items() if k != "resolution"}}
    digest = fairlab.simulate(sc).summary["digest"]
    assert digest == fairlab.simulate(tick).summary["digest"]


def test_incast_plot_writes_a_png(tmp_path):
    out = tmp_path / "g.png"
    p = run_cli(
        "incast",
        "--servers",
        "1,4",
        "--rounds",
        "2",
        "--min-rto",
        "200ms,200us@1us",
        "--block",
        "256KiB",
        "--plot",
        str(out),
    )
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "200us@1us" in p.stdout


def test_incast_seeds_and_jitter_give_one_row_per_seed(capsys):
    args = [
        "incast",
        "--servers",
        "8",
        "--rounds",
        "2",
        "--min-rto",
        "200us",
        "--jitter",
        "1us",
        "--seeds",
        "1,2",
        "--format",
        "csv",
        "--jobs",
        "2",
    ]
    assert main(args) == 0
    df = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(df["seed"]) == [1, 2]
    assert df["digest"].nunique() == 2


def test_incast_out_keeps_each_run_in_the_layout_load_reads(tmp_path, capsys):
    import fairlab
    from fairlab.store import Store

    out = tmp_path / "inc"
    args = ["incast", "--servers", "2,4", "--rounds", "2", "--min-rto", "200ms"]
    assert main([*args, "--jobs", "1", "--out", str(out)]) == 0
    table = pd.read_parquet(out / "incast.parquet")
    st = Store(out)
    assert len(st.run_keys()) == len(table) == 2
    loaded = {fairlab.load(st.path(k)).summary["digest"] for k in st.run_keys()}
    assert loaded == set(table["digest"])


@pytest.mark.parametrize(
    "args, needle",
    [
        (["incast", "--servers", "0"], "--servers"),
        (["incast", "--min-rto", "fast"], "--min-rto"),
        (["incast", "--buffer", "100B", "--servers", "1", "--rounds", "1"], "queue.limit"),
    ],
)
def test_bad_cli_input_is_one_line_exit_2(args, needle):
    p = run_cli(*args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr


def test_run_on_a_bad_file_reports_the_field(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('[topology]\nkind = "star"\nhosts = 2\nrate = "-1Gbps"\ndelay = "1us"\n')
    p = run_cli("run", str(f))
    assert p.returncode == 2
    assert p.stderr.startswith("fairlab: error: topology.rate:")
    assert "Traceback" not in p.stderr


def test_bench_quick_reports_rates():
    p = run_cli("bench", "--quick", "--repeat", "1", "--format", "csv")
    assert p.returncode == 0, p.stderr
    df = pd.read_csv(io.StringIO(p.stdout))
    assert (df["packet_hops_per_s"] > 0).all()
    # Both rates share a wall time, so their ratio is hops per packet: two in
    # the star of the incast sweep, three across the dumbbell, fewer for the
    # packets dropped on the way (1e-4: the CSV's six significant digits).
    hops = df["packet_hops_per_s"] / df["packets_per_s"]
    assert list(df["workload"].str.split().str[0]) == ["incast", "dumbbell,"]
    assert 1.8 < hops.iloc[0] < 2 + 1e-4 and 2.7 < hops.iloc[1] < 3 + 1e-4


def test_bench_scale_quick_measures_each_workload_against_the_incast():
    # Two rounds: the ratio is taken within each round, then the median.
    p = run_cli("bench", "--scale", "--quick", "--repeat", "2", "--format", "csv")
    assert p.returncode == 0, p.stderr
    df = pd.read_csv(io.StringIO(p.stdout)).set_index("workload")
    names = [w.split(",")[0] for w in df.index]
    assert names == [
        "fat tree k=4",
        "fat tree k=8",
        "fat tree k=16",
        "leaf-spine 16x8",
        "incast 32 servers",
    ]
    assert (df["rounds"] == 2).all()
    assert (df["packet_hops"] > 1e5).all()
    # A hop is an arrival and, behind a waiting queue, a transmission's end,
    # plus the endpoints' work: 1.44 (the incast) to 1.75 (the leaf-spine)
    # in BENCHMARKS.md.
    assert df["events_per_hop"].between(1.2, 2.5).all()
    incast = df.iloc[-1]
    assert incast["hop_cost_vs_incast"] == 1.0
    assert incast["hop_cost_vs_incast_min"] == incast["hop_cost_vs_incast_max"] == 1.0
    # The median of two rounds' ratios is their mean, between the two; so
    # is the ratio of the two rounds' median rates (a mediant).
    lo, hi = df["hop_cost_vs_incast_min"] * (1 - 1e-3), df["hop_cost_vs_incast_max"] * (1 + 1e-3)
    of_medians = incast["packet_hops_per_cpu_s"] / df["packet_hops_per_cpu_s"]
    for col in [df["hop_cost_vs_incast"], of_medians]:
        assert ((lo <= col) & (col <= hi)).all()
    assert (df["hop_cost_vs_incast_min"] <= df["hop_cost_vs_incast_max"]).all()


def test_incast_tcp_and_sack_options_keep_the_csv_columns(capsys):
    args = ["incast", "--servers", "8", "--rounds", "3", "--min-rto", "200ms", "--format", "csv"]
    assert main([*args, "--tcp", "dctcp", "--jobs", "1"]) == 0
    dctcp = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert main([*args, "--tcp", "reno", "--sack", "on", "--jobs", "1"]) == 0
    reno = pd.read_csv(io.StringIO(capsys.readouterr().out))
    for df in (dctcp, reno):
        for col in ["servers", "min_rto", "goodput_mbps", "timeouts"]:
            assert col in df.columns
    assert dctcp["tcp"].iloc[0] == "dctcp" and reno["sack"].iloc[0] == "on"
    assert dctcp["goodput_mbps"].iloc[0] > 800


def test_incast_header_names_the_tcp_the_profile_actually_ran(capsys):
    """The options say nothing of the congestion control or SACK: the header
    and the CSV name what the profile gave (linux: CUBIC with SACK; ns2:
    NewReno without), not a default the command line assumed."""
    args = ["incast", "--servers", "2", "--rounds", "2", "--min-rto", "200ms", "--jobs", "1"]
    assert main([*args, "--profile", "linux"]) == 0
    assert "TCP cubic, SACK on" in capsys.readouterr().out
    assert main([*args, "--profile", "ns2", "--format", "csv"]) == 0
    df = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert (df["tcp"] == "newreno").all() and (df["sack"] == "off").all()


def test_run_header_names_tcp_sack_and_mss_and_cwnd_is_in_the_flows_mss(tmp_path):
    f = tmp_path / "ns2.toml"
    f.write_text(
        'duration = "20ms"\n[topology]\nkind = "dumbbell"\nleft = 1\nright = 1\n'
        'rate = "1Gbps"\ndelay = "10us"\nbottleneck_rate = "1Gbps"\n'
        'bottleneck_delay = "10us"\n[tcp]\nprofile = "ns2"\n'
        '[[workload]]\nkind = "bulk"\nsrc = "l0"\ndst = "r0"\n'
    )
    p = run_cli("run", str(f), "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert "TCP newreno, SACK off, MSS 1000 B" in p.stdout
    assert "final cwnd (segments of the flow's MSS)" in p.stdout
    flows = pd.read_parquet(tmp_path / "o" / "flows.parquet")
    assert list(flows["mss_bytes"]) == [1000] and list(flows["sack"]) == [0]


def test_trace_command_plots_one_flow(tmp_path):
    f = tmp_path / "two.toml"
    f.write_text(
        'duration = "30ms"\n[topology]\nkind = "dumbbell"\nleft = 2\nright = 2\n'
        'rate = "1Gbps"\ndelay = "10us"\nbottleneck_rate = "100Mbps"\n'
        'bottleneck_delay = "200us"\n[queue]\nlimit = "10pkt"\n[tcp]\ncc = "cubic"\n'
        '[[workload]]\nkind = "bulk"\nsrc = "l0"\ndst = "r0"\n'
        '[[workload]]\nkind = "bulk"\nsrc = "l1"\ndst = "r1"\n'
    )
    png, csv = tmp_path / "t.png", tmp_path / "t.csv"
    p = run_cli("trace", str(f), "--flow", "1", "--plot", str(png), "--csv", str(csv))
    assert p.returncode == 0, p.stderr
    assert "flow 1: l1 -> r1 (cubic, SACK off, MSS 1460 B)" in p.stdout
    assert "profile rfc" in p.stdout
    assert png.read_bytes()[:4] == b"\x89PNG"
    tr = pd.read_csv(csv)
    assert (tr["flow_id"] == 1).all() and len(tr) > 10
    assert tr["cwnd_bytes"].max() > tr["cwnd_bytes"].min()


def test_reproduce_list_names_every_study_and_experiment():
    from fairlab import studies

    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    for name in studies.names():
        st = studies.get(name)
        assert f"{name}: {st.title}" in p.stdout
        for e in st.experiments:
            assert f"  {e.name}" in p.stdout and e.reproduces in p.stdout


def test_reproduce_hcf_baseline_csv_has_one_row_per_discipline(tmp_path):
    p = run_cli(
        "reproduce",
        "hcf",
        "--experiment",
        "baseline",
        "--quick",
        "--format",
        "csv",
        "--out",
        str(tmp_path),
    )
    assert p.returncode == 0, p.stderr
    df = pd.read_csv(io.StringIO(p.stdout))
    assert list(df["discipline"]) == ["fifo", "hcf"]
    for col in ["variance", "starved_pct", "utilization", "jain"]:
        assert col in df.columns
    assert (df["utilization"] > 0.9).all()
    # HCF keeps every flow's packets in order (Theorem 1).
    assert (df["reordered_pkts"] == 0).all()
    assert (tmp_path / "index.html").exists()


def test_reproduce_two_experiments_print_verdicts_and_write_one_report(tmp_path):
    p = run_cli(
        "reproduce",
        "hcf",
        "--experiment",
        "bins",
        "baseline",
        "--quick",
        "--jobs",
        "2",
        "--out",
        str(tmp_path),
    )
    assert p.returncode == 0, p.stderr
    assert "== hcf bins" in p.stdout and "== hcf baseline" in p.stdout
    # The baseline beside the published numbers, with a verdict per row.
    assert "paper 5.55e+04 pkt²" in p.stdout and "tolerance ±25 %" in p.stdout
    assert (tmp_path / "bins.png").read_bytes()[:4] == b"\x89PNG"
    df = pd.read_csv(tmp_path / "bins.csv")
    # FIFO once at the baseline as the reference, then HCF at every K.
    assert list(df["value"].astype(str)) == ["baseline", "1", "2", "5", "10", "20", "50", "100"]
    assert list(df["discipline"]) == ["fifo"] + ["hcf"] * 7
    assert pd.read_parquet(tmp_path / "bins.parquet").shape == df.shape
    assert "index.html" in p.stderr


def test_reproduce_usage_errors_are_one_line():
    p = run_cli("reproduce", "hcf", "--format", "csv", "--quick")
    assert p.returncode == 2 and "give one --experiment" in p.stderr
    p = run_cli("reproduce", "nope")
    assert p.returncode == 2 and "not a known study" in p.stderr and "hcf" in p.stderr
    p = run_cli("reproduce", "hcf", "--experiment", "nope")
    assert p.returncode == 2 and "baseline" in p.stderr
    p = run_cli("reproduce")
    assert p.returncode == 2 and "--list" in p.stderr
    for p in (run_cli("reproduce", "nope"), run_cli("reproduce")):
        assert len(p.stderr.strip().splitlines()) == 1


def test_version_and_every_option_has_help():
    import argparse

    from fairlab import __version__
    from fairlab.cli import build_parser

    p = run_cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"fairlab {__version__}"
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name, sp in sub.choices.items():
        for a in sp._actions:
            if a.help is None and not isinstance(a, argparse._HelpAction):
                missing.append(f"{name} {'/'.join(a.option_strings) or a.dest}")
    assert not missing, missing


def test_examples_list_and_copy(tmp_path):
    p = run_cli("examples")
    assert p.returncode == 0, p.stderr
    assert "incast.toml" in p.stdout and "dctcp-incast.toml" in p.stdout
    p = run_cli("examples", "--copy", str(tmp_path / "ex"))
    assert p.returncode == 0, p.stderr
    copied = sorted(f.name for f in (tmp_path / "ex").glob("*.toml"))
    assert "incast.toml" in copied and len(copied) >= 3
    p = run_cli("examples", "--copy", str(tmp_path / "ex"))
    assert p.returncode == 2 and "--force" in p.stderr
    p = run_cli("run", str(tmp_path / "ex" / "incast.toml"))
    assert p.returncode == 0, p.stderr


def test_seeds_print_unsigned(small_toml):
    p = run_cli("run", str(small_toml), "--seed", str(2**64 - 1))
    assert p.returncode == 0, p.stderr
    assert f"seed {2**64 - 1}" in p.stdout


HEAVY = ("pandas", "pyarrow", "matplotlib", "numpy", "tqdm")
LOADED = (
    "import sys\n"
    "from fairlab.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    f"print('heavy:', sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["run", "--help"],
        ["incast", "--help"],
        ["run", "missing.toml"],
        ["incast", "--servers", "0"],
    ],
)
def test_help_and_usage_errors_do_not_import_pandas(args):
    p = subprocess.run(
        [sys.executable, "-c", LOADED, *args], capture_output=True, text=True, timeout=60
    )
    assert p.stderr.strip().splitlines()[-1] == "heavy: []", p.stderr


def test_import_fairlab_does_not_import_pandas():
    code = f"import sys, fairlab; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "[]", p.stderr


def deep_arrays(tmp_path):
    f = tmp_path / "deep.toml"
    f.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    return f


def latin1(tmp_path):
    f = tmp_path / "latin1.toml"
    f.write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    return f


def a_file(tmp_path):
    f = tmp_path / "taken"
    f.write_text("")
    return f


@pytest.mark.parametrize(
    "args, needle",
    [
        (lambda t, s: ["run", str(t)], "is a directory; expected a scenario TOML file"),
        (lambda t, s: ["trace", str(t)], "is a directory; expected a scenario TOML file"),
        (lambda t, s: ["run", str(latin1(t))], "not UTF-8 text (byte 0xe9 on line 1)"),
        (lambda t, s: ["run", str(deep_arrays(t))], "nested 80 or more levels deep"),
        (lambda t, s: ["run", s, "--out", str(a_file(t))], "--out: "),
        (lambda t, s: ["run", s, "--out", str(a_file(t) / "sub")], "--out: "),
        (lambda t, s: ["run", s, "--seed", "-1"], "--seed: -1 is not allowed"),
        (lambda t, s: ["incast", "--hz", "0"], "--hz: 0 is not allowed"),
        (lambda t, s: ["incast", "--rounds", "0"], "--rounds: 0 is not allowed"),
        (lambda t, s: ["incast", "--jobs", "0"], "--jobs: 0 is not allowed"),
        (lambda t, s: ["incast", "--buffer", ","], "--buffer"),
        (lambda t, s: ["incast", "--jitter", "fast"], "--jitter: 'fast' is not a duration"),
        (lambda t, s: ["incast", "--out", str(a_file(t))], "--out: "),
        (lambda t, s: ["incast", "--plot", str(t / "no" / "g.png")], "--plot: "),
        (lambda t, s: ["incast", "--tcp", "tahoe"], "--tcp: invalid choice: 'tahoe'"),
        (lambda t, s: ["bench", "--repeat", "0"], "--repeat: 0 is not allowed"),
        (lambda t, s: ["trace", s, "--flow", "-1"], "--flow: -1 is not allowed"),
        (lambda t, s: ["trace", s, "--plot", str(t)], "--plot: "),
        (lambda t, s: ["trace", s, "--csv", str(t / "no" / "t.csv")], "--csv: "),
        (lambda t, s: ["reproduce", "hcf", "--jobs", "0"], "--jobs: 0 is not allowed"),
        (lambda t, s: ["reproduce", "hcf", "--experiment", "nope"], "--experiment: 'nope'"),
        (lambda t, s: ["reproduce", "hcf", "--out", str(a_file(t))], "--out: "),
    ],
)
def test_cli_mistakes_are_one_line_before_any_run(args, needle, tmp_path, small_toml):
    argv = args(tmp_path, str(small_toml))
    p = run_cli(*argv)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
    assert p.stdout == ""  # nothing ran
