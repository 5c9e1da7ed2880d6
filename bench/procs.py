"""What the benchmarks share to watch their processes: the resident memory of a process and its descendants, its own CPU.

Not a benchmark: ``bench/run.py`` skips it.
"""

from __future__ import annotations

import os
import resource


def _tree(pid: int) -> list[int]:
    """``pid`` and every descendant living now (from ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    stack = [pid]
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(children.get(p, []))
    return out


def _field(path: str, name: str) -> int:
    """A ``NAME: N kB`` line of a ``/proc`` file in bytes; 0 when the process or the line is gone."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(name):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants (from ``/proc``): an import's workers, DuckDB's threads.

    A page two processes share (the interpreter's and the libraries' code, what a forked worker has not written)
    is counted once in each: the sum is an upper bound. :func:`tree_memory` gives the proportional figure too.
    """
    return sum(_field(f"/proc/{p}/status", "VmRSS:") for p in _tree(pid))


def tree_memory(pid: int) -> tuple[int, int]:
    """Resident and proportional bytes of ``pid`` and its descendants: the RSS summed, and the PSS summed.

    The PSS (``/proc/PID/smaps_rollup``) counts a page shared by k processes as 1/k in each, so the sum is the
    memory the tree holds, each page once: what the machine loses to it. The RSS sum counts shared pages once
    a process, an upper bound.
    """
    rss = pss = 0
    for p in _tree(pid):
        rss += _field(f"/proc/{p}/status", "VmRSS:")
        pss += _field(f"/proc/{p}/smaps_rollup", "Pss:")
    return rss, pss


def own_cpu() -> float:
    """CPU seconds (user and system) of this process so far, every thread's."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
