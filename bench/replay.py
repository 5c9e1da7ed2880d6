"""Replay benchmark: hands replayed and validated per second, against pokerkit's State.

Run: ``python bench/replay.py [--hands 10000]``.  Never a test.

One core, one process, hands already parsed (parsing has its own benchmark):

* **hhtool**: :func:`hhtool.replay.replay` -- every check of RULES.md, the
  showdown, the pots, the summary -- on every hand;
* **pokerkit**: the same classic fixed-limit hands driven through a
  ``pokerkit.State`` built in a Telesina shape (below), every deal and action
  applied, the showdown and the chips left to its automations.

The pokerkit shape: the short deck (36 cards; ours are its 32 from 7 up),
antes, a bring-in, fixed limit with the small bet on streets 1-2 and the
big bet after; street 1 deals one card down and one up and opens on the
high card; streets 2-4 deal one card up and open on the high hand; a fifth
street deals one board card (the vela) and bets.  What could not be made
identical: pokerkit's short-deck hand ranking (flush above full house, as
ours, but A-6-7-8-9 as its low straight, and no suit tie-breaks), its
suit order for openers (ours is hearts > diamonds > clubs > spades), and it
checks none of the summary.  A hand pokerkit refuses (an opener it sees
otherwise) is counted and reported, not timed twice.

The hands come from ``hhtool simulate`` (classic, fixed limit, six players,
audit view).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hhtool.history.events import (  # noqa: E402
    Bet,
    BringIn,
    Call,
    Check,
    Complete,
    Deal,
    Fold,
    Hand,
    RaiseTo,
    Street,
    Vela,
)
from hhtool.history.reader import read_file, read_text  # noqa: E402
from hhtool.replay import replay  # noqa: E402
from hhtool.game.operations import deal_order  # noqa: E402


def load_hands(count: int) -> tuple[list[Hand], str]:
    try:
        from hhtool.simulate import simulate_text
        from hhtool.simulate.config import make_config
    except ImportError:
        pass
    else:
        config = make_config(rules="classic", structure="fixed", players=6, seed=2026)
        text, _ = simulate_text(config, count)
        hands = [r for r in read_text(text) if isinstance(r, Hand)]
        return hands, "simulated classic fixed-limit hands, 6 players (audit view)"
    samples: list[Hand] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p in sorted((ROOT / "sample_histories").glob("*.txt")):
            samples += [r for r in read_file(p) if isinstance(r, Hand)]
    out = [samples[i % len(samples)] for i in range(count)]
    return out, f"the {len(samples)} bundled samples, repeated"


def pokerkit_ops(hand: Hand) -> list[tuple[str, Any]] | None:
    """The hand as pokerkit calls; None when it is not a classic fixed-limit audit-view hand."""
    h = hand.header
    if h.profile != "classic" or h.structure != "fixed":
        return None
    ops: list[tuple[str, Any]] = []
    street = 0
    for e in hand.events:
        if isinstance(e, Street):
            street += 1
        elif isinstance(e, Deal):
            cards = (e.new or ()) if street > 1 else (e.known or ())
            if street == 1 and len(cards) != 2:
                return None
            from hhtool.game.cards import cards_str

            ops.append(("deal_hole", cards_str(cards).replace(" ", "")))
        elif isinstance(e, BringIn):
            ops.append(("post_bring_in", None))
        elif isinstance(e, (Complete, RaiseTo)):
            ops.append(("complete_bet_or_raise_to", e.to))
        elif isinstance(e, Bet):
            ops.append(("complete_bet_or_raise_to", e.amount))
        elif isinstance(e, (Call, Check)):
            ops.append(("check_or_call", None))
        elif isinstance(e, Fold):
            ops.append(("fold", None))
        elif isinstance(e, Vela):
            from hhtool.game.cards import card_str

            ops.append(("deal_board", card_str(e.card)))
    return ops


def pokerkit_run(hands: list[Hand]) -> tuple[float, list[int], int]:
    from pokerkit import (
        Automation,
        BettingStructure,
        Deck,
        Mode,
        Opening,
        ShortDeckHoldemHand,
        State,
        Street as PkStreet,
    )

    autos = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    prepared = []
    for hand in hands:
        ops = pokerkit_ops(hand)
        if ops is None:
            continue
        h = hand.header
        order = deal_order([(s.seat, s.player) for s in hand.seats], hand.table.button)
        stacks = {s.player: s.stack for s in hand.seats}
        streets = (
            PkStreet(False, (False, True), 0, False, Opening.HIGH_CARD, h.small_bet, 4),
            PkStreet(False, (True,), 0, False, Opening.HIGH_HAND, h.small_bet, 4),
            PkStreet(False, (True,), 0, False, Opening.HIGH_HAND, h.big_bet, 4),
            PkStreet(False, (True,), 0, False, Opening.HIGH_HAND, h.big_bet, 4),
            PkStreet(False, (), 1, False, Opening.HIGH_HAND, h.big_bet, 4),
        )
        args = (autos, Deck.SHORT_DECK_HOLDEM, (ShortDeckHoldemHand,), streets, BettingStructure.FIXED_LIMIT, True,
                h.ante or 0, 0, h.bring_in or 0, [stacks[n] for _, n in order], len(order))
        prepared.append((args, ops))
    def run_one(args: Any, ops: list[tuple[str, Any]]) -> bool:
        try:
            state = State(*args, mode=Mode.CASH_GAME)
            for name, arg in ops:
                fn = getattr(state, name)
                fn() if arg is None else fn(arg)
        except (ValueError, KeyError):
            return False
        return True

    # an untimed pass finds the hands pokerkit accepts; both sides are timed on those alone
    accepted = [i for i, (args, ops) in enumerate(prepared) if run_one(args, ops)]
    start = time.perf_counter()
    for i in accepted:
        run_one(*prepared[i])
    return time.perf_counter() - start, accepted, len(prepared)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=10000)
    args = ap.parse_args()
    hands, what = load_hands(args.hands)
    print(f"replay, {len(hands):,} hands ({what}), one core")
    start = time.perf_counter()
    verdicts: dict[str, int] = {}
    for hand in hands:
        v = replay(hand).verdict
        verdicts[v] = verdicts.get(v, 0) + 1
    ours = time.perf_counter() - start
    print(f"{'hhtool replay (all hands)':<40} {len(hands) / ours:>10,.0f} hands/s   verdicts {verdicts}")
    classic = [h for h in hands if pokerkit_ops(h) is not None]
    if not classic:
        print("no classic fixed-limit audit-view hands: no pokerkit comparison")
        return
    try:
        seconds, accepted, n = pokerkit_run(classic)
    except ImportError:
        print("pokerkit not installed (pip install -e '.[bench]'): no ratio")
        return
    same = [classic[i] for i in accepted]
    start = time.perf_counter()
    for hand in same:
        replay(hand)
    ours_same = len(same) / (time.perf_counter() - start)
    theirs = len(same) / seconds
    print(f"{'hhtool replay (hands pokerkit accepts)':<40} {ours_same:>10,.0f} hands/s")
    print(f"{'pokerkit State (same hands)':<40} {theirs:>10,.0f} hands/s   ({n - len(same)} of {n} refused by pokerkit, not timed)")
    print(f"ratio hhtool / pokerkit: {ours_same / theirs:.1f}x")


if __name__ == "__main__":
    main()
