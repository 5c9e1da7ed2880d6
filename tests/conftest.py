"""Shared fixtures and hypothesis settings for the suite, and the build it runs against.

The suite runs against whichever build is installed (docs/architecture.md,
"Building and testing"): the compiled one (``make install``) or the pure one
(``HHTOOL_PURE=1 make install``).  A compiled module older than its source
would run the old code, so before anything imports ``hhtool`` the stale
compiled files are removed (:func:`tests.builds.remove_stale`) and those
modules run from their sources, in this process and in every process a
test starts; ``make install`` compiles them again.  Tests marked
``compiled`` need the compiled parts and are skipped, with the reason,
where they are absent.  ``--build=compiled`` or ``--build=pure`` (what
``make test`` and ``make test-pure`` pass) makes a build other than the one
named a usage error instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.builds import Build, remove_stale
from tests.servegen import SHARED

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
os.environ.setdefault("HHTOOL_SPARK_CDS", "0")  # no class archive written to the user's cache by the suite (tests/test_spark_cds.py turns it on)

ROOT = Path(__file__).resolve().parent.parent
_build: Build | None = None
_shared: Path | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--build",
        choices=("compiled", "pure"),
        default=None,
        help="the build the suite must find installed (make test: compiled; make test-pure: pure)",
    )


def pytest_configure(config: pytest.Config) -> None:
    global _build
    # The commands read room files from $HHTOOL_ROOMS or the user's config folder by default: a developer's own rooms
    # must not change what the tests import and audit, so the run (and every process it starts) sees an empty folder.
    os.environ["HHTOOL_ROOMS"] = tempfile.mkdtemp(prefix="hhtool-test-rooms-")
    # What several test files build alike (tests/servegen.py's database) is built once for the run, in a folder the
    # xdist workers inherit from the process that starts them (a worker has `workerinput`); a fresh one each run.
    global _shared
    if not hasattr(config, "workerinput"):
        _shared = Path(tempfile.mkdtemp(prefix="hhtool-test-shared-"))
        os.environ[SHARED] = str(_shared)
    config.addinivalue_line("markers", "compiled: needs the compiled build (make install): mypyc's modules and the C extensions")
    config.addinivalue_line(
        "markers", "any_build: checks what no build changes (the JVM's class archive, a Spark session's life): run by the compiled build's run, skipped by the pure one's"
    )
    expected = config.getoption("--build")
    build = Build.of(ROOT) if expected == "compiled" else remove_stale(ROOT)
    if expected == "compiled" and (build.stale or not build.complete):
        what = f"older than their sources: {', '.join(build.stale)}" if build.stale else f"missing: {', '.join(build.missing)}"
        pytest.exit(f"--build=compiled, but compiled modules are {what}: run `make install`", returncode=2)
    if expected == "pure" and build.present:
        pytest.exit(f"--build=pure, but compiled modules are installed ({', '.join(build.present)}): run `HHTOOL_PURE=1 make install`", returncode=2)
    _build = build


def pytest_unconfigure(config: pytest.Config) -> None:
    if _shared is not None:
        shutil.rmtree(_shared, ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> str:
    assert _build is not None
    return _build.describe()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    assert _build is not None
    if _build.complete:
        return
    skip = pytest.mark.skip(reason=f"needs the compiled build (make install); this run is {_build.kind()}")
    once = pytest.mark.skip(reason=f"the same in every build: the compiled build's run checks it; this run is {_build.kind()}")
    for item in items:
        if item.get_closest_marker("compiled") is not None:
            item.add_marker(skip)
        elif item.get_closest_marker("any_build") is not None:
            item.add_marker(once)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Said at the end of every run, ``-q`` or not, when the run was not the whole compiled build."""
    if _build is not None and not _build.complete:
        terminalreporter.write_line(_build.describe())
