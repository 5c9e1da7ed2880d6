"""The import's writer alone: its CPU a hand for a given transaction size, on one process.  Never a test.

Run: ``python bench/writer.py [--per-file 1000] [--copies 10] [--batch 10000 40000] [--rounds 2]``.

The chunk results are made once, as a worker makes them (``process_chunk``),
from the first ``--per-file`` hands of each of ``bench/import.py``'s cached
files (run it first); then, for each ``--batch`` (hands a transaction) in
turn, ``--rounds`` times, a new database is written with ``--copies`` of them
(hand ids made unique) by :class:`hhtool.store.writer.Writer` as the import
drives it (DuckDB on one thread, ``memory_limit`` 256 MB), and closed with
every thread (its last checkpoint).  Printed: the CPU of the process a hand,
the writer's and the close's, and the database's size.  What it isolates is
DuckDB's storage work, which depends on how many rows a transaction appends
(docs/performance.md, "Import").
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from procs import own_cpu as cpu  # bench/, this script's folder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", type=Path, default=ROOT / "bench" / ".cache" / "import-100000-10")
    ap.add_argument("--per-file", type=int, default=1_000)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--batch", type=int, nargs="+", default=[10_000, 20_000, 40_000])
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    os.environ.setdefault("POLARS_MAX_THREADS", "1")  # as in a worker process
    import polars as pl

    from hhtool.store.db import connect
    from hhtool.store.summary import ImportSummary
    from hhtool.store.worker import ChunkResult, ChunkTask, process_chunk
    from hhtool.store.writer import Writer

    results = []
    for k, f in enumerate(sorted(p for p in args.folder.iterdir() if not p.name.startswith("."))):
        data = f.read_bytes()
        cut = 0
        for _ in range(args.per_file):
            cut = data.index(b"\n\n", cut) + 2
        results.append(process_chunk(ChunkTask(k, 0, str(f), data[:cut], 0, False)))
    feed = []
    for c in range(args.copies):
        for r in results:
            fr = dict(r.frames)
            fr["hands"] = fr["hands"].with_columns(pl.col("hand_id") + f"-{c}")
            feed.append(ChunkResult(r.unit, r.index, fr, hands=r.hands))
    hands = sum(r.hands for r in feed)
    print(f"{hands:,} hands: {args.copies} copies of {len(results)} chunk results of {args.per_file:,} hands")
    for _ in range(args.rounds):
        for batch in args.batch:
            tmp = Path(tempfile.mkdtemp(prefix="hhbench-"))
            try:
                con = connect(tmp / "w.duckdb", memory_limit="256MB")
                con.execute("SET threads = 1")  # as an import with workers runs its writer
                writer = Writer(con, ImportSummary(), batch_hands=batch)
                t0 = cpu()
                for r in feed:
                    writer.add(r, None)
                writer.flush()
                t1 = cpu()
                con.execute("RESET threads")  # the close's checkpoint on every core, as the import's
                con.close()
                t2 = cpu()
                size = (tmp / "w.duckdb").stat().st_size
            finally:
                shutil.rmtree(tmp)
            print(
                f"  {batch:>7,} hands a transaction: writer {(t1 - t0) / hands * 1e6:5.1f} µs + close {(t2 - t1) / hands * 1e6:4.1f} µs "
                f"= {(t2 - t0) / hands * 1e6:5.1f} µs a hand; database {size / hands:,.0f} bytes a hand"
            )


if __name__ == "__main__":
    main()
