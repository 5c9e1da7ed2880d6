"""The table of line kinds (hhtool/history/lines.py) and the event union: the grammar, the readers and every list of events agree on them.

The table must list exactly the grammar's body rules, and its event classes
must be the event union's (``hhtool/history/events.py``), in the same order:
those two are the only lists of line kinds, and everything else follows from
them or is held to them here -- the pickling of every event class, the
writer's line of each, the JSON of every card field, the visitor's method of
each, the action rows of the money lines.  Every kind must be read by the C
reader (a kind it has no routine for is named at start-up, in
``parse.C_UNREAD`` and a warning, never lost silently); the two hands of
``tests/every_kind.py``, which hold every line kind between them, are read in
C to the very hand the Python builder reads; and the C reader takes every word
it matches from the grammar: configured from a grammar with other words, it
reads those.
"""

from __future__ import annotations

import ast
import copyreg
import dataclasses
import importlib.util
import pickle
import re
from pathlib import Path
from typing import get_args

import pytest

from hhtool._native import pickling
from hhtool.history import events, jsonify, parse
from hhtool.history.build import BUILDERS, Builder
from hhtool.history.events import EVENTS, Event, RaiseTo
from hhtool.history.grammar import CHATTER, grammar_text, matcher, rule_shapes, terminal_patterns, terminal_words
from hhtool.history.lines import LINE_KINDS
from hhtool.history.visit import METHODS, EventVisitor, method_name
from hhtool.history.write import _WRITERS, write_hand
from tests.every_kind import ANTES, BLINDS, EVERY_KIND, kinds_in, python_reads
from tests.test_scan import deep

ROOT = Path(__file__).resolve().parent.parent
BUILT = importlib.util.find_spec("hhtool._native._scan") is not None
needs_c = pytest.mark.skipif(not BUILT, reason="the C reader is not built (HHTOOL_PURE=1)")


def test_the_table_lists_every_rule_of_the_grammar_in_its_order() -> None:
    assert [k.rule for k in LINE_KINDS] == list(rule_shapes("line"))


def test_the_kinds_without_a_place_are_the_ones_with_a_builder() -> None:
    assert {k.rule for k in LINE_KINDS if k.place is None} == set(BUILDERS)


def test_the_event_union_is_the_tables_event_classes_in_its_order() -> None:
    """The two lists of line kinds: a class in one is in the other, at the same place."""
    assert EVENTS == tuple(k.event for k in LINE_KINDS if k.event is not None)


def test_the_two_hands_hold_every_line_kind() -> None:
    held: set[str] = set()
    for text in EVERY_KIND:
        held |= set(kinds_in(python_reads(text)))
    for kind in LINE_KINDS:
        assert (kind.event.__name__ if kind.event is not None else kind.rule) in held, f"no {kind.rule} line in tests/every_kind.py"


def test_every_class_of_the_events_module_pickles_in_every_build() -> None:
    """Compiled, a class crosses to a worker process only registered (``hhtool/_native/pickling.py``).

    The events are registered from the union, the hand's own parts by
    name: every dataclass of the module must be, in either build, since
    the pure build would pickle one that is not and the compiled one would fail.
    """
    classes = [c for c in vars(events).values() if isinstance(c, type) and c.__module__ == events.__name__ and dataclasses.is_dataclass(c)]
    assert set(EVENTS) < set(classes)
    assert [c.__name__ for c in classes if not pickling.registered(c)] == []
    for text in EVERY_KIND:
        hand = python_reads(text)
        assert deep(pickle.loads(pickle.dumps(hand))) == deep(hand)


def test_a_class_is_registered_for_pickling_by_picklable_alone() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Kind:
        line: int

    assert not pickling.registered(Kind)
    pickling.picklable(Kind)
    try:
        assert pickling.registered(Kind)
    finally:
        del copyreg.dispatch_table[Kind]


def test_the_writer_has_the_line_of_every_event_class() -> None:
    assert set(_WRITERS) == set(EVENTS)


def test_every_field_of_cards_is_written_in_json_as_cards() -> None:
    """``jsonify._CARD_FIELDS`` is every field events.py types with ``Card`` (read from the source: compiled, the types are gone)."""
    tree = ast.parse((ROOT / "hhtool/history/events.py").read_text(encoding="utf-8"))
    typed = {
        (node.name, item.target.id)
        for node in tree.body if isinstance(node, ast.ClassDef)
        for item in node.body if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
        if re.search(r"\bCard\b", ast.unparse(item.annotation))
    }
    assert {(cls.__name__, name) for cls, name in jsonify._CARD_FIELDS} == typed


def test_a_visitor_calls_the_method_named_after_the_events_class() -> None:
    """Every class of the union has its method (a visitor with all of them sees each event by its own), the others fall to ``visit_other``."""

    def answer(name: str) -> object:
        return lambda self, e: name

    every = type("Every", (EventVisitor,), {name: answer(name) for name in METHODS.values()})()
    for text in EVERY_KIND:
        for e in python_reads(text).events:
            assert every.visit(e) == method_name(type(e))

    class Raises(EventVisitor[str]):
        def visit_raise_to(self, e: RaiseTo) -> str:
            return f"{e.player} to {e.to}"

        def visit_other(self, e: Event) -> str:
            return "other"

    seen = [Raises().visit(e) for e in python_reads(EVERY_KIND[0]).events]
    assert "dave to 100" in seen and seen.count("other") == len(seen) - 1
    with pytest.raises(NotImplementedError, match="visit_post_ante"):
        EventVisitor[None]().visit(python_reads(EVERY_KIND[0]).events[0])


def test_a_visitor_method_named_after_no_event_class_is_refused() -> None:
    with pytest.raises(TypeError, match="Typo.visit_raise is named after no event class"):

        class Typo(EventVisitor[None]):
            def visit_raise(self, e: RaiseTo) -> None:
                pass


def test_every_money_line_is_stored_as_an_action_row() -> None:
    """The store's action rows (``store/rows.py``, which feeds each to the flags) are the hand's money lines, one each, in order."""
    from hhtool.replay import replay
    from hhtool.store.flags import MoneyLine
    from hhtool.store.rows import RowBuilder

    money = get_args(MoneyLine)
    assert set(money) <= set(EVENTS)
    for text in EVERY_KIND:
        hand = python_reads(text)
        rows = RowBuilder()
        rows.add_hand(hand, text, "every.txt", 0, replay(hand), None)
        stored = rows.actions.cols[rows.actions.names.index("line")]
        assert stored == [e.line for e in hand.events if isinstance(e, money)]


def test_the_chatter_about_someone_not_seated_reads_as_its_kind() -> None:
    """The chatter kinds (``?chatter`` in the grammar) are the ``stranger`` kinds, and each one's line about a name not seated reads as it.

    grammar.py writes ``stranger`` from the chatter rules: the same kinds in
    the same order, each the same shape with STRANGER for PLAYER (so the C
    reader is told it reads it about a stranger), and its text in STRANGER's
    lookahead.
    """
    chatter, strangers = rule_shapes(CHATTER), rule_shapes("stranger")
    assert chatter and list(strangers) == list(chatter)
    for rule, shape in chatter.items():
        assert (strangers[rule].shape, strangers[rule].literals) == (shape.shape.replace("PLAYER", "STRANGER"), shape.literals)
    assert [row[0] for row in parse.scan_kinds() if row[6]] == list(chatter)
    lines = {type(e).__name__: (text.split("\n")[e.line - 1], getattr(e, "player", "")) for text in EVERY_KIND for e in python_reads(text).events}
    for kind in LINE_KINDS:
        if kind.rule in chatter:
            assert kind.event is not None
            text, player = lines[kind.event.__name__]
            seated = matcher("line").match(text.replace(player, "\x1f00", 1))
            read = matcher("stranger").match("nobody here" + text.removeprefix(player))
            assert seated is not None and read == (kind.rule, ("nobody here", *seated[1][1:])), text




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
