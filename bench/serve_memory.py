"""Where the server's memory goes while it auto-imports: DuckDB's share, the rest of its process, its workers.  Never a test.

Run: ``python bench/serve_memory.py [--memory 512MB] [--workers N] [--import-hands 100000]``.

``bench/serve.py`` gives the server's peak with and without its workers;
this says what holds it.  In one process, as ``hhtool serve`` does: the
million-hand database of ``bench/stats.py`` (copied, so that the cached
one stays as it was) opened for writing with DuckDB's memory at
``--memory``, the pages of the ten busiest players drawn (their statistics,
graph and sessions: DuckDB's cache as a server's holds it), then the live
import (:class:`hhtool.store.live.LiveImport`, nice 10, at most
``--workers`` worker processes: ``hhtool serve``'s default) of
``bench/serve.py``'s ``--import-hands`` simulated hands, dropped into its
watched folder at once.  Every 0.25 s: this process's resident and
anonymous memory, DuckDB's own account (``duckdb_memory()``), and the
workers' resident memory; printed: the peak of the whole and its parts at
that moment, the time the import took (wall) and the CPU of this process
and of its workers.
"""

from __future__ import annotations

import argparse
import os
import runpy
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def status_mb(pid: int) -> dict[str, int]:
    """``VmRSS``, ``RssAnon`` and ``VmHWM`` of ``pid`` in MB (0 for a process gone)."""
    out = {"VmRSS": 0, "RssAnon": 0, "VmHWM": 0}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in out:
                    out[key] = int(value.split()[0]) // 1024
    except OSError:
        pass
    return out


def children(parent: int) -> list[int]:
    """The processes whose parent is ``parent`` (the import's workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == parent:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memory", default=None, help="DuckDB's memory limit (default: the server's, hhtool.web.app.MEMORY_LIMIT)")
    ap.add_argument("--workers", type=int, default=None, help="the import's worker processes at most (default: hhtool serve's)")
    ap.add_argument("--import-hands", type=int, default=100_000)
    args = ap.parse_args()

    from hhtool.stats.compute import Filters, compute_on
    from hhtool.store.db import connect
    from hhtool.store.live import LiveImport
    from hhtool.web.app import MEMORY_LIMIT
    from hhtool.web.player import winnings_figure
    from hhtool.web.server import IMPORT_NICE, IMPORT_WORKERS

    memory = args.memory or MEMORY_LIMIT
    workers = IMPORT_WORKERS if args.workers is None else args.workers
    serve = runpy.run_path(str(ROOT / "bench" / "serve.py"))  # its database, its incoming hands
    db, _ = serve["_bench"]("stats").database(1_000_000, 100_000)
    incoming = serve["incoming_files"](args.import_hands, max(2, min(20, args.import_hands // 10000)))
    work = Path(tempfile.mkdtemp(prefix="hhtool-serve-memory-"))
    try:
        copy = work / db.name
        shutil.copy(db, copy)
        con = connect(copy, memory_limit=memory, derived=True)
        cur = con.cursor()
        busiest = [str(r[0]) for r in cur.execute("SELECT player FROM player_totals GROUP BY 1 ORDER BY sum(hands) DESC LIMIT 10").fetchall()]
        for p in busiest:
            compute_on(cur, Filters(players=(p,)))
            winnings_figure(cur, Filters(players=(p,)), p)
        me = os.getpid()
        print(f"DuckDB at {memory}, {workers} worker(s) at most; after the pages: {status_mb(me)}", flush=True)
        peak: dict[str, Any] = {"whole": 0}
        stop = threading.Event()
        sampler = con.cursor()

        def sample() -> None:
            while not stop.wait(0.25):
                mine = status_mb(me)
                theirs = sum(status_mb(k)["VmRSS"] for k in children(me))
                row = sampler.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()
                duck = int(row[0]) // 2**20 if row and row[0] is not None else 0
                if mine["VmRSS"] + theirs > peak["whole"]:
                    peak.update(whole=mine["VmRSS"] + theirs, server=mine["VmRSS"], anonymous=mine["RssAnon"], duckdb=duck, workers=theirs)

        thread = threading.Thread(target=sample, daemon=True)
        thread.start()
        watch = work / "incoming"
        watch.mkdir()
        live = LiveImport(con, [watch], nice=IMPORT_NICE, max_workers=workers)
        live.start()
        started, cpu = time.monotonic(), os.times()
        for path in incoming:  # written whole, then renamed into the folder, as bench/serve.py drops them
            shutil.copy(path, work / path.name)
            (work / path.name).rename(watch / path.name)
        while live.status().hands_stored < args.import_hands and time.monotonic() - started < 1800:
            time.sleep(0.5)
        took = time.monotonic() - started
        live.stop()
        stop.set()
        thread.join()
        after = os.times()
        print(f"{live.status().hands_stored:,} hands stored in {took:.0f} s (wall); CPU: this process "
              f"{after.user + after.system - cpu.user - cpu.system:.0f} s, its workers {after.children_user + after.children_system - cpu.children_user - cpu.children_system:.0f} s")
        print(f"peak {peak['whole']:,} MB: the server {peak['server']:,} MB ({peak['anonymous']:,} MB anonymous, DuckDB's account "
              f"{peak['duckdb']:,} MB), its workers {peak['workers']:,} MB; the server's VmHWM {status_mb(me)['VmHWM']:,} MB")
        con.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
