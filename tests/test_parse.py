"""Hand text to events: the format example in detail, names, money, time, errors."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from hhtool.game.cards import parse_card
from hhtool.history.errors import HandParseError, IncompleteHandError, InconsistentHandError
from hhtool.history.events import (
    Bet, BringIn, Call, Check, Collected, Complete, Deal, Fold, Joins, PostAnte, RaiseTo,
    Said, Shows, Street, Vela,
)
from hhtool.history.parse import parse_text
from tests.sample_paths import SAMPLES

EXAMPLE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")


def test_format_example_header_and_table() -> None:
    hand = parse_text(EXAMPLE)
    h = hand.header
    assert (h.site, h.hand_id, h.profile, h.structure) == ("Vela", "C-1001", "classic", "fixed")
    assert (h.small_bet, h.big_bet, h.ante, h.bring_in) == (50, 100, 10, 20)
    assert h.small_blind is None and h.big_blind is None
    assert h.started == datetime(2026, 11, 29, 18, 0, tzinfo=timezone.utc)
    assert h.ruleset().name == "classic"
    assert (hand.table.name, hand.table.max_seats, hand.table.button) == ("Vela 1", 6, 4)
    assert [s.player for s in hand.seats] == ["alice", "bob", "carol", "dave"]
    assert hand.seats[0].stack == 2000
    assert hand.money.symbol == "€" and hand.money.cents and hand.money.decimals


def test_format_example_events_and_lines() -> None:
    hand = parse_text(EXAMPLE)
    e = hand.events
    assert e[0] == PostAnte(7, "alice", 10) and e[0].line == 7
    assert e[4] == Street(11, "2nd")
    assert e[5] == Deal(12, "alice", (parse_card("Qc"), parse_card("Qs")), None)
    assert e[9] == BringIn(16, "alice", 20)
    assert e[12] == Complete(19, "dave", 50)
    assert any(isinstance(x, RaiseTo) and (x.by, x.to) == (100, 200) for x in e)
    vela = [x for x in e if isinstance(x, Vela)]
    assert vela[0].card == parse_card("Ks") and hand.vela == parse_card("Ks")
    assert [type(x) for x in hand.showdown] == [Shows, Shows]
    assert hand.collections == (Collected(50, "bob", 1090, "pot"),)
    s = hand.summary
    assert (s.total, s.rake, s.main_pot, s.side_pots) == (1140, 50, None, ())
    assert [o.outcome for o in s.outcomes] == ["lost", "won", "folded", "folded"]
    assert s.outcomes[3].button and s.outcomes[3].street == "4th"
    assert s.outcomes[1].amount == 1090 and s.outcomes[1].description == "two pair, Queens and Jacks"
    assert [x.line for x in e] == sorted(x.line for x in e)


def test_line_numbers_are_not_part_of_equality() -> None:
    assert parse_text("\n\n" + EXAMPLE) == parse_text(EXAMPLE)
    assert parse_text("\n\n" + EXAMPLE).events[0].line == 9


def test_hands_and_rule_sets_survive_pickling() -> None:
    """Hands cross process boundaries (a user's pool, the simulator's workers) in every build.

    Compiled by mypyc, a frozen dataclass refuses the field-by-field way
    back of a plain pickle; hhtool._native.pickling registers them.
    """
    import pickle

    hand = parse_text(EXAMPLE)
    back = pickle.loads(pickle.dumps(hand))
    assert back == hand
    assert [e.line for e in back.events] == [e.line for e in hand.events]  # not part of equality: compared apart
    rules = hand.header.ruleset()
    assert pickle.loads(pickle.dumps(rules)) == rules
    assert pickle.loads(pickle.dumps(hand.money)) == hand.money


def test_names_with_spaces_colons_brackets_and_prefixes() -> None:
    hand = parse_text((SAMPLES / "070_classic_no_limit_names_and_chatter.txt").read_text(encoding="utf-8"))
    assert hand.players == ("Il Vecchio", "Il", "ciro:napoli", "[VIP] Zia (IT)")
    actions = [(type(x).__name__, x.player) for x in hand.events if isinstance(x, (BringIn, Call, RaiseTo, Fold, Bet))]
    assert ("RaiseTo", "Il Vecchio") in actions and ("Fold", "Il") in actions
    assert ("BringIn", "ciro:napoli") in actions and ("Call", "[VIP] Zia (IT)") in actions
    said = [x for x in hand.events if isinstance(x, Said)]
    assert said[0].player == "Il" and said[0].text == "ciao a tutti"
    joins = [x for x in hand.events if isinstance(x, Joins)]
    assert joins[0].player == "Gianni" and joins[0].seat == 3  # not seated: read as a stranger


def test_chat_quoting_a_name_is_kept_verbatim() -> None:
    text = EXAMPLE.replace("carol: folds\n", 'carol: folds\ncarol said, "Dealt to bob [Ah] lol"\n')
    said = [x for x in parse_text(text).events if isinstance(x, Said)]
    assert said == [Said(0, "carol", "Dealt to bob [Ah] lol")]


def test_side_pots_chips_and_offsets() -> None:
    hand = parse_text((SAMPLES / "030_italian_no_limit_side_pots.txt").read_text(encoding="utf-8"))
    assert hand.summary.main_pot == 6100 and hand.summary.side_pots == (4500, 2000)
    assert [(c.pot, c.side) for c in hand.collections] == [("main", 0), ("side", 1), ("side", 2)]
    assert hand.money.symbol == "" and not hand.money.cents and hand.money.grouping
    assert hand.header.started.utcoffset() == timedelta(hours=1)


def test_italian_options() -> None:
    hand = parse_text((SAMPLES / "040_italian_vela_at_start_wild.txt").read_text(encoding="utf-8"))
    assert hand.header.vela_at_start and hand.header.wild == 7 and hand.header.exposure == "standard"
    rules = hand.header.ruleset()
    assert rules.vela == "at_start" and rules.wild == 7
    coperte = parse_text((SAMPLES / "050_italian_carte_coperte.txt").read_text(encoding="utf-8"))
    assert coperte.header.exposure == "carte_coperte"


def test_generic_zone_follows_daylight_saving() -> None:
    summer = EXAMPLE.replace("2026/11/29 18:00:00 UTC", "2026/07/01 18:00:00 ET")
    winter = EXAMPLE.replace("UTC", "ET")
    assert parse_text(summer).header.started.utcoffset() == timedelta(hours=-4)
    assert parse_text(winter).header.started.utcoffset() == timedelta(hours=-5)


def test_whole_currency_amounts() -> None:
    hand = parse_text((SAMPLES / "060_italian_una_coperta_own_view.txt").read_text(encoding="utf-8"))
    assert hand.header.small_bet == 200 and hand.money.cents and not hand.money.decimals
    assert hand.summary.total == 20100


def test_checks_and_own_view_deals() -> None:
    text = (SAMPLES / "060_italian_una_coperta_own_view.txt").read_text(encoding="utf-8")
    hand = parse_text(text)
    deals = [x for x in hand.events if isinstance(x, Deal) and x.player == "Bruno"]
    assert deals[0].known == (parse_card("Ah"),) and deals[0].new is None
    assert deals[-1].new is None and len(deals[-1].known or ()) == 3
    assert any(isinstance(x, Check) for x in hand.events)


@pytest.mark.parametrize(
    "old,new,error,line,column",
    [
        ("bob: checks\n", "bob: dances\n", HandParseError, 27, 4),
        ("Fixed Limit", "Spread Limit", HandParseError, 1, 37),
        ("UTC", "XYZ", HandParseError, 1, 114),
        ("*** SUMMARY ***", "*** SUMMARY", HandParseError, 51, 5),
        ("bob: calls €0.50\n", "bob: calls 0.50\n", InconsistentHandError, 30, 12),
        ("Seat 2: bob (€20.00", "Seat 1: bob (€20.00", InconsistentHandError, 4, 6),
        ("Seat 2: bob (€20.00", "Seat 9: bob (€20.00", InconsistentHandError, 4, 6),
        ("Telesina classic", "Telesina classic [wild 7]", InconsistentHandError, 1, None),
        ("alice: posts the ante €0.10\n", "", HandParseError, None, None),
    ],
)
def test_errors_say_where(old: str, new: str, error: type[Exception], line: int | None, column: int | None) -> None:
    text = EXAMPLE.replace(old, new, 1)
    if old.startswith("alice: posts"):
        text = text.replace("*** 2nd STREET ***\n", "*** 2nd STREET ***\nalice: posts the ante €0.10\n")
    with pytest.raises(error) as info:
        parse_text(text, source="x.txt")
    e = info.value
    assert isinstance(e, HandParseError | InconsistentHandError)
    if line is not None:
        assert e.line == line
    if column is not None:
        assert e.column == column
    assert e.hand_id == "C-1001" and e.source == "x.txt"
    assert str(e).startswith("x.txt:")


def test_truncated_hand_is_incomplete() -> None:
    cut = "\n".join(EXAMPLE.split("\n")[:40])
    with pytest.raises(IncompleteHandError, match="before its"):
        parse_text(cut)
    no_outcomes = EXAMPLE.split("Seat 3: carol folded")[0]
    with pytest.raises(IncompleteHandError, match="2 of 4 seats"):
        parse_text(no_outcomes)


def test_a_line_by_a_player_not_seated_says_so() -> None:
    for line, column in (("zed: folds", 1), ("Dealt to zed [Ks]", 10), ("zed collected €0.10 from pot", 1)):
        with pytest.raises(InconsistentHandError) as info:
            parse_text(EXAMPLE.replace("carol: folds", line, 1))
        assert str(info.value.message).startswith("zed is not seated at this table (seated: alice, bob, carol, dave)")
        assert (info.value.line_text, info.value.column) == (line, column)
    with pytest.raises(HandParseError) as parse_info:  # no reading with a seated name either: the grammar's words
        parse_text(EXAMPLE.replace("carol: folds", "zed dances"))
    assert "the name of a seated player" in parse_info.value.expected


def test_an_unseated_player_in_a_file_is_one_failed_hand(tmp_path: Path) -> None:
    """Through the real command: the C reader declines the hand, parse.py names the player (sample_histories/broken)."""
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "hhtool.cli", "parse", "sample_histories/broken/unseated_player.txt"],
        capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parent.parent,
    )
    assert r.returncode == 1
    assert "unseated_player.txt:18:1: inconsistent: zed is not seated at this table" in r.stdout + r.stderr
