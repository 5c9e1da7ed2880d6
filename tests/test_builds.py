"""The suite runs on the build it finds: stale compiled files removed, the build named checked (tests/builds.py)."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import Build, compiled_sources, remove_stale

ROOT = Path(__file__).resolve().parent.parent
SO = ".cpython-311-x86_64-linux-gnu.so"


def _tree(root: Path, age: dict[str, int]) -> None:
    """A project with setup.py's lists, two sources and their compiled files, each ``age`` seconds old."""
    (root / "setup.py").write_text(
        'COMPILED = [\n    "hhtool/game/cards.py",\n    "hhtool/replay/engine.py",\n]\nSCAN = "hhtool/_native/_scan.c"\n'
        'COLUMNS = "hhtool/_native/_columns.c"\n',
        encoding="utf-8",
    )
    now = 2_000_000_000
    for name, seconds in age.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")
        os.utime(path, (now - seconds, now - seconds))


def test_setup_lists_are_read_without_running_setup() -> None:
    sources = compiled_sources(ROOT)
    assert "hhtool/replay/engine.py" in sources and "hhtool/_native/_scan.c" in sources
    assert all((ROOT / s).exists() for s in sources)


def test_fresh_compiled_files_are_kept(tmp_path: Path) -> None:
    _tree(tmp_path, {"hhtool/game/cards.py": 20, f"hhtool/game/cards{SO}": 10, "hhtool/_native/_scan.c": 20, f"hhtool/_native/_scan{SO}": 10, f"ab12__mypyc{SO}": 10})
    build = remove_stale(tmp_path)
    assert build.present == ["hhtool/_native/_scan.c", "hhtool/game/cards.py"] and not build.stale and not build.removed
    assert build.missing == ["hhtool/replay/engine.py", "hhtool/_native/_columns.c"] and not build.complete
    assert (tmp_path / f"hhtool/game/cards{SO}").exists() and (tmp_path / f"ab12__mypyc{SO}").exists()


def test_one_stale_module_makes_the_whole_run_pure(tmp_path: Path) -> None:
    """cards.py edited since the build: every compiled file goes (mypyc's modules share one library), the sources stay."""
    _tree(
        tmp_path,
        {
            "hhtool/game/cards.py": 5,
            f"hhtool/game/cards{SO}": 10,
            "hhtool/replay/engine.py": 20,
            f"hhtool/replay/engine{SO}": 10,
            "hhtool/_native/_scan.c": 20,
            f"hhtool/_native/_scan{SO}": 10,
            f"ab12__mypyc{SO}": 10,
        },
    )
    assert Build.of(tmp_path).stale == ["hhtool/game/cards.py"]
    build = remove_stale(tmp_path)
    assert build.removed == ["hhtool/game/cards.py"] and not build.present
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == [
        "hhtool/_native/_scan.c",
        "hhtool/game/cards.py",
        "hhtool/replay/engine.py",
        "setup.py",
    ]
    assert "cards.py changed since `make install`" in build.describe() and "the pure build" in build.describe()


def test_a_build_other_than_the_one_named_is_a_usage_error() -> None:
    """``--build`` names what make installed: the other one stops pytest before any test, exit code 2."""
    other = "pure" if Build.of(ROOT).present else "compiled"
    r = subprocess.run(
        [sys.executable, "-m", "pytest", f"--build={other}", "-p", "no:cacheprovider", "tests/test_builds.py::test_setup_lists_are_read_without_running_setup"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"--build={other}, but compiled modules are" in r.stdout + r.stderr


@pytest.mark.compiled
def test_the_compiled_build_runs_compiled_code() -> None:
    """Every module setup.py compiles is imported from its extension, not its source (a build that silently ran pure would pass the rest)."""
    for source in compiled_sources(ROOT):
        module = importlib.import_module(source.removesuffix(".py").removesuffix(".c").replace("/", "."))
        assert module.__file__ is not None and module.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), source
