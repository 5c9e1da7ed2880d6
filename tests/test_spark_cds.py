"""The class archive of a local Spark session's JVM (:mod:`hhtool.spark.cds`): written once, used after, never half-written.

A damaged archive crashes Java at its start (a truncated one gives
SIGBUS), so the archive must come into place only whole: these tests use a
real Java and a real Spark run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from hhtool.spark import cds  # noqa: E402
from hhtool.spark.jvm import JVM_OPTIONS, java_available  # noqa: E402

from tests.storegen import write_files  # noqa: E402

pytestmark = [pytest.mark.skipif(not java_available(), reason="Spark needs Java"), pytest.mark.any_build]


def _small_archive(tmp_path: Path) -> Path:
    """A real (small) dynamic class archive: the classes ``java -version`` loads."""
    path = tmp_path / "small.jsa"
    java = cds._java()
    assert java is not None
    subprocess.run([java, f"-XX:ArchiveClassesAtExit={path}", "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-version"], check=True, capture_output=True)
    assert path.stat().st_size > 0
    return path


def test_a_truncated_archive_is_never_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Java starts with a whole archive and crashes on a truncated one: the check before an archive is promoted tells them
    apart, and the crashed JVM's report is not left in the caller's folder."""
    whole = _small_archive(tmp_path)
    cut = tmp_path / "cut.jsa"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 3])
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)
    assert cds._starts(whole)
    assert not cds._starts(cut)
    assert list(here.iterdir()) == []


def test_the_archive_is_off_on_request_and_keyed_by_the_jvm_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(cds.OFF, "0")
    assert cds.options(JVM_OPTIONS) == cds.Archive("")
    monkeypatch.setenv(cds.OFF, "1")
    first = cds.options(JVM_OPTIONS)
    assert first.pending is not None and first.final is not None and "ArchiveClassesAtExit" in first.java_options
    assert first.final.parent == tmp_path / "hhtool" / "spark-cds"
    assert cds.options(JVM_OPTIONS + " -Xss2m").final != first.final  # other options, another archive
    first.final.write_bytes(b"")  # a promoted archive is used
    assert f"-XX:SharedArchiveFile={first.final}" in cds.options(JVM_OPTIONS).java_options


def test_the_first_run_writes_the_archive_and_the_next_one_uses_it(tmp_path: Path) -> None:
    """Two runs of ``python -m hhtool.spark`` on a fresh cache: the first leaves one whole archive (no temporary file), the
    second starts with it and commits the same hands."""
    folder = tmp_path / "in"
    write_files(folder, 2, 4, prefix="C")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), cds.OFF: "1"}
    archives = tmp_path / "cache" / "hhtool" / "spark-cds"
    outs = []
    for n in (1, 2):
        run = subprocess.run(
            [sys.executable, "-m", "hhtool.spark", str(folder), "--out", str(tmp_path / f"lake{n}"), "--master", "local[1]"],
            capture_output=True, text=True, env=env, timeout=600,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        outs.append([line for line in run.stdout.splitlines()[1:] if not line.startswith("time:")])  # the output folder, the time differ
        names = sorted(p.name for p in archives.iterdir())
        assert len(names) == 1 and names[0].endswith(".jsa"), names
        assert cds._starts(archives / names[0])
    assert outs[0] == outs[1]


def test_a_killed_dump_is_swept_away(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run killed while its JVM dumped leaves a temporary file: the next run that writes an archive removes it once stale."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(cds.OFF, "1")
    folder = tmp_path / "hhtool" / "spark-cds"
    folder.mkdir(parents=True)
    old, young = folder / "x.1.tmp", folder / "x.2.tmp"
    old.write_bytes(b"half")
    young.write_bytes(b"half")
    os.utime(old, (0, 0))
    cds.options(JVM_OPTIONS)
    assert not old.exists() and young.exists()
