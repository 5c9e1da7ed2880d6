"""A request's query parameters as the library's filters: each one checked, a clear 400 for what does not parse.

The web pages and the JSON API take the same parameters (``docs/api.md``):
the statistics' filters of ``hhtool stats`` (:class:`hhtool.stats.Filters`),
read by the parser of the command line's options
(:mod:`hhtool.stats.filters_parse`), and, for the hands list, the hand's
own facts (verdict, pot size, showdown, all-in), a statistic of one player
(``stat``, ``taken``), the order and the page.  A name that is not a parameter is refused too: a misspelt filter
would otherwise give every hand and look like an answer.  An empty value
(what an HTML form sends for a field left blank) is no filter.  Every
refusal leaves this module as a :class:`BadRequest`, the web's 400.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Literal

from hhtool.history.currency import Rates
from hhtool.stats.compute import Filters
from hhtool.stats.filters import VERDICTS
from hhtool.stats.filters_parse import FILTER_KEYS, QUERY_STRING, FilterError, choices, day, parse_filters, parse_rates, unsigned, whole

SORTS = ("time", "pot", "net")
MAX_LIMIT = 500
PAGE = 50
MAX_VALUE_CHARS = 200
"""No parameter value is longer (a name, a site): a longer one is refused, not sent to DuckDB."""
MAX_VALUES = 24
"""No parameter has more different values (players, sites, stakes...): each is a condition of the query, and a
list of hundreds (``player=bob`` 500 times, which any web page can have a browser send as an ``<img>``) took
a minute of CPU and DuckDB's whole memory.  A value given again is the same condition, counted once.  24 is more
than anyone types: a table has 10 players at most, and the verdicts, profiles and structures are fewer."""

FILTER_PARAMS = FILTER_KEYS
"""The parameters of :class:`~hhtool.stats.Filters`, named as on the command line (``--max-seats`` is ``seats``)."""
MONEY_PARAMS = ("currency", "rate")
"""A player's statistics' currency to add into and its rates (``--currency``, ``--rate``)."""
HAND_PARAMS = (*FILTER_PARAMS, "verdict", "pot_min", "pot_max", "showdown", "allin", "stat", "taken", "sort", "order", "limit", "offset", "page")
"""Every parameter of the hands list (page and API)."""


class BadRequest(ValueError):
    """A parameter that does not parse or a path that names nothing: the message says which and what it takes."""


@contextmanager
def _refused() -> Iterator[None]:
    """A value the shared filter parser refuses is a 400, in the parser's words."""
    try:
        yield
    except FilterError as e:
        raise BadRequest(str(e)) from None


@dataclass(frozen=True, slots=True)
class HandQuery:
    """Which hands, in which order, which page: everything ``/hands`` and ``/api/hands`` are asked."""

    filters: Filters = field(default_factory=lambda: Filters(verdicts=VERDICTS))  # a list shows every hand unless asked
    verdicts: tuple[str, ...] = ()
    pot_min: Decimal | None = None  # in the hand's major unit (euros, chips), inclusive
    pot_max: Decimal | None = None
    showdown: bool | None = None
    all_in: bool | None = None
    stat: str | None = None  # a key of hhtool.store.totals.STAT_SEATS, of filters.players[0]
    taken: bool | None = None  # None: the statistic's opportunities; True: the action taken; False: not taken
    sort: Literal["time", "pot", "net"] = "time"
    descending: bool = True
    limit: int = PAGE
    offset: int = 0


class Params:
    """The query string's values by name, each read once, with the names that are not parameters refused.

    A value given twice for a name is kept once (the same filter), and a
    name with more than :data:`MAX_VALUES` different values is refused.
    """

    def __init__(self, items: Iterable[tuple[str, str]], allowed: tuple[str, ...]) -> None:
        seen: dict[str, dict[str, None]] = {}  # each name's values in their order, once
        for name, value in items:
            if name not in allowed:
                raise BadRequest(f"unknown parameter {name!r}: the parameters are {', '.join(allowed)}")
            if len(value) > MAX_VALUE_CHARS:
                raise BadRequest(f"{name}: a value of {len(value):,} characters; at most {MAX_VALUE_CHARS}")
            if value.strip():
                values = seen.setdefault(name, {})
                values[value.strip()] = None
                if len(values) > MAX_VALUES:
                    raise BadRequest(f"{name}: more than {MAX_VALUES} different values; give at most {MAX_VALUES} (docs/serve.md)")
        self.values: dict[str, list[str]] = {name: list(values) for name, values in seen.items()}

    def all(self, name: str) -> tuple[str, ...]:
        return tuple(self.values.get(name, ()))

    def one(self, name: str) -> str | None:
        got = self.values.get(name, [])
        if len(got) > 1:
            raise BadRequest(f"{name} given {len(got)} times: give it once")
        return got[0] if got else None

    def choices(self, name: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
        with _refused():
            return choices(name, self.all(name), allowed)

    def date(self, name: str) -> dt.date | None:
        value = self.one(name)
        with _refused():
            return None if value is None else day(name, value)

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        value = self.one(name)
        with _refused():
            return default if value is None else whole(name, value, low, high)

    def flag(self, name: str) -> bool | None:
        value = self.one(name)
        if value is None:
            return None
        if value.lower() in ("1", "true", "yes"):
            return True
        if value.lower() in ("0", "false", "no"):
            return False
        raise BadRequest(f"{name} {value!r}: use 1 (yes) or 0 (no)")

    def amount(self, name: str) -> Decimal | None:
        value = self.one(name)
        if value is None:
            return None
        plain = unsigned(value).strip()
        try:
            amount = Decimal(plain) if len(plain) <= 20 else None
        except InvalidOperation:
            amount = None
        if amount is None or not amount.is_finite() or amount < 0:
            raise BadRequest(f"{name} {value!r}: an amount in the hand's money, e.g. 10 or 12.50 (euros, dollars, pounds or chips)")
        return amount


def filters(p: Params) -> Filters:
    """The statistics' filters (those of ``hhtool stats``) from the parameters, by the command line's parser."""
    single = {name: p.one(name) for name in ("from", "to", "min_hands", "day_start")}  # each given once
    with _refused():
        return parse_filters(
            QUERY_STRING,
            players=p.all("player"),
            date_from=single["from"],
            date_to=single["to"],
            sites=p.all("site"),
            profiles=p.all("profile"),
            structures=p.all("structure"),
            max_seats=p.all("seats"),
            min_hands=single["min_hands"],
            stakes=p.all("stakes"),
            day_start=single["day_start"],
            verdict_list=p.all("verdicts"),
            tags=p.all("tag"),
        )


def stats_filters(items: Iterable[tuple[str, str]], player: str) -> Filters:
    """A player's page and ``/api/players/{name}/stats``: the filters of ``hhtool stats``, the player from the path."""
    p = Params(items, tuple(n for n in FILTER_PARAMS if n != "player"))
    f = filters(p)
    return replace(f, players=(player,))


def stats_request(items: Iterable[tuple[str, str]], player: str) -> tuple[Filters, Rates | None]:
    """A player's filters and the rates of ``currency``/``rate`` (those of ``hhtool stats --currency --rate``)."""
    listed = list(items)
    money = Params([(k, v) for k, v in listed if k in MONEY_PARAMS], MONEY_PARAMS)
    currency, rates = money.one("currency"), money.all("rate")
    f = stats_filters([(k, v) for k, v in listed if k not in MONEY_PARAMS], player)
    with _refused():
        return f, parse_rates(QUERY_STRING, currency, rates)


def hand_query(items: Iterable[tuple[str, str]], stat_keys: Iterable[str], *, page_size: int = PAGE) -> HandQuery:
    """``/hands`` and ``/api/hands``: every parameter checked; ``page`` (from 1) or ``offset`` places the page."""
    p = Params(items, HAND_PARAMS)
    f = filters(p)
    if not p.all("verdicts"):  # the hands list shows every hand unless asked: its own ``verdict`` chooses among them
        f = replace(f, verdicts=VERDICTS)
    stat = p.one("stat")
    keys = tuple(stat_keys)
    if stat is not None and stat not in keys:
        raise BadRequest(f"stat {stat!r}: use one of {', '.join(keys)}")
    taken = p.flag("taken")
    if taken is not None and stat is None:
        raise BadRequest("taken needs a stat: e.g. stat=vpip&taken=1")
    sort = p.one("sort") or "time"
    if sort not in SORTS:
        raise BadRequest(f"sort {sort!r}: use time, pot or net")
    if (stat is not None or sort == "net") and len(f.players) != 1:
        raise BadRequest(f"{'stat' if stat is not None else 'sort=net'} is about one player: give exactly one player")
    order = p.one("order") or "desc"
    if order not in ("asc", "desc"):
        raise BadRequest(f"order {order!r}: use asc or desc")
    limit = p.integer("limit", page_size, 1, MAX_LIMIT)
    if p.one("page") is not None and p.one("offset") is not None:
        raise BadRequest("give page or offset, not both")
    page = p.integer("page", 1, 1, 10**8)
    offset = p.integer("offset", (page - 1) * limit, 0, 10**9)
    lo, hi = p.amount("pot_min"), p.amount("pot_max")
    if lo is not None and hi is not None and lo > hi:
        raise BadRequest(f"pot_min {lo} is above pot_max {hi}")
    return HandQuery(
        filters=f,
        verdicts=p.choices("verdict", VERDICTS),
        pot_min=lo,
        pot_max=hi,
        showdown=p.flag("showdown"),
        all_in=p.flag("allin"),
        stat=stat,
        taken=taken,
        sort=sort,  # type: ignore[arg-type]  # one of SORTS, checked above
        descending=order == "desc",
        limit=limit,
        offset=offset,
    )
