"""The write side (``league/``) never imports the read side or the API, not even lazily."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LEAGUE = Path(__file__).resolve().parents[2] / "league"
HIGHER = ("ratings", "api")


def imported_modules(path: Path) -> list[str]:
    """Every module ``path`` imports, at any depth (function-level imports included)."""
    modules = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.append(node.module)
    return modules


@pytest.mark.parametrize(
    "path", sorted(LEAGUE.rglob("*.py")), ids=lambda path: str(path.relative_to(LEAGUE))
)
def test_league_imports_nothing_above_it(path):
    upward = [module for module in imported_modules(path) if module.split(".")[0] in HIGHER]
    assert upward == []
