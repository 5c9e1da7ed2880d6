"""Build hook: compile the game-logic modules with mypyc (everything else is in pyproject.toml).

Why: the simulator, the replay engine and the hand evaluator spend their
time in attribute access and small function calls, which mypyc turns into
C (measured 1.5-2x on the simulator; see docs/performance.md).  The events
and rule sets they read are compiled too: a compiled module reads a field
of a compiled class directly, of an interpreted one by a generic lookup
(the replay: 199 -> 154 us a hand).  The parser
is not compiled by mypyc: its time is in regular expressions and
dictionaries, where mypyc measured no gain; instead a small C extension,
``hhtool/_native/_scan.c`` (``SCAN``), reads the common hands and ``parse.py``
reads the rest (see docs/architecture.md).  Every compiled module is also plain, importable
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

import os

from setuptools import Extension, find_packages, setup

COMPILED = [
    "hhtool/game/cards.py",
    "hhtool/history/events.py",
    "hhtool/game/rules.py",
    "hhtool/history/money.py",
    "hhtool/game/evaluate.py",
    "hhtool/game/showing.py",
    "hhtool/game/showdown.py",
    "hhtool/history/write.py",
    "hhtool/replay/betting.py",
    "hhtool/replay/pots.py",
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


def ext_modules() -> list[object]:
    if os.environ.get("HHTOOL_PURE") == "1":
        return []
    from mypyc.build import mypycify

    flags = ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"]
    scan = Extension("hhtool._native._scan", [SCAN], extra_compile_args=flags)
    columns = Extension("hhtool._native._columns", [COLUMNS], extra_compile_args=flags)
    # mypy follows the compiled modules' imports up through the package (hhtool/__init__.py
    # and the library's entry points, whose types name the web app's and Spark's classes);
    # the build checks only what it compiles, silently past the rest (``make test`` runs
    # ``mypy --strict`` over everything), so the build needs none of those extras.
    return [*mypycify(["--follow-imports=silent", *COMPILED], opt_level="3"), scan, columns]


# The grammar's home is the top-level ``grammars/`` folder (the project's layout); it is
# shipped as the package ``hhtool.grammars`` by mapping that package to the folder.
setup(
    ext_modules=ext_modules(),
    packages=[*find_packages(include=["hhtool", "hhtool.*"]), "hhtool.grammars"],
    package_dir={"hhtool.grammars": "grammars"},
    package_data={
        "hhtool": ["py.typed"],
        "hhtool.grammars": ["*.lark"],
        "hhtool.web": ["templates/*.html", "static/*.js", "static/*.css"],
        "hhtool.spark": ["log4j2.properties"],
    },
)
