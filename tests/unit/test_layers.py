"""The layers stay layers: the engine is pure, no import goes up, no modules import in circles.

Lowest first: ``engine`` (pure) < ``league`` (write side) < ``ratings`` (read side) < the two
faces, ``web`` (pages) and ``api``, which never import each other. A lower layer never imports
a higher one, not at module level, not in a function, and not through a dotted string
(``import_string("ratings.services.create_config")``).
No database: the engine is imported in a fresh interpreter, the rest is read with ``ast``.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "league", "ratings", "web", "api")
#: Top-level names the engine may not load.
NOT_FOR_THE_ENGINE = (
    "django",
    "rest_framework",
    "celery",
    "league",
    "ratings",
    "web",
    "api",
    "config",
)
#: Which packages each package may not reach.
FORBIDDEN = {
    "engine": ("league", "ratings", "web", "api", "config"),
    "league": ("ratings", "web", "api"),
    "ratings": ("web", "api"),
    "web": ("api",),
    "api": ("web",),
}
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


@dataclass(frozen=True)
class Import:
    """One import found in a source file (or a dotted path in one of its strings).

    ``how`` is "module" (run on import), "function" (deferred: run when called),
    "typing" (under ``if TYPE_CHECKING``) or "string" (a dotted path in a string literal).
    """

    module: str
    target: str
    path: Path
    line: int
    text: str
    how: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


MODULES = {module_name(path): path for path in source_files()}


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path, root: Path = ROOT) -> list[Import]:
    """Every import of ``path`` (see ``Import.how``), and every string that is a dotted
    path into one of the packages (for ``import_string``, settings, ...)."""
    module = module_name(path, root)
    shown = path.relative_to(root)
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    lines = source.splitlines()
    found: list[Import] = []

    def add(target: str, node: ast.AST, how: str) -> None:
        line = node.lineno  # type: ignore[attr-defined]
        item = Import(module, target, shown, line, lines[line - 1].strip(), how)
        if item not in found:  # ``from api.fields import A, B`` is one import of api.fields
            found.append(item)

    def visit(node: ast.AST, how: str) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node, how)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                add(submodule if submodule in MODULES else base, node, how)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if DOTTED.fullmatch(text) and text.split(".")[0] in PACKAGES:
                add(text, node, "string")
        inner = how
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner = "typing" if how == "typing" else "function"
        elif isinstance(node, ast.If) and _is_type_checking(node):
            inner = "typing"
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    for statement in tree.body:
        visit(statement, "module")
    return found


ALL_IMPORTS = [found for path in MODULES.values() for found in imports_of(path)]


def upward_imports() -> list[Import]:
    """Imports (and dotted strings) from a lower layer into a higher one."""
    bad = []
    for found in ALL_IMPORTS:
        layer = found.module.split(".")[0]
        if found.target.split(".")[0] in FORBIDDEN.get(layer, ()):
            bad.append(found)
    return bad


def import_cycles() -> list[list[Import]]:
    """Circles of imports among the packages' modules, one list per circle.

    Imports in functions count: deferring one side of a circle to call time hides the
    circle from the interpreter, not from the design. ``TYPE_CHECKING`` imports do not run.
    """
    edges: dict[str, dict[str, Import]] = {name: {} for name in MODULES}
    for found in ALL_IMPORTS:
        runs = found.how in ("module", "function")
        if runs and found.target in MODULES and found.target != found.module:
            edges[found.module].setdefault(found.target, found)
    cycles, seen = [], set()
    for start in sorted(MODULES):
        # Shortest way back to ``start`` (breadth first), so each circle is reported plainly.
        paths: dict[str, list[Import]] = {start: []}
        queue = [start]
        while queue:
            current = queue.pop(0)
            for target, found in sorted(edges[current].items()):
                if target == start:
                    circle = [*paths[current], found]
                    key = frozenset(step.module for step in circle)
                    if key not in seen:
                        seen.add(key)
                        cycles.append(circle)
                    queue = []
                    break
                if target not in paths:
                    paths[target] = [*paths[current], found]
                    queue.append(target)
    return cycles


ENGINE_MODULES = sorted(name for name in MODULES if name.startswith("engine"))


@pytest.mark.parametrize("engine_module", ENGINE_MODULES)
def test_the_engine_loads_nothing_but_itself(engine_module: str) -> None:
    script = (
        "import importlib, sys\n"
        f"importlib.import_module({engine_module!r})\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    offending = [name for name in loaded if name.split(".")[0] in NOT_FOR_THE_ENGINE]
    assert not offending, f"importing {engine_module} loaded {', '.join(offending)}"


def test_no_layer_imports_a_higher_one() -> None:
    bad = upward_imports()
    assert not bad, "Imports into a higher layer:\n" + "\n".join(str(found) for found in bad)


def test_no_import_circles() -> None:
    cycles = import_cycles()
    described = [
        " -> ".join(found.module for found in circle)
        + f" -> {circle[0].module}\n"
        + "\n".join(f"    {found}" for found in circle)
        for circle in cycles
    ]
    assert not cycles, "Import circles:\n" + "\n".join(described)


# --- the checks themselves ---------------------------------------------------------------


def test_the_scan_finds_function_level_imports_and_dotted_strings(tmp_path: Path) -> None:
    path = tmp_path / "league" / "example.py"
    path.parent.mkdir()
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "import os\n"
        "if TYPE_CHECKING:\n"
        "    from api.views import X\n"
        "def f():\n"
        "    from ratings import services\n"
        "    return import_string('ratings.services.create_config')\n"
        "from . import models\n",
        encoding="utf-8",
    )
    found = imports_of(path, root=tmp_path)
    by_target = {(item.target, item.how) for item in found}
    assert ("os", "module") in by_target
    assert ("api.views", "typing") in by_target  # not run, still a dependency
    assert ("ratings.services", "function") in by_target
    assert ("ratings.services.create_config", "string") in by_target
    assert ("league.models", "module") in by_target
    assert {item.module for item in found} == {"league.example"}


def test_the_rating_kinds_match_the_vocabulary() -> None:
    from league.event_store.vocabulary import KINDS
    from league.models import RATING_KINDS

    assert {str(kind) for kind in RATING_KINDS} == {
        kind for kind, fact in KINDS.items() if fact.affects_ratings
    }
