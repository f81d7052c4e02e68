"""Text of SQL statements: names and strings quoted (labels, table names
and paths are the user's, any text)."""

from __future__ import annotations


def quote(name: str) -> str:
    """``name`` as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
