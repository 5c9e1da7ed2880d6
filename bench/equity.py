"""Equity benchmark: exact heads-up equity from 3rd street, sampling, and pokerkit's calculate_equities.

Run: ``python bench/equity.py [--cases 20] [--samples 100000]``.  Never a test.

One core, one process, the same random deals for every contender:

* **exact heads up from 3rd street**: classic, each player three cards,
  the vela to come: every one of 1,973,400 runouts
  (:func:`hhtool.game.equity.equity`); goal under 0.25 s a deal;
* **sampled**: the same deals, ``--samples`` runouts drawn
  (``exact_limit=0`` forces sampling); goal 100,000 in under 0.1 s;
* **also**: three-way from 4th street (exact, 116,280 runouts) and heads
  up from 2nd street (sampled: 165 million runouts are too many to count);
* **pokerkit** ``calculate_equities`` on the nearest shape it supports:
  the same cards as a stud-like deal (each player's five as "hole" cards,
  ``hole_dealing_count=5``, one board card for the vela) with a 32-card deck
  (7 to ace, as a subset of its short deck) and ``ShortDeckHoldemHand``, so
  the same 26 cards are unseen.  pokerkit only samples; its time for
  ``--samples`` runouts is extrapolated from ``--pokerkit-samples``.

Times are wall seconds (best of ``--repeat`` per deal, then the median and
the worst deal) and the process's CPU seconds beside them: the machine is
shared, and CPU time is what a quiet core would take.  The first call of a
process builds the evaluator's plans for the deck (0.1-0.3 s, once); it is
made before timing, and a cold ``hhtool equity`` process is timed apart.
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

from hhtool.game.cards import Card, card_str, deck_cards  # noqa: E402
from hhtool.game.equity import equity  # noqa: E402
from hhtool.game.rules import CLASSIC  # noqa: E402


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best wall seconds of ``repeat`` runs, and the CPU seconds of that run."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - w, time.process_time() - c))
    return best


def deals(rng: random.Random, count: int, players: int, known: int) -> list[list[list[Card]]]:
    deck = deck_cards(7)
    out = []
    for _ in range(count):
        cards = rng.sample(deck, players * known)
        out.append([cards[i * known : (i + 1) * known] for i in range(players)])
    return out


def summary(name: str, times: Sequence[tuple[float, float]], goal: float | None) -> None:
    walls = [w for w, _ in times]
    cpus = [c for _, c in times]
    verdict = ""
    if goal is not None:
        verdict = f"   goal < {goal:g} s: {'met' if max(walls) < goal else 'median ' + ('met' if statistics.median(walls) < goal else 'NOT met')}"
    print(
        f"{name:<52} median {statistics.median(walls):.3f} s, worst {max(walls):.3f} s wall; "
        f"CPU median {statistics.median(cpus):.3f} s{verdict}"
    )


def pokerkit_time(hands: Sequence[Sequence[Card]], samples: int) -> float | None:
    """Seconds for ``samples`` of pokerkit's calculate_equities on the deal's stud-like shape."""
    try:
        from pokerkit import Card as PkCard
        from pokerkit import ShortDeckHoldemHand, calculate_equities
    except ImportError:
        return None
    deck = tuple(PkCard.parse("".join(card_str(c) for c in deck_cards(7))))
    ranges = [[list(PkCard.parse("".join(card_str(c) for c in h)))] for h in hands]
    start = time.perf_counter()
    calculate_equities(ranges, [], 5, 1, deck, (ShortDeckHoldemHand,), sample_count=samples)  # type: ignore[arg-type]
    return time.perf_counter() - start


def cold_cli() -> float:
    """Median wall seconds of a new ``hhtool equity`` process on one heads-up 3rd-street deal."""
    walls = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "hhtool.cli", "equity", "--rules", "classic", "Qc Qs 9c", "Ah Kd Jh"],
            check=True,
            capture_output=True,
            cwd=ROOT,
        )
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=int, default=20, help="random deals per shape")
    ap.add_argument("--samples", type=int, default=100_000, help="runouts drawn when sampling")
    ap.add_argument("--pokerkit-samples", type=int, default=2000, help="pokerkit's samples (extrapolated)")
    ap.add_argument("--pokerkit-cases", type=int, default=3, help="deals given to pokerkit")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    rng = random.Random(2026)
    hu3 = deals(rng, args.cases, 2, 3)
    way3 = deals(rng, args.cases, 3, 4)
    hu2 = deals(rng, args.cases, 2, 2)
    equity(CLASSIC, hu3[0])  # the deck's plans and numpy, once per process
    equity(CLASSIC, hu3[0], exact_limit=0, samples=1000)

    print(f"classic, {args.cases} random deals per shape, one core")
    exact = [timed(lambda h=h: equity(CLASSIC, h), args.repeat) for h in hu3]  # type: ignore[misc]
    r = equity(CLASSIC, hu3[0])
    assert r.exact and r.runouts == 1_973_400 and abs(sum(p.equity for p in r.hands) - 1) < 1e-12
    summary(f"exact heads up from 3rd street ({r.runouts:,} runouts)", exact, 0.25)
    sampled = [
        timed(lambda h=h: equity(CLASSIC, h, exact_limit=0, samples=args.samples), args.repeat)  # type: ignore[misc]
        for h in hu3
    ]
    summary(f"sampled, the same deals ({args.samples:,} samples)", sampled, 0.1)
    worst = 0.0
    for h in hu3:
        e = equity(CLASSIC, h)
        s = equity(CLASSIC, h, exact_limit=0, samples=args.samples)
        for a, b in zip(e.hands, s.hands):
            assert b.stderr is not None
            worst = max(worst, abs(a.equity - b.equity) / max(b.stderr, 1e-12))
    print(f"{'':<52} sampled vs exact: at most {worst:.2f} standard errors apart")
    r3 = equity(CLASSIC, way3[0])
    summary(f"exact three-way from 4th street ({r3.runouts:,} runouts)", [timed(lambda h=h: equity(CLASSIC, h), args.repeat) for h in way3], None)  # type: ignore[misc]
    r2 = equity(CLASSIC, hu2[0], samples=args.samples)
    summary(
        f"heads up from 2nd street, sampled ({r2.runouts:,} runouts)",
        [timed(lambda h=h: equity(CLASSIC, h, samples=args.samples), args.repeat) for h in hu2],  # type: ignore[misc]
        None,
    )

    pk = [t for t in (pokerkit_time(h, args.pokerkit_samples) for h in hu3[: args.pokerkit_cases]) if t is not None]
    if not pk:
        print("pokerkit not installed (pip install -e '.[bench]'): no ratios")
    else:
        per = statistics.median(pk) * args.samples / args.pokerkit_samples
        ours_mc = statistics.median(w for w, _ in sampled)
        ours_exact = statistics.median(w for w, _ in exact)
        print(
            f"{'pokerkit calculate_equities, stud-like, 32 cards':<52} {per:.2f} s for {args.samples:,} samples "
            f"(from {args.pokerkit_samples:,} x {len(pk)} deals)"
        )
        print(f"{'':<52} hhtool sampled {per / ours_mc:,.0f}x faster; exact (every runout) {per / ours_exact:,.0f}x")
    print(f"hhtool equity, one heads-up deal, cold start: {cold_cli():.3f} s wall (median of 3)")


if __name__ == "__main__":
    main()
