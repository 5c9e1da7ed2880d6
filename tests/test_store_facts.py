"""The card facts and the flags: one reading for a replayed hand and for one whose replay raised.

The replay reads the cards as it walks (``Replay.facts``); a hand whose
replay raised is stored as ``replay_error`` with ``card_facts(hand)``, the
same reading of the events alone.  Both must give the store the same rows
of cards, the same starting pairs, streets seen and flags, on every kind
of hand: the samples, simulated hands of every profile, structure, option
and view, hands with faults, and hands whose text was mutated.
"""

from __future__ import annotations

import random
import warnings
from functools import cache
from typing import Any

import pytest

from hhtool.history.errors import HandHistoryError
from hhtool.history.events import Hand
from hhtool.history.parse import parse_hand_text
from hhtool.replay import replay
from hhtool.replay.facts import card_facts
from hhtool.simulate import make_config, simulate_text
from hhtool.store.rows import RowBuilder, Rows
from tests.test_replay_samples import HANDS
from tests.test_scan import hand_texts, mutate

OPTIONS = [
    ("classic", "fixed", None), ("classic", "no", None), ("stellapoker", "pot", None), ("stellapoker", "fixed", None),
    ("italian", "no", None), ("italian", "fixed", "vela-at-start,wild=T,carte-coperte"), ("italian", "pot", "wild=7,una-coperta"),
    ("italian", "no", "carte-coperte"),
]


@cache
def corpus() -> tuple[Hand, ...]:
    """Samples; simulated hands of every option in an audit and an own view, with faults; and mutated copies."""
    hands = list(HANDS)
    texts: list[str] = []
    for k, (rules, structure, italian) in enumerate(OPTIONS):
        for view, faults in (("audit", 0.3), ("bob", 0.0)):
            config = make_config(rules=rules, structure=structure, players=8 if rules == "italian" else 6,
                                 italian_options=italian, seed=40 + k, view=view, faults=faults)
            texts += hand_texts(simulate_text(config, 5)[0])
    rng = random.Random(7)
    mutated = []
    for text in texts:
        for _ in range(1):
            changed = text
            for _ in range(rng.choice((1, 2))):
                changed = mutate(changed, rng)
            mutated.append(changed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for text in texts + mutated:
            try:
                hands.append(parse_hand_text(text, first_line=1, source="sim.txt"))
            except HandHistoryError:
                continue
    return tuple(hands)


def test_the_corpus_holds_every_kind_of_hand() -> None:
    verdicts = {replay(h, explain=False).verdict for h in corpus()}
    assert verdicts == {"ok", "disputed", "invalid"}
    assert {h.header.exposure for h in corpus()} == {"standard", "carte_coperte", "una_coperta"}
    assert len(corpus()) > 100


def test_the_replay_carries_the_facts_of_the_events_alone() -> None:
    for hand in corpus():
        assert replay(hand, explain=False).facts == card_facts(hand), hand.hand_id


def _columns(rows: Rows, *names: str) -> list[tuple[Any, ...]]:
    cols = [rows.cols[rows.names.index(n)] for n in names]
    return list(zip(*cols))


CARD_SEAT_COLUMNS = ("local", "seat", "player", "dealt_in", "went_to_showdown", "flag_bits", "hole_card", "door_card")
"""The seat columns that come from the card facts and the flags (the money ones need the replay)."""


@pytest.mark.parametrize("part", range(2))
def test_a_replay_error_hand_gets_the_rows_of_its_replayed_self(part: int) -> None:
    """The same hands stored replayed and as ``replay_error``: the same cards, actions, flags and starting pairs."""
    replayed, failed = RowBuilder(), RowBuilder()
    hands = corpus()[part::2]
    for hand in hands:
        replayed.add_hand(hand, "raw", "f.txt", 0, replay(hand, explain=False), None)
        failed.add_hand(hand, "raw", "f.txt", 0, None, "the replay failed (RuntimeError: a test)")
    assert replayed.cards.cols == failed.cards.cols and len(replayed.cards.cols[0]) > 0
    assert replayed.actions.cols == failed.actions.cols
    seat_columns = [n for n in CARD_SEAT_COLUMNS if n in replayed.seats.names] + [
        n for n in replayed.seats.names if n.startswith(("bets_", "calls_", "folds_"))
    ]
    assert len(seat_columns) == len(CARD_SEAT_COLUMNS) + 15
    assert _columns(replayed.seats, *seat_columns) == _columns(failed.seats, *seat_columns)
    hand_columns = ("local", "dealt_in", "vela", "showdown")
    assert _columns(replayed.hands, *hand_columns) == _columns(failed.hands, *hand_columns)
    assert set(failed.findings.cols[failed.findings.names.index("code")]) == {"replay_error"}
