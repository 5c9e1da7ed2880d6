"""What the benchmarks share to watch their processes: the resident memory of a process and its descendants, its own CPU.

Not a benchmark: ``bench/run.py`` skips it.
"""

from __future__ import annotations

import os
import resource


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants (from ``/proc``): an import's workers, DuckDB's threads."""
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
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
        stack.extend(children.get(p, []))
    return total


def own_cpu() -> float:
    """CPU seconds (user and system) of this process so far, every thread's."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
