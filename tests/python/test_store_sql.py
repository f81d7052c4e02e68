"""The results store as one dataset (issue 24, item 2): DuckDB views over
every run's tables, each row with its run's key, labels and seed; the same
answers as a pandas loop over the runs, from the runs' own files and from
the index; damaged runs left out and named; `fairlab results --sql`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import fairlab
import pandas as pd
import pytest
from fairlab import scenarios
from fairlab.cli import main
from fairlab.dataset import QueryError, StoreDB
from fairlab.runner import Task, run_tasks
from fairlab.store import Store

BUFFERS = ("8KiB", "16KiB", "32KiB", "64KiB", "128KiB")
QUERY = (
    "SELECT servers, buffer, seed, count(*) AS flows, sum(goodput_bps) AS goodput, "
    "sum(timeouts) AS timeouts FROM flows GROUP BY ALL ORDER BY servers, buffer, seed"
)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """50 runs: 2 server counts x 5 buffers x 5 seeds (about 1.5 s)."""
    root = tmp_path_factory.mktemp("sql") / "store"
    tasks = [
        Task(
            scenarios.incast(n, rounds=2, sru="16KiB", buffer=b),
            seed=s,
            labels={"servers": n, "buffer": b, "seed": s},
        )
        for n in (2, 4)
        for b in BUFFERS
        for s in range(1, 6)
    ]
    run_tasks(tasks, jobs=1, store=root, progress=False)
    return root


@pytest.fixture(scope="module")
def want(pristine) -> pd.DataFrame:
    return pandas_answer(pristine)


@pytest.fixture
def store(pristine, tmp_path) -> Path:
    root = tmp_path / "store"
    shutil.copytree(pristine, root)
    return root


def pandas_answer(root: Path) -> pd.DataFrame:
    """QUERY the long way: every run read with fairlab.load, in a loop."""
    st = fairlab.load(root)
    rows = []
    for _, r in st.table().iterrows():
        f = st[r["key"]].flows
        rows.append(
            {
                "servers": r["servers"],
                "buffer": r["buffer"],
                "seed": r["seed"],
                "flows": len(f),
                "goodput": f["goodput_bps"].sum(),
                "timeouts": f["timeouts"].sum(),
            }
        )
    return pd.DataFrame(rows).sort_values(["servers", "buffer", "seed"], ignore_index=True)


def same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    pd.testing.assert_frame_equal(
        a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False, rtol=1e-12
    )


def test_sql_over_every_run_equals_a_pandas_loop_from_files_and_from_the_index(
    store, want, monkeypatch
):
    assert len(want) == 50 and want["timeouts"].sum() > 0  # the buffers matter
    st = fairlab.open_store(store)
    db = st.dataset()
    assert db.index is None  # 50 runs: fewer than INDEX_MIN_RUNS, read from their files
    same(st.sql(QUERY), want)
    assert set(db.views) >= {"flows", "rounds", "ports"} and db.views["flows"] == 50
    monkeypatch.setattr(StoreDB, "INDEX_MIN_RUNS", 1)
    indexed = StoreDB(Store(store, create=False))
    monkeypatch.undo()
    assert indexed.index is not None and (store / "index" / "CURRENT").is_file()
    same(indexed.sql(QUERY), want)
    # A new reader takes the runs from the index and gives the same answer.
    again = fairlab.open_store(store).dataset()
    assert again.index is not None and len(again._served) == 50
    same(again.sql(QUERY), want)
    # The runs view is the listing fairlab.load gives.
    runs = again.sql("SELECT key, servers, buffer, seed, digest FROM runs ORDER BY key")
    listing = st.table().sort_values("key", ignore_index=True)
    assert runs["digest"].tolist() == listing["digest"].tolist()
    # A run stored anew since (a new run.json: labels added) is read from its
    # own files, and the index's rows of it are left out (not counted twice).
    key = st.run_keys()[0]
    Store(store).add_labels(key, {"servers": 99, "buffer": "x", "seed": 0})
    db = fairlab.open_store(store).dataset()
    assert key not in db._served and len(db._served) == 49
    n = db.sql(f"SELECT count(*) AS n FROM flows WHERE key = '{key}'")["n"][0]
    assert n == 2 * len(st[key].flows)  # two label sets: each row once per set
    servers = db.sql(f"SELECT DISTINCT servers FROM flows WHERE key = '{key}'")["servers"]
    assert 99 in set(servers)
    same(db.sql(QUERY.replace("FROM flows", "FROM flows WHERE servers < 99")), want)


def test_damaged_runs_are_left_out_and_listed_one_line_each(store, capsys):
    st = Store(store, create=False)
    keys = st.run_keys()
    flows = store / "runs" / keys[0] / "flows.parquet"
    data = flows.read_bytes()
    flows.unlink()
    flows.write_bytes(data[: len(data) // 2])
    (store / "runs" / keys[1] / "summary.json").unlink()
    db = fairlab.open_store(store).dataset()
    assert len(db.damaged) == 2
    assert "flows.parquet" in str(db.damaged[0]) or "flows.parquet" in str(db.damaged[1])
    got = db.sql("SELECT count(DISTINCT key) AS n FROM flows")["n"][0]
    assert got == 48
    assert main(["results", str(store), "--sql", "SELECT count(*) FROM runs"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(e.startswith("fairlab: damaged run left out: ") for e in err)


def test_fairlab_load_on_a_store_answers_sql_and_a_label_named_like_a_column(tmp_path):
    root = tmp_path / "store"
    tasks = [Task(scenarios.incast(2, rounds=1, sru="16KiB"), seed=1, labels={"timeouts": "label"})]
    run_tasks(tasks, jobs=1, store=root, progress=False)
    st = fairlab.load(root)
    assert isinstance(st, Store)
    df = st.sql("SELECT param_timeouts, timeouts FROM flows")
    assert set(df["param_timeouts"]) == {"label"} and df["timeouts"].dtype.kind == "i"
    with pytest.raises(QueryError, match="flowz.*views: runs, "):
        st.sql("SELECT * FROM flowz")


def test_cli_sql_prints_streams_and_exports_the_answer(pristine, want, tmp_path, capsys):
    store = pristine  # fewer runs than INDEX_MIN_RUNS: nothing is written into it
    assert main(["results", str(store), "--sql", QUERY, "--format", "csv"]) == 0
    got = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    same(got, want)
    out = tmp_path / "answer.parquet"
    assert main(["results", str(store), "--sql", QUERY + ";", "--export", str(out)]) == 0
    assert capsys.readouterr().err.strip() == f"50 rows written to {out}"
    same(pd.read_parquet(out), want)
    assert main(["results", str(store), "--sql", QUERY]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].split() == list(want.columns) and len(text) == 51
    assert not (store / "index").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--sql", "SELECT nope FROM flows"], '--sql: Binder Error: Referenced column "nope"'),
        (["--sql", "  "], "--sql: an empty query"),
        (["--sql", "SELECT 1", "--where", "a=1"], "--sql: not with --where"),
        (["--sql", "SELECT 1", "--export", "x.txt"], "x.txt: expected a .csv or .parquet"),
    ],
)
def test_cli_sql_errors_are_one_line(pristine, argv, message, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert main(["results", str(pristine), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err and json.dumps(err)


def test_open_store_on_what_is_not_a_store_says_so_in_one_line(tmp_path):
    with pytest.raises(FileNotFoundError):
        fairlab.open_store(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    with pytest.raises(fairlab.StoreError) as e:
        fairlab.open_store(tmp_path / "plain")
    assert str(e.value) == (
        f"{tmp_path / 'plain' / 'store.json'}: missing; expected a fairlab results store "
        "(fairlab sweep --store)"
    )
