"""The import's all-in EV asked one pot at a time (as the rows ask it) against a chunk's pots at once.  Never a test.

Run: ``python bench/allin_batch.py [--folder bench/.cache/import-100000-10] [--chunk 750] [--rounds 3]``.

Why it exists: issue 44 asked whether pricing a chunk's all-in pots in one
call of :func:`hhtool.game.equity.equities` (each question gets what it
gets alone) would make the EV cheaper; docs/performance.md ("The import's
stages") gives the answer and why it was not kept.  Every hand of the
folder is read and replayed (``explain=False``, untimed), the hands that
pass ``has_all_in`` grouped by the chunk of ``--chunk`` hands they fall
in (the import's chunks of about 1 MB hold about 750 hands); then each
round prices every hand by ``allin_adjustments`` and every chunk's pots
in one ``equities()`` call, alternated, and prints the CPU a hand of the
folder of each.  It first checks the two give every player the same
adjustment (the stored ``seats.allin_net``).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from fractions import Fraction
from pathlib import Path

from corpus import CACHED, allin_replays  # bench/, this script's folder
from procs import own_cpu as cpu

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hhtool.game.equity import DEFAULT_SEED, EquityInputError, Question, equities  # noqa: E402
from hhtool.replay import Replay  # noqa: E402
from hhtool.replay.equities import ALLIN_EXACT_LIMIT, ALLIN_SAMPLES, _shares, allin_adjustments  # noqa: E402
from hhtool.replay.result import PotResult  # noqa: E402


def questions(r: Replay) -> list[tuple[int, PotResult, list[str], Question]]:
    """The pots :func:`hhtool.replay.equities.allin_evs` prices, each with its question (the same conditions)."""
    rules = r.rules
    seen = r.holdings
    rnd = seen.last_money
    players = list(r.stacks)
    if rnd < 1 or rnd >= 5 or (rnd == 4 and not rules.has_vela) or not seen.betting_over(players):
        return []
    folded_up = [c for n in players if n in seen.held and seen.held[n].folded for c in seen.held[n].up]
    in_hand = [n for n in players if n in seen.held and seen.held[n].folded == 0]
    known = {n: seen.held[n].known_at(rnd) for n in in_hand}
    out = []
    for i, pot in enumerate(r.pots):
        names = [n for n in pot.eligible if n in known]
        if len(names) < 2 or len(names) != len(pot.eligible):
            continue
        hands = [c for c in (known[n] for n in names) if c is not None]
        if len(hands) != len(names):
            continue
        others = [c for n in in_hand if n not in names for c in known[n] or ()]
        question = Question(rules, hands, None, [*folded_up, *others], len(players), ALLIN_SAMPLES, DEFAULT_SEED, ALLIN_EXACT_LIMIT)
        out.append((i, pot, names, question))
    return out


def batch(reps: list[Replay]) -> list[dict[str, int]]:
    """:func:`allin_adjustments` of each replay, every pot of them asked in one :func:`equities` call."""
    asked = [(k, q) for k, r in enumerate(reps) for q in questions(r)]
    out: list[dict[str, int]] = [{} for _ in reps]
    for (k, (i, pot, names, _)), res in zip(asked, equities([q[3] for _, q in asked])):
        if isinstance(res, EquityInputError):
            continue
        weights = [h.exact_equity if h.exact_equity is not None else Fraction(h.equity) for h in res.hands]
        den = math.lcm(*(w.denominator for w in weights))
        parts = [w.numerator * (den // w.denominator) for w in weights]
        total = sum(parts)
        ev = _shares(pot.amount - pot.rake, parts, total) if total else [0] * len(names)
        won = reps[k].pots[i].winners
        for n, v in zip(names, ev):
            out[k][n] = out[k].get(n, 0) + v - won.get(n, 0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", type=Path, default=CACHED)
    ap.add_argument("--chunk", type=int, default=750)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    total, groups = allin_replays(args.folder, args.chunk)
    alone = [allin_adjustments(r) for g in groups for r in g]
    together = [d for g in groups for d in batch(g)]
    if alone != together:
        sys.exit("the chunk's pricing differs from the pot by pot one")
    print(f"{total:,} hands, {sum(len(g) for g in groups):,} with an all-in, {sum(map(bool, alone)):,} priced; "
          f"the same adjustments both ways; chunks of {args.chunk} hands")
    one, chunked = [], []
    for _ in range(args.rounds):
        t = cpu()
        for g in groups:
            for r in g:
                allin_adjustments(r)
        one.append((cpu() - t) / total * 1e6)
        t = cpu()
        for g in groups:
            batch(g)
        chunked.append((cpu() - t) / total * 1e6)
    print(f"  a pot at a time: {', '.join(f'{x:.2f}' for x in one)} µs a hand (median {statistics.median(one):.2f})")
    print(f"  a chunk at once: {', '.join(f'{x:.2f}' for x in chunked)} µs a hand (median {statistics.median(chunked):.2f})")


if __name__ == "__main__":
    main()
