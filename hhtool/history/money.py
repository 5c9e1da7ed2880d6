"""Amounts: text like ``€0.50``, ``$12`` or ``1,500`` to integer minor units and back.

A hand is in *cents* when its header writes a currency sign or decimals,
in *chips* otherwise; every amount in the hand is then an ``int`` in that
unit (``$12`` in a dollar hand is 1200).  :class:`MoneyStyle` records how
the hand wrote its amounts so the writer can write them the same way.

No amount above :data:`MAX_AMOUNT` minor units is accepted (docs/format-notes.md,
"Bounds"): with it every money column of the database and every sum the
statistics make stays exact, and a hostile amount of thousands of digits is a
clear error of its hand, never Python's integer-string limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from hhtool._native.pickling import picklable

CURRENCY_SIGNS = "€$£"

_AMOUNT = re.compile(r"([€$£]?)([0-9][0-9,]*)(?:\.([0-9]{2}))?")


MAX_AMOUNT: Final = 10**12
"""The largest amount a hand may write, in its minor units (cents or chips): €10,000,000,000.00 or
1,000,000,000,000 chips.  Why this bound: a hand has at most 32,767 lines (``parse.MAX_HAND_LINES``),
so anything the replay adds up within one hand (a player's investment, a pot, a net) stays below
32,767 * 10**12 * 2 < 2**56, far inside a BIGINT and exact in arithmetic, and the statistics sum
BIGINTs into HUGEINTs (docs/schema.md, "Bounds")."""

_MAX_DIGITS: Final = len(str(MAX_AMOUNT))
"""A whole part with more significant digits than this is above :data:`MAX_AMOUNT` in any unit,
so it is never converted (``int()`` of thousands of digits is slow, and refused past 4,300)."""


class AmountError(ValueError):
    """An amount that does not fit the hand's money (another sign, decimals in chips)."""


class AmountRangeError(AmountError):
    """An amount above :data:`MAX_AMOUNT`."""


@dataclass(frozen=True, slots=True)
class MoneyStyle:
    """How a hand writes money.

    ``symbol``: the currency sign or ``""``; ``cents``: amounts are in
    hundredths; ``decimals``: the hand wrote amounts with two decimals
    (then the writer always does); ``grouping``: it wrote thousands
    separators (then the writer groups every amount of 1,000 units or more).
    """

    symbol: str = ""
    cents: bool = False
    decimals: bool = False
    grouping: bool = False


@dataclass(frozen=True, slots=True)
class RawAmount:
    """An amount as written: its sign, whole part, hundredths and how it looked.

    ``digits``: the significant digits of the whole part; when there are more
    than any accepted amount has, ``whole`` is not the value but ``10 ** 13``
    (above the bound in any unit), and :func:`to_units` refuses it.
    """

    symbol: str
    whole: int
    hundredths: int | None
    grouped: bool
    digits: int


def split_amount(text: str) -> RawAmount:
    """Read an AMOUNT token (the grammar guarantees its shape)."""
    m = _AMOUNT.fullmatch(text)
    if m is None:
        raise AmountError(f"not an amount: {text!r}")
    sign, whole, dec = m.groups()
    digits = whole.replace(",", "").lstrip("0")
    n = len(digits)
    value = int(digits) if 0 < n <= _MAX_DIGITS else 0 if n == 0 else 10**_MAX_DIGITS
    return RawAmount(sign, value, None if dec is None else int(dec), "," in whole, n)


def to_units(raw: RawAmount, symbol: str, cents: bool) -> int:
    """The amount in the hand's minor units; :class:`AmountError` if it does not fit."""
    if raw.symbol != symbol:
        want = f"in {symbol}" if symbol else "without a currency sign"
        raise AmountError(f"{_written(raw)} is not {want} like the header's")
    if cents:
        value = raw.whole * 100 + (raw.hundredths or 0)
    elif raw.hundredths is not None:
        raise AmountError("decimals in a hand played in chips")
    else:
        value = raw.whole
    if value > MAX_AMOUNT:
        raise AmountRangeError(_range_message(raw, symbol, cents))
    return value


def _range_message(raw: RawAmount, symbol: str, cents: bool) -> str:
    """What is wrong with an amount above :data:`MAX_AMOUNT`, in the hand's money."""
    largest = format_amount(MAX_AMOUNT, MoneyStyle(symbol, cents, cents, True))
    return f"{_written(raw)} is out of range: the largest accepted is {largest}"


def _written(raw: RawAmount) -> str:
    """``amount €12.50`` (without separators), or ``an amount of 4,301 digits`` for one too long to quote."""
    if raw.digits > _MAX_DIGITS:
        return f"an amount of {raw.digits:,} digits"
    return "amount " + raw.symbol + str(raw.whole) + ("" if raw.hundredths is None else f".{raw.hundredths:02d}")


def money_text(minor: int, decimals: int, sign: str = "", unit: str = "", *, grouping: bool = True, all_decimals: bool = True, signed: bool = False) -> str:
    """Every amount written as text: the history's (:func:`format_amount`) and every one a person reads.

    ``minor`` units with ``decimals`` decimals, ``sign`` before the number
    (``€``), ``unit`` after it (``chips``, ``XXX``); ``grouping``: thousands
    separated by commas; ``all_decimals``: the decimals even when they are
    zero (else ``$12`` for 1200); a minus before a loss, and with ``signed``
    a ``+`` before a gain: ``-€0.50``, ``+1,136 chips``.
    """
    negative = minor < 0
    magnitude = -minor if negative else minor
    if decimals:
        whole, frac = divmod(magnitude, 10**decimals)
        body = _group(whole) if grouping else str(whole)
        if all_decimals or frac:
            body += "." + str(frac).rjust(decimals, "0")
    else:
        body = _group(magnitude) if grouping else str(magnitude)
    lead = "-" if negative else ("+" if signed and magnitude else "")
    return f"{lead}{sign}{body} {unit}" if unit else f"{lead}{sign}{body}"


def format_amount(value: int, style: MoneyStyle) -> str:
    """Write ``value`` (minor units) the way ``style`` says: as the hand wrote its amounts (the writer's)."""
    if value < 0:
        raise AmountError(f"negative amount {value}")
    return money_text(value, 2 if style.cents else 0, style.symbol, grouping=style.grouping, all_decimals=style.decimals)


def display_amount(value: int, style: MoneyStyle) -> str:
    """``value`` for a person to read in the hand's notation, chips named: ``€1.90``, ``€1,187.15``, ``1,136 chips``.

    A currency's sign says what the number is, written with the hand's sign
    and decimals (``$12`` where it writes no decimals); a hand in chips
    writes bare numbers, which beside a finding's line numbers and seats
    could be anything, so its amounts are named (issue 15).  Thousands are
    always grouped, whether or not the hand's own text grouped them
    (issue 41: ``€1187.15`` is hard to read): this is the one text of an
    amount of a hand for a person -- the audit's words and findings, the
    replayer, the hand's page.  The writer keeps the hand's own grouping
    (:func:`format_amount`).  The statistics' figures are the same text in
    each currency's own notation (:func:`hhtool.history.currency.format_money`).
    """
    if style.cents:
        return money_text(value, 2, style.symbol, all_decimals=style.decimals)
    return money_text(value, 0, unit="chips")


def _group(n: int) -> str:
    return f"{n:,}"


picklable(MoneyStyle, RawAmount)
