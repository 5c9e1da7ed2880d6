"""Evaluation benchmark: best-of-six evaluations per second against pokerkit.

Run: ``python bench/evaluate.py [--sets 50000]``.  Never a test.

One core, one process, the same random six-card sets for every contender
(drawn from the 32-card deck, 7 to ace, which pokerkit's 36-card short deck
contains):

* **pokerkit**: ``ShortDeckHoldemHand.from_game(two, four)``, its best five
  of six for short-deck hold'em (flush above full house too);
* **hhtool evaluate**: :func:`hhtool.game.evaluate.evaluate`, the full value (five
  cards played, alternatives, description available), per profile;
* **hhtool key**: :func:`hhtool.game.keys.key_function`, the same integer key
  one hand at a time;
* **hhtool batch**: :func:`hhtool.game.keys.keys` on an (N, 6) numpy array.

Then ``hhtool rank`` on one hand from a cold start (a new process each
time): wall time and peak memory.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from hhtool.game.keys import key_function, keys  # noqa: E402
from hhtool.game.cards import card_str, deck_cards  # noqa: E402
from hhtool.game.evaluate import evaluate  # noqa: E402
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER  # noqa: E402


def rate(fn: Callable[[], object], count: int, repeat: int = 3) -> float:
    """Best of ``repeat`` runs, in evaluations per second."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return count / best


def pokerkit_rate(sets: Sequence[Sequence[int]]) -> float | None:
    try:
        from pokerkit import Card, ShortDeckHoldemHand
    except ImportError:
        return None
    games = [
        (list(Card.parse("".join(card_str(c) for c in s[:2]))), list(Card.parse("".join(card_str(c) for c in s[2:]))))
        for s in sets
    ]

    def run() -> None:
        for hole, board in games:
            ShortDeckHoldemHand.from_game(hole, board)

    return rate(run, len(games), repeat=1)


_PEAK = (
    "import atexit, sys\n"
    "def peak():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            sys.stderr.write('PEAK_KB ' + line.split()[1] + '\\n')\n"
    "atexit.register(peak)\n"
    "sys.argv = ['hhtool', 'rank', '--rules', 'classic', 'Qc Qs 9c Jc Jd']\n"
    "from hhtool.cli import main\n"
    "main()\n"
)


def cold_rank(runs: int = 5) -> tuple[float, float]:
    """Median wall seconds and peak MB (the child's own VmHWM) of ``hhtool rank`` on one hand."""
    walls = []
    peaks = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "hhtool.cli", "rank", "--rules", "classic", "Qc Qs 9c Jc Jd"],
            check=True,
            capture_output=True,
            cwd=ROOT,
        )
        walls.append(time.perf_counter() - start)
        r = subprocess.run([sys.executable, "-c", _PEAK], capture_output=True, text=True, cwd=ROOT)
        for line in r.stderr.splitlines():
            if line.startswith("PEAK_KB "):
                peaks.append(int(line.split()[1]) / 1024)
    return statistics.median(walls), max(peaks, default=float("nan"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sets", type=int, default=50000, help="random six-card sets")
    ap.add_argument("--batch-sets", type=int, default=1_000_000, help="sets for the numpy batch")
    args = ap.parse_args()

    rng = random.Random(2026)
    deck = deck_cards(7)
    sets = [rng.sample(deck, 6) for _ in range(args.sets)]
    big = np.array([rng.sample(deck, 6) for _ in range(args.batch_sets)], dtype=np.int64)

    pk_sets = sets[: min(len(sets), 10000)]
    pk = pokerkit_rate(pk_sets)
    print(f"best-of-six, {len(sets):,} random sets from the 32-card deck, one core")
    if pk is None:
        print("pokerkit not installed (pip install -e '.[bench]'): no ratios")
    else:
        print(f"{'pokerkit ShortDeckHoldemHand.from_game':<44} {pk:>12,.0f}/s")
    rows: list[tuple[str, float]] = []
    for rules in (CLASSIC, STELLAPOKER, ITALIAN):
        kf = key_function(rules, 7)
        kf(sets[0])  # build the plans outside the timing (0.1 s once per deck)
        keys(big[:10], rules, 7)

        def full(r=rules) -> None:  # type: ignore[no-untyped-def]
            for s in sets:
                evaluate(s, r, 7)

        def scalar(f=kf) -> None:  # type: ignore[no-untyped-def]
            for s in sets:
                f(s)

        def batch(r=rules) -> None:  # type: ignore[no-untyped-def]
            keys(big, r, 7)

        rows.append((f"hhtool evaluate() {rules.name}", rate(full, len(sets), repeat=1)))
        rows.append((f"hhtool key_function() {rules.name}", rate(scalar, len(sets))))
        rows.append((f"hhtool batch keys() {rules.name} ({len(big):,})", rate(batch, len(big))))
    for name, r in rows:
        ratio = f"{r / pk:>8.1f}x pokerkit" if pk else ""
        print(f"{name:<44} {r:>12,.0f}/s {ratio}")
    wall, peak = cold_rank()
    print(f"hhtool rank, one hand, cold start: {wall:.3f} s wall (median of 5), peak {peak:.0f} MB")


if __name__ == "__main__":
    main()
