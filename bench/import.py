"""Import benchmark: ``hhtool import`` end to end, and where the time goes.  Never a test.

Run: ``python bench/import.py [--hands 100000] [--files 10] [--sample 5000] [--shape mixed|allin]``.

Input: ``--files`` files written by ``hhtool simulate`` (a subprocess; the
profiles and structures cycle: classic, stellapoker, italian x fixed, pot,
no limit), cached under ``bench/.cache/``; if the simulator is missing,
``tests/handgen.py`` hands (plausible text, mostly not rule-valid).

Measured in the same run:

* **end to end**: ``python -m hhtool.cli import DIR --db NEW.duckdb --json``
  as a subprocess on every core: hands/s, peak memory of the whole process
  tree (the writer and its workers, sampled from ``/proc`` every 50 ms: the
  resident sizes summed, a page the processes share counted in each, and
  the proportional set sizes summed, each page once, read at the resident
  sum's new highs at most twice a second: reading them costs the cores the
  import runs on about 12 ms a 500 MB process), database bytes per hand, the writer's share, and the CPU time of
  every process per hand (the budget: cores / 5,000 hands/s);
* **the floor**: one core reads every input file, decodes each line and
  matches one regular expression against it (``bench/parse.py``'s floor,
  the least any line-based reader must do), and the end to end rate is
  printed as a share of it: the import's goal is 0.20 of the floor;
* **one core, in process**, on ``--sample`` hands (the first of each file, in
  equal parts), the CPU of each
  stage a hand: the parse-only rate (``read_file``), the replay as the
  import runs it (``explain=False``), the rows a worker builds
  (``RowBuilder.add_hand``), the frames made of them once a chunk, and the
  pickling of a chunk's result, both ways (the worker sends it, the
  writer's process receives it); and the all-in EV's part of the rows
  (``--shape allin``: pot and no limit corpora, where it costs most), with
  the share of the rate it keeps.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from procs import tree_memory, tree_rss  # bench/, this script's folder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROFILES = (("classic", "fixed"), ("stellapoker", "pot"), ("italian", "no"), ("classic", "no"), ("stellapoker", "fixed"), ("italian", "pot"))
SHAPES = {
    "mixed": PROFILES,
    # the all-in corpora: pot and no limit only, where the all-in adjusted net (docs/stats.md) costs something
    "allin": (("classic", "no"), ("stellapoker", "pot"), ("italian", "no"), ("classic", "pot"), ("stellapoker", "no"), ("italian", "pot")),
}


def make_input(hands: int, files: int, shape: str = "mixed") -> tuple[Path, str]:
    profiles = SHAPES[shape]
    cache = ROOT / "bench" / ".cache" / (f"import-{hands}-{files}" + ("" if shape == "mixed" else f"-{shape}"))
    done = cache / ".done"
    if done.exists():
        return cache, done.read_text()
    if cache.exists():
        shutil.rmtree(cache)
    cache.mkdir(parents=True)
    per = hands // files
    has_sim = subprocess.run([sys.executable, "-m", "hhtool.cli", "simulate", "--help"], cwd=ROOT, capture_output=True).returncode == 0
    if has_sim:
        for k in range(files):
            rules, structure = profiles[k % len(profiles)]
            n = per + (hands - per * files if k == files - 1 else 0)
            subprocess.run(
                [sys.executable, "-m", "hhtool.cli", "simulate", "--out", str(cache / f"sim_{k:02d}.txt"), "--hands", str(n),
                 "--rules", rules, "--structure", structure, "--seed", str(1000 + k), "--jobs", str(os.cpu_count() or 1)],
                cwd=ROOT, check=True, capture_output=True,
            )
        kinds = "fixed, pot, no limit" if shape == "mixed" else "pot and no limit only"
        source = f"hhtool simulate (classic, stellapoker, italian; {kinds}; audit view)"
    else:
        import random

        from tests.handgen import generate_hand

        rng = random.Random(2026)
        number = 0
        for k in range(files):
            n = per + (hands - per * files if k == files - 1 else 0)
            with open(cache / f"gen_{k:02d}.txt", "w", encoding="utf-8") as f:
                for _ in range(n):
                    f.write(generate_hand(rng, number) + "\n")
                    number += 1
        source = "tests/handgen.py (plausible, mostly not rule-valid)"
    done.write_text(source)
    return cache, source


FLOOR = re.compile(r"([^:]*?)(?:: )?(\w+)(.*)")
"""bench/parse.py's floor: one regular expression a line."""


def floor_rate(folder: Path) -> tuple[float, int]:
    """Hands a second of one core that read every file, decode each line and match :data:`FLOOR` against it; and the hands."""
    hands = 0
    seconds = 0.0
    for path in sorted(p for p in folder.iterdir() if not p.name.startswith(".")):
        data = path.read_bytes()
        hands += data.count(b"\n\n") + (0 if data.endswith(b"\n\n") else 1)  # hands are separated by a blank line
        start = time.process_time()
        with open(path, "rb") as f:
            for raw in f:
                FLOOR.match(raw.decode("utf-8"))
        seconds += time.process_time() - start
    return hands / seconds, hands


def end_to_end(folder: Path, workers: int | None) -> dict[str, object]:
    tmp = Path(tempfile.mkdtemp(prefix="hhbench-"))
    db = tmp / "bench.duckdb"
    cmd = [sys.executable, "-m", "hhtool.cli", "import", str(folder), "--db", str(db), "--json"]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = peak_pss = 0
    pss_at = 0.0
    while proc.poll() is None:
        rss = tree_rss(proc.pid)
        # the PSS walks every mapping (about 12 ms of this process's CPU for 500 MB, taken from the cores the import
        # runs on): read at a new high of the RSS only, at most twice a second
        if rss > peak and time.perf_counter() - pss_at >= 0.5:
            pss_at = time.perf_counter()
            peak_pss = max(peak_pss, tree_memory(proc.pid)[1])
        peak = max(peak, rss)
        time.sleep(0.05)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the import and its workers, once all have exited
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if proc.returncode not in (0, 1):
        raise SystemExit(f"import failed ({proc.returncode}): {err}")
    summary: dict[str, object] = json.loads(out)
    size = db.stat().st_size + (db.with_name(db.name + ".wal").stat().st_size if db.with_name(db.name + ".wal").exists() else 0)
    shutil.rmtree(tmp)
    summary.update(wall=wall, peak_rss=peak, peak_pss=peak_pss, db_bytes=size, cpu=cpu)
    return summary


def one_core(folder: Path, sample: int) -> dict[str, float]:
    """Per-hand seconds of CPU of each stage, one core, on ``sample`` hands: the first of every file, in equal parts.

    Every file, not the first alone: the files cycle through the profiles and structures, and what the all-in EV
    costs differs from one to the next (from 2 to 45 µs a hand over the ten files of 10,000 hands; 19 on average).
    """
    from hhtool.history.errors import ErrorRecord
    from hhtool.history.events import Hand
    from hhtool.history.grammar import START_SYMBOLS, matcher, parser
    from hhtool.history.reader import Cp1252Warning, read_file
    from hhtool.history.write import write_hand
    from hhtool.replay import replay
    from hhtool.store.frames import frames
    from hhtool.store.rows import RowBuilder

    files = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    texts: list[tuple[Path, int]] = []
    hands: list[Hand] = []
    warnings.simplefilter("ignore", Cp1252Warning)
    os.environ.setdefault("POLARS_MAX_THREADS", "1")  # one polars thread, as in a worker process (hhtool/store/importer.py)
    import polars  # noqa: F401  imported once per worker process: not a per-hand cost

    parser()  # built once per worker process: not a per-hand cost
    for symbol in START_SYMBOLS:
        matcher(symbol)
    clock = time.process_time
    quota = -(-sample // len(files))
    t = clock()
    for f in files:
        mine = 0
        for r in read_file(f):
            if isinstance(r, Hand):
                hands.append(r)
                mine += 1
            if mine >= quota:
                break
    parse = (clock() - t) / len(hands)
    del texts
    t = clock()
    results = [replay(h, explain=False) for h in hands]  # as the import replays
    rep = (clock() - t) / len(hands)
    raws = [write_hand(h) + "\n" for h in hands]  # a text of each hand's size, hashed and stored as the import's are
    t = clock()
    b = RowBuilder()
    for h, raw, rep_h in zip(hands, raws, results):
        b.add_hand(h, raw, "f", 0, rep_h, None)
    rows = (clock() - t) / len(hands)
    t = clock()
    built = frames(b)
    made = (clock() - t) / len(hands)
    t = clock()
    blob = pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL)  # what a pool's worker sends: the frames, once a chunk
    pickle.loads(blob)
    pickled = (clock() - t) / len(hands)
    writer, close = _writer_cpu(built, len(hands))
    # the all-in adjusted net's part of the rows: the test every hand pays, the pricing of the hands it passes
    from hhtool.replay.equities import allin_adjustments, has_all_in

    t = clock()
    priced = 0
    for rep_h in results:
        if has_all_in(rep_h):
            priced += bool(allin_adjustments(rep_h))
    ev = (clock() - t) / len(hands)
    _ = ErrorRecord
    return {
        "hands": float(len(hands)), "parse": parse, "replay": rep, "rows": rows, "frames": made, "pickle": pickled,
        "pickle_bytes": len(blob) / len(hands), "writer": writer, "close": close, "ev": ev, "priced": float(priced),
    }


def _writer_cpu(built: dict[str, Any], hands: int) -> tuple[float, float]:
    """The writer's CPU a hand (every thread of this process: DuckDB's too) for one batch of ``built`` into a new database,
    and its close's (the checkpoint that writes the batch into the file)."""
    from hhtool.store.db import connect
    from hhtool.store.summary import ImportSummary
    from hhtool.store.worker import ChunkResult
    from hhtool.store.writer import Writer

    tmp = Path(tempfile.mkdtemp(prefix="hhbench-"))
    try:
        con = connect(tmp / "w.duckdb", memory_limit="256MB")
        con.execute("SET threads = 1")  # as an import with workers runs its writer (hhtool/store/importer.py)
        writer = Writer(con, ImportSummary(), batch_hands=hands + 1)
        t = time.process_time()
        writer.add(ChunkResult(0, 0, built, hands=hands), None)
        writer.flush()
        mid = time.process_time()
        con.close()
        end = time.process_time()
    finally:
        shutil.rmtree(tmp)
    return (mid - t) / hands, (end - mid) / hands


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--sample", type=int, default=5_000, help="hands for the one-core stage timings")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--shape", choices=sorted(SHAPES), default="mixed", help="mixed: every structure; allin: pot and no limit only")
    args = ap.parse_args()

    t = time.perf_counter()
    folder, source = make_input(args.hands, args.files, args.shape)
    gen = time.perf_counter() - t
    mb = sum(p.stat().st_size for p in folder.iterdir() if not p.name.startswith(".")) / 1e6
    print(f"input: {args.hands:,} hands in {args.files} files, {mb:.0f} MB, from {source} ({gen:.0f} s to make or load)")

    e = end_to_end(folder, args.workers)
    hands = int(e["hands"])  # type: ignore[call-overload]
    wall = float(e["wall"])  # type: ignore[arg-type]
    floor, _ = floor_rate(folder)
    print(
        f"end to end ({os.cpu_count()} cores): {hands:,} hands in {wall:.1f} s = {hands / wall:,.0f} hands/s; "
        f"stored {e['stored']:,}, failed {e['failed']}, verdicts {e['verdicts']}"
    )
    print(
        f"  floor (one core, one regex a line, the same files): {floor:,.0f} hands/s; "
        f"the import = {hands / wall / floor:.2f} of the floor (goal 0.20)"
    )
    print(
        f"  peak memory (writer + workers): {int(e['peak_pss']) / 2**20:,.0f} MB, each page once (PSS), "  # type: ignore[call-overload]
        f"{int(e['peak_rss']) / 2**20:,.0f} MB resident summed (shared pages once a process); "  # type: ignore[call-overload]
        f"database {int(e['db_bytes']) / 2**20:,.1f} MB = {int(e['db_bytes']) / max(hands, 1):,.0f} bytes/hand; "  # type: ignore[call-overload]
        f"hashing {e['hash_seconds']} s, writer transactions {e['writer_seconds']} s"
    )
    cpu_per_hand = float(e["cpu"]) / max(hands, 1)  # type: ignore[arg-type]
    print(
        f"  CPU of every process: {cpu_per_hand * 1e6:,.0f} µs a hand ({float(e['cpu']) / wall / (os.cpu_count() or 1):.0%} of the cores); "  # type: ignore[arg-type]
        f"5,000 hands/s on {os.cpu_count()} cores leaves {(os.cpu_count() or 1) / 5000 * 1e6:,.0f} µs a hand"
    )

    c = one_core(folder, args.sample)
    per = c["parse"] + c["replay"] + c["rows"] + c["frames"] + c["pickle"]
    print(f"one core, {int(c['hands']):,} hands, CPU a hand:")
    print(f"  parse only (read_file): {c['parse'] * 1e6:,.0f} µs = {1 / c['parse']:,.0f} hands/s")
    print(f"  replay (explain=False): {c['replay'] * 1e6:,.0f} µs = {1 / c['replay']:,.0f} hands/s")
    print(f"  rows for the database:  {c['rows'] * 1e6:,.0f} µs")
    print(f"  frames of the rows:     {c['frames'] * 1e6:,.0f} µs")
    print(f"  pickled, both ways:     {c['pickle'] * 1e6:,.0f} µs ({c['pickle_bytes']:,.0f} bytes a hand)")
    print(
        f"  of which all-in EV:     {c['ev'] * 1e6:,.0f} µs ({int(c['priced']):,} hands priced, {c['priced'] / c['hands']:.1%}); "
        f"the import without it would do {per / (per - c['ev']):.2f}x as many hands/s on the same CPU "
        f"(with it: {(per - c['ev']) / per:.0%} of that rate)"
    )
    print(f"  a worker's whole job:   {per * 1e6:,.0f} µs = {1 / per:,.0f} hands/s per core (parse to pickled frames)")
    print(
        f"  the writer, one batch:  {c['writer'] * 1e6:,.0f} µs its transaction, {c['close'] * 1e6:,.0f} µs the checkpoint "
        f"at close: {(c['writer'] + c['close']) * 1e6:,.0f} µs (every thread of the process)"
    )
    w = float(e["writer_seconds"])  # type: ignore[arg-type]
    print(f"  the writer, end to end: {w / max(hands, 1) * 1e6:,.0f} µs per hand (wall time of its transactions, in its own thread)")


if __name__ == "__main__":
    main()
