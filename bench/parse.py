"""Parsing benchmark: hands/s and MB/s against pokerkit's PHH loader and a regex floor.

Run: ``python bench/parse.py [--hands 10000] [--big-mb 200]``.  Never a test.

One core, one process.  Three timings over the same hands:

* **hhtool**: ``hhtool.history.reader.read_file`` over a generated file (bytes ->
  ``Hand`` objects with typed events), one pass, after the grammar and the
  matchers of every start symbol are built (the one-time build is reported
  separately); counting each hand's actions
  for pokerkit is done in a second, untimed pass.  Also timed: the same
  read keeping every hand in a list (what the cyclic GC costs a program
  that holds the hands), and the pure-Python reader alone (the C
  accelerator off, as with ``HHTOOL_PURE=1``: the Python builder, the
  reference reading, which keeps no caches), and how many hands of this
  file, the samples and `bench/import.py`'s simulated files the C reader
  declines (the Python builder reads those);
* **pokerkit**: ``pokerkit.HandHistory.loads`` on one PHH (TOML) document
  per hand, each with as many actions as the hhtool hand has action lines;
* **floor**: read the same bytes, decode each line and match one regular
  expression against it -- the least any line-based parser must do.

Memory: a large generated file (``--big-mb``, the 10,000 hands repeated)
is parsed in a child process and its peak resident set is compared with a
small file's and with a child that only builds the grammar; flat memory
means the peak does not grow with the file.  ``--tmp`` puts the files
where there is room.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hhtool.history import parse  # noqa: E402
from hhtool.history.events import ACTIONS, Hand  # noqa: E402
from hhtool.history.grammar import START_SYMBOLS, matcher, parser  # noqa: E402
from hhtool.history.reader import read_file  # noqa: E402
from tests.handgen import generate_hand  # noqa: E402

FLOOR = re.compile(r"([^:]*?)(?:: )?(\w+)(.*)")


def write_hands(path: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for k in range(count):
            f.write(generate_hand(rng, k))
            f.write("\n")


def time_hhtool(path: Path) -> tuple[float, int]:
    """One pass, as a user's first read of a file: only the parse is timed."""
    start = time.perf_counter()
    hands = 0
    for record in read_file(path):
        if isinstance(record, Hand):
            hands += 1
    return time.perf_counter() - start, hands


def time_hhtool_kept(path: Path) -> float:
    """One pass that keeps every hand, as ``list(read_file(path))`` does."""
    start = time.perf_counter()
    kept = list(read_file(path))
    seconds = time.perf_counter() - start
    del kept
    return seconds


def time_pure_python(path: Path) -> float:
    """One pass with the C accelerator off: every hand read by parse.py."""
    saved, parse.ACCELERATOR = parse.ACCELERATOR, None
    try:
        return time_hhtool(path)[0]
    finally:
        parse.ACCELERATOR = saved


def declined(paths: list[Path]) -> tuple[int, int]:
    """(hands the C accelerator declined, hands read) over ``paths``: the declined ones the Python builder reads.

    The Python builder keeps no speed caches of its own, so this count says
    how much of the reading it does on hands like these.
    """
    fast = parse.ACCELERATOR
    if fast is None:
        return 0, 0
    count = [0]

    def counting(text: str, first_line: int, source: str) -> Hand | None:
        hand = fast(text, first_line, source)
        count[0] += hand is None
        return hand

    parse.ACCELERATOR = counting
    try:
        with warnings.catch_warnings():  # a sample in Windows-1252 says so; not this count's business
            warnings.simplefilter("ignore")
            hands = sum(isinstance(r, Hand) for p in paths for r in read_file(p))
    finally:
        parse.ACCELERATOR = fast
    return count[0], hands


def action_counts(path: Path) -> list[int]:
    """The number of actions of each hand (untimed: it sizes the pokerkit documents)."""
    return [sum(isinstance(e, ACTIONS) for e in r.events) for r in read_file(path) if isinstance(r, Hand)]


def time_floor(path: Path) -> float:
    start = time.perf_counter()
    n = 0
    with open(path, "rb") as f:
        for raw in f:
            if FLOOR.match(raw.decode("utf-8")):
                n += 1
    return time.perf_counter() - start


def phh_documents(action_counts: list[int]) -> list[str]:
    """One no-limit hold'em PHH per hand, with the same number of player actions."""
    docs = []
    for n in action_counts:
        acts = ['"d dh p1 AcKs"', '"d dh p2 7h7d"', '"d dh p3 2c3c"']
        for k in range(n):
            acts.append(f'"p{k % 3 + 1} cc"')
        docs.append(
            'variant = "NT"\nante_trimming_status = true\nantes = [0, 0, 0]\n'
            "blinds_or_straddles = [1, 2, 0]\nmin_bet = 2\nstarting_stacks = [200, 200, 200]\n"
            f"actions = [{', '.join(acts)}]\n"
        )
    return docs


def time_pokerkit(docs: list[str]) -> float | None:
    try:
        from pokerkit import HandHistory
    except ImportError:
        return None
    start = time.perf_counter()
    for d in docs:
        HandHistory.loads(d)
    return time.perf_counter() - start


_PEAK = (
    "def peak_kib():\n"
    "    # VmHWM: the peak resident set of this process's own memory.  ru_maxrss is not\n"
    "    # used: Linux carries it over exec from the forked parent, so a child would\n"
    "    # report the benchmark's own peak.\n"
    "    try:\n"
    "        for line in open('/proc/self/status'):\n"
    "            if line.startswith('VmHWM:'):\n"
    "                return int(line.split()[1])\n"
    "    except OSError:\n"
    "        pass\n"
    "    import resource\n"
    "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
)


def peak_rss_mb(path: Path) -> float:
    """Peak RSS of a child process that parses ``path`` (KiB from /proc, in MB)."""
    code = _PEAK + (
        "import sys; sys.path.insert(0, %r)\n"
        "from hhtool.history.reader import read_file\n"
        "n = sum(1 for _ in read_file(%r))\n"
        "print(n, peak_kib())\n"
    ) % (str(ROOT), str(path))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    return int(out[1]) / 1024


def baseline_rss_mb() -> float:
    """Peak RSS of a child that builds the grammar and the matchers, and parses nothing."""
    code = _PEAK + (
        "import sys; sys.path.insert(0, %r)\n"
        "from hhtool.history.grammar import matcher, parser\n"
        "parser(); [matcher(s) for s in ('header', 'table', 'seat', 'line', 'stranger')]\n"
        "print(0, peak_kib())\n"
    ) % (str(ROOT),)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    return int(out[1]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--big-mb", type=int, default=200, help="size of the memory test file; 0 to skip")
    ap.add_argument("--tmp", default=None, help="where to write the generated files (default: the system's)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    parser()
    for start in START_SYMBOLS:
        matcher(start)
    build = time.perf_counter() - t0

    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        path = Path(tmp) / "hands.txt"
        write_hands(path, args.hands, seed=1)
        size_mb = path.stat().st_size / 1e6
        lines = sum(1 for _ in open(path, "rb"))
        seconds, hands = time_hhtool(path)
        kept = time_hhtool_kept(path)
        pure = time_pure_python(path)
        floor = time_floor(path)
        actions = action_counts(path)
        docs = phh_documents(actions)
        pk = time_pokerkit(docs)

        print(f"grammar build (once; Lark and the compiled matchers of every start symbol): {build:.2f} s")
        print(f"hands: {hands}, {size_mb:.1f} MB, {lines / hands:.1f} lines and {sum(actions) / hands:.1f} actions per hand")
        c_path = "C accelerator on" if parse.ACCELERATOR is not None else "not built: pure Python"
        print(f"hhtool   : {hands / seconds:8.0f} hands/s  {size_mb / seconds:6.2f} MB/s  ({c_path})")
        print(f"  kept   : {hands / kept:8.0f} hands/s  (every hand kept in a list)")
        print(f"  Python : {hands / pure:8.0f} hands/s  (accelerator off; hhtool = {pure / seconds:.1f}x this)")
        if parse.ACCELERATOR is not None:
            samples = sorted((ROOT / "sample_histories").glob("*.txt"))
            simulated = sorted((ROOT / "bench" / ".cache" / "import-100000-10").glob("*.txt"))  # bench/import.py's, when made
            for label, paths in (("this file", [path]), ("sample_histories", samples), ("bench/import.py's simulated files", simulated)):
                if paths:
                    no, of = declined(paths)
                    print(f"  declined by the C reader, read in Python: {no:,} of {of:,} hands of {label}")
        print(f"floor    : {hands / floor:8.0f} hands/s  {size_mb / floor:6.2f} MB/s  (hhtool = {floor / seconds:.2f} of floor)")
        if pk is not None:
            print(f"pokerkit : {hands / pk:8.0f} hands/s  (PHH loads, same action counts; hhtool = {pk / seconds:.2f}x pokerkit)")

        if args.big_mb:
            small = Path(tmp) / "small.txt"
            write_hands(small, 200, seed=2)
            big = Path(tmp) / "big.txt"
            per_hand = path.stat().st_size / args.hands
            with open(big, "w", encoding="utf-8") as f:
                chunk = path.read_text(encoding="utf-8")
                while f.tell() < args.big_mb * 1e6:
                    f.write(chunk)
                    f.write("\n")
            big_mb = big.stat().st_size / 1e6
            t0 = time.perf_counter()
            big_rss = peak_rss_mb(big)
            big_seconds = time.perf_counter() - t0
            print(f"memory   : peak RSS {baseline_rss_mb():.0f} MB with the grammar built and nothing parsed, "
                  f"{peak_rss_mb(small):.0f} MB on {small.stat().st_size / 1e6:.2f} MB, "
                  f"{big_rss:.0f} MB on {big_mb:.0f} MB ({big_mb * 1e6 / per_hand:.0f} hands, "
                  f"{big_mb / big_seconds:.2f} MB/s in that child, start-up included)")


if __name__ == "__main__":
    main()
