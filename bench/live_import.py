"""The live import of ``hhtool serve`` against ``hhtool import``, per core, on the same files.  Never a test.

Run: ``python bench/live_import.py [--hands 100000] [--files 10] [--rounds 2] [--workers 1,2] [--threads | --statements [--no-derived]]``.

Issue 44 asks for the live import at least as fast per core as the
import.  Both read ``bench/import.py``'s cached files (``--hands``,
``--files``) into a new database, each in a subprocess of its own whose
CPU (its own and every worker's, ``RUSAGE_CHILDREN``) is the figure:

* **import**: ``python -m hhtool.cli import DIR --db NEW --json``, one
  worker a core;
* **live, N workers**: a process that does what ``hhtool serve`` does on
  start: the database opened as the server opens it
  (``hhtool.web.app``'s memory limit, the derived tables the server's
  pages read kept up to date), a :class:`~hhtool.store.live.LiveImport`
  on a watched folder with the server's nice value, at most ``N`` worker
  processes (``hhtool serve`` runs 1), then the files written beside the
  folder and renamed into it at once, as a room's client drops them; it
  stops when every hand is stored.

``--threads`` runs instead the import and one live import for each
``--workers`` count, once each, and prints the CPU of every process and of
every thread of the writing one (``/proc/PID/task/*/stat``, sampled every
0.1 s; Python's threads by name, DuckDB's and polars' unnamed): where the
live import's CPU goes beyond the import's.

``--statements`` runs instead one live import with one worker (as
``hhtool serve``) and prints the server process's CPU, its workers', and
each statement of the derived tables' upkeep
(:func:`hhtool.store.totals.add_derived`) with its count, wall time and
the process's CPU while it ran (every thread of it: DuckDB's too), the
costliest first; ``--no-derived`` runs that import without the derived
tables, for the difference.

Printed a round, each run's wall time, hands/s, CPU of every process a
hand and hands a CPU-second (the rate per core); the runs alternate
within a round.  Last, every table both keep (``tests.test_import_identical``'s
fingerprint: row counts and a digest of the sorted rows, the paths
relative to each run's folder, each hand's number read as its site and
id: the live import takes the files as they come; ``files.open_from``
left out: the two set it on different grounds, docs/live.md) is compared between the import and
each live run of the last round: the same hands, stored alike.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import runpy
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_LIVE = r"""
import json, shutil, sys, time
from pathlib import Path
from hhtool.store.live import LiveImport
from hhtool.web.app import open_database
from hhtool.web.server import IMPORT_NICE

source, work, db, workers, total = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
con = open_database(db)
watch = work / "incoming"
watch.mkdir()
live = LiveImport(con, [watch], nice=IMPORT_NICE, max_workers=workers)
live.start()
started = time.monotonic()
for path in sorted(p for p in source.iterdir() if not p.name.startswith(".")):
    shutil.copy(path, work / path.name)
    (work / path.name).rename(watch / path.name)
while live.status().hands_stored < total and time.monotonic() - started < 1800:
    time.sleep(0.05)
took = time.monotonic() - started
live.stop()
con.close()
print(json.dumps({"stored": live.status().hands_stored, "seconds": took}))
"""

_STATEMENTS = r"""
import json, resource, shutil, sys, time
from collections import defaultdict
from pathlib import Path
import hhtool.store.importer as importer
import hhtool.store.writer as writer
from hhtool.store import totals
from hhtool.store.live import LiveImport
from hhtool.web.app import open_database
from hhtool.web.server import IMPORT_NICE

source, work, db, total, derived = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
spent = defaultdict(lambda: [0, 0.0, 0.0])  # statement -> count, wall, process CPU

class Timed:
    def __init__(self, con):
        self.con = con
    def execute(self, sql, params=None):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return self.con.execute(sql, params) if params is not None else self.con.execute(sql)
        finally:
            s = spent[" ".join(sql.split())[:72]]
            s[0] += 1; s[1] += time.perf_counter() - t0; s[2] += time.process_time() - c0
    def __getattr__(self, name):
        return getattr(self.con, name)

add = totals.add_derived
writer.add_derived = lambda con, first, last, *rest: add(Timed(con), first, last, *rest)
if not derived:
    run = importer.import_files
    importer.import_files = lambda *a, **k: run(*a, **{**k, "derived": False})
con = open_database(db)
watch = work / "incoming"
watch.mkdir()
live = LiveImport(con, [watch], nice=IMPORT_NICE, max_workers=1)
live.start()
cpu0 = time.process_time()
started = time.monotonic()
for path in sorted(p for p in source.iterdir() if not p.name.startswith(".")):
    shutil.copy(path, work / path.name)
    (work / path.name).rename(watch / path.name)
while live.status().hands_stored < total and time.monotonic() - started < 1800 and not live.status().errors:
    time.sleep(0.05)
cpu = time.process_time() - cpu0
live.stop()
con.close()
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"stored": live.status().hands_stored, "errors": live.status().errors, "server": cpu,
                  "workers": children.ru_utime + children.ru_stime, "statements": sorted(([k, *v] for k, v in spent.items()), key=lambda r: -r[3])}))
"""


_NAMES = r"""
import atexit, json, os, threading, time
_names = {}
def _look():
    while True:
        _names.update((t.native_id, t.name) for t in threading.enumerate() if t.native_id is not None)
        time.sleep(0.05)
threading.Thread(target=_look, name="bench-names", daemon=True).start()
def _save():
    _names.update((t.native_id, t.name) for t in threading.enumerate() if t.native_id is not None)
    with open(os.environ["HHTOOL_BENCH_NAMES"], "w") as f:
        json.dump(_names, f)
atexit.register(_save)
"""

_IMPORT = r"""
import runpy, sys
sys.argv = ["hhtool", "import", sys.argv[1], "--db", sys.argv[2], "--json"]
runpy.run_module("hhtool.cli", run_name="__main__")
"""


def _task_cpu(pid: int) -> dict[int, float]:
    """The CPU seconds of each thread of process ``pid`` so far (none once it has ended)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return out


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for tid in _task_cpu(pid):
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def threads(folder: Path, workers: list[int]) -> None:
    """``--threads``: the import and a live import for each of ``workers``, the CPU of each process and of each thread of the writing one."""
    tmp = Path(tempfile.mkdtemp(prefix="hhtool-live-bench-"))
    try:
        total = 0
        for name in ["import", *(f"live, {w} worker{'s' if w > 1 else ''}" for w in workers)]:
            names = tmp / "names.json"
            if name == "import":
                args = [sys.executable, "-c", _NAMES + _IMPORT, str(folder), str(tmp / "import.duckdb")]
            else:
                work = tmp / name.replace(", ", "-").replace(" ", "")
                work.mkdir()
                args = [sys.executable, "-c", _NAMES + _LIVE, str(folder), str(work), str(tmp / f"{work.name}.duckdb"), name.split()[1], str(total)]
            cpu = _children_cpu()
            p = subprocess.Popen(args, cwd=ROOT, env={**os.environ, "HHTOOL_BENCH_NAMES": str(names)}, stdout=subprocess.PIPE, text=True)
            seen: dict[int, float] = {}  # the writing process's threads
            kids: dict[int, float] = {}  # its child processes, every thread
            while p.poll() is None:
                seen.update(_task_cpu(p.pid))
                for kid in _children(p.pid):
                    kids[kid] = sum(_task_cpu(kid).values()) or kids.get(kid, 0.0)
                time.sleep(0.1)
            out = p.stdout.read() if p.stdout is not None else ""
            used = _children_cpu() - cpu
            if p.returncode:
                raise SystemExit(f"{name}: exit status {p.returncode}")
            got = json.loads(out.strip().splitlines()[-1])
            stored = int(got["stored"])
            total = total or stored
            called = {int(k): v for k, v in json.loads(names.read_text()).items()}
            called[p.pid] = "MainThread"
            print(f"{name}: {stored:,} hands, {used:.2f} s of CPU ({used / max(1, stored) * 1e6:.0f} µs a hand); the writing process "
                  f"{sum(seen.values()):.2f} s, its child processes {sum(kids.values()):.2f} s ({', '.join(f'{c:.2f}' for c in kids.values() if c >= 0.05)}), "
                  f"{max(0.0, used - sum(seen.values()) - sum(kids.values())):.2f} s unsampled (threads' last 0.1 s)")
            unnamed = sorted((c for t, c in seen.items() if t not in called and c >= 0.01), reverse=True)
            for tid, c in sorted(((t, c) for t, c in seen.items() if t in called), key=lambda x: -x[1]):
                if c >= 0.01 and called[tid] != "bench-names":
                    print(f"  {called[tid]:<30} {c:6.2f} s")
            print(f"  {'unnamed (DuckDB, polars)':<30} {sum(unnamed):6.2f} s in {len(unnamed)} thread(s): {', '.join(f'{c:.2f}' for c in unnamed[:6])}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def statements(folder: Path, total: int, derived: bool) -> None:
    """``--statements``: one live import of ``folder``, the CPU of its processes and of each statement of the derived tables' upkeep."""
    tmp = Path(tempfile.mkdtemp(prefix="hhtool-live-bench-"))
    try:
        out = subprocess.run([sys.executable, "-c", _STATEMENTS, str(folder), str(tmp), str(tmp / "live.duckdb"), str(total), "1" if derived else "0"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    got = json.loads(out.strip().splitlines()[-1])
    print(f"{got['stored']:,} hands stored{' (errors: ' + '; '.join(got['errors']) + ')' if got['errors'] else ''}; "
          f"the server process {got['server']:.2f} s of CPU ({got['server'] / max(1, got['stored']) * 1e6:.0f} µs a hand), "
          f"its worker {got['workers']:.2f} s; the derived tables' statements{'' if derived else ' (none: --no-derived)'}:")
    for sql, n, wall, cpu in got["statements"]:
        print(f"  {n:4d} × {wall:6.2f} s wall, {cpu:6.2f} s CPU: {sql}")
    print(f"  all of them: {sum(r[3] for r in got['statements']):.2f} s CPU ({sum(r[3] for r in got['statements']) / max(1, got['stored']) * 1e6:.1f} µs a hand)")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_import(folder: Path, db: Path) -> dict[str, float]:
    """``hhtool import`` of ``folder`` into the new ``db``: stored hands, wall seconds, CPU seconds of its whole tree."""
    cpu, t0 = _children_cpu(), time.monotonic()
    out = subprocess.run([sys.executable, "-m", "hhtool.cli", "import", str(folder), "--db", str(db), "--json"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    wall, used = time.monotonic() - t0, _children_cpu() - cpu
    stored = int(json.loads(out)["stored"])
    return {"stored": stored, "wall": wall, "cpu": used}


def run_live(folder: Path, work: Path, db: Path, workers: int, total: int) -> dict[str, float]:
    """The server's live import of ``folder``'s files dropped into a watched folder under ``work``; as :func:`run_import`.

    The wall time is the live import's, from the first file dropped to the last hand stored (the
    process's start, opening the database and the watcher's are not in it); the CPU is the whole
    process's, its start included, which the import's figure includes too.
    """
    cpu = _children_cpu()
    out = subprocess.run([sys.executable, "-c", _LIVE, str(folder), str(work), str(db), str(workers), str(total)],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    used = _children_cpu() - cpu
    got = json.loads(out.strip().splitlines()[-1])
    return {"stored": int(got["stored"]), "wall": float(got["seconds"]), "cpu": used}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--workers", default="1,2", help="the live import's worker processes at most, one run each a round")
    ap.add_argument("--statements", action="store_true", help="one live import: the CPU of each statement of the derived tables' upkeep")
    ap.add_argument("--no-derived", action="store_true", help="with --statements: the live import without the derived tables")
    ap.add_argument("--threads", action="store_true", help="the import and a live import for each --workers, once: the CPU of each process and thread")
    args = ap.parse_args()
    workers = [int(w) for w in args.workers.split(",") if w]
    if args.threads:
        threads(runpy.run_path(str(ROOT / "bench" / "import.py"))["make_input"](args.hands, args.files)[0], workers)
        return
    if args.statements:
        statements(runpy.run_path(str(ROOT / "bench" / "import.py"))["make_input"](args.hands, args.files)[0], args.hands, not args.no_derived)
        return

    from tests.test_import_identical import SKIPPED, fingerprint

    folder, _ = runpy.run_path(str(ROOT / "bench" / "import.py"))["make_input"](args.hands, args.files)
    print(f"{args.hands:,} hands in {args.files} files ({folder}); the live import as hhtool serve runs it, at most {workers} worker(s)")
    rates: dict[str, list[float]] = {}
    last: dict[str, tuple[Path, Path]] = {}
    tmp = Path(tempfile.mkdtemp(prefix="hhtool-live-bench-"))
    try:
        for r in range(args.rounds):
            runs: list[tuple[str, Path, Path]] = [("import", folder, tmp / f"import-{r}.duckdb")]
            runs += [(f"live, {w} worker{'s' if w > 1 else ''}", tmp / f"live-{w}-{r}", tmp / f"live-{w}-{r}.duckdb") for w in workers]
            total = 0
            for name, where, db in runs:
                if name == "import":
                    got = run_import(where, db)
                    total = int(got["stored"])
                else:
                    where.mkdir()
                    got = run_live(folder, where, db, int(name.split()[1]), total)
                    where = where / "incoming"
                per = got["cpu"] / max(1, got["stored"])
                rates.setdefault(name, []).append(1 / per)
                print(f"round {r + 1}, {name:<17} {got['stored']:>8,.0f} hands in {got['wall']:6.1f} s: {got['stored'] / got['wall']:7,.0f} hands/s, "
                      f"{per * 1e6:5.0f} µs of CPU a hand, {1 / per:6,.0f} hands a CPU-second", flush=True)
                last[name] = (db, where)
        print("hands a CPU-second (the rate per core), median and spread over the rounds:")
        base = statistics.median(rates["import"])
        for name, rate in rates.items():
            print(f"  {name:<17} {statistics.median(rate):6,.0f} ({min(rate):,.0f}–{max(rate):,.0f}): {statistics.median(rate) / base:.2f} of the import's")
        # files.open_from differs by design: the import marks a file whose last hand has no blank line after it, the
        # live import one whose last hand did not parse once the file stopped changing (docs/live.md)
        skipped = SKIPPED | {"open_from"}
        reference = fingerprint(*last["import"], skipped, by_hand=True)
        for name, (db, where) in last.items():
            if name != "import":
                theirs = fingerprint(db, where, skipped, by_hand=True)
                differ = sorted(t for t in reference if theirs.get(t) != reference[t])
                print(f"  {name}: every table as the import stored it: {'yes' if not differ else 'NO: ' + ', '.join(differ)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
