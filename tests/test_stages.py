"""The packages depend on one another in the order of the pipeline (docs/architecture.md): never on a later stage, and no module on itself.

Read from the sources (every ``import``, at the top or inside a function,
under ``TYPE_CHECKING`` too), so that a lazy import against the order is
caught as well as a top-level one: an import inside a function still makes
the lower stage need the higher one to work, and turns a cycle into an
order of first calls that happens to work.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hhtool"

BELOW: dict[str, tuple[str, ...]] = {
    "textsafe": (),
    "_native": (),
    "game": ("_native", "textsafe"),
    "history": ("game",),
    "replay": ("history",),
    "simulate": ("replay",),
    "store": ("replay",),
    "replayer": ("replay",),
    "stats": ("store", "replayer"),
    "collusion": ("stats",),
    "web": ("collusion",),
    "spark": ("store",),
    "api": ("simulate", "spark", "web"),
    "cli": ("api",),
}
"""Each stage (a package or a module directly under ``hhtool/``) and the stages right below it.

A stage may import the stages below it, theirs, and so on down, and
nothing else: ``simulate`` and ``store`` both stand on ``replay`` and
neither on the other; the replayer's HTML stands below both the report
(``stats``) and the app (``web``), which embed it.  ``hhtool/__init__.py``
is of the ``api`` stage (it exports ``api``'s names), and the command
line's modules, ``cli.py`` and every ``cli_*.py``, are the ``cli`` stage.
"""


def allowed(stage: str) -> set[str]:
    """Every stage ``stage`` may import: those below it in :data:`BELOW`, and theirs, all the way down."""
    seen: set[str] = set()
    todo = list(BELOW[stage])
    while todo:
        s = todo.pop()
        if s not in seen:
            seen.add(s)
            todo += BELOW[s]
    return seen


def module_name(path: Path) -> str:
    """``hhtool/store/db.py`` -> ``hhtool.store.db``; a package's ``__init__.py`` is the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage_of(module: str) -> str:
    """The stage a module of hhtool belongs to: the package or module right under ``hhtool`` (see :data:`BELOW`)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "api"
    return "cli" if parts[1].startswith("cli_") else parts[1]


@cache
def sources() -> dict[str, Path]:
    """Every module of hhtool with Python source, by name."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@cache
def modules() -> frozenset[str]:
    """Every module an import can name: the sources, and the C extensions by their stubs (``_native/_scan.pyi``)."""
    return frozenset(sources()) | {module_name(p) for p in PACKAGE.rglob("*.pyi")}


def imports(module: str) -> Iterator[tuple[int, str]]:
    """``(line, module of hhtool)`` for every import of hhtool's modules in ``module``'s source.

    ``from hhtool.x import y`` names the module ``hhtool.x.y`` when there is
    one, else ``hhtool.x`` (``y`` is a name of the package's
    ``__init__.py``).  Relative imports are resolved, though the project
    writes none.  Importing a module imports its packages' ``__init__.py``
    first; that is not counted, or a package's ``__init__.py`` that imports
    its own modules would be in a cycle with each of them.
    """
    path = sources()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "hhtool" or alias.name.startswith("hhtool."):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            if base != "hhtool" and not base.startswith("hhtool."):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield node.lineno, sub if sub in modules() else base


def test_the_stages_are_in_order() -> None:
    """The table itself has no circle: no stage below itself."""
    assert all(stage not in allowed(stage) for stage in BELOW), [s for s in BELOW if s in allowed(s)]


def test_every_module_is_of_a_stage() -> None:
    """A new package or top-level module gets its place in :data:`BELOW` (and in docs/architecture.md) before it is used."""
    unknown = sorted({f"{stage_of(m)} ({sources()[m].relative_to(ROOT)})" for m in sources() if stage_of(m) not in BELOW})
    assert not unknown, "modules of no stage in tests/test_stages.py's BELOW: " + ", ".join(unknown)


@pytest.mark.parametrize("stage", sorted(BELOW))
def test_a_stage_imports_only_the_stages_below_it(stage: str) -> None:
    may = allowed(stage)
    bad = list(dict.fromkeys(  # one line for ``from hhtool.x import a, b``
        f"{sources()[m].relative_to(ROOT)}:{line}: imports {name} ({stage_of(name)} is not below {stage})"
        for m in sorted(sources())
        if stage_of(m) == stage
        for line, name in imports(m)
        if stage_of(name) != stage and stage_of(name) not in may
    ))
    assert not bad, "\n".join(bad) + f"\n{stage} may import: {', '.join(sorted(may)) or 'nothing of hhtool'}"


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The shortest cycle through the first module of each strongly connected component of more than one (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    cycles = []
    for component in sorted(components):
        inside, start = set(component), component[0]
        came: dict[str, str] = {}  # breadth first from the start, inside the component, back to the start
        frontier = [start]
        while start not in came and frontier:
            reached = []
            for v in frontier:
                for w in sorted(graph[v]):
                    if w in inside and w not in came:
                        came[w] = v
                        reached.append(w)
            frontier = reached
        path = [start, came[start]]
        while path[-1] != start:
            path.append(came[path[-1]])
        cycles.append(path[::-1])
    return cycles


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle between hhtool's modules, within a stage as across: each names the imports that close it.

    A cycle works only while every first import happens to come in a good
    order, and it makes the modules one piece that cannot be read,
    tested or moved apart.
    """
    graph: dict[str, dict[str, int]] = {m: {} for m in sources()}
    for m in sources():
        for line, name in imports(m):
            if name != m and name in sources():
                graph[m].setdefault(name, line)
    found = [
        " -> ".join([cycle[0]] + [f"{b} ({sources()[a].relative_to(ROOT)}:{graph[a][b]})" for a, b in zip(cycle, cycle[1:])])
        for cycle in _cycles(graph)
    ]
    assert not found, "import cycles:\n" + "\n".join(found)
