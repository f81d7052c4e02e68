"""A damaged results store, as issue 20 found them: every reader answers one
line naming the file (or skips the run and says why), never a traceback, a
hang or a read of /dev/zero; `fairlab.load` gives a store; `verify` lists
damaged runs and reruns what it can; a sweep resuming into a damaged store
runs the damaged runs again."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import fairlab
import pytest
from fairlab import scenarios
from fairlab.cli import main
from fairlab.repair import verify
from fairlab.rundir import JSON_MAX_BYTES, StoreError
from fairlab.runner import Task, run_tasks
from fairlab.store import Store

TASKS = [
    Task(scenarios.incast(n, rounds=1, sru="16KiB"), seed=s, labels={"servers": n, "seed": s})
    for n in (1, 2)
    for s in (1, 2)
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A small store (4 runs) and each run's digest by key."""
    root = tmp_path_factory.mktemp("pristine") / "store"
    run_tasks(TASKS, jobs=1, store=root, progress=False)
    st = Store(root, create=False)
    return root, {k: st.get(k).digest for k in st.run_keys()}


@pytest.fixture
def store(pristine, tmp_path) -> Path:
    root = tmp_path / "store"
    shutil.copytree(pristine[0], root)
    return root


def first_run(root: Path) -> Path:
    return sorted((root / "runs").iterdir())[0]


def replace(p: Path, data: bytes) -> None:
    p.unlink()
    p.write_bytes(data)


def _scenario_list(run: Path) -> Path:
    replace(run / "scenario.json", b"[]")
    return run / "scenario.json"


def _summary_null(run: Path) -> Path:
    replace(run / "summary.json", b"null")
    return run / "summary.json"


def _no_key(run: Path) -> Path:
    doc = json.loads((run / "run.json").read_text())
    del doc["key"]
    replace(run / "run.json", json.dumps(doc).encode())
    return run / "run.json"


def _truncated(run: Path) -> Path:
    data = (run / "flows.parquet").read_bytes()
    replace(run / "flows.parquet", data[: len(data) // 2])
    return run / "flows.parquet"


def _bit_flipped(run: Path) -> Path:
    data = bytearray((run / "flows.parquet").read_bytes())
    data[len(data) // 2] ^= 0x10
    replace(run / "flows.parquet", bytes(data))
    return run / "flows.parquet"


def _dev_zero(run: Path) -> Path:
    (run / "summary.json").unlink()
    (run / "summary.json").symlink_to("/dev/zero")
    return run / "summary.json"


def _fifo(run: Path) -> Path:
    (run / "flows.parquet").unlink()
    os.mkfifo(run / "flows.parquet")
    return run / "flows.parquet"


def _deep(run: Path) -> Path:
    replace(run / "summary.json", b"[" * 100_000 + b"]" * 100_000)
    return run / "summary.json"


def _huge(run: Path) -> Path:
    (run / "scenario.json").unlink()
    with open(run / "scenario.json", "wb") as f:
        f.truncate(JSON_MAX_BYTES + 1)  # sparse: no disk used
    return run / "scenario.json"


DAMAGES = [
    _scenario_list,
    _summary_null,
    _no_key,
    _truncated,
    _bit_flipped,
    _dev_zero,
    _fifo,
    _deep,
    _huge,
]


@pytest.mark.parametrize("damage", DAMAGES, ids=lambda f: f.__name__[1:])
def test_a_damaged_run_is_reported_in_one_line_and_skipped(store, pristine, damage):
    bad = damage(first_run(store))
    listing = Store(store, create=False).scan(full=True)
    assert len(listing.table) == 3
    assert [str(e.path) for e in listing.damaged] == [str(bad)]
    line = str(listing.damaged[0])
    assert "\n" not in line and line.startswith(f"{bad}: ") and "; expected " in line
    assert main(["results", str(store)]) == 0


@pytest.mark.parametrize(
    "damage", [d for d in DAMAGES if d is not _no_key], ids=lambda f: f.__name__[1:]
)
def test_loading_a_damaged_run_names_the_file(store, damage):
    run = first_run(store)
    bad = damage(run)
    with pytest.raises(StoreError) as err:
        res = fairlab.load(run)
        for name in res.tables:  # a table is read (and checked) when first used
            res.tables[name]
    assert err.value.path == bad and "\n" not in str(err.value)


def test_no_key_is_damage_only_in_a_store(store):
    run = first_run(store)
    _no_key(run)
    assert fairlab.load(run).digest  # a run directory of its own needs no key
    assert "no key" in str(Store(store).check(run.name))


@pytest.mark.parametrize("damage", DAMAGES, ids=lambda f: f.__name__[1:])
def test_a_sweep_resuming_into_a_damaged_store_runs_the_damaged_run_again(store, pristine, damage):
    damage(first_run(store))
    results = run_tasks(TASKS, jobs=1, store=store, progress=False)
    assert sorted(r.digest for r in results) == sorted(pristine[1].values())
    st = Store(store, create=False)
    assert all(st.check(k) is None for k in pristine[1])


def test_load_of_a_store_gives_its_runs_with_their_parameters(store, pristine):
    before = sorted(store.rglob("*"))
    got = fairlab.load(store)
    assert isinstance(got, Store)
    table = got.table()
    assert sorted(zip(table["servers"], table["seed"], strict=True)) == [
        (1, 1),
        (1, 2),
        (2, 1),
        (2, 2),
    ]
    for key in table["key"]:
        assert got[key].digest == pristine[1][key]
    assert len(got) == 4 and sorted(store.rglob("*")) == before  # a reader writes nothing


def test_load_of_neither_a_run_nor_a_store_is_one_line(tmp_path):
    (tmp_path / "plain").mkdir()
    for path, why in [
        (tmp_path / "plain", "a directory without run.json or store.json"),
        (Path("/dev/zero"), "not a directory"),
    ]:
        with pytest.raises(StoreError, match=why) as err:
            fairlab.load(path)
        assert "expected a run directory" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(FileNotFoundError, match="nowhere"):
        fairlab.load(tmp_path / "nowhere")


def test_runs_as_a_file_is_one_line_for_every_reader(store):
    shutil.rmtree(store / "runs")
    (store / "runs").write_text("x")
    for call in (
        lambda: fairlab.load(store),
        lambda: run_tasks(TASKS[:1], jobs=1, store=store, progress=False),
        lambda: verify(store),
    ):
        with pytest.raises(StoreError, match="runs: is not a directory; expected"):
            call()
    assert main(["results", str(store)]) == 2


def test_verify_reruns_what_it_can_and_says_why_not_the_rest(store, pristine):
    keys = sorted(pristine[1])
    _bit_flipped(store / "runs" / keys[0])
    _dev_zero(store / "runs" / keys[1])
    _scenario_list(store / "runs" / keys[2])  # the scenario is gone: cannot rerun
    found = verify(store)
    assert sorted(found.keys) == keys[:3] and not found.ok and not found.rerun
    fixed = verify(store, rerun=True, jobs=1, progress=False)
    assert fixed.rerun == sorted(keys[:2])
    assert list(fixed.unrecoverable) == [keys[2]]
    assert "scenario.json: a JSON array; expected a JSON object" in fixed.unrecoverable[keys[2]]
    st = Store(store, create=False)
    for k in keys[:2]:
        assert st.check(k) is None and st.get(k).digest == pristine[1][k]
    # The reruns keep their labels (run.json was readable).
    before = Store(pristine[0], create=False).table().set_index("key")
    after = st.table().set_index("key")
    assert sorted(after.index) == sorted([*keys[:2], keys[3]])
    for k in keys[:2]:
        assert (
            after.loc[k, ["servers", "seed"]].tolist()
            == before.loc[k, ["servers", "seed"]].tolist()
        )


def test_result_and_store_do_not_import_each_other():
    pkg = Path(fairlab.__file__).parent

    def imports(name: str) -> set[str]:
        tree = ast.parse((pkg / f"{name}.py").read_text())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found.add(node.module or "")
                found.update(a.name for a in node.names if not node.module)
        return found

    assert not imports("result") & {"store", "runner", "repair"}
    assert not imports("rundir") & {"store", "result", "runner", "repair"}
    assert not imports("store") & {"runner", "repair"}


def test_a_file_name_with_a_newline_in_run_json_is_reported_on_one_line(store):
    run = first_run(store)
    doc = json.loads((run / "run.json").read_text())
    doc["files"]["a\nb.parquet"] = {"size": 1, "sha256": "0"}
    replace(run / "run.json", json.dumps(doc).encode())
    (damage,) = Store(store, create=False).scan().damaged
    assert "\n" not in str(damage) and "a\\nb.parquet" in str(damage)


def test_a_file_longer_than_its_size_is_not_read_on(tmp_path):
    from fairlab.rundir import read_bounded

    with pytest.raises(StoreError, match="longer than its size"):
        read_bounded(Path("/proc/self/status"), 1 << 20)  # says 0 bytes, gives more
    (tmp_path / "f").write_bytes(b"abc")
    assert read_bounded(tmp_path / "f", 3) == b"abc"
    with pytest.raises(StoreError, match="3 bytes; expected a file of at most 2 bytes"):
        read_bounded(tmp_path / "f", 2)


def test_a_summary_that_run_json_vouches_for_still_needs_its_digest_and_seed(store, pristine):
    import hashlib

    run = first_run(store)
    replace(run / "summary.json", b"{}")
    doc = json.loads((run / "run.json").read_text())
    doc["files"]["summary.json"] = {"size": 2, "sha256": hashlib.sha256(b"{}").hexdigest()}
    replace(run / "run.json", json.dumps(doc).encode())
    (damage,) = Store(store, create=False).scan().damaged
    assert str(damage).endswith(
        "summary.json: no digest (text) or seed (integer); expected "
        "a run's summary (seed, digest, ...)"
    )
    results = run_tasks(TASKS, jobs=1, store=store, progress=False)
    assert sorted(r.digest for r in results) == sorted(pristine[1].values())


def test_the_results_command_lists_around_damage_verifies_and_reruns(store, pristine, capsys):
    keys = sorted(pristine[1])
    _bit_flipped(store / "runs" / keys[0])
    _dev_zero(store / "runs" / keys[1])
    # A listing reads sizes only: the run of /dev/zero is left out and said.
    assert main(["results", str(store), "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert keys[1] not in out and keys[3] in out
    assert err.count("fairlab: damaged run left out:") == 1
    assert main(["results", str(store), "--verify"]) == 1
    out, err = capsys.readouterr()
    assert err.count("fairlab: damaged run:") == 2 and all(len(x) < 400 for x in err.splitlines())
    assert main(["results", str(store), "--rerun"]) == 2
    assert "--rerun: only with --verify" in capsys.readouterr().err
    assert main(["results", str(store), "--verify", "--rerun"]) == 0
    out, err = capsys.readouterr()
    assert err.count("fairlab: run again and stored:") == 2 and "repaired" in out
    assert main(["results", str(store), "--verify"]) == 0
    assert "every run whole" in capsys.readouterr().out
