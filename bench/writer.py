"""The import's writer alone: its CPU a hand for a given transaction size, on one process.  Never a test.

Run: ``python bench/writer.py [--per-file 1000] [--copies 10] [--batch 10000 40000] [--rounds 2] [--steps] [--without seats]``.

The chunk results are made once, as a worker makes them (``process_chunk``),
from the first ``--per-file`` hands of each of ``bench/import.py``'s cached
files (run it first); then, for each ``--batch`` (hands a transaction) in
turn, ``--rounds`` times, a new database is written with ``--copies`` of them
(hand ids made unique) by :class:`hhtool.store.writer.Writer` as the import
drives it (DuckDB on one thread, ``memory_limit`` 256 MB), and closed with
every thread (its last checkpoint).  Printed: the CPU of the process a hand,
the writer's and the close's, and the database's size.  What it isolates is
DuckDB's storage work, which depends on how many rows a transaction appends
(docs/performance.md, "Import").  ``--steps``: also the CPU a hand of each
statement the writer runs (its text's start), of the Python around them
(``_insert_pending`` less its statements) and of registering each frame;
``--without TABLE ...``: those tables' frames left out, so that what a table
costs is the difference with a run that has it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from procs import own_cpu as cpu  # bench/, this script's folder


class Timed:
    """A connection whose statements and registrations are timed (CPU of the process) into ``spent``, by kind."""

    def __init__(self, con: object, spent: dict[str, float]) -> None:
        self.con = con
        self.spent = spent

    def _timed(self, label: str, call: object, *args: object) -> object:
        t0 = cpu()
        out = call(*args)  # type: ignore[operator]
        if label.startswith("SELECT"):
            out = _Rows(out.fetchall())  # the rows fetched here, where DuckDB makes them
        self.spent[label] = self.spent.get(label, 0.0) + cpu() - t0
        return out

    def execute(self, sql: str, *args: object) -> object:
        label = "SET" if sql.startswith("SET") else re.sub(r"\s+", " ", sql)[:64]
        return self._timed(label, self.con.execute, sql, *args)  # type: ignore[attr-defined]

    def register(self, name: str, obj: object) -> object:
        return self._timed(f"register {name}", self.con.register, name, obj)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.con, name)


class _Rows:
    def __init__(self, rows: list[tuple[object, ...]]) -> None:
        self.rows = rows

    def fetchall(self) -> list[tuple[object, ...]]:
        return self.rows

    def fetchone(self) -> tuple[object, ...] | None:
        return self.rows[0] if self.rows else None

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", type=Path, default=ROOT / "bench" / ".cache" / "import-100000-10")
    ap.add_argument("--per-file", type=int, default=1_000)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--batch", type=int, nargs="+", default=[10_000, 20_000, 40_000])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--steps", action="store_true", help="the CPU of each statement, registration and the Python around them")
    ap.add_argument("--without", nargs="*", default=[], help="tables whose frames are left out (seats, actions, cards, pots)")
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
            fr = {name: df for name, df in r.frames.items() if name not in args.without}
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
                spent: dict[str, float] = {}
                writer = Writer(Timed(con, spent) if args.steps else con, ImportSummary(), batch_hands=batch)  # type: ignore[arg-type]
                insert = writer._insert_pending
                if args.steps:
                    def timed_insert() -> None:
                        t = cpu()
                        insert()
                        spent["(Python and polars around the statements)"] = spent.get("(Python and polars around the statements)", 0.0) + cpu() - t

                    writer._insert_pending = timed_insert  # type: ignore[method-assign]
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
            if args.steps:
                python = "(Python and polars around the statements)"
                spent[python] -= sum(v for k, v in spent.items() if k != python and not k.startswith("COMMIT"))
                for label, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
                    if seconds / hands * 1e6 >= 0.05:
                        print(f"      {seconds / hands * 1e6:5.2f} µs  {label}")


if __name__ == "__main__":
    main()
