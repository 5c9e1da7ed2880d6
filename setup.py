"""Build hook: compile the game-logic modules with mypyc (everything else is in pyproject.toml).

Why: the simulator, the replay engine and the hand evaluator spend their
time in attribute access and small function calls, which mypyc turns into
C (measured 1.5-2x on the simulator; see docs/performance.md).  The events
and rule sets they read are compiled too: a compiled module reads a field
of a compiled class directly, of an interpreted one by a generic lookup
(the replay: 199 -> 154 us a hand).  The parser
is not compiled by mypyc: its time is in regular expressions and
dictionaries, where mypyc measured no gain; instead a small C extension,
``hhtool/_native/_scan.c`` (``SCAN``), reads the common hands and the Python builder
(``hhtool/history/build.py``) reads the rest (see docs/architecture.md).  Every compiled module is also plain, importable
Python: ``HHTOOL_PURE=1 pip install -e .`` builds nothing (no ``_scan`` either), and the code
behaves the same (the test suite runs against whichever is installed).

An editable install puts the compiled modules (``*.so``) beside their
sources, and Python imports the ``.so`` first: after editing one of
``COMPILED``, ``make install`` (and ``make test``) compiles again, its stamp
being older than the source; a plain ``pytest`` before that removes the stale
compiled files and runs the pure build (``tests/builds.py``,
docs/architecture.md, "Building and testing").
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

COMPILED = [
    "hhtool/game/cards.py",
    "hhtool/history/events.py",
    "hhtool/game/rules.py",
    "hhtool/history/money.py",
    "hhtool/game/evaluate.py",
    "hhtool/game/showing.py",
    "hhtool/game/showdown.py",
    "hhtool/game/operations.py",
    "hhtool/game/betting.py",
    "hhtool/game/pots.py",
    "hhtool/history/write.py",
    "hhtool/replay/facts.py",
    "hhtool/replay/result.py",
    "hhtool/replay/holdings.py",
    "hhtool/replay/explain.py",
    "hhtool/replay/deal.py",
    "hhtool/replay/settle.py",
    "hhtool/replay/walk.py",
    "hhtool/replay/engine.py",
    "hhtool/simulate/bots.py",
    "hhtool/simulate/table.py",
    "hhtool/simulate/hand.py",
    "hhtool/simulate/choices.py",
    "hhtool/simulate/settle.py",
    "hhtool/simulate/record.py",
    "hhtool/simulate/play.py",
    "hhtool/simulate/view.py",
    "hhtool/simulate/session.py",
    "hhtool/store/flags.py",
    "hhtool/store/rows.py",
]


SCAN = "hhtool/_native/_scan.c"
COLUMNS = "hhtool/_native/_columns.c"  # the row building's UTF-8 (hhtool/store/rows.py)


PURE = os.environ.get("HHTOOL_PURE") == "1"
METADATA = {"egg_info", "dist_info", "sdist"}
"""The commands that write the project's metadata or file list and build nothing (pip's first two steps)."""


@functools.cache
def mypyc_extensions() -> list[Extension]:
    """mypyc's extensions: its type check and C generation (85 s of CPU here), run once, when the extensions are built."""
    if PURE:
        return []
    from mypyc.build import mypycify

    # mypy follows the compiled modules' imports up through the package (hhtool/__init__.py
    # and the library's entry points, whose types name the web app's and Spark's classes);
    # the build checks only what it compiles, silently past the rest (``make test`` runs
    # ``mypy --strict`` over everything), so the build needs none of those extras.
    # multi_file: one C file per module rather than one big file, so that the compile of mypyc's
    # extension spreads over the cores (:class:`BuildExt`), its longest gcc being one module's
    return list(mypycify(["--follow-imports=silent", *COMPILED], opt_level="3", multi_file=True))


class BuildExt(build_ext):
    """The extensions, mypyc's generated here only, and their C files compiled on every core at once.

    pip runs setup.py three times for an install (the build's requirements,
    the metadata, the build); mypyc's type check and C generation (85 s of
    CPU) are needed by the build alone, so they run here, once, and not
    where setup.py is read.  ``build_ext --parallel`` builds several
    extensions at once but compiles one extension's sources one after the
    other; mypyc's extension is one C file per module (``multi_file``), so
    :meth:`build_extensions` has the compiler take each extension's files
    side by side as well, the largest first, never more gcc at once than cores.
    """

    def finalize_options(self) -> None:
        # egg_info (pip's requirements and metadata steps run it) asks build_ext only for the list of
        # sources, for its manifest: mypyc's generated C is no source of the project's
        commands = set(self.distribution.commands)
        if not (commands and commands <= METADATA):
            mypyc = mypyc_extensions()
            self.distribution.ext_modules = [*mypyc, *(e for e in self.distribution.ext_modules or [] if e not in mypyc)]
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1
        super().finalize_options()

    def build_extensions(self) -> None:
        jobs = self.parallel if isinstance(self.parallel, int) and self.parallel > 1 else 1
        if jobs > 1:
            self.compiler.compile = parallel_compile(self.compiler.compile, jobs)
        super().build_extensions()


def parallel_compile(compile_sources: Callable[..., list[str]], jobs: int) -> Callable[..., list[str]]:
    """``compile_sources`` (a distutils compiler's ``compile``), each source in a call of its own, ``jobs`` at once.

    Through the compiler's public ``compile`` alone, one source a call, so its checks (the
    dependencies, the object's path) stay its own; the threads only wait for gcc.  One semaphore
    for all extensions: build_ext's own threads (one an extension) share the ``jobs`` gcc slots.
    """
    slots = threading.BoundedSemaphore(jobs)

    def one(source: str, kwargs: dict[str, Any]) -> list[str]:
        with slots:
            return compile_sources([source], **kwargs)

    def compile_all(sources: Sequence[str], **kwargs: Any) -> list[str]:
        if len(sources) < 2:
            return compile_sources(list(sources), **kwargs)
        # the largest first: the build ends no later than its longest gcc started at once
        order = sorted(sources, key=lambda source: -os.path.getsize(source) if os.path.exists(source) else 0)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            built = dict(zip(order, pool.map(lambda source: one(source, kwargs), order)))
        return [obj for source in sources for obj in built[source]]

    return compile_all


def ext_modules() -> list[Extension]:
    """The C extensions; mypyc's are added by :class:`BuildExt` when they are built. None for the pure build."""
    if PURE:
        return []
    flags = ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"]
    scan = Extension("hhtool._native._scan", [SCAN], extra_compile_args=flags)
    columns = Extension("hhtool._native._columns", [COLUMNS], extra_compile_args=flags)
    return [scan, columns]


# The grammar's home is the top-level ``grammars/`` folder (the project's layout); it is
# shipped as the package ``hhtool.grammars`` by mapping that package to the folder.
setup(
    ext_modules=ext_modules(),
    cmdclass={"build_ext": BuildExt},
    packages=[*find_packages(include=["hhtool", "hhtool.*"]), "hhtool.grammars"],
    package_dir={"hhtool.grammars": "grammars"},
    package_data={
        "hhtool": ["py.typed"],
        "hhtool.grammars": ["*.lark"],
        "hhtool.web": ["templates/*.html", "static/*.js", "static/*.css"],
        "hhtool.replayer": ["static/*.js", "static/*.css"],
        "hhtool.game": ["profiles/*.toml"],
        "hhtool.spark": ["log4j2.properties"],
    },
)
