"""Money as players count it: which currency a hand's amounts are in, and how a person reads them.

The database keeps every amount as an integer in the hand's minor unit
(``hands.currency`` is the sign, ``hands.unit`` ``cent`` or ``chip``).
Figures for people never add different currencies: each
:class:`Currency` gets its own figure, written in its own notation
(``€1,234.50``, ``-$0.50``, ``£3.00``, ``1,136 chips``), unless the user
gives explicit exchange rates (:class:`Rates`) to one currency; play
chips never convert.

Machine outputs keep money exact: integer minor units with the currency's
code and decimals, never a float.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

from hhtool.history.money import money_text

_SIGNS = {"€": "EUR", "$": "USD", "£": "GBP"}
_CODES = {**{code: sign for sign, code in _SIGNS.items()}, "XXX": ""}


@dataclass(frozen=True, order=True, slots=True)
class Currency:
    """One money of the histories: ``code`` (ISO 4217, or ``chips``), its ``sign`` and its ``decimals``."""

    code: str
    sign: str = ""
    decimals: int = 2

    @property
    def chips(self) -> bool:
        return self.code == "chips"

    @property
    def name(self) -> str:
        """How a heading names it: ``€``, ``$``, ``£``, ``chips``."""
        return "chips" if self.chips else (self.sign or self.code)

    @property
    def minor_name(self) -> str:
        """The minor unit's name for machine outputs' column names: ``cents`` or ``chips``."""
        return "chips" if self.decimals == 0 else "cents"


CHIPS = Currency("chips", "", 0)


def currency_of(sign: str | None, unit: str | None) -> Currency:
    """The currency of a hand from its stored ``currency`` sign and ``unit`` (``cent`` or ``chip``).

    A hand in cents with no sign (decimals written without one) is ``XXX``,
    ISO 4217's code for "no currency": kept apart from every real one.
    ``sign`` may also be the ISO code itself (``EUR``, ``XXX``), as the
    library's frames name a currency (docs/python.md).
    """
    if unit == "chip":
        return CHIPS
    sign = sign or ""
    if sign in _CODES:  # an ISO code, as the statistics' frames give it (``EUR``): the same currency as its sign
        return Currency(sign, _CODES[sign], 2)
    return Currency(_SIGNS.get(sign, "XXX" if not sign else sign), sign, 2)


def format_money(minor: int | Decimal, currency: Currency, *, signed: bool = False) -> str:
    """``minor`` units as a person reads them: ``€1,234.50``, ``-€0.50``, ``1,136 chips``.

    Amounts are grouped by thousands and cents always show two decimals;
    a :class:`~decimal.Decimal` (a converted figure) is rounded half to even
    to the currency's minor unit.  ``signed``: a ``+`` before gains (for
    columns of results).  The text is :func:`hhtool.history.money.money_text`'s,
    which also writes the audit's amounts in each hand's own notation
    (``$12`` where the hand writes no decimals, ``12.50`` where it writes no
    sign); docs/stats.md, "Money".
    """
    value = int(Decimal(minor).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
    if currency.chips:
        return money_text(value, 0, unit="chips", signed=signed)
    return money_text(value, currency.decimals, currency.sign, "" if currency.sign else currency.code, signed=signed)


class RatesError(ValueError):
    """A rate the user wrote that cannot be used (a usage error)."""


@dataclass(frozen=True, slots=True)
class Rates:
    """Exchange rates to one ``target`` currency, given by the user: ``USD=0.92`` means $1 = 0.92 of the target.

    Only explicit rates: a currency without one is not converted and keeps
    its own figure, and chips never convert.
    """

    target: Currency
    rates: tuple[tuple[str, Decimal], ...] = ()

    @classmethod
    def parse(cls, target: str, rates: list[str]) -> Rates:
        """From ``--currency EUR --rate USD=0.92 --rate GBP=1.17``; :class:`RatesError` names what is wrong."""
        code = target.strip().upper()
        if code == "CHIPS":
            raise RatesError("--currency chips: play chips never convert; name a currency such as EUR")
        if not (len(code) == 3 and code.isalpha()):
            raise RatesError(f"--currency {target!r}: write a currency code such as EUR, USD or GBP")
        sign = {v: k for k, v in _SIGNS.items()}.get(code, "")
        parsed: dict[str, Decimal] = {}
        for text in rates:
            cur, sep, value = text.partition("=")
            cur = cur.strip().upper()
            if not sep or not (len(cur) == 3 and cur.isalpha()):
                raise RatesError(f"--rate {text!r}: write CODE=RATE, e.g. USD=0.92")
            if cur == code:
                raise RatesError(f"--rate {text!r}: {code} is the currency converted to")
            try:
                rate = Decimal(value.strip())
            except InvalidOperation:
                raise RatesError(f"--rate {text!r}: {value.strip()!r} is not a number") from None
            if not rate.is_finite() or rate <= 0:
                raise RatesError(f"--rate {text!r}: a rate is a positive number")
            parsed[cur] = rate
        return cls(Currency(code, sign, 2), tuple(sorted(parsed.items())))

    def rate(self, currency: Currency) -> Decimal | None:
        """How many of the target one unit of ``currency`` is worth; None when it does not convert."""
        if currency.chips:
            return None
        if currency.code == self.target.code:
            return Decimal(1)
        return dict(self.rates).get(currency.code)

    def convert(self, minor: int, currency: Currency) -> Decimal | None:
        """``minor`` units of ``currency`` in the target's minor units (exact), or None when it does not convert."""
        rate = self.rate(currency)
        if rate is None:
            return None
        return Decimal(minor) * rate * Decimal(10) ** (self.target.decimals - currency.decimals)

    def lines(self) -> list[str]:
        """Each rate used, one a line: ``USD 1 = 0.92 EUR``."""
        if not self.rates:
            return [f"none given: only {self.target.code} counts, the other currencies stay apart"]
        return [f"{code} 1 = {format_rate(rate)} {self.target.code}" for code, rate in self.rates]

    def describe(self) -> str:
        """The rates used, for the output to say: ``in EUR at GBP 1 = 1.17 EUR, USD 1 = 0.92 EUR``."""
        if not self.rates:
            return f"in {self.target.code} (no rate given: other currencies stay apart)"
        return f"in {self.target.code} at {', '.join(self.lines())}"


def format_rate(rate: Decimal) -> str:
    return format(rate.normalize(), "f")
