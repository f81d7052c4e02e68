"""Results of every golden scenario are bit-identical to the record (tests/golden)."""

import importlib.util
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "golden.py"


def test_every_recorded_result_column_is_unchanged():
    spec = importlib.util.spec_from_file_location("golden", GOLDEN)
    golden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(golden)
    problems = golden.check()
    assert not problems, "\n".join(problems[:40])
