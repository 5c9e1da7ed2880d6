"""Numbers out of range: a clean error of the hand that holds them, in every place a hand has a number.

The bounds (docs/format-notes.md, "Bounds"): amounts at most
``money.MAX_AMOUNT`` minor units, seat numbers, table sizes, the button,
side-pot numbers and ``joins ... seat #`` at most ``parse.MAX_SEAT``, at most
``parse.MAX_HAND_LINES`` lines a hand.  Past them the hand is an
``OutOfRangeError`` (kind ``range``) naming the file, line, hand and number;
at them it reads as before.  A number of 4,301 digits used to be Python's
integer-string ``ValueError`` (a traceback, and the other files never read).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hhtool.history import parse
from hhtool.history.build import Builder
from hhtool.history.errors import HandHistoryError, OutOfRangeError
from hhtool.history.events import Hand
from hhtool.history.money import MAX_AMOUNT
from hhtool.history.parse import MAX_HAND_LINES, MAX_SEAT
from hhtool.history.reader import read_text
from tests.inprocess import hhtool
from tests.sample_paths import GOOD

HHTOOL = str(Path(sys.executable).with_name("hhtool"))
HUGE = "9" * 4301  # one digit past Python's integer-string limit
LONG = "9" * 3900  # thousands of digits on a line the reader takes whole (docs/format-notes.md, "Size bounds": 4,096)


def sample(prefix: str) -> str:
    return next(p for p in GOOD if p.name.startswith(prefix)).read_text(encoding="utf-8").strip("\n").split("\n\n")[0]


SAMPLES = {"chips": sample("030"), "cents": sample("000"), "blinds": sample("020"), "uncalled": sample("010")}
CENTS = {"cents": "€", "blinds": "$", "uncalled": "€"}

# (id, sample, text, the text with {} where the number goes, amount or seat)
POSITIONS: list[tuple[str, str, str, str, str]] = [
    ("small bet", "chips", "(200/400)", "({}/400)", "amount"),
    ("big bet", "chips", "(200/400)", "(200/{})", "amount"),
    ("ante", "chips", " - ante 100 - ", " - ante {} - ", "amount"),
    ("bring-in", "cents", "bring-in €0.20 -", "bring-in {} -", "amount"),
    ("small blind", "blinds", "blinds $0.25/", "blinds {}/", "amount"),
    ("big blind", "blinds", "/$0.50 - 2026", "/{} - 2026", "amount"),
    ("table size", "chips", "' 8-max Seat", "' {}-max Seat", "seat"),
    ("button", "chips", "Seat #5 is the button", "Seat #{} is the button", "seat"),
    ("seat number", "chips", "Seat 1: Luca (3,000", "Seat {}: Luca (3,000", "seat"),
    ("stack", "chips", "Luca (3,000 in chips)", "Luca ({} in chips)", "amount"),
    ("posted ante", "chips", "Luca: posts the ante 100", "Luca: posts the ante {}", "amount"),
    ("posted blind", "blinds", "posts small blind $0.25", "posts small blind {}", "amount"),
    ("bring-in line", "cents", "alice: brings in for €0.20", "alice: brings in for {}", "amount"),
    ("completion", "cents", "dave: completes it to €0.50", "dave: completes it to {}", "amount"),
    ("bet", "chips", "Matteo: bets 400", "Matteo: bets {}", "amount"),
    ("call", "chips", "Chiara: calls 400", "Chiara: calls {}", "amount"),
    ("raise by", "chips", "raises 2,500 to", "raises {} to", "amount"),
    ("raise to", "chips", "to 2,900 and is all-in", "to {} and is all-in", "amount"),
    ("uncalled bet", "uncalled", "Uncalled bet (€0.50)", "Uncalled bet ({})", "amount"),
    ("collected", "chips", "Sofia collected 6,100 from main pot", "Sofia collected {} from main pot", "amount"),
    ("collected side pot number", "chips", "from side pot-1", "from side pot-{}", "seat"),
    ("total pot", "chips", "Total pot 12,600 |", "Total pot {} |", "amount"),
    ("rake", "chips", "| Rake 0", "| Rake {}", "amount"),
    ("main pot", "chips", "Main pot 6,100.", "Main pot {}.", "amount"),
    ("side pot number", "chips", "Side pot-1 4,500.", "Side pot-{} 4,500.", "seat"),
    ("side pot", "chips", "Side pot-1 4,500.", "Side pot-1 {}.", "amount"),
    ("outcome seat", "chips", "Seat 5: Davide (button) folded", "Seat {}: Davide (button) folded", "seat"),
    ("won", "chips", "won (4,500)", "won ({})", "amount"),
    ("collected outcome", "uncalled", "alice (button) collected (€0.30)", "alice (button) collected ({})", "amount"),
    ("joins seat", "chips", "*** SUMMARY ***", "Luca joins the table at seat #{}\n*** SUMMARY ***", "seat"),
    ("stranger joins seat", "chips", "*** SUMMARY ***", "Gianni joins the table at seat #{}\n*** SUMMARY ***", "seat"),
]
IDS = [p[0] for p in POSITIONS]


def written(kind: str, sample_key: str, digits: str, hundredths: str = "00") -> str:
    """The number as the sample writes it: an amount with its sign and decimals in a hand in cents."""
    if kind == "seat" or sample_key not in CENTS:
        return digits
    return f"{CENTS[sample_key]}{digits}.{hundredths}"


def edited(position: tuple[str, str, str, str, str], digits: str, hundredths: str = "00") -> str:
    _, key, old, new, kind = position
    text = SAMPLES[key]
    assert old in text, (old, key)
    return text.replace(old, new.format(written(kind, key, digits, hundredths)), 1)


def over(position: tuple[str, str, str, str, str]) -> tuple[str, str]:
    """Just past the bound: (whole digits, hundredths)."""
    if position[4] == "seat":
        return str(MAX_SEAT + 1), "00"
    if position[1] in CENTS:
        return str(MAX_AMOUNT // 100), "01"
    return str(MAX_AMOUNT + 1), "00"


def at(position: tuple[str, str, str, str, str]) -> str:
    """Exactly the bound, as whole digits (hundredths 00)."""
    if position[4] == "seat":
        return str(MAX_SEAT)
    return str(MAX_AMOUNT // 100 if position[1] in CENTS else MAX_AMOUNT)


def read(text: str) -> Hand | HandHistoryError:
    """parse.py alone (the C reader declines what it cannot hold; tests/test_bounds_scan.py holds the two together)."""
    try:
        return Builder(text.split("\n"), 1, "hostile.txt").parse()
    except HandHistoryError as e:
        return e


def changed_line(position: tuple[str, str, str, str, str], text: str) -> int:
    """The line number of the edit: the first line that differs from the sample."""
    old = SAMPLES[position[1]].split("\n")
    return next(i for i, (a, b) in enumerate(zip(old, text.split("\n")), start=1) if a != b)


@pytest.mark.parametrize("position", POSITIONS, ids=IDS)
def test_a_number_of_thousands_of_digits_is_a_range_error(position: tuple[str, str, str, str, str]) -> None:
    text = edited(position, HUGE)
    got = read(text)
    assert isinstance(got, OutOfRangeError), got
    assert got.kind == "range"
    assert "4,301 digits is out of range: the largest accepted is " in got.message
    assert got.line == changed_line(position, text)
    assert got.hand_id in ("I-3001", "C-1001", "S-5001", "C-2001")
    assert got.source == "hostile.txt"
    assert HUGE not in str(got)  # the message quotes the length, not the number (the line is in line_text)
    assert got.line_text is not None and HUGE in got.line_text


@pytest.mark.parametrize("position", POSITIONS, ids=IDS)
def test_just_past_the_bound_is_a_range_error(position: tuple[str, str, str, str, str]) -> None:
    digits, hundredths = over(position)
    text = edited(position, digits, hundredths)
    got = read(text)
    assert isinstance(got, OutOfRangeError), got
    largest = "99" if position[4] == "seat" else "1,000,000,000,000" if position[1] not in CENTS else "10,000,000,000.00"
    assert got.message.endswith(f"is out of range: the largest accepted is {CENTS.get(position[1], '') if position[4] == 'amount' else ''}{largest}")
    assert got.line == changed_line(position, text)


@pytest.mark.parametrize("position", POSITIONS, ids=IDS)
def test_the_bound_itself_reads(position: tuple[str, str, str, str, str]) -> None:
    """At the bound the number is read as written (the hand may still contradict itself elsewhere: a seat 99 at an 8-max table)."""
    digits = at(position)
    got = read(edited(position, digits))
    assert not isinstance(got, OutOfRangeError), got
    if isinstance(got, Hand):
        value = int(digits) * (100 if position[4] == "amount" and position[1] in CENTS else 1)
        assert value in _numbers(got)


def _numbers(hand: Hand) -> set[int]:
    """Every int a hand holds (the fields of its events, summary, seats, table and header)."""
    import dataclasses

    out: set[int] = set()

    def walk(x: object) -> None:
        if isinstance(x, bool):
            return
        if isinstance(x, int):
            out.add(x)
        elif isinstance(x, tuple):
            for y in x:
                walk(y)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            for f in dataclasses.fields(x):
                walk(getattr(x, f.name))

    walk(hand)
    return out


def test_grouped_and_zero_padded_amounts() -> None:
    """Thousands separators count as what they group; leading zeros are not digits of the value."""
    text = SAMPLES["chips"]
    grouped = "1" + ",000" * 1434  # 4,303 digits
    got = read(text.replace("Matteo: bets 400", f"Matteo: bets {grouped}", 1))
    assert isinstance(got, OutOfRangeError) and "4,303 digits" in got.message
    padded = read(text.replace("Matteo: bets 400", "Matteo: bets " + "0" * 5000 + "400", 1))
    assert isinstance(padded, Hand)
    assert [getattr(e, "amount", None) for e in padded.events if e.line == 19] == [400]
    seat = read(text.replace("Seat #5 is", "Seat #" + "0" * 5000 + "5 is", 1))
    assert isinstance(seat, Hand) and seat.table.button == 5


def test_another_currency_of_thousands_of_digits_says_so() -> None:
    """The sign is checked first; the message quotes the length, not the number."""
    got = read(SAMPLES["cents"].replace("bob: calls €0.20", f"bob: calls ${HUGE}.00", 1))
    assert isinstance(got, HandHistoryError) and got.kind == "inconsistent"
    assert got.message == "an amount of 4,301 digits is not in € like the header's"


def test_a_hand_of_too_many_lines() -> None:
    lines = SAMPLES["chips"].split("\n")
    at_summary = lines.index("*** SUMMARY ***")
    chatter = ['Luca said, "x"'] * (MAX_HAND_LINES - len(lines))
    ok = read("\n".join(lines[:at_summary] + chatter + lines[at_summary:]))
    assert isinstance(ok, Hand) and len(ok.events) >= MAX_HAND_LINES - len(lines)
    got = read("\n".join(lines[:at_summary] + chatter + ['Luca said, "y"'] + lines[at_summary:]))
    assert isinstance(got, OutOfRangeError), got
    assert got.message == f"the hand has {MAX_HAND_LINES + 1:,} lines; the most accepted is {MAX_HAND_LINES:,}"
    assert got.line == MAX_HAND_LINES + 1 and got.hand_id == "I-3001"


def test_the_reader_goes_on_after_a_hostile_hand() -> None:
    """In a file: the hostile hand is an error record, the next hand is read."""
    text = edited(POSITIONS[0], HUGE) + "\n\n" + SAMPLES["chips"] + "\n"
    records = list(read_text(text, source="mixed.txt"))
    assert [type(r).__name__ for r in records] == ["ErrorRecord", "Hand"]


def _run(*args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``hhtool *args`` in this process (:mod:`tests.inprocess`), or as the console script if ``process``."""
    if process:
        return subprocess.run([HHTOOL, *args], capture_output=True, text=True, timeout=120)
    return hhtool(*args)


@pytest.mark.parametrize("command", ["parse", "audit"])
def test_the_cli_reports_both_files(tmp_path: Path, command: str) -> None:
    """``hhtool parse bad.txt good.txt``: every bad hand named with its file, line and hand; good.txt read too; exit 1."""
    bad = tmp_path / "bad.txt"
    good = tmp_path / "good.txt"
    hostile = [edited(p, LONG) for p in POSITIONS]
    bad.write_text("\n\n".join(hostile) + "\n", encoding="utf-8")
    good.write_text(SAMPLES["chips"] + "\n", encoding="utf-8")
    r = _run(command, str(bad), str(good))
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "Traceback" not in out and "ValueError" not in out
    assert LONG not in out
    start = 1  # each hostile hand's first line in bad.txt
    for position, text in zip(POSITIONS, hostile):
        line = start + changed_line(position, text) - 1
        assert any(
            row.startswith((f"{bad}:{line}:", f"== {bad}:{line}:")) and "range: " in row and "3,900 digits is out of range" in row
            for row in out.splitlines()
        ), (position[0], line, out[:3000])
        start += text.count("\n") + 2
    if command == "parse":
        assert f"2 file(s), 1 hand(s) parsed, {len(POSITIONS)} failed" in out
    else:
        assert f"{len(POSITIONS) + 1} hand(s) audited: 1 ok, {len(POSITIONS)} unparsed" in out
        assert f"good.txt:1\nverdict: ok" in out


def test_past_pythons_integer_limit_the_line_bound_answers_first(tmp_path: Path) -> None:
    """4,301 digits make a line longer than the reader takes: a clean error of that hand, the next hand read."""
    bad = tmp_path / "bad.txt"
    bad.write_text(edited(POSITIONS[0], HUGE) + "\n\n" + SAMPLES["chips"] + "\n", encoding="utf-8")
    r = _run("parse", str(bad), process=True)  # the console script: Python's digit limit is the process's
    out = r.stdout + r.stderr
    assert r.returncode == 1 and "Traceback" not in out and HUGE not in out
    assert "characters long; the longest accepted is 4,096" in out
    assert "1 file(s), 1 hand(s) parsed, 1 failed" in out
