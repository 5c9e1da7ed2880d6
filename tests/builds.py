"""Which build of hhtool the tree holds: the compiled files setup.py makes, and whether any is stale.

An editable install puts each compiled module beside its source
(``hhtool/game/cards.cpython-311-x86_64-linux-gnu.so`` next to ``cards.py``)
and Python imports the ``.so`` first, so a source edited since the build
would not run.  mypyc compiles its modules into one shared library (the
``*__mypyc*.so`` at the project's root) and a compiled module calls the
others' functions and classes in it directly, not through ``import``: one
mypyc module cannot fall back to its source alone.  The C reader
(``_scan``) in turn only accepts the compiled event classes.  So a stale
compiled file makes the whole run the pure build: :func:`remove_stale`
deletes every compiled file, and every process a test starts runs the
sources too; ``make install`` (its stamp older than the edited source)
compiles them again.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


def compiled_sources(root: Path) -> list[str]:
    """The sources setup.py compiles (its ``COMPILED`` list, ``SCAN`` and ``COLUMNS``), read without running it."""
    found: list[str] = []
    for node in ast.parse((root / "setup.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ("COMPILED", "SCAN", "COLUMNS") for t in node.targets):
            value = ast.literal_eval(node.value)
            found.extend(value if isinstance(value, list) else [value])
    return found


def _source_of(so: Path) -> Path | None:
    """``cards.cpython-311-x86_64-linux-gnu.so`` -> ``cards.py`` (mypyc) or ``_scan.c`` (a C extension), if there."""
    stem = so.name.split(".", 1)[0]
    for suffix in (".py", ".c"):
        source = so.with_name(stem + suffix)
        if source.exists():
            return source
    return None


@dataclass
class Build:
    """The compiled files found under ``root``, against the sources setup.py compiles."""

    root: Path
    files: list[Path] = field(default_factory=list)
    """Every compiled file: the modules' ``.so`` beside their sources and mypyc's shared library."""
    present: list[str] = field(default_factory=list)
    """Sources with a compiled module (``hhtool/game/cards.py``)."""
    missing: list[str] = field(default_factory=list)
    """Sources setup.py compiles that have none."""
    stale: list[str] = field(default_factory=list)
    """Sources edited since their module was compiled."""
    removed: list[str] = field(default_factory=list)
    """Sources whose compiled module :func:`remove_stale` deleted."""

    @classmethod
    def of(cls, root: Path) -> Build:
        build = cls(root, files=sorted(root.glob("*__mypyc*.so")))
        for so in sorted((root / "hhtool").rglob("*.so")):
            build.files.append(so)
            source = _source_of(so)
            if source is None:
                continue
            name = source.relative_to(root).as_posix()
            build.present.append(name)
            if source.stat().st_mtime > so.stat().st_mtime:
                build.stale.append(name)
        build.missing = [s for s in compiled_sources(root) if s not in build.present]
        return build

    @property
    def complete(self) -> bool:
        """Every module setup.py compiles is compiled, and none is older than its source."""
        return not self.missing and not self.stale

    def kind(self) -> str:
        if self.complete:
            return "the compiled build"
        if self.removed:
            return "the pure build (compiled modules older than their sources were removed)"
        if not self.present:
            return "the pure build"
        return f"a partly compiled build (not compiled: {', '.join(self.missing)})"

    def describe(self) -> str:
        """One line for pytest's header: what runs, and what to do about it."""
        if self.removed:
            return (
                f"hhtool: {self.kind()}: {', '.join(self.removed)} changed since `make install`, "
                "so every module runs from its source; `make install` compiles them again"
            )
        if self.complete:
            return f"hhtool: {self.kind()} ({len(self.present)} compiled modules)"
        return f"hhtool: {self.kind()}; the tests marked `compiled` (and `any_build`, which the compiled run checks) were skipped"


def remove_stale(root: Path) -> Build:
    """Delete every compiled file if any is older than its source (see the module's docstring); the build left."""
    build = Build.of(root)
    if not build.stale:
        return build
    for path in build.files:
        path.unlink(missing_ok=True)
    after = Build.of(root)
    after.removed = build.stale
    return after
