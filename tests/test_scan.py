"""The C accelerator (``hhtool/_native/_scan.c``) reads a hand exactly as parse.py does, or declines it.

Differential tests: every hand is read by both paths -- ``_scan.parse_hand``
and parse.py's builder -- and wherever the C path returns a hand it must be
the hand the Python path returns, field by field, with line numbers, the
source, the money style, the types and the time zone (``deep`` compares what
``==`` leaves out).  Where the Python path raises, the C path must decline.
The corpora: the samples (good and broken, through the reader both ways),
generated hands with ordinary and with confusing names, simulated hands of
every profile, structure and option, the fault corpus, text mutations of all
of them (lines dropped, doubled, swapped, cut; characters changed, added,
removed; words swapped; names swapped), and hypothesis-made names, edits and
text.  Hands the C path must read (so that the speed does not silently go)
are checked too: every sample, generated and simulated hand.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import random
import re
import warnings
from collections.abc import Callable, Iterator
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hhtool.history import parse
from hhtool.history.build import Builder
from hhtool.history.errors import HandHistoryError
from hhtool.history.events import Hand
from hhtool.simulate.mutate import FAULTS
from hhtool.history.reader import read_file, read_stream, read_text
from hhtool.simulate import make_config, simulate_text
from hhtool.history.write import write_hand
from tests.every_kind import one_line_of_each_kind
from tests.handgen import NAMES, generate_hand
from tests.sample_paths import BROKEN, GOOD

pytestmark = pytest.mark.compiled  # the C reader: not built with HHTOOL_PURE=1

Scan = Callable[[str, int, str], "Hand | None"]


def _scan() -> Scan:
    fast = parse.ACCELERATOR
    assert fast is not None
    return fast


def deep(x: object) -> object:
    """Everything a value holds, as nested tuples: equal exactly when two values are the same in every field and type."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, tuple((f.name, deep(getattr(x, f.name))) for f in dataclasses.fields(x)))
    if isinstance(x, tuple):
        return ("tuple", tuple(deep(i) for i in x))
    if isinstance(x, datetime):
        return ("datetime", x.isoformat(), repr(x.tzinfo), x.fold)
    if isinstance(x, HandHistoryError):
        return (type(x).__name__, str(x), x.line, x.column, x.line_text, x.expected, x.hand_id, x.source)
    return (type(x).__name__, x)


def python_path(text: str, first_line: int = 1, source: str = "s.txt") -> Hand | HandHistoryError:
    """parse.py alone: what the hand is without the accelerator."""
    try:
        return Builder(text.split("\n"), first_line, source).parse()
    except HandHistoryError as e:
        return e


_HUGE = re.compile(r"[0-9]{10}")


def agree(text: str, first_line: int = 1, source: str = "s.txt", *, must: bool = False) -> bool:
    """Both paths on one hand: the same hand, or a decline.  Returns whether the C path read it.

    ``must``: the C path must read every hand parse.py reads, but for numbers
    of ten digits or more (it declines what it would hold as big ints).
    """
    fast = _scan()(text, first_line, source)
    if fast is None:
        if must and not _HUGE.search(text.replace(",", "")):
            assert not isinstance(python_path(text, first_line, source), Hand), ("parse.py reads it, C declines", text)
        return False
    slow = python_path(text, first_line, source)
    assert isinstance(slow, Hand), (slow, text)
    assert deep(fast) == deep(slow), text
    return True


def records_both_ways(read: Callable[[], Iterator[object]], monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole reader run with and without the accelerator gives the same records (hands, errors, junk)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = [deep(r) for r in read()]
        with monkeypatch.context() as m:
            m.setattr(parse, "ACCELERATOR", None)
            slow = [deep(r) for r in read()]
    assert fast == slow


def hand_texts(text: str) -> list[str]:
    return [h for h in text.strip("\n").split("\n\n") if h.strip()]


# ------------------------------------------------------------- the switch


def test_the_accelerator_is_on_when_built() -> None:
    assert parse.ACCELERATOR is not None


def test_the_switch_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    fast = _scan()

    def spy(text: str, first_line: int, source: str) -> Hand | None:
        calls.append(text)
        return fast(text, first_line, source)

    text = GOOD[0].read_text(encoding="utf-8")
    monkeypatch.setattr(parse, "ACCELERATOR", spy)
    assert isinstance(parse.parse_text(text), Hand) and len(calls) == 1
    monkeypatch.setattr(parse, "ACCELERATOR", None)
    assert isinstance(parse.parse_text(text), Hand) and len(calls) == 1


def test_hands_read_in_c_are_not_tracked_by_the_gc() -> None:
    """No cycle can pass through a hand's frozen objects, so the GC need not walk the hands a program keeps."""

    def walk(x: object) -> Iterator[object]:
        yield x
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            for f in dataclasses.fields(x):
                yield from walk(getattr(x, f.name))
        elif isinstance(x, tuple):
            for item in x:
                yield from walk(item)

    hand = _scan()(_sample("030"), 1, "s")
    assert hand is not None and hand.summary.side_pots
    assert not any(gc.is_tracked(x) for x in walk(hand))


# ----------------------------------------------------------------- corpora


@pytest.mark.parametrize("path", GOOD + BROKEN, ids=lambda p: p.name)
def test_samples_read_the_same(path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    records_both_ways(lambda: read_file(str(path)), monkeypatch)


def test_every_good_sample_hand_is_read_in_c() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in GOOD:
            for hand in read_file(path):
                assert isinstance(hand, Hand)
                text = write_hand(hand).rstrip("\n")
                assert agree(text, 7, str(path)), (path.name, hand.hand_id)


def test_generated_hands_are_read_in_c_and_agree() -> None:
    rng = random.Random(3)
    for k in range(1500):
        assert agree(generate_hand(rng, k).rstrip("\n"), 1 + 50 * k), k


CONFUSING_NAMES = [
    ("bob", "bob smith", "bob smith:", "alice", "bob:"),
    ("Seat", "Seat 1:", "Dealt", "Total", "Vela", "Main"),
    ("Dealt to bob", "bob", "x [Ac]", "bob [Ac]", "Dealt to"),
    ("名人", "abcdef", "名人 abc", "ab", "名"),
    ("a: b", "a", "a:", "b", "a: b: c"),
    ("x (button)", "x", "y (small blind)", "y", "x (button) (big blind)"),
    ('said, "hi"', 'z said, "', "z", "w", 'w said, "x"'),
    ("p returned to q", "q", "p", "returned to q"),
    ("joins the table at seat #3", "k", "k joins the table at seat #3", "k joins"),
    ("***", "*** 2nd", "m", "n", "*** SUMMARY ***"),
    ("Uncalled", "Uncalled bet (", "u", "v", "Pair on board - a double bet is allowed"),
    ("is disconnected", "o is", "o", "o is disconnected"),
    ("Betting is capped", "Betting", "c", "d"),
    ("€5", "$", "1,000", "5 (10 in chips)", "(", ")"),
]


@pytest.mark.parametrize("names", CONFUSING_NAMES, ids=lambda n: n[0])
def test_confusing_names_agree(names: tuple[str, ...]) -> None:
    rng = random.Random(len(names[0]))
    read = 0
    for k in range(200):
        read += agree(generate_hand(rng, k, names).rstrip("\n"))
    assert read > 0  # some hands of every set are read in C


@pytest.mark.parametrize(
    "options",
    [("classic", "fixed", None), ("classic", "no", None), ("stellapoker", "pot", None), ("stellapoker", "fixed", None),
     ("italian", "no", None), ("italian", "fixed", "vela-at-start,wild=T,carte-coperte"), ("italian", "pot", "wild=7,una-coperta")],
    ids=str,
)
def test_simulated_hands_are_read_in_c_and_agree(options: tuple[str, str, str | None]) -> None:
    rules, structure, italian = options
    players = 8 if rules == "italian" else 6
    for view in ("audit", "bob"):
        config = make_config(rules=rules, structure=structure, players=players, italian_options=italian, seed=5, view=view)
        text, _ = simulate_text(config, 60)
        for k, hand in enumerate(hand_texts(text)):
            assert agree(hand, k * 100 + 1, "sim.txt"), hand


def test_simulated_hands_with_faults_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    config = make_config(rules="classic", structure="fixed", players=6, seed=9, faults=0.5)
    text, _ = simulate_text(config, 150)
    records_both_ways(lambda: read_text(text, "f.txt"), monkeypatch)


def test_fault_corpus_agrees() -> None:
    from tests.test_replay_samples import sample_hands

    for hand in sample_hands():
        for fault in FAULTS:
            for seed in range(2):
                altered = fault.apply(hand, random.Random(seed))
                if altered is not None:
                    agree(write_hand(altered.hand).rstrip("\n"), 3)


# ----------------------------------------------------------------- mutations

_CHARS = [" ", ":", ",", ".", "[", "]", "(", ")", '"', "#", "-", "/", "|", "0", "1", "9", "€", "$", "£", "é", "名",
          "\x1f", "\t", "\r", "\x00", "A", "s", "h", "T", "x", "'", "\u00a0", "\ufeff", "\u2028", "\x85"]
_SWAPS = [
    ("calls", "bets"), ("bets", "raises 1 to"), ("raises", "calls"), ("2nd", "3rd"), ("3rd", "2nd"), ("5th", "4th"),
    ("€", "$"), ("$", ""), ("£", "€"), (".00", ""), (".50", ".5"), (",", ""), ("00", ",000"), ("folds", "checks"),
    ("SHOW DOWN", "SUMMARY"), ("SUMMARY", "SHOW DOWN"), ("VELA", "5th STREET"), ("Total pot", "Main pot"),
    ("Seat 1", "Seat 2"), ("Seat 2", "Seat 1"), ("(button)", "(small blind)"), ("mucked", "mucks hand"),
    ("from pot", "from side pot-1"), ("side pot-1", "side pot-2"), ("[", "[ "), ("] [", "]"), ("h", "x"),
    ("Dealt to", "Dealt  to"), ("won", "lost"), (" and is all-in", ""), ("calls", "calls 1 and is all-in"),
    ("ante", "small blind"), ("bring-in", "blinds"), ("classic", "italian"), ("italian", "stellapoker"),
    ("Fixed", "Pot"), ("UTC", "XYZ"), ("CET", "+25:00"), ("/1", "/0"), (":0", ":9"), ("Street", "street"),
    ("returned to ", "returned to  "), ("said", "says"), ("collected", "collects"), ("Vela [", "Vela [Ks "),
    (" | Rake ", " | Rake -"), ("Main pot", "Side pot-1"), ("*** 2nd STREET ***", "Betting is capped"),
]


def mutate(text: str, rng: random.Random, names: tuple[str, ...] = NAMES) -> str:
    """One random edit of a hand's text: a line or a character, a word or a name."""
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    line = lines[i]
    at = rng.randrange(len(line) + 1)
    kind = rng.randrange(13)
    if kind == 0 and len(lines) > 1:
        del lines[i]
    elif kind == 1:
        lines.insert(i, lines[j])
    elif kind == 2:
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3:
        lines[i] = line[:at]
    elif kind == 4:
        return text[: rng.randrange(len(text) + 1)]
    elif kind == 5:
        lines[i] = line[:at] + rng.choice(_CHARS) + line[at + 1 :]
    elif kind == 6:
        lines[i] = line[:at] + rng.choice(_CHARS) + line[at:]
    elif kind == 7:
        lines[i] = line[:at] + line[at + 1 :]
    elif kind == 8:
        a, b = rng.choice(names), rng.choice(names)
        lines[i] = line.replace(a, b, 1)
    elif kind == 9:
        a, b = rng.choice(_SWAPS)
        lines[i] = line.replace(a, b, 1) if rng.random() < 0.7 else line.replace(b, a, 1)
    elif kind == 10:
        lines.insert(i, rng.choice(["", " ", "\t", "junk"]))
    elif kind == 11:
        lines[i] = rng.choice([" ", "\t", ""]) + line + rng.choice([" ", "\r", ""])
    else:
        lines.insert(i, rng.choice(names) + rng.choice([" leaves the table", ' said, "Dealt to bob [x"', ": folds", " joins the table at seat #2"]))
    return "\n".join(lines)


def _base_texts() -> list[str]:
    rng = random.Random(17)
    texts = [generate_hand(rng, k).rstrip("\n") for k in range(150)]
    texts += [generate_hand(rng, k, names).rstrip("\n") for k, names in enumerate(CONFUSING_NAMES * 4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts += [write_hand(h).rstrip("\n") for path in GOOD for h in read_file(path) if isinstance(h, Hand)]
    return texts


def test_mutated_hands_agree() -> None:
    rng = random.Random(23)
    read = 0
    texts = _base_texts()
    for k in range(6000):
        text = texts[k % len(texts)]
        for _ in range(rng.choice((1, 1, 2, 3))):
            text = mutate(text, rng, rng.choice([NAMES, *CONFUSING_NAMES]))
        read += agree(text, rng.randrange(1, 10_000))
    assert 0 < read < 6000


def test_mutated_files_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole files, through the reader: hands split, joined and cut by the edits, CRLF, BOM, Windows-1252."""
    rng = random.Random(29)
    texts = _base_texts()
    for _ in range(12):
        parts = [mutate(rng.choice(texts), rng) for _ in range(40)]
        data = ("\n\n".join(parts) + "\n").encode("utf-8", errors="replace")
        if rng.random() < 0.3:
            data = data.replace(b"\n", b"\r\n")
        if rng.random() < 0.3:
            data = b"\xef\xbb\xbf" + data
        if rng.random() < 0.3:
            cut = rng.randrange(len(data))
            data = data[:cut] + "€5 Ännchen".encode("cp1252") + data[cut:]
        records_both_ways(lambda: read_stream(io.BytesIO(data), "m.txt"), monkeypatch)


# -------------------------------------------------- every rule, every place

def _sample(name: str) -> str:
    return next(p for p in GOOD if p.name.startswith(name)).read_text(encoding="utf-8").strip("\n").split("\n\n")[0]


_EXAMPLE = _sample("000")  # € cents; alice, bob, carol, dave; 6-max
_CHIPS = _sample("070")  # chips with thousands separators; names with spaces, colons, brackets; chatter
_BLINDS = _sample("020")  # stellapoker, pot limit, split pot

_INSERTS = [
    "*** VELA *** [Ks]", "*** VELA *** [Ks Kd]", "*** SHOW DOWN ***", "*** SUMMARY ***", "*** 3rd STREET ***",
    "*** 6th STREET ***", "Total pot €11.40 | Rake €0.50", "Total pot 4,150 | Rake 0", "Main pot €11.40.",
    "Main pot €6.00. Side pot-1 €5.40.", "Main pot €6.00. Side pot-2 €5.40.", "Main pot €6.00. Side pot-1 €5.00.",
    "Main pot €6.00. Side pot-01 €5.40.", "Main pot 2,000. Side pot-1 2,150.", "Vela [Ks]", "Vela [7d]",
    "Seat 1: alice mucked", "Seat 2: alice mucked", "Seat 5: carol mucked", "Seat 3: carol (button) mucked",
    "Uncalled bet (€0.10) returned to bob", "Uncalled bet (0.10) returned to bob", "Uncalled bet (€0.10) returned to zed",
    "Uncalled bet (50) returned to Il Vecchio", "bob: posts the ante €0.10", "bob: posts small blind €0.10",
    "bob: posts big blind 0.10", "bob: folds", "bob: checks", "bob: mucks hand", "bob: doesn't show hand",
    "Dealt to bob [Ks]", "Dealt to bob", "Dealt to bob [Ks] [Kd]", "Dealt to bob [Ks] [Kd] [Kc]", "Dealt to zed [Ks]",
    "Dealt to Il", "Dealt to Il Vecchio [Ks]", "Pair on board - a double bet is allowed", "Betting is capped",
    "bob collected €0.10 from side pot-1", "bob collected €0.10 from side pot-0", "bob collected €0.10 from main pot",
    "bob collected €0.10 from side pot-99999999999", "zed joins the table at seat #9", "bob joins the table at seat #9",
    "zed joins the table at seat #99999999999", "bob joins the table at seat #99999999999", 'zed said, "x"', ' said, "x"',
    'a said, " said, "x"', 'bob said, ""', 'bob said, "', 'bob said, "Dealt to alice [x"', "zed leaves the table",
    " leaves the table", "Il Gatto joins the table at seat #3", "bob: bets €0.10 and is all-in",
    "bob: bets €0.10 and is all-inn", "bob: bets €0.10 and is all-in ", "bob: bets €0.10x", "bob: bets 0.10",
    "bob: bets €1,000.00", "bob: bets €1000,000", "bob: bets €1,0000", "bob: bets €99999999999999999",
    "bob: bets €999999999999999", "bob: bets €1.5", "Il: bets 1,000", "Il: bets 1,000.00", "Il: bets 12,34",
    "bob: raises €0.10 to €0.20", "bob: raises €0.10 to", "bob: completes it to €0.50", "bob: brings in for €0.20",
    "bob: calls €0.5", "bob: exposes [Ks]", "bob: exposes [Ks Kd]", "bob: exposes []", "bob: shows [Ks] (a pair)",
    "bob: shows [Ks] (a (pair))", "bob: shows [Ks] (A pair)", "bob: shows [Ks] ()", "bob is disconnected",
    "bob has timed out", "bob leaves the table", "[VIP] Zia (IT): checks", "ciro:napoli: folds", "Il Vecchio said, \"ok\"",
]


@pytest.mark.parametrize("base", [_EXAMPLE, _CHIPS, _BLINDS], ids=["example", "chips", "blinds"])
def test_every_line_kind_at_every_place(base: str) -> None:
    """The tricky lines, and a line of every kind (``tests/every_kind.py``: a new kind is here with no edit), inserted and replacing."""
    lines = base.split("\n")
    for extra in _INSERTS + [line for line in one_line_of_each_kind() if line not in _INSERTS]:
        for i in range(2, len(lines) + 1):
            agree("\n".join(lines[:i] + [extra] + lines[i:]), must=True)
        for i in range(2, len(lines)):
            agree("\n".join(lines[:i] + [extra] + lines[i + 1 :]), must=True)


_HEAD_EDITS = [
    (" UTC", " ABCDEF"), (" UTC", " ABCDE"), (" UTC", " +25:00"), (" UTC", " +01:00"), (" UTC", " -05:00"), (" UTC", " ET"),
    (" UTC", " XYZ"), (" UTC", " +0100"), (" UTC", ""), ("2026/11/29", "2026/02/30"), ("18:00:00", "24:00:00"),
    ("2026/11/29", "0000/11/29"), ("18:00:00", "18:00"), ("classic", "italian"), ("classic", "stellapoker"),
    ("classic", "classic [wild 7]"), ("classic", "italian [wild 10]"), ("classic", "italian [wild 1]"),
    ("classic", "italian [vela at start] [wild T] [carte coperte]"), ("classic", "italian [una coperta]"),
    ("classic", "italian [carte coperte] [wild T]"), ("classic", "italian [vela at start]"), ("classic", "poker"),
    ("ante €0.10, bring-in €0.20", "ante €0.10"), ("ante €0.10, bring-in €0.20", "blinds €0.10/€0.20"),
    ("ante €0.10", "ante 0.10"), ("ante €0.10", "ante $0.10"), ("ante €0.10", "ante €1,000"), ("ante €0.10", "ante €1,00"),
    ("(€0.50/€1.00)", "(50/100)"), ("(€0.50/€1.00)", "(€0.50/€1)"), ("(€0.50/€1.00)", "(0.50/1.00)"),
    ("Fixed Limit", "Spread Limit"), ("Fixed Limit", "Pot Limit"), ("Fixed Limit", "No Limit"), ("Vela Hand", "Ve.la_x Hand"),
    ("Vela Hand", "-Vela Hand"), ("#C-1001", "#-1"), ("#C-1001", "#C_1"), ("#C-1001", "#"), (" - ante", " -  ante"),
    ("ante 25, bring-in 50", "ante 25.00, bring-in 50"), ("(100/200)", "(100.00/200)"), ("ante 25", "ante €25"),
    ("blinds €0.25/€0.50", "blinds €0.25"), ("blinds €0.25/€0.50", "ante €0.25, bring-in €0.50"), ("(€0.50/€1.00)", "(€0.50/£1.00)"),
]
_TABLE_EDITS = [
    ("'Vela 1'", "'Ve''la'"), ("'Vela 1'", "''Vela'"), ("'Vela 1'", "'Vela''"), ("'Vela 1'", "'a' 6-max b'"), ("'Vela 1'", "''"),
    ("6-max", "0-max"), ("6-max", "2-max"), ("#4", "#44444444444"), ("#4", "#"), ("6-max", "66666666666-max"),
    ("'Sala Grande'", "'Sala 'Grande'"), ("'Sala Grande'", "'Sala' 6-max Seat #2 is the button'"), (" button", " buttons"),
]
_SEAT_EDITS = [
    ("Seat 2: bob", "Seat 2: alice"), ("Seat 2: bob", "Seat 7: bob"), ("Seat 2: bob", "Seat 0: bob"), ("Seat 2: bob", "Seat 1: bob"),
    ("(€20.00 in chips)", "(€20 in chips)"), ("(€20.00 in chips)", "(20.00 in chips)"), ("bob (", "bob  ("),
    ("in chips)", "in chips) "), ("Seat 2: bob", "Seat 2:"), ("bob (", "bob (x) ("), ("Seat 2: bob", "Seat 02: bob"),
    ("Seat 2: bob", "Seat 99999999999: bob"), ("(€20.00", "(€99999999999999999.00"), ("(€20.00", "(€1,000.00"),
    ("(5,000 in", "(5000 in"), ("(5,000 in", "(5,000.00 in"), ("Seat 2: Il (", "Seat 2: Il Vecchio ("),
]


@pytest.mark.parametrize("base", [_EXAMPLE, _CHIPS, _BLINDS], ids=["example", "chips", "blinds"])
def test_header_table_and_seat_variants(base: str) -> None:
    head, rest = base.split("\n", 1)
    table, seats_and_body = rest.split("\n", 1)
    for old, new in _HEAD_EDITS:
        agree(head.replace(old, new) + "\n" + rest, must=True)
    for old, new in _TABLE_EDITS:
        agree(head + "\n" + table.replace(old, new) + "\n" + seats_and_body, must=True)
    for old, new in _SEAT_EDITS:
        agree(head + "\n" + table + "\n" + seats_and_body.replace(old, new, 1), must=True)


@pytest.mark.parametrize(
    "seat,outcome",
    [("Seat 6: alice (€20.00 in chips)", "Seat 6: alice folded on 2nd Street"),
     ("Seat 7: erin (€20.00 in chips)", "Seat 7: erin folded on 2nd Street"),
     ("Seat 6: erin (€20.00 in chips)", "Seat 6: erin folded on 2nd Street"),
     ("Seat 4: erin (€20.00 in chips)", "Seat 4: erin folded on 2nd Street"),
     ("Seat 6: erin (€20.00 in chips)", "Seat 6: erin (button) (big blind) mucked")],
)
def test_an_added_seat_with_its_outcome(seat: str, outcome: str) -> None:
    """A seat line and its summary outcome together: a name twice, a seat off the table or twice, or a good one."""
    lines = _EXAMPLE.split("\n")
    agree("\n".join(lines[:6] + [seat] + lines[6:] + [outcome]), must=True)


# ---------------------------------------------------------------- hypothesis

_FRAGMENTS = ["a", "b", "Z", " ", ":", "[", "]", "(", ")", '"', "#", "-", ",", ".", "1", "€", "é", "名", "'",
              "Seat", "Dealt to ", ' said, "', " collected", " (button)", " returned to ", " is", " folds",
              " has timed out", " leaves the table", " joins the table at seat #", "***", "Total pot "]
_ODD_NAMES = st.lists(
    st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=4).map("".join),
    min_size=2, max_size=6, unique=True,
)
_UNICODE_NAMES = st.lists(
    st.text(st.characters(codec="utf-8", exclude_characters="\n"), min_size=1, max_size=10),
    min_size=2, max_size=6, unique=True,
)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), names=st.one_of(_ODD_NAMES, _UNICODE_NAMES))
def test_hypothesis_names_agree(seed: int, names: list[str]) -> None:
    agree(generate_hand(random.Random(seed), seed % 1000, names).rstrip("\n"), seed % 97 + 1)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), edits=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=6))
def test_hypothesis_edits_agree(seed: int, edits: list[int]) -> None:
    text = generate_hand(random.Random(seed), seed % 1000).rstrip("\n")
    for e in edits:
        text = mutate(text, random.Random(e))
    agree(text)


@settings(max_examples=300, deadline=None)
@given(
    head=st.sampled_from([0, 1, 2]),
    body=st.lists(st.text(st.characters(), max_size=60), max_size=12),
    first_line=st.one_of(st.integers(-(2**70), 2**70), st.integers(0, 100)),
)
def test_hypothesis_text_never_breaks_it(head: int, body: list[str], first_line: int) -> None:
    """Any text, with or without a real header, table and seats before it: a hand that agrees, or None."""
    real = generate_hand(random.Random(head), head).split("\n")
    text = "\n".join(real[: 2 + head * 2] + body)
    fast = _scan()(text, first_line, "x")
    if fast is not None:
        assert deep(fast) == deep(python_path(text, first_line, "x"))


def test_random_bytes_never_break_it() -> None:
    """Random bytes and random slices of real hands, read in C (memory safety; the sanitizer run is in docs/architecture.md, "The equivalence contract")."""
    rng = random.Random(31)
    texts = _base_texts()
    fast = _scan()
    for _ in range(3000):
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
        fast(raw.decode("utf-8", errors="surrogateescape"), 1, "b")
        fast(raw.decode("latin-1"), 1, "b")
        text = rng.choice(texts)
        a = rng.randrange(len(text))
        fast(text[a : a + rng.randrange(400)], 1, "b")
        fast(text[: rng.randrange(len(text) + 1)], 1, "b")
