"""A class archive of Spark's JVM (Java's AppCDS), so that a local session starts in half the time.

A local Spark session's JVM loads about 16,000 classes from PySpark's
280 jars, parsing and verifying each, before the first task runs: about
two thirds of the time until the first job, all of it work one core does
while the other waits (``docs/scale.md``).  Java 17 can keep the classes
a run loaded in an archive (``-XX:ArchiveClassesAtExit``) and map them on
the next start (``-XX:SharedArchiveFile``): on the benchmark's machine the
start of a session and its first query went from 11.5 to 5.8 s.

The first local session of an installation writes the archive
(:func:`options` asks for it; the JVM dumps the classes when it exits,
which it does once the session has stopped and its input is closed, and
:func:`finish` waits for that); later sessions use it.  Two dangers, both kept out:

* **a damaged archive crashes the JVM** (a truncated one gives SIGBUS at
  the start, whatever the options): the JVM dumps into a temporary file,
  which becomes the archive only once the JVM has exited cleanly and a
  JVM has started with it (``java -version``); a run killed midway leaves
  a temporary file, never an archive;
* **a stale archive**: its name is a hash of the Java installation, the
  jars (names, sizes, times) and the JVM options, so another PySpark or
  Java finds none and writes its own (Java itself also checks the jars'
  sizes and times, and ignores an archive that does not match them).

``HHTOOL_SPARK_CDS=0`` turns it off; the archives live under
``$XDG_CACHE_HOME/hhtool/spark-cds`` (``~/.cache`` by default), about
150 MB each.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OFF = "HHTOOL_SPARK_CDS"
"""The environment variable that turns the archive off (``0``, ``no``, ``off``, ``false``)."""


@dataclass(frozen=True, slots=True)
class Archive:
    """What :func:`options` chose for a session: the JVM options, and the temporary file to promote when it dumps one."""

    java_options: str
    pending: Path | None = None  # the JVM dumps here at its exit; promoted to ``final`` by finish()
    final: Path | None = None


def _folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hhtool" / "spark-cds"


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def _key(java: str, jvm_options: str) -> str:
    """A hash of what an archive depends on: the Java installation, PySpark's jars, the JVM options."""
    import pyspark

    digest = hashlib.sha256()
    real = os.path.realpath(java)
    digest.update(real.encode())
    for lib in sorted(Path(real).parent.parent.glob("lib/server/libjvm.so")):
        st = lib.stat()
        digest.update(f"{lib}:{st.st_size}:{st.st_mtime_ns}".encode())
    digest.update(str(pyspark.__version__).encode())
    jars = Path(pyspark.__file__).parent / "jars"
    for jar in sorted(jars.glob("*.jar")):
        st = jar.stat()
        digest.update(f"{jar}:{st.st_size}:{st.st_mtime_ns}".encode())
    digest.update(jvm_options.encode())
    return digest.hexdigest()[:24]


def _enabled() -> bool:
    from hhtool.spark.switches import on

    return on(OFF)


def options(jvm_options: str) -> Archive:
    """The options that use this installation's archive, or that ask the JVM to write it (none when it cannot be)."""
    java = _java()
    if not _enabled() or java is None:
        return Archive("")
    try:
        folder = _folder()
        final = folder / f"{_key(java, jvm_options)}.jsa"
        if final.is_file():
            return Archive(f"-XX:SharedArchiveFile={final} -Xlog:cds=off -Xlog:cds+dynamic=off", None, final)
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK):
            return Archive("")
    except (OSError, ImportError):
        return Archive("")
    _sweep(folder)
    pending = folder / f"{final.stem}.{os.getpid()}.tmp"
    return Archive(f"-XX:ArchiveClassesAtExit={pending} -Xlog:cds=off -Xlog:cds+dynamic=off", pending, final)


STALE = 3600.0
"""Seconds after which a temporary file of a dump is a run's that was killed: removed by the next run that writes one."""


def _sweep(folder: Path) -> None:
    """Remove what killed runs left: temporary dumps older than :data:`STALE` (a running dump's file is younger)."""
    import time

    for tmp in folder.glob("*.tmp"):
        try:
            if time.time() - tmp.stat().st_mtime > STALE:
                tmp.unlink()
        except OSError:
            continue


def finish(archive: Archive, proc: Any) -> None:
    """After a run's session has stopped and its JVM was told to end: wait for it, then promote the archive it dumped.

    ``proc``: the JVM's process (``subprocess.Popen``), which dumps the
    classes as it exits; None when the session had no JVM of this process's
    own.  The archive is kept only if the JVM exited cleanly and a JVM
    starts with it; anything else is removed.  Without an archive to
    write, the JVM is waited for on a thread of its own (it is not left a
    zombie in a process that goes on).
    """
    if proc is None:
        return
    if archive.pending is None or archive.final is None:
        import threading

        threading.Thread(target=proc.wait, name="hhtool-jvm-exit", daemon=True).start()
        return
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = -1
    try:
        if code == 0 and archive.pending.is_file() and _starts(archive.pending):
            os.replace(archive.pending, archive.final)
    finally:
        archive.pending.unlink(missing_ok=True)


def _starts(path: Path) -> bool:
    """Whether a JVM starts with the archive at ``path`` (a damaged one crashes it).

    A crashed JVM writes its report (``hs_err_pid<N>.log``) into its working
    folder: this one runs in a temporary folder, its report sent there too, so
    that the check of a damaged archive leaves nothing in the user's folder.
    """
    import tempfile

    java = _java()
    if java is None:
        return False
    with tempfile.TemporaryDirectory(prefix="hhtool-cds-check-") as scratch:
        try:
            run = subprocess.run(
                [java, f"-XX:SharedArchiveFile={path}", f"-XX:ErrorFile={scratch}/hs_err_pid%p.log",
                 "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-version"],
                capture_output=True, timeout=60, check=False, cwd=scratch,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    return run.returncode == 0
