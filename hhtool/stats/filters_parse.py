"""The statistics' filters, and the currency they add into, from the words a person writes: one reading for every front.

``hhtool stats`` and ``hhtool report`` take them as options (``--stakes
0.50/1.00``), ``hhtool serve`` as query parameters (``stakes=0.50/1.00``);
both hand the plain strings here, so that a value means the same and is
refused with the same words wherever it is written.  What differs is only
how the person wrote the filter's name (:class:`Spelling`), which every
message repeats, so that they find what to change.  Every refusal is a
:class:`FilterError`: the CLI makes it a usage error (exit 2), the web a 400.

What stays with each front is what only it has: typer converts the CLI's
numbers before they get here, and the web's parameters are deduplicated,
capped and stripped (``hhtool.web.params``) because anyone can send them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hhtool.history.currency import Rates, RatesError
from hhtool.stats.filters import DEFAULT_VERDICTS, VERDICTS, Filters

PROFILES = ("classic", "stellapoker", "italian")
STRUCTURES = ("fixed", "pot", "no")
FILTER_KEYS = ("player", "from", "to", "site", "profile", "structure", "seats", "stakes", "day_start", "min_hands", "verdicts", "tag")
"""The filters of :class:`~hhtool.stats.Filters` by the names a query string gives them (``--max-seats`` is ``seats``)."""
MAX_MIN_HANDS = 10**9
"""More hands than any database holds: a larger ``min_hands`` is a mistake, and a bounded one is never a huge ``int()``."""


class FilterError(ValueError):
    """A filter's value that does not parse: the message names the filter as it was written and says what it takes."""


@dataclass(frozen=True, slots=True)
class Spelling:
    """How a person writes a filter where they ask for it: ``--max-seats 6`` on the command line, ``seats=6`` in an address."""

    names: Mapping[str, str] = field(default_factory=dict)  # a key of FILTER_KEYS, "currency" or "rate" -> its name as written
    between: str = "="  # what stands between a name and its value

    def name(self, key: str) -> str:
        """The filter ``key`` as the person writes it (the key itself when not renamed)."""
        return self.names.get(key, key)

    def pair(self, key: str, value: str) -> str:
        """An example of the filter written with a value: ``--currency EUR``, ``currency=EUR``."""
        return f"{self.name(key)}{self.between}{value}"


QUERY_STRING = Spelling()
"""The web's parameters: named by their keys, ``name=value``."""


def one_of(allowed: Sequence[str]) -> str:
    """The values allowed, as a message lists them.

    >>> one_of(STRUCTURES)
    'fixed, pot or no'
    """
    return allowed[0] if len(allowed) == 1 else f"{', '.join(allowed[:-1])} or {allowed[-1]}"


def choices(name: str, values: Sequence[str], allowed: Sequence[str]) -> tuple[str, ...]:
    """``values``, each one of ``allowed``: a profile, a structure, a verdict."""
    for value in values:
        if value not in allowed:
            raise FilterError(f"{name} {value!r}: use {one_of(allowed)}")
    return tuple(values)


def day(name: str, value: str) -> dt.date:
    """A day as ``YYYY-MM-DD``."""
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise FilterError(f"{name} {value!r}: not a date (YYYY-MM-DD)") from None


def whole(name: str, value: str, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``, in ASCII digits (nine at most: never a huge ``int()``)."""
    if not (value.isascii() and value.isdigit()) or len(value) > 9 or not low <= int(value) <= high:
        raise FilterError(f"{name} {value!r}: a whole number from {low:,} to {high:,}")
    return int(value)


def table_size(name: str, value: str) -> int:
    """A table size from 2 to 10.

    No profile deals more than 8 players (RULES.md) and a table line may
    name a few empty seats more; a larger number is a mistake, refused
    rather than answered with no hand.
    """
    if not (value.isascii() and value.isdigit() and len(value) <= 9 and 2 <= int(value) <= 10):
        raise FilterError(f"{name} {value!r}: a table size, 2 to 10 (6 for 6-max)")
    return int(value)


def unsigned(text: str) -> str:
    """An amount's text without the currency signs and thousands commas a person may copy from a header."""
    return text.replace("€", "").replace("$", "").replace("£", "").replace(",", "")


def stake(name: str, text: str) -> tuple[str, str]:
    """``0.50/1.00`` (signs and thousands commas allowed) as the (small, big) :class:`~hhtool.stats.Filters` keeps.

    >>> stake("--stakes", "€1,000/€2,000")
    ('1000', '2000')
    """
    small, sep, big = unsigned(text).partition("/")
    # 16 characters: any amount up to money.MAX_AMOUNT, and no int() of thousands of digits
    if not sep or not all(part.replace(".", "", 1).isdigit() and len(part) <= 16 for part in (small, big)):
        raise FilterError(f"{name} {text!r}: write the small and big bet as in the header, e.g. 0.50/1.00 or 200/400")
    return small, big


def verdicts(name: str, values: Sequence[str]) -> tuple[str, ...]:
    """The verdicts to count: each of ``ok``, ``disputed``, ``invalid``, ``error`` (comma-separated or repeated), or ``all``;
    none given: :data:`~hhtool.stats.filters.DEFAULT_VERDICTS`.

    >>> verdicts("--verdicts", ["ok,invalid"])
    ('ok', 'invalid')
    >>> verdicts("--verdicts", ["all"])
    ('ok', 'disputed', 'invalid', 'error')
    """
    words = [w.strip().lower() for v in values for w in v.split(",") if w.strip()]
    if not words:
        return DEFAULT_VERDICTS
    if "all" in words:
        return VERDICTS
    got = choices(name, words, (*VERDICTS, "all"))
    return tuple(v for v in VERDICTS if v in got)


def parse_filters(
    spelling: Spelling,
    *,
    players: Sequence[str] = (),
    date_from: str | None = None,
    date_to: str | None = None,
    sites: Sequence[str] = (),
    profiles: Sequence[str] = (),
    structures: Sequence[str] = (),
    max_seats: Sequence[str] = (),
    min_hands: str | None = None,
    stakes: Sequence[str] = (),
    day_start: str | None = None,
    verdict_list: Sequence[str] = (),
    tags: Sequence[str] = (),
    player_tags: Sequence[str] = (),
) -> Filters:
    """The statistics' filters from their values as written (None or empty: no filter), checked in the order of :class:`~hhtool.stats.Filters`."""
    n = spelling.name
    return Filters(
        players=tuple(players),
        date_from=None if date_from is None else day(n("from"), date_from),
        date_to=None if date_to is None else day(n("to"), date_to),
        sites=tuple(sites),
        profiles=choices(n("profile"), profiles, PROFILES),
        structures=choices(n("structure"), structures, STRUCTURES),
        max_seats=tuple(table_size(n("seats"), s) for s in max_seats),
        min_hands=0 if min_hands is None else whole(n("min_hands"), min_hands, 0, MAX_MIN_HANDS),
        stakes=tuple(stake(n("stakes"), s) for s in stakes),
        day_start_hour=0 if day_start is None else whole(n("day_start"), day_start, 0, 23),
        verdicts=verdicts(n("verdicts"), verdict_list),
        tags=tag_list(n("tag"), tags),
        player_tags=tag_list(n("player_tag"), player_tags),
    )


def tag_list(name: str, values: Sequence[str]) -> tuple[str, ...]:
    """Tags, as :mod:`hhtool.stats.notes` keeps them (lower case), each once: hands with any of them.

    >>> tag_list("--tag", ["Study", "bluff", "study"])
    ('study', 'bluff')
    """
    from hhtool.stats.notes import NoteError, checked_tags

    try:
        return tuple(checked_tags(list(values)))
    except NoteError as e:
        raise FilterError(f"{name}: {e}") from None


def parse_rates(spelling: Spelling, currency: str | None, rates: Sequence[str]) -> Rates | None:
    """The currency to add the others into and their rates; None when none is asked (a rate without one is refused)."""
    if currency is None:
        if rates:
            raise FilterError(
                f"{spelling.name('rate')} needs {spelling.name('currency')}: the currency the rates convert to, e.g. {spelling.pair('currency', 'EUR')}"
            )
        return None
    try:
        return Rates.parse(currency, list(rates))
    except RatesError as e:
        raise FilterError(str(e)) from None
