"""The layers stay layers: the engine is pure, no import goes up, no modules import in circles,
and no top-level package grows over a third of the code.

Lowest first: ``engine`` and ``pairings`` (both pure: the rating arithmetic; the pairing
rules and brackets) < ``league`` (write side) < ``ratings`` (read side) <
``notifications`` (e-mail and webhooks, from both) < the two faces, ``web`` (pages) and
``api``, which never import each other. A lower layer never imports
a higher one, not at module level, not in a function, not under ``if TYPE_CHECKING`` and not
through a dotted string (``import_string("ratings.services.create_config")``).
No database: the engine is imported in a fresh interpreter, the rest is read with ``ast``.

Every scanner takes the root of the tree it reads, so each rule is also run on a small tree
planted in a temporary folder with one violation, and must fail on it (the self-tests at the
end): a scanner that finds nothing would otherwise pass on the real tree.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "pairings", "league", "ratings", "notifications", "web", "api")
#: Top-level names the engine may not load.
NOT_FOR_THE_ENGINE = (
    "django",
    "pairings",
    "rest_framework",
    "celery",
    "league",
    "ratings",
    "notifications",
    "web",
    "api",
    "config",
)
#: Which packages each package may not reach (the engine: nothing of the framework either, so
#: an import deferred into one of its functions is caught by the scan, not only by loading it).
FORBIDDEN = {
    "engine": NOT_FOR_THE_ENGINE,
    # Pure like the engine: the pairing rules and bracket arithmetic know no framework.
    "pairings": (*(name for name in NOT_FOR_THE_ENGINE if name != "pairings"), "engine"),
    "league": ("ratings", "notifications", "web", "api"),
    "ratings": ("notifications", "web", "api"),
    "notifications": ("web", "api"),
    "web": ("api",),
    "api": ("web",),
}
#: The largest share of the code's lines one top-level package may hold.
MAX_SHARE = 0.35
#: Top-level folders that are not the project's code.
NOT_CODE = ("tests",)
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


def source_files(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> Iterator[Path]:
    for package in packages:
        yield from sorted((root / package).rglob("*.py"))


def modules_of(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    return {module_name(path, root): path for path in source_files(root, packages)}


MODULES = modules_of()


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


def imports_of(
    path: Path,
    root: Path = ROOT,
    packages: tuple[str, ...] = PACKAGES,
    modules: Mapping[str, Path] | None = None,
) -> list[Import]:
    """Every import of ``path`` (see ``Import.how``), and every string that is a dotted
    path into one of the packages (for ``import_string``, settings, ...).

    ``modules`` (default: those of ``packages`` under ``root``) tells ``from a import b``
    of a submodule ``a.b`` from that of a name defined in ``a``.
    """
    if modules is None:
        modules = modules_of(root, packages)
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
                add(submodule if submodule in modules else base, node, how)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if DOTTED.fullmatch(text) and text.split(".")[0] in packages:
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


def imports_in(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> list[Import]:
    """Every import of every module of ``packages`` under ``root``."""
    modules = modules_of(root, packages)
    return [
        found for path in modules.values() for found in imports_of(path, root, packages, modules)
    ]


ALL_IMPORTS = imports_in()


def upward_imports(
    imports: Iterable[Import] = ALL_IMPORTS, forbidden: Mapping[str, Iterable[str]] = FORBIDDEN
) -> list[Import]:
    """Imports (and dotted strings) from a lower layer into a higher one.

    Every kind counts, ``TYPE_CHECKING`` imports too: they do not run, but a lower layer
    that names a higher one's types depends on it all the same.
    """
    bad = []
    for found in imports:
        layer = found.module.split(".")[0]
        if found.target.split(".")[0] in forbidden.get(layer, ()):
            bad.append(found)
    return bad


def import_cycles(
    imports: Iterable[Import] = ALL_IMPORTS, modules: Iterable[str] = MODULES
) -> list[list[Import]]:
    """Circles of imports among ``modules``, one list per circle.

    Imports in functions count: deferring one side of a circle to call time hides the
    circle from the interpreter, not from the design. ``TYPE_CHECKING`` imports do not run.
    """
    edges: dict[str, dict[str, Import]] = {name: {} for name in modules}
    for found in imports:
        runs = found.how in ("module", "function")
        if runs and found.target in edges and found.target != found.module:
            edges[found.module].setdefault(found.target, found)
    cycles, seen = [], set()
    for start in sorted(edges):
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


def engine_intruders(
    engine_module: str, root: Path = ROOT, banned: Iterable[str] = NOT_FOR_THE_ENGINE
) -> list[str]:
    """The modules outside the engine that importing ``engine_module`` loads.

    Imported in a fresh interpreter whose only path into the project is ``root``.
    """
    script = (
        "import importlib, sys\n"
        f"importlib.import_module({engine_module!r})\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    loaded = subprocess.run(
        [sys.executable, "-c", script],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    banned = tuple(banned)
    return [name for name in loaded if name.split(".")[0] in banned]


def top_level_packages(root: Path = ROOT) -> list[str]:
    """The folders at ``root`` that are Python packages, the tests left out."""
    return sorted(
        path.name
        for path in root.iterdir()
        if (path / "__init__.py").is_file() and path.name not in NOT_CODE
    )


def code_lines(root: Path = ROOT) -> dict[str, int]:
    """Non-blank lines of Python in each top-level package (migrations included)."""
    return {
        package: sum(
            sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
            for path in (root / package).rglob("*.py")
        )
        for package in top_level_packages(root)
    }


# --- the rules, as checks a tree passes or fails ----------------------------------------


def check_engine_is_pure(engine_module: str, root: Path = ROOT) -> None:
    offending = engine_intruders(engine_module, root)
    assert not offending, f"importing {engine_module} loaded {', '.join(offending)}"


def check_no_upward_imports(imports: Iterable[Import]) -> None:
    bad = upward_imports(imports)
    assert not bad, "Imports into a higher layer:\n" + "\n".join(str(found) for found in bad)


def check_no_import_circles(imports: Iterable[Import], modules: Iterable[str]) -> None:
    cycles = import_cycles(imports, modules)
    described = [
        " -> ".join(found.module for found in circle)
        + f" -> {circle[0].module}\n"
        + "\n".join(f"    {found}" for found in circle)
        for circle in cycles
    ]
    assert not cycles, "Import circles:\n" + "\n".join(described)


def check_no_package_over(lines: Mapping[str, int], limit: float = MAX_SHARE) -> None:
    total = sum(lines.values())
    assert total > 0, "no lines of code found"
    shares = sorted(((count / total, package) for package, count in lines.items()), reverse=True)
    described = ", ".join(f"{package} {share:.1%}" for share, package in shares)
    over = [package for share, package in shares if share > limit]
    assert not over, f"{', '.join(over)} over {limit:.0%} of the code's lines: {described}"


# --- the real tree ------------------------------------------------------------------------

ENGINE_MODULES = sorted(name for name in MODULES if name.split(".")[0] == "engine")


def test_the_scan_reads_every_layer() -> None:
    """The scanners see the real tree: modules in every package, imports down every arrow."""
    assert {name.split(".")[0] for name in MODULES} == set(PACKAGES)
    assert len(ENGINE_MODULES) > 1
    arrows = {(found.module.split(".")[0], found.target.split(".")[0]) for found in ALL_IMPORTS}
    expected = {
        ("ratings", "engine"),
        ("ratings", "league"),
        ("web", "ratings"),
        ("web", "league"),
        ("api", "ratings"),
        ("api", "league"),
        ("notifications", "league"),
        ("notifications", "ratings"),
        ("web", "notifications"),
    }
    assert expected <= arrows


@pytest.mark.parametrize("engine_module", ENGINE_MODULES)
def test_the_engine_loads_nothing_but_itself(engine_module: str) -> None:
    check_engine_is_pure(engine_module)


def test_no_layer_imports_a_higher_one() -> None:
    check_no_upward_imports(ALL_IMPORTS)


def test_no_import_circles() -> None:
    check_no_import_circles(ALL_IMPORTS, MODULES)


def test_no_top_level_package_holds_over_a_third_of_the_code() -> None:
    lines = code_lines()
    assert set(PACKAGES) <= set(lines)
    assert "tests" not in lines
    check_no_package_over(lines)


# --- the checks themselves ---------------------------------------------------------------


def plant(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (path -> source) under ``root``, with an ``__init__.py`` in every
    folder of the five packages; returns ``root``."""
    for package in PACKAGES:
        (root / package).mkdir(exist_ok=True)
        (root / package / "__init__.py").touch()
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in path.relative_to(root).parents:
            if folder != Path("."):
                (root / folder / "__init__.py").touch()
        path.write_text(source, encoding="utf-8")
    return root


#: A tree in which every layer imports every layer below it, in each of the ways an import
#: can be written, and the two faces each import all three lower layers: no rule is broken.
LAWFUL = {
    "engine/core.py": "import math\nimport numpy\nfrom engine import helpers\nX = 1\n",
    "engine/helpers.py": "from . import maths\n",
    "engine/maths.py": "X = 'engine.core'\n",
    "league/models.py": "from engine.core import X\n",
    "league/services.py": (
        "from typing import TYPE_CHECKING\n"
        "from django.db import transaction\n"
        "from .models import X\n"
        "if TYPE_CHECKING:\n"
        "    from engine import core\n"
        "def record():\n"
        "    from league import models\n"
        "    return import_string('league.models.X')\n"
    ),
    "ratings/selectors.py": "import engine.core\nfrom league.models import X\n",
    "ratings/services.py": "from league import services\nfrom . import selectors\n",
    "web/pages.py": "from ratings.selectors import X\nfrom league.services import record\n",
    "web/forms.py": "from engine import core\nTASK = 'ratings.services.replay'\n",
    "api/views.py": "from ratings import selectors\nfrom league import services\nimport engine\n",
}


def test_the_lawful_tree_passes_every_check(tmp_path: Path) -> None:
    root = plant(tmp_path, LAWFUL)
    imports = imports_in(root)
    assert len(imports) >= 20  # the scan read the tree
    check_no_upward_imports(imports)
    check_no_import_circles(imports, modules_of(root))
    check_engine_is_pure("engine.core", root)


#: One import into a higher layer each, in every way one can be written.
UPWARD = {
    "at module level": ("league/leak.py", "import ratings.models\n"),
    "from a module": ("league/leak.py", "from ratings.selectors import X\n"),
    "in a function": (
        "league/leak.py",
        "def replay():\n    from ratings import services\n    return services\n",
    ),
    "in a method": (
        "league/leak.py",
        "class A:\n    async def f(self):\n        import web.pages\n",
    ),
    "as a dotted string": (
        "league/leak.py",
        "def f():\n    return import_string('ratings.services.replay')\n",
    ),
    "under TYPE_CHECKING": (
        "league/leak.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ratings.models import X\n",
    ),
    "under typing.TYPE_CHECKING": (
        "ratings/leak.py",
        "import typing\nif typing.TYPE_CHECKING:\n    from api import views\n",
    ),
    "the engine into the write side": ("engine/leak.py", "from league.models import X\n"),
    "the engine into django, in a function": (
        "engine/leak.py",
        "def f():\n    from django.conf import settings\n    return settings\n",
    ),
    "the engine into the read side, as a string": (
        "engine/leak.py",
        "REPLAY = 'ratings.services.replay'\n",
    ),
    "the read side into the pages": ("ratings/leak.py", "from web.pages import X\n"),
    "the read side into the API": ("ratings/leak.py", "from api import views\n"),
    "the write side into the API": ("league/leak.py", "import api.views\n"),
    "the pages into the API": ("web/leak.py", "from api.views import X\n"),
    "the API into the pages": ("api/leak.py", "from web import pages\n"),
    "the API into the pages, as a string": ("api/leak.py", "PAGE = 'web.pages.league'\n"),
}


@pytest.mark.parametrize("leak", UPWARD.values(), ids=UPWARD.keys())
def test_an_upward_import_fails_the_check(tmp_path: Path, leak: tuple[str, str]) -> None:
    name, source = leak
    root = plant(tmp_path, {**LAWFUL, name: source})
    bad = upward_imports(imports_in(root))
    assert [str(found.path) for found in bad] == [name]  # that one, and nothing lawful
    with pytest.raises(AssertionError, match=re.escape(f"{name}:{bad[0].line}")):
        check_no_upward_imports(imports_in(root))


#: Circles of two and three modules (dotted names -> source), each with what the check says.
CIRCLES = {
    "two modules": (
        {
            "league/a.py": "from league.b import X\n",
            "league/b.py": "from league import a\nX = 1\n",
        },
        "league.a -> league.b -> league.a",
    ),
    "three modules, one import deferred": (
        {
            "ratings/a.py": "from . import b\n",
            "ratings/b.py": "import ratings.c\n",
            "ratings/c.py": "def f():\n    from ratings.a import X\n",
        },
        "ratings.a -> ratings.b -> ratings.c -> ratings.a",
    ),
    "across two packages": (
        {
            "league/a.py": "from engine.z import X\n",
            "engine/z.py": "from engine import y\n",
            "engine/y.py": "import league.a\n",
        },
        "engine.y -> league.a -> engine.z -> engine.y",
    ),
}


@pytest.mark.parametrize(("files", "said"), CIRCLES.values(), ids=CIRCLES.keys())
def test_an_import_circle_fails_the_check(tmp_path: Path, files: dict[str, str], said: str) -> None:
    root = plant(tmp_path, {**LAWFUL, **files})
    imports, modules = imports_in(root), modules_of(root)
    cycles = import_cycles(imports, modules)
    expected = {module_name(root / name, root) for name in files}
    assert [{step.module for step in circle} for circle in cycles] == [expected]
    with pytest.raises(AssertionError, match=re.escape(said)):
        check_no_import_circles(imports, modules)


def test_a_circle_closed_only_under_type_checking_is_no_circle(tmp_path: Path) -> None:
    """``TYPE_CHECKING`` imports never run, so they close no circle (they do count upward)."""
    files = {
        "league/a.py": "from league.b import X\n",
        "league/b.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from league.a import Y\n"
        ),
    }
    root = plant(tmp_path, {**LAWFUL, **files})
    check_no_import_circles(imports_in(root), modules_of(root))


IMPURE_ENGINES = {
    "django": ({"engine/leak.py": "import django\n"}, "django"),
    "the write side": ({"engine/leak.py": "from league import models\n"}, "league.models"),
    "the write side, through another engine module": (
        {"engine/leak.py": "from engine import bridge\n", "engine/bridge.py": "import league\n"},
        "league",
    ),
}


@pytest.mark.parametrize(("files", "loaded"), IMPURE_ENGINES.values(), ids=IMPURE_ENGINES.keys())
def test_an_engine_that_loads_the_framework_fails_the_check(
    tmp_path: Path, files: dict[str, str], loaded: str
) -> None:
    root = plant(tmp_path, {**LAWFUL, **files})
    assert loaded in engine_intruders("engine.leak", root)
    with pytest.raises(
        AssertionError, match=rf"importing engine\.leak loaded .*{re.escape(loaded)}"
    ):
        check_engine_is_pure("engine.leak", root)


def _lines_of_code(root: Path, sizes: Mapping[str, int]) -> None:
    """Packages under ``root`` of ``sizes[package]`` non-blank lines each (a blank line
    between every two, which must not count)."""
    for package, size in sizes.items():
        (root / package).mkdir()
        (root / package / "__init__.py").write_text("", encoding="utf-8")
        code = "\n\n".join(f"x{index} = {index}" for index in range(size))
        (root / package / "code.py").write_text(code, encoding="utf-8")


def test_the_package_shares_count_non_blank_lines_of_every_package_but_the_tests(
    tmp_path: Path,
) -> None:
    _lines_of_code(tmp_path, {"engine": 20, "league": 33, "ratings": 30, "web": 15, "tests": 500})
    (tmp_path / "league" / "migrations").mkdir()
    (tmp_path / "league" / "migrations" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "league" / "migrations" / "0001_initial.py").write_text("a = 1\n\nb = 2\n")
    (tmp_path / "docs").mkdir()  # a folder, not a package
    (tmp_path / "docs" / "conf.py").write_text("a = 1\n" * 100, encoding="utf-8")
    lines = code_lines(tmp_path)
    assert lines == {"engine": 20, "league": 35, "ratings": 30, "web": 15}
    check_no_package_over(lines)  # league: 35 of 100 lines, not over 35 %


def test_a_package_over_the_limit_fails_the_check(tmp_path: Path) -> None:
    _lines_of_code(tmp_path, {"engine": 20, "league": 36, "ratings": 30, "web": 14})
    message = (
        "league over 35% of the code's lines: league 36.0%, ratings 30.0%, engine 20.0%, web 14.0%"
    )
    with pytest.raises(AssertionError, match=re.escape(message)):
        check_no_package_over(code_lines(tmp_path))


def test_the_scan_tells_how_each_import_runs(tmp_path: Path) -> None:
    path = tmp_path / "league" / "example.py"
    path.parent.mkdir()
    (tmp_path / "league" / "models.py").write_text("", encoding="utf-8")
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "import os\n"
        "if TYPE_CHECKING:\n"
        "    from api.views import X\n"
        "def f():\n"
        "    from ratings import services\n"
        "    return import_string('ratings.services.create_config')\n"
        "from . import models\n"
        "from . import helpers\n",
        encoding="utf-8",
    )
    found = imports_of(path, root=tmp_path)
    assert {(item.target, item.how, item.line) for item in found} == {
        ("typing", "module", 1),
        ("os", "module", 2),
        ("api.views", "typing", 4),  # not run, still a dependency
        ("ratings", "function", 6),  # no ratings/services.py in this tree: the package
        ("ratings.services.create_config", "string", 7),
        ("league.models", "module", 8),  # a submodule
        ("league", "module", 9),  # a name defined in league/__init__.py
    }
    assert {item.module for item in found} == {"league.example"}


def test_the_rating_kinds_match_the_vocabulary() -> None:
    from league.event_store.vocabulary import KINDS
    from league.models import RATING_KINDS

    assert {str(kind) for kind in RATING_KINDS} == {
        kind for kind, fact in KINDS.items() if fact.affects_ratings
    }
