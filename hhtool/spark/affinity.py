"""A local run's Python workers, each kept on a CPU of its own while it runs a task (Linux).

A Python worker of the import blocks many times a second: on its socket
to the JVM, and on polars' and Arrow's own threads, to which every frame
operation is handed.  Each time it wakes, Linux may move it to whichever
CPU is idle at that moment, where it starts with cold caches; on a
virtual machine waking another CPU is itself costly (the interrupt
between CPUs goes through the hypervisor).  With one task at a time on
two CPUs, a worker free to move took 21 µs a hand of system time, one
kept on a CPU of its own 8 to 10; with every CPU busy the gain is a few
µs a hand (``docs/scale.md``).

So in local mode each task's worker claims one CPU of those it may run
on (the one it runs on first, if no other worker holds it) and keeps
itself, every thread included, on it until the task ends; then it gets
its CPUs back.  A claim is an exclusive ``flock`` on a file named after
the CPU, so workers of any run on this machine, of this user, never
share one, and a worker that dies loses its claim with it.  A worker that
finds every CPU claimed runs as before.  On a cluster nothing is claimed:
there the cores belong to the resource manager, not to one job; nor when
``HHTOOL_SPARK_OWN_CPU=0`` (:data:`OFF`) is set where the run starts.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

OFF = "HHTOOL_SPARK_OWN_CPU"
"""The environment variable that leaves a local run's workers to the scheduler (``0``, ``no``, ``off``, ``false``)."""


def wanted(master: str | None) -> bool:
    """Whether a run on ``master`` keeps its workers each on a CPU of its own: local mode, unless :data:`OFF` says not to."""
    from hhtool.spark.switches import on

    return (master or "").startswith("local") and on(OFF)


def _folder() -> Path:
    """Where the claims live: one folder per user under the temporary folder (claims of other users' runs are theirs)."""
    return Path(tempfile.gettempdir()) / f"hhtool-cpus-{os.getuid()}"


def _current_cpu() -> int | None:
    """The CPU this thread runs on now (``/proc/thread-self/stat``, field 39), None where it cannot be read."""
    try:
        with open("/proc/thread-self/stat") as f:
            stat = f.read()
        return int(stat[stat.rfind(")") + 2 :].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def _claim(cpus: set[int]) -> tuple[int, int] | None:
    """One of ``cpus`` that no other worker holds: ``(cpu, the claim's open file)``, the current CPU first; None if all are held."""
    import fcntl

    import stat

    folder = _folder()
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        return None  # a link, or a folder another user made or may write in (the temporary folder is shared): no claims
    current = _current_cpu()
    order = ([current] if current in cpus else []) + sorted(cpus - {current})
    for cpu in order:
        try:
            fd = os.open(folder / f"cpu-{cpu}", os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
        except OSError:
            return None  # a folder this user cannot write in, or a link in it: no claims at all
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return cpu, fd
    return None


def _confine(cpus: set[int]) -> None:
    """Every thread of this process on ``cpus`` (a thread that ends meanwhile is passed by)."""
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:
            continue


@contextmanager
def own_cpu(local: bool) -> Iterator[int | None]:
    """Keep this process on a CPU of its own for the ``with`` block, when ``local`` (a local-mode task); yields the CPU or None.

    Nothing changes (None) on a cluster, on a system without
    ``sched_setaffinity``, with fewer than two CPUs to choose from, or
    when every CPU is held by another worker.
    """
    if not local or not hasattr(os, "sched_setaffinity") or not os.path.isdir("/proc/self/task"):
        yield None
        return
    allowed = os.sched_getaffinity(0)
    claim = _claim(allowed) if len(allowed) > 1 else None
    if claim is None:
        yield None
        return
    cpu, fd = claim
    try:
        _confine({cpu})
        yield cpu
    finally:
        try:
            _confine(allowed)
        finally:
            os.close(fd)  # the claim ends with its file


def confined(local: bool, rows: Iterator[T]) -> Generator[T, None, None]:
    """``rows`` (a task's output, made as it is read) made on a CPU of this process's own when ``local`` (:func:`own_cpu`)."""
    with own_cpu(local):
        yield from rows
