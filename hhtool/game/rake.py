"""A room's rake as its rules state it: what the house may take from a hand, and why, in words.

Rooms publish their rake as a schedule: a percentage of the pot, rounded
down (to the cent, or to five cents), capped (by an amount, by big bets,
or by a table of caps by stakes and players dealt in), nothing on play
chips, often nothing when the hand ends on its first street.  A
:class:`RakeRule` is that schedule, read from a room file's ``[rake]``
table (:mod:`hhtool.game.room`); :meth:`RakeRule.due` is the rake of one
hand, with the computation in words for the audit ("5 % of €10.00 is
€0.50, under the cap of €1.00") and the room file's keys that decided
it, so a finding can cite their lines.

Money is exact: the percentage is a fraction, amounts are integers in the
hand's minor unit (cents or chips), and the rake is rounded *down*.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from hhtool.game.rules import StreetName, round_of_street


def units(amount: Decimal, cents: bool) -> int:
    """A room file's amount (``"1.00"``) in a table's minor unit: hundredths where the table counts cents, whole chips else.

    A fraction of a chip is dropped (a cap of ``"2.50"`` on a chip table is 2 chips).
    """
    return int(amount * 100) if cents else int(amount)


def percent_text(p: Fraction) -> str:
    """``5``, ``4.5``, ``3.75``: a percentage as a room writes it."""
    if p.denominator == 1:
        return str(p.numerator)
    d = Decimal(p.numerator) / Decimal(p.denominator)
    return format(d.normalize(), "f")


@dataclass(frozen=True, slots=True)
class Cap:
    """The most the room takes from a hand: an amount in the table's money, or a number of big bets."""

    amount: Decimal | None = None
    big_bets: Fraction | None = None

    def units(self, cents: bool, big_bet: int) -> int:
        if self.amount is not None:
            return units(self.amount, cents)
        bb = self.big_bets
        assert bb is not None
        return big_bet * bb.numerator // bb.denominator

    def words(self, cents: bool, big_bet: int, fmt: Callable[[int], str]) -> str:
        if self.amount is not None:
            return fmt(self.units(cents, big_bet))
        assert self.big_bets is not None
        n = percent_text(self.big_bets)
        return f"{fmt(self.units(cents, big_bet))} ({n} big bet{'' if self.big_bets == 1 else 's'} of {fmt(big_bet)})"


@dataclass(frozen=True, slots=True)
class CapRow:
    """One row of a cap table (``[[rake.caps]]``): the cap for hands at stakes up to ``big_bet_max`` with ``players_min``..``players_max`` dealt in.

    An absent bound matches every hand.  ``key`` names the row in the
    room file (``rake.caps.2``: rows count from 1), for a finding to cite.
    """

    cap: Cap
    key: str
    big_bet_max: Decimal | None = None
    players_min: int | None = None
    players_max: int | None = None

    def matches(self, cents: bool, big_bet: int, players: int) -> bool:
        if self.big_bet_max is not None and big_bet > units(self.big_bet_max, cents):
            return False
        if self.players_min is not None and players < self.players_min:
            return False
        return self.players_max is None or players <= self.players_max

    def scope(self, fmt: Callable[[int], str], cents: bool) -> str:
        """``stakes up to a big bet of €1.00, 2 players``: the hands the row is for, in words."""
        parts = []
        if self.big_bet_max is not None:
            parts.append(f"stakes up to a big bet of {fmt(units(self.big_bet_max, cents))}")
        lo, hi = self.players_min, self.players_max
        if lo is not None and hi is not None:
            parts.append(f"{lo} player{'s' if lo != 1 else ''}" if lo == hi else f"{lo} to {hi} players")
        elif lo is not None:
            parts.append(f"{lo} players or more")
        elif hi is not None:
            parts.append(f"up to {hi} players")
        return ", ".join(parts) or "every hand"


@dataclass(frozen=True, slots=True)
class RakeDue:
    """One hand's rake by the room's rules: the amount, the computation in words, and the room file's keys that decided it."""

    amount: int
    words: str
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RakeRule:
    """A room's rake schedule (docs/rooms.md, "The rake").

    ``percent`` of the total pot (after uncalled bets are returned),
    rounded down to a multiple of ``step`` (default: the money's minor
    unit), then capped: by the first row of ``caps`` that matches the hand,
    else by ``cap``; no cap when neither applies.  ``currencies``: the ISO
    codes of the tables raked (``None``: every table, chips included; list
    ``"chips"`` to rake play chips with others).  ``from_street``: no rake
    unless the hand reached this street (``"3rd"``: nothing when it ends on
    2nd street).
    """

    percent: Fraction
    cap: Cap | None = None
    step: Decimal | None = None
    currencies: tuple[str, ...] | None = None
    from_street: StreetName = "2nd"
    caps: tuple[CapRow, ...] = ()

    def due(
        self,
        total: int,
        *,
        currency: str,
        cents: bool,
        big_bet: int,
        players: int,
        reached_round: int,
        fmt: Callable[[int], str] | None = None,
    ) -> RakeDue:
        """The rake of a hand whose pots total ``total`` (minor units) at a table in ``currency`` (``"EUR"``, ``"chips"``).

        ``players``: dealt in; ``reached_round``: the last betting round
        whose cards were dealt (1 = 2nd street); ``fmt``: the hand's own
        way of writing an amount, for the computation in words (``None``:
        no words, for a caller that needs only the amount: the words cost
        far more than the sum).
        """
        if self.currencies is not None and currency not in self.currencies:
            if fmt is None:
                return RakeDue(0, "", ("rake.currencies",))
            what = "play chips" if currency == "chips" else f"a table in {currency}"
            raked = self.currencies
            only = f"it rakes {', '.join(raked[:-1])} and {raked[-1]} only" if len(raked) > 1 else f"it rakes {raked[0]} only" if raked else "it rakes no table"
            return RakeDue(0, f"the room takes no rake from {what}: {only}", ("rake.currencies",))
        if reached_round < round_of_street(self.from_street):
            words = "" if fmt is None else f"the room takes no rake from a hand that ends before {self.from_street} street"
            return RakeDue(0, words, ("rake.from_street",))
        p = self.percent
        step = max(units(self.step, cents), 1) if self.step is not None else 1
        whole = total * p.numerator  # the rake is whole / (100 * p.denominator): exact, in integers
        per = 100 * p.denominator * step
        rounded = whole // per * step
        cap, scope, cap_key = self._cap(cents, big_bet, players, fmt)
        keys = ("rake.percent", *(("rake.step",) if self.step is not None and whole % per else ()), *((cap_key,) if cap is not None else ()))
        limit = cap.units(cents, big_bet) if cap is not None else rounded
        amount = min(rounded, limit)
        if fmt is None:
            return RakeDue(amount, "", keys)
        words = f"{percent_text(p)} % of {fmt(total)} is {fmt(rounded)}"
        if whole % per:
            unit = "the cent" if cents and step == 1 else "the chip" if step == 1 else f"a multiple of {fmt(step)}"
            words = f"{percent_text(p)} % of {fmt(total)}, rounded down to {unit}, is {fmt(rounded)}"
        if cap is None:
            return RakeDue(amount, words, keys)
        where = f" for {scope}" if scope else ""
        if rounded < limit:
            return RakeDue(amount, f"{words}, under the cap of {cap.words(cents, big_bet, fmt)}{where}", keys)
        if rounded == limit:
            return RakeDue(amount, f"{words}, the cap{where}", keys)
        return RakeDue(amount, f"{words}, over the cap of {cap.words(cents, big_bet, fmt)}{where}: the rake is {fmt(limit)}", keys)

    def _cap(self, cents: bool, big_bet: int, players: int, fmt: Callable[[int], str] | None) -> tuple[Cap | None, str, str]:
        """The cap that applies, the hands it is for in words ("" for the flat cap, or without ``fmt``), and its key."""
        for row in self.caps:
            if row.matches(cents, big_bet, players):
                return row.cap, row.scope(fmt, cents) if fmt is not None else "", row.key
        if self.cap is not None:
            return self.cap, "", "rake.cap_big_bets" if self.cap.big_bets is not None else "rake.cap"
        return None, "", ""
