"""Spark import benchmark: ``hhtool spark-import`` on local[1] and local[2] against ``hhtool import`` on the same cores.  Never a test.

Run: ``python bench/spark.py [--hands 200000] [--files 20]``.

Input: ``--files`` files of simulated hands (``bench/import.py``'s cache,
the profiles and structures cycling).  In one run, each as a subprocess
on a new output:

* ``hhtool import DIR --workers 1`` and ``--workers 2`` (DuckDB);
* ``python -m hhtool.spark DIR --master local[1]`` and ``local[2]``.

Printed: hands/s of each, end to end (the process's wall time: for
Spark, the JVM's start included) and, for Spark, of the job alone (the
summary's ``seconds``, from the session to the commit); the rate per core
against DuckDB's (goal >= 60 %) and local[2] against local[1] (goal >=
1.7 x); and the load average before and after, since other work on the
machine takes cores from both.  Beside the wall-clock rates, the CPU
time of each run's whole process tree (the driver, Spark's JVM, its Python
workers; DuckDB's writer and worker processes), whatever other jobs take
of the cores: a thread reads ``/proc/PID/stat`` of every descendant every
0.5 s and keeps each one's last figure (Linux).  Waiting for the processes
would not do: Spark's Python daemon ignores ``SIGCHLD``, so its workers'
time reaches no parent's ``RUSAGE_CHILDREN``; this process is made the
reaper of the orphans (``PR_SET_CHILD_SUBREAPER``) so that a JVM that
outlives its driver stays in the tree.  A process's last 0.5 s before it
ends is missed.  Printed: microseconds of CPU a hand, and CPU / wall, the
cores a run kept busy (local[1]'s JVM works beside its Python worker, so
it uses more than one).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux): they stay in the tree whose CPU is sampled."""
    try:
        import ctypes

        return int(ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


class TreeCPU:
    """The CPU seconds of this process's descendants, sampled from ``/proc`` while a run goes on (Linux; None elsewhere)."""

    def __init__(self) -> None:
        import threading

        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self.last: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _tree(self) -> dict[int, float]:
        parents: dict[int, list[tuple[int, float]]] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            parents.setdefault(int(fields[1]), []).append((int(name), (int(fields[11]) + int(fields[12])) / self.tick))
        out: dict[int, float] = {}
        todo = [os.getpid()]
        while todo:
            for pid, cpu in parents.get(todo.pop(), []):
                out[pid] = cpu
                todo.append(pid)
        return out

    def _run(self) -> None:
        while True:
            self.last.update(self._tree())
            if self.stop.wait(0.5):
                return

    def __enter__(self) -> TreeCPU:
        if os.path.isdir("/proc/self"):
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()

    @property
    def seconds(self) -> float | None:
        return sum(self.last.values()) if self.thread.ident is not None else None


def _input(hands: int, files: int) -> Path:
    spec = importlib.util.spec_from_file_location("bench_import", ROOT / "bench" / "import.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder, _source = module.make_input(hands, files)
    return Path(folder)


def _timed(cmd: list[str], reaper: bool) -> tuple[float, float | None, dict[str, Any]]:
    """The run's wall time, the CPU seconds of its whole process tree (None when they cannot be counted), its JSON summary."""
    with TreeCPU() as tree:
        t0 = time.monotonic()
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.monotonic() - t0
        while reaper:  # the orphans (Spark's JVM outlives its driver by a moment) end in the tree, and are counted
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
    cpu = tree.seconds
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    line = [x for x in done.stdout.splitlines() if x.startswith("{")][-1]
    return wall, cpu, json.loads(line)


def _result(hands: int, wall: float, cpu: float | None) -> dict[str, float]:
    out = {"hands": hands, "wall": wall, "rate": hands / wall}
    if cpu is not None:
        out.update(cpu=cpu, cpu_us=cpu / hands * 1e6, cores=cpu / wall)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--files", type=int, default=20)
    args = ap.parse_args()
    folder = _input(args.hands, args.files)
    reaper = _subreaper()
    load_before = os.getloadavg()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="hhtool-bench-spark-") as tmp:
        for workers in (1, 2):
            db = Path(tmp) / f"duck{workers}.duckdb"
            wall, cpu, s = _timed([str(BIN / "hhtool"), "import", str(folder), "--db", str(db), "--workers", str(workers), "--json"], reaper)
            results[f"duckdb workers={workers}"] = _result(s["hands"], wall, cpu)
        for cores in (1, 2):
            out = Path(tmp) / f"lake{cores}"
            wall, cpu, s = _timed([sys.executable, "-m", "hhtool.spark", str(folder), "--out", str(out), "--master", f"local[{cores}]", "--json"], reaper)
            results[f"spark local[{cores}]"] = {**_result(s["hands"], wall, cpu), "job": s["seconds"], "job_rate": s["hands"] / s["seconds"]}
    load_after = os.getloadavg()
    print(f"{args.hands:,} simulated hands in {args.files} files; {os.cpu_count()} cores; load average before {load_before[0]:.1f}, after {load_after[0]:.1f}")
    for name, r in results.items():
        job = f", job alone {r['job']:.1f} s ({r['job_rate']:,.0f} hands/s)" if "job" in r else ""
        print(f"  {name:<20} {r['hands']:>9,} hands  {r['wall']:7.1f} s  {r['rate']:8,.0f} hands/s end to end{job}")
        if "cpu" in r:
            print(f"  {'':<20} CPU of the process tree {r['cpu']:7.1f} s: {r['cpu_us']:5,.0f} µs a hand, {r['cores']:.2f} cores busy on average")
    duck1 = results["duckdb workers=1"]["rate"]
    s1, s2 = results["spark local[1]"], results["spark local[2]"]
    print(f"  Spark per core / DuckDB per core: {s1['rate'] / duck1:.0%} end to end, {s1['job_rate'] / duck1:.0%} job alone (goal >= 60 %)")
    print(f"  local[2] / local[1]: {s2['rate'] / s1['rate']:.2f} x end to end, {s2['job_rate'] / s1['job_rate']:.2f} x job alone (goal >= 1.7 x)")
    if "cpu" in s1:
        d1 = results["duckdb workers=1"]
        print(f"  CPU a hand, Spark local[1] / DuckDB workers=1: {s1['cpu_us'] / d1['cpu_us']:.2f} x ({s1['cpu_us']:,.0f} / {d1['cpu_us']:,.0f} µs)")
    else:
        print("  CPU of the process trees: not counted (needs Linux's /proc)")
    print(json.dumps({"hands": args.hands, "load_before": load_before, "load_after": load_after, "results": results}))


if __name__ == "__main__":
    main()
