"""The C reader (``hhtool/_native/_scan.c``) and parse.py agree at and past every bound.

Past a bound parse.py raises ``OutOfRangeError``, so the C reader must
decline the hand (it never reads a hand parse.py refuses); at the bound
both read the same hand, and the C reader must read it (the bounds are in
both: ``MAX_AMOUNT``, ``MAX_SEAT`` and ``MAX_HAND_LINES`` in _scan.c).
The side pots of a summary are added in C with the total as the bound, so
no number of pots can overflow the sum (it was ``sum += side`` on 64 bits:
pots adding to 2**64 + 4,150 were accepted by C and refused by parse.py).
"""

from __future__ import annotations

import importlib.util

import pytest

from hhtool.history import parse
from hhtool.history.errors import OutOfRangeError
from hhtool.history.events import Hand
from hhtool.history.money import MAX_AMOUNT
from hhtool.history.parse import MAX_HAND_LINES
from tests.test_bounds_parse import HUGE, IDS, POSITIONS, SAMPLES, at, edited, over, read
from tests.test_scan import deep

BUILT = importlib.util.find_spec("hhtool._native._scan") is not None
pytestmark = pytest.mark.skipif(not BUILT, reason="the C accelerator is not built (HHTOOL_PURE=1)")


def c_reads(text: str) -> Hand | None:
    fast = parse.ACCELERATOR
    assert fast is not None
    return fast(text, 1, "hostile.txt")


def both(text: str) -> tuple[Hand | None, object]:
    """(the C reader's hand or None, parse.py's hand or error); where C reads, the two are the same hand."""
    fast, slow = c_reads(text), read(text)
    if fast is not None:
        assert isinstance(slow, Hand), slow
        assert deep(fast) == deep(slow)
    return fast, slow


@pytest.mark.parametrize("position", POSITIONS, ids=IDS)
def test_past_the_bound_c_declines(position: tuple[str, str, str, str, str]) -> None:
    for digits, hundredths in ((HUGE, "00"), over(position)):
        fast, slow = both(edited(position, digits, hundredths))
        assert fast is None
        assert isinstance(slow, OutOfRangeError)


@pytest.mark.parametrize("position", POSITIONS, ids=IDS)
def test_at_the_bound_both_read_the_same(position: tuple[str, str, str, str, str]) -> None:
    fast, slow = both(edited(position, at(position)))
    if isinstance(slow, Hand):
        assert fast is not None, "parse.py reads it at the bound; C must too"


def test_side_pots_that_add_past_64_bits() -> None:
    """The issue's case: 185 side pots adding to 2**64 + 4,150 chips (each out of range now, too)."""
    base = SAMPLES["chips"]
    side = (2**64 + 4150 - 6100) // 185
    last = 2**64 + 4150 - 6100 - side * 184
    pots = "".join(f" Side pot-{k} {side if k < 185 else last}." for k in range(1, 186))
    text = base.replace("Main pot 6,100. Side pot-1 4,500. Side pot-2 2,000.", f"Main pot 6,100.{pots}", 1)
    fast, slow = both(text)
    assert fast is None and isinstance(slow, OutOfRangeError)


def test_side_pots_within_the_bounds_that_add_past_the_total() -> None:
    """Amounts in range whose sum passes the total: parse.py says they do not add up, C declines before adding past it."""
    base = SAMPLES["chips"].replace("Total pot 12,600", f"Total pot {MAX_AMOUNT}", 1)
    pots = "".join(f" Side pot-{k} {MAX_AMOUNT}." for k in range(1, 99))
    text = base.replace("Main pot 6,100. Side pot-1 4,500. Side pot-2 2,000.", f"Main pot {MAX_AMOUNT}.{pots}", 1)
    fast, slow = both(text)
    assert fast is None and "do not add up" in str(slow)
    exact = SAMPLES["chips"].replace(
        "Main pot 6,100. Side pot-1 4,500. Side pot-2 2,000.", "Main pot 6,100. Side pot-1 4,500. Side pot-2 1,999. Side pot-3 1.", 1
    )
    fast, slow = both(exact)
    assert fast is not None and fast.summary.side_pots == (4500, 1999, 1)


def test_the_most_lines_a_hand_may_have() -> None:
    lines = SAMPLES["chips"].split("\n")
    at_summary = lines.index("*** SUMMARY ***")
    chatter = ['Luca said, "x"'] * (MAX_HAND_LINES - len(lines))
    fast, slow = both("\n".join(lines[:at_summary] + chatter + lines[at_summary:]))
    assert fast is not None
    fast, slow = both("\n".join(lines[:at_summary] + chatter + ['Luca said, "y"'] + lines[at_summary:]))
    assert fast is None and isinstance(slow, OutOfRangeError)
