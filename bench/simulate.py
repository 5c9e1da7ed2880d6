"""Simulation benchmark: hands written per second by ``hhtool simulate``.

Run: ``python bench/simulate.py [--hands 200000] [--jobs 2] [--per-game 3000]``.  Never a test.

1. Every profile and structure, one process, ``--per-game`` hands each
   (six players, italian eight): hands/s of simulate + write.
2. The default game (classic fixed limit, six players) with ``--jobs``
   processes, ``--hands`` hands to a file in a temporary directory: wall
   time, hands/s, MB/s, and the time one million hands would take at that
   rate (the issue's goal: under five minutes on this 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hhtool.simulate import make_config, simulate_text, write_simulation  # noqa: E402


def per_game(hands: int) -> None:
    print(f"one process, {hands:,} hands per game (audit view):")
    print(f"  {'profile':<12} {'structure':<9} {'hands/s':>8}")
    for rules in ("classic", "stellapoker", "italian"):
        for structure in ("fixed", "pot", "no"):
            config = make_config(rules=rules, structure=structure, players=8 if rules == "italian" else 6, seed=1)
            start = time.perf_counter()
            simulate_text(config, hands)
            rate = hands / (time.perf_counter() - start)
            print(f"  {rules:<12} {structure:<9} {rate:>8,.0f}", flush=True)


def big_run(hands: int, jobs: int) -> None:
    config = make_config(rules="classic", structure="fixed", players=6, seed=1)
    before = _cpu()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sim.txt"
        start = time.perf_counter()
        write_simulation(config, hands, out, jobs=jobs)
        wall = time.perf_counter() - start
        size = out.stat().st_size
    cpu = _cpu() - before
    rate = hands / wall
    cores = min(jobs, os.cpu_count() or 1)
    print(
        f"classic fixed, 6 players, {hands:,} hands, {jobs} process(es): {wall:.1f} s wall, "
        f"{rate:,.0f} hands/s, {size / wall / 1e6:.1f} MB/s ({size / hands:.0f} bytes a hand); "
        f"one million hands: {1e6 / rate:.0f} s"
    )
    # on a shared machine the wall time counts other people's work: the CPU time does not
    print(
        f"  CPU {cpu:.1f} s ({cpu / hands * 1e6:.0f} µs a hand): on {cores} idle core(s) "
        f"{hands / cpu * cores:,.0f} hands/s, one million hands in {1e6 * cpu / hands / cores:.0f} s"
    )


def _cpu() -> float:
    """CPU seconds used by this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--per-game", type=int, default=3000)
    args = parser.parse_args()
    if args.per_game:
        per_game(args.per_game)
    big_run(args.hands, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
