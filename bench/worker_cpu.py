"""The import's worker alone, in CPU a hand: the steady figure two builds of the worker compare on.

``python bench/worker_cpu.py [--files 3] [--passes 1]``: the modules a worker
imports, polars on one thread (as a worker runs it), then
:func:`~hhtool.store.worker.process_chunk` and ``pickle.dumps`` of its result
(what a worker sends) over the chunks of about 1 MB, cut at blank lines as
the import cuts a file, of the first ``--files`` files of
``bench/import.py``'s cached 100,000 hands (``bench/.cache/import-100000-10``:
run ``python bench/import.py`` once first), after one warm chunk; the all-in
EV included.  Prints the CPU of the process a hand, of each pass and the best.
Not the machine's load: the CPU a hand moves with it less than a wall time.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

os.environ.setdefault("POLARS_MAX_THREADS", "1")

import polars  # noqa: F401,E402  (a worker imports it before its first chunk)

from hhtool.store.worker import ChunkTask, process_chunk  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache" / "import-100000-10"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3)
    parser.add_argument("--passes", type=int, default=1)
    args = parser.parse_args()
    files = sorted(CACHE.glob("*.txt"))[: args.files]
    if not files:
        sys.exit(f"no hands in {CACHE}: run python bench/import.py once first")
    chunks: list[tuple[str, bytes]] = []
    for f in files:
        data, i = f.read_bytes(), 0
        while i < len(data):
            j = data.find(b"\n\n", i + (1 << 20))
            j = len(data) if j < 0 else j + 2
            chunks.append((f.name, data[i:j]))
            i = j
    process_chunk(ChunkTask(0, 0, "warm", chunks[0][1][:200_000], 0, False))
    best = float("inf")
    for p in range(args.passes):
        start, hands = time.process_time(), 0
        for k, (name, chunk) in enumerate(chunks):
            result = process_chunk(ChunkTask(0, k, name, chunk, 0, False))
            pickle.dumps(result, protocol=5)
            hands += result.hands
        us = (time.process_time() - start) / hands * 1e6
        best = min(best, us)
        print(f"pass {p + 1}: {us:.1f} µs of CPU a hand over {hands:,} hands ({len(chunks)} chunks)")
    print(f"best: {best:.1f} µs a hand")


if __name__ == "__main__":
    main()
