"""docs/notebook.py (issue 24, item 3) executed cell by cell, as Jupyter
would: each code cell run in one namespace, its last expression displayed
through ``_repr_html_`` where it has one (else repr). Checks what the cells
show: the run, the store, the SQL answer, the study's verdicts (about 3 s).

Executed here rather than through nbclient and a kernel: the percent-format
file is plain Python, and CI then needs no Jupyter packages."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pandas as pd
from fairlab.result import Result
from fairlab.store import Store

NOTEBOOK = Path(__file__).parents[2] / "docs" / "notebook.py"


def cells(text: str) -> list[tuple[str, str]]:
    """(kind, source) per cell of a percent-format file: code or markdown."""
    out = []
    for chunk in re.split(r"^# %%", text, flags=re.M)[1:]:
        head, _, body = chunk.partition("\n")
        out.append(("markdown" if "[markdown]" in head else "code", body))
    return out


def run_cell(source: str, ns: dict[str, Any]) -> Any:
    """Runs a cell; returns its last expression's value (None if the last
    statement is not an expression), as Jupyter displays it."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, str(NOTEBOOK), "exec"), ns)  # noqa: S102  (our own notebook)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), str(NOTEBOOK), "eval"), ns)  # noqa: S307


def display(value: Any) -> str:
    html = getattr(value, "_repr_html_", None)
    return html() if callable(html) else repr(value)


def test_the_notebook_runs_and_shows_each_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns: dict[str, Any] = {"__name__": "__main__"}
    shown = []
    parts = cells(NOTEBOOK.read_text(encoding="utf-8"))
    assert sum(kind == "markdown" for kind, _ in parts) >= 5
    for kind, source in parts:
        if kind == "code":
            value = run_cell(source, ns)
            shown.append((value, display(value) if value is not None else ""))
    values = [v for v, _ in shown]
    # The run: its summary, tables and the goodput plot, inline.
    res_html = next(h for v, h in shown if isinstance(v, Result))
    assert "fairlab run" in res_html and "incast goodput" in res_html
    assert "flows</th><td>8 rows" in res_html and "data:image/png;base64," in res_html
    # The store: 16 runs, its labels and tables, and its plot.
    st_html = next(h for v, h in shown if isinstance(v, Store))
    assert "<th>runs</th><td>16</td>" in st_html and "label buffer" in st_html
    assert "flows (16 runs)" in st_html and "data:image/png;base64," in st_html
    # The SQL answer: a row per buffer and server count, every flow counted.
    answer = ns["answer"]
    assert answer is next(v for v in values if isinstance(v, pd.DataFrame) and "flows" in v)
    assert len(answer) == 8 and answer["flows"].sum() == 2 * 2 * (2 + 4 + 8 + 16)
    small = answer[answer["buffer"] == "32KiB"].set_index("servers")["goodput_mbps"]
    assert small[16] < small[2]  # collapse with the small buffer
    # The study's verdicts.
    verdicts = values[-1]
    assert list(verdicts.columns) == ["row", "verdict", "holds", "shows"] and len(verdicts)
    assert (tmp_path / "notebook-store" / "store.json").is_file()
    # A stored run shows its tables' rows from their Parquet footers.
    store = ns["store"]
    stored = store[store.run_keys()[0]]._repr_html_()
    assert "not read yet" not in stored and "flows</th><td>" in stored
