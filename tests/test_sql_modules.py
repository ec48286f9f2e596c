"""Each app's SQL text is in one module: ``casino/sql.py``, ``ledger/sql.py``, ``tables/sql.py``.

Every other module of the three apps runs those named statements and writes none of its own, so
a reader finds all of an app's SQL, and the reason each statement is not the ORM's, in one
place. Migrations keep their own (they are history), and so does the readiness probe's
``SELECT 1`` (``casino/observability/health.py``): it reads nothing of the app, and importing
``casino.sql`` there would close an import cycle (``casino.models`` imports
``casino.observability``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("casino", "ledger", "tables")
# The start of a statement: what no docstring or message of the apps begins with.
STATEMENT = re.compile(
    r"^\s*(SELECT|INSERT\s+INTO|UPDATE\s+\S+\s+(AS\s+\S+\s+)?SET|DELETE\s+FROM|WITH\s+\w+\s+AS)\b"
)
ALLOWED = {("casino/observability/health.py", "SELECT 1")}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings (a module's, a class's, a function's)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _text_of(node: ast.AST) -> str | None:
    """A string literal's text, or an f-string's text before its first placeholder."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return str(node.values[0].value)
    return None


def statements_in(path: Path) -> list[str]:
    """The SQL statements written in one source file, as ``file:line: text``."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = _docstrings(tree)
    relative = path.relative_to(ROOT).as_posix()
    found = []
    for node in ast.walk(tree):
        text = _text_of(node)
        if text is None or id(node) in docstrings or (relative, text) in ALLOWED:
            continue
        if STATEMENT.match(text):
            found.append(f"{relative}:{getattr(node, 'lineno', '?')}: {text.strip()[:60]}")
    return found


def _modules(app: str) -> list[Path]:
    return [
        path
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts and path != ROOT / app / "sql.py"
    ]


@pytest.mark.parametrize("app", APPS)
def test_an_apps_sql_is_written_only_in_its_sql_module(app: str) -> None:
    assert [found for path in _modules(app) for found in statements_in(path)] == []


@pytest.mark.parametrize("app", APPS)
def test_the_sql_module_holds_the_apps_statements(app: str) -> None:
    """The check above finds statements where they are: in each app's own SQL module."""
    assert len(statements_in(ROOT / app / "sql.py")) >= 3
