"""The table of line kinds (hhtool/history/lines.py): the grammar, the Python builder and the C reader agree on it.

The table must list exactly the grammar's body rules; every kind must be read
by the C reader (a kind it has no routine for is named at start-up, in
``parse.C_UNREAD`` and a warning, never lost silently); two hands that
hold every line kind between them are read in C to the very hand the Python
builder reads; and the C reader takes every word it matches from the grammar:
configured from a grammar with other words, it reads those.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re

import pytest

from hhtool.history import parse
from hhtool.history.build import BUILDERS, Builder
from hhtool.history.events import Hand
from hhtool.history.grammar import grammar_text, rule_shapes, terminal_patterns, terminal_words
from hhtool.history.lines import LINE_KINDS
from hhtool.history.write import write_hand
from tests.test_scan import deep

BUILT = importlib.util.find_spec("hhtool._native._scan") is not None
needs_c = pytest.mark.skipif(not BUILT, reason="the C reader is not built (HHTOOL_PURE=1)")

ANTES = """\
Vela Hand #K-1: Telesina classic No Limit (€0.50/€1.00) - ante €0.10, bring-in €0.20 - 2026/11/29 18:00:00 UTC
Table 'Every kind' 6-max Seat #5 is the button
Seat 1: alice (€20.00 in chips)
Seat 2: bob (€20.00 in chips)
Seat 3: carol (€20.00 in chips)
Seat 4: dave (€20.00 in chips)
Seat 5: erin (€20.00 in chips)
alice: posts the ante €0.10
bob: posts the ante €0.10
carol: posts the ante €0.10
dave: posts the ante €0.10
erin: posts the ante €0.10 and is all-in
zed joins the table at seat #6
*** 2nd STREET ***
Dealt to alice [Qc Qs]
Dealt to bob [Js Jh]
Dealt to carol [7c 9s]
Dealt to dave [Ts Th]
Dealt to erin
alice: brings in for €0.20
bob: calls €0.20
carol: completes it to €0.50
dave: raises €0.50 to €1.00
alice: calls €0.80
bob: calls €0.80
carol: calls €0.50
*** 3rd STREET ***
Dealt to alice [Qc Qs] [9c]
Dealt to bob [Js Jh] [8d]
Dealt to carol [7c 9s] [2d]
Dealt to dave [Ts Th] [7d]
Pair on board - a double bet is allowed
alice: checks
bob: bets €1.00
Betting is capped
carol: folds
dave: calls €1.00
alice: calls €1.00
*** 4th STREET ***
Dealt to alice [Qc Qs 9c] [Jc]
Dealt to bob [Js Jh 8d] [Qh]
Dealt to dave [Ts Th 7d] [8s]
dave: exposes [Ts]
alice: checks
bob: checks
dave: checks
*** 5th STREET ***
Dealt to alice [Qc Qs 9c Jc] [Jd]
Dealt to bob [Js Jh 8d Qh] [Qd]
Dealt to dave [Ts Th 7d 8s] [6s]
alice: checks
bob: checks
dave: checks
*** VELA *** [Ks]
alice: bets €2.00
bob: calls €2.00
dave: calls €2.00
bob is disconnected
bob has timed out
zed said, "nice hand"
alice said, "thanks, bob"
zed leaves the table
*** SHOW DOWN ***
alice: shows [Qc Qs 9c Jc Jd] (two pair, Queens and Jacks)
bob: shows [Js Jh 8d Qh Qd] (two pair, Queens and Jacks)
dave: mucks hand
erin: doesn't show hand
alice collected €5.00 from side pot-1
alice collected €2.00 from main pot
*** SUMMARY ***
Total pot €7.50 | Rake €0.50
Main pot €2.00. Side pot-1 €5.50.
Vela [Ks]
Seat 1: alice showed [Qc Qs 9c Jc Jd] and won (€7.00) with two pair, Queens and Jacks
Seat 2: bob showed [Js Jh 8d Qh Qd] and lost with two pair, Queens and Jacks
Seat 3: carol folded on 3rd Street
Seat 4: dave mucked
Seat 5: erin (button) collected (€0.00)"""

BLINDS = """\
StellaPoker Hand #S-1: Telesina stellapoker Pot Limit ($0.50/$1.00) - blinds $0.25/$0.50 - 2026/11/29 20:15:00 EST
Table 'Blinds' 6-max Seat #1 is the button
Seat 1: Marco ($10.00 in chips)
Seat 2: Lucia ($10.00 in chips)
Seat 3: Gianni ($10.00 in chips)
Lucia: posts small blind $0.25
Gianni: posts big blind $0.50
*** 2nd STREET ***
Dealt to Marco [Ah Kd]
Marco: folds
Lucia: folds
Uncalled bet ($0.25) returned to Gianni
Gianni collected $0.50 from pot
*** SUMMARY ***
Total pot $0.50 | Rake $0.00
Seat 1: Marco (button) folded on 2nd Street
Seat 2: Lucia (small blind) folded on 2nd Street
Seat 3: Gianni (big blind) collected ($0.50)"""

EVERY_KIND = (ANTES, BLINDS)


def python_reads(text: str) -> Hand:
    return Builder(text.split("\n"), 1, "every.txt").parse()


def kinds_in(hand: Hand) -> set[str]:
    """The line kinds a hand holds, by the name of their event (and of the summary's parts)."""
    names = {type(e).__name__ for e in hand.events}
    s = hand.summary
    names |= {"total"} | ({"pots"} if s.main_pot is not None else set()) | ({"summary_vela"} if s.vela is not None else set())
    names |= {"summary"} | {f"seat_{o.outcome}" for o in s.outcomes}
    return names


def test_the_table_lists_every_rule_of_the_grammar_in_its_order() -> None:
    assert [k.rule for k in LINE_KINDS] == list(rule_shapes("line"))


def test_the_kinds_without_a_place_are_the_ones_with_a_builder() -> None:
    assert {k.rule for k in LINE_KINDS if k.place is None} == set(BUILDERS)


def test_the_two_hands_hold_every_line_kind() -> None:
    held: set[str] = set()
    for text in EVERY_KIND:
        held |= kinds_in(python_reads(text))
    for kind in LINE_KINDS:
        assert (kind.event.__name__ if kind.event is not None else kind.rule) in held, kind.rule


def test_the_hands_are_written_back_as_read() -> None:
    for text in EVERY_KIND:
        assert write_hand(python_reads(text)) == text + "\n"


@needs_c
def test_the_c_reader_reads_every_line_kind() -> None:
    assert parse.C_UNREAD == ()


@needs_c
@pytest.mark.parametrize("text", EVERY_KIND, ids=["antes", "blinds"])
def test_every_line_kind_is_read_in_c_as_in_python(text: str) -> None:
    fast = parse.ACCELERATOR
    assert fast is not None
    hand = fast(text, 7, "every.txt")
    assert hand is not None, "the C reader declined a hand of known line kinds"
    assert deep(hand) == deep(Builder(text.split("\n"), 7, "every.txt").parse())


@needs_c
def test_a_kind_the_c_reader_has_no_routine_for_is_named_and_its_hands_declined() -> None:
    """A grammar rule of a shape _scan.c does not know: configure names it, and C declines the hands that hold it."""
    from hhtool._native import _scan

    rows = parse.scan_kinds()
    changed = [(r[0], r[1] + " DESCRIPTION", *r[2:]) if r[0] == "leaves" else r for r in rows]
    # a kind of a known shape without a place (a builder of its own in Python) is not read in C either
    changed = [(*r[:5], 0, *r[6:]) if r[0] == "timed_out" else r for r in changed]
    try:
        assert parse.configure_scan(changed) == ("timed_out", "leaves")
        assert _scan.parse_hand(ANTES, 1, "s") is None  # it holds "zed leaves the table"
        assert _scan.parse_hand(BLINDS, 1, "s") is not None
    finally:
        assert parse.configure_scan() == ()
    assert _scan.parse_hand(ANTES, 1, "s") is not None


@needs_c
def test_a_terminal_of_another_structure_turns_it_off() -> None:
    """A terminal the C reader reads by hand, written with a structure its skeleton does not have: configure refuses it."""
    from hhtool._native import _scan

    try:
        with pytest.raises(ValueError, match="terminal ALL_IN"):
            parse.configure_scan(terminals={**terminal_patterns(), "ALL_IN": r"\ and\ is\ all\-in!?"})
        with pytest.raises(RuntimeError, match="configure"):
            _scan.parse_hand(BLINDS, 1, "s")
        with pytest.raises(ValueError, match="terminal CARDS"):
            parse.configure_scan(terminals={**terminal_patterns(), "CARDS": "[2-9TJQKA][hdcs](?:,[2-9TJQKA][hdcs])*"})
    finally:
        assert parse.configure_scan() == ()


def test_a_terminal_gives_its_words_to_the_skeleton_it_fits() -> None:
    patterns = terminal_patterns()
    assert terminal_words("{}", patterns["ALL_IN"], patterns) == ((" and is all-in",),)
    assert terminal_words("(?:{}[1-9][0-9]*|{|})", patterns["POT"], patterns) == (("side pot-",), ("main pot", "pot"))
    assert terminal_words("(?:{}[1-9][0-9]*{}{AMOUNT}{})+", patterns["SIDE_POTS"], patterns) == ((" Side pot-",), (" ",), (".",))
    assert terminal_words("[{[]}]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\\.[0-9]{2})?", patterns["AMOUNT"], patterns) == (("€", "$", "£"),)
    for skeleton, pattern in (("{}", r"\ and\ is\ all\-in!?"), ("{}", "[0-9]+"), ("{|}", "(?:a|b*)"), ("x{}", r"y\ z")):
        with pytest.raises(ValueError):
            terminal_words(skeleton, pattern, patterns)


# Every word of the header, table and seat lines, of literal terminals, of the currency and of a few body
# lines, changed: in the grammar's text and in the hands alike.  The words whose value the Python builder
# looks up (a structure, a blind, a street) stay, so that the hand read is the same but for its money's sign.
_OTHER_WORDS = (
    (" Hand #", " Game #"), (": Telesina ", ": Telesina-Vela "), (" - ante ", " - antes "), (", bring-in ", ", bring "),
    (" - blinds ", " - blind "), ("Table '", "Tavolo '"), ("-max", "-handed"), (" is the button", " deals"),
    (" in chips", " at stake"), (" and is all-in", " all-in"), (" (button)", " (dealer)"), (" Side pot-", " Sidepot #"),
    ("side pot-", "sidepot #"), ("€", "¥"), (" is disconnected", " lost the connection"), (": posts the ante ", ": antes up "),
    ("*** SUMMARY ***", "*** RIEPILOGO ***"), ("Dealt to ", "Cards to "),
)


def _in_other_words(text: str, grammar: bool) -> str:
    for old, new in _OTHER_WORDS:
        text = text.replace(old, new)
    return text.replace('"Seat "', '"Place "') if grammar else re.sub(r"(?m)^Seat ", "Place ", text)


@needs_c
@pytest.mark.parametrize("text", EVERY_KIND, ids=["antes", "blinds"])
def test_the_c_reader_reads_the_words_its_grammar_has(text: str) -> None:
    """Configured from a grammar with other words, the C reader reads hands in those words and declines the old ones."""
    from hhtool._native import _scan

    other = _in_other_words(grammar_text(), grammar=True)
    assert other != grammar_text()
    hand = Builder(text.split("\n"), 7, "every.txt").parse()
    sign = _in_other_words(hand.money.symbol, grammar=False)  # € became ¥; $ stays
    want = dataclasses.replace(hand, money=dataclasses.replace(hand.money, symbol=sign))
    try:
        assert parse.configure_scan(grammar=other) == ()
        read = _scan.parse_hand(_in_other_words(text, grammar=False), 7, "every.txt")
        assert read is not None, "the C reader declined a hand in its grammar's words"
        assert deep(read) == deep(want)
        assert _scan.parse_hand(text, 7, "every.txt") is None
    finally:
        assert parse.configure_scan() == ()
    assert deep(_scan.parse_hand(text, 7, "every.txt")) == deep(hand)
