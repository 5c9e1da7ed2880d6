"""The packages depend on one another in the order of the pipeline (docs/architecture.md): never on a later stage.

Read from the sources (every ``import``, at the top or inside a function),
so that a lazy import against the order is caught as well as a top-level one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LATER = {
    "history": ("replay", "simulate", "store", "stats", "spark", "web", "api", "cli"),
}
"""A stage and the stages after it that it must not import."""


def _imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("stage", sorted(LATER))
def test_a_stage_imports_no_later_stage(stage: str) -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for path in sorted((ROOT / "hhtool" / stage).glob("*.py"))
        for line, name in _imports(path)
        if name.startswith("hhtool.") and name.split(".")[1] in LATER[stage]
    ]
    assert not bad, "\n".join(bad)
