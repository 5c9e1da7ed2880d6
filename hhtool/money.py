"""Amounts: text like ``€0.50``, ``$12`` or ``1,500`` to integer minor units and back.

A hand is in *cents* when its header writes a currency sign or decimals,
in *chips* otherwise; every amount in the hand is then an ``int`` in that
unit (``$12`` in a dollar hand is 1200).  :class:`MoneyStyle` records how
the hand wrote its amounts so the writer can write them the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .pickling import picklable

CURRENCY_SIGNS = "€$£"

_AMOUNT = re.compile(r"([€$£]?)([0-9][0-9,]*)(?:\.([0-9]{2}))?")


class AmountError(ValueError):
    """An amount that does not fit the hand's money (another sign, decimals in chips)."""


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
    """An amount as written: its sign, whole part, hundredths and how it looked."""

    symbol: str
    whole: int
    hundredths: int | None
    grouped: bool


def split_amount(text: str) -> RawAmount:
    """Read an AMOUNT token (the grammar guarantees its shape)."""
    m = _AMOUNT.fullmatch(text)
    if m is None:
        raise AmountError(f"not an amount: {text!r}")
    sign, whole, dec = m.groups()
    return RawAmount(sign, int(whole.replace(",", "")), None if dec is None else int(dec), "," in whole)


def to_units(raw: RawAmount, symbol: str, cents: bool) -> int:
    """The amount in the hand's minor units; :class:`AmountError` if it does not fit."""
    if raw.symbol != symbol:
        want = f"in {symbol}" if symbol else "without a currency sign"
        written = raw.symbol + str(raw.whole) + ("" if raw.hundredths is None else f".{raw.hundredths:02d}")
        raise AmountError(f"amount {written} is not {want} like the header's")
    if cents:
        return raw.whole * 100 + (raw.hundredths or 0)
    if raw.hundredths is not None:
        raise AmountError("decimals in a hand played in chips")
    return raw.whole


def format_amount(value: int, style: MoneyStyle) -> str:
    """Write ``value`` (minor units) the way ``style`` says."""
    if value < 0:
        raise AmountError(f"negative amount {value}")
    if style.cents:
        whole, hundredths = divmod(value, 100)
        body = _group(whole) if style.grouping else str(whole)
        if style.decimals or hundredths:
            body += f".{hundredths:02d}"
    else:
        body = _group(value) if style.grouping else str(value)
    return style.symbol + body


def _group(n: int) -> str:
    return f"{n:,}"


picklable(MoneyStyle, RawAmount)
