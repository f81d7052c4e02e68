"""No import circle in python/fairlab: every `import` and `from ... import`
of a fairlab module, at module level or inside a function (a lazy import
still ties two modules together), makes an edge; the graph has no cycle. A
package importing its own submodules (cli/__init__ wiring its commands) is
not a circle. `if TYPE_CHECKING:` imports are annotations only and left out."""

from __future__ import annotations

import ast
from pathlib import Path

import fairlab

ROOT = Path(fairlab.__file__).parent


def _modules() -> dict[str, Path]:
    mods = {}
    for p in ROOT.rglob("*.py"):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    return mods


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for b in node.body for n in ast.walk(b)}
    return skip


def _edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        skip = _type_checking_nodes(tree)
        pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        out: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.ImportFrom):
                base = pkg[: len(pkg) - node.level + 1] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                targets = [mod, *(f"{mod}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            out |= {t for t in targets if t in mods and t != name}
        edges[name] = {t for t in out if not t.startswith(name + ".")}
    return edges


def _circle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(u: str, stack: list[str]) -> list[str] | None:
        state[u] = 1
        stack.append(u)
        for v in sorted(edges.get(u, ())):
            if state.get(v) == 1 and not u.startswith(v + "."):
                return [*stack[stack.index(v) :], v]
            if v not in state and (c := visit(v, stack)):
                return c
        stack.pop()
        state[u] = 2
        return None

    for m in sorted(edges):
        if m not in state and (c := visit(m, [])):
            return c
    return None


def test_the_reader_finds_a_circle_when_there_is_one():
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) is None
    edges = _edges(_modules())
    # Lazy imports count: the CLI's commands import the runner inside functions.
    assert "fairlab.runner" in edges["fairlab.cli.sweep"], edges["fairlab.cli.sweep"]


def test_fairlab_has_no_import_circle():
    assert _circle(_edges(_modules())) is None
