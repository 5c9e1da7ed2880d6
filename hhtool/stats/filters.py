"""Which hands and players count: the filters, their WHERE clauses, and the names they give checked against the database.

Every query of the statistics, the sessions, the report and the server's
hands list reads its scope from here, so that a filter means the same
rows wherever it is given; every value goes to DuckDB as a parameter.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hhtool.stats.order import name_key
from hhtool.store.db import StoreError
from hhtool.store.totals import PLAYER_TOTALS, current

if TYPE_CHECKING:
    import duckdb


VERDICTS: tuple[str, ...] = ("ok", "disputed", "invalid", "error")
"""Every verdict the replay gives a hand (``hands.verdict``)."""
DEFAULT_VERDICTS: tuple[str, ...] = ("ok", "disputed")
"""The hands the figures count unless asked otherwise (docs/stats.md, "Verdicts"): a disputed hand's money is the
history's, played and paid; an invalid hand broke the rules and its money cannot be trusted; an error hand could not
be replayed at all."""


@dataclass(frozen=True, slots=True)
class Filters:
    """Which hands and players count.  Every value goes to DuckDB as a parameter."""

    players: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    sites: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()
    structures: tuple[str, ...] = ()
    max_seats: tuple[int, ...] = ()
    min_hands: int = 0
    stakes: tuple[tuple[str, str], ...] = ()  # (small, big) as written: "0.50", "1.00" or "200", "400"
    day_start_hour: int = 0  # hands before this hour (UTC) count to the day before
    verdicts: tuple[str, ...] = DEFAULT_VERDICTS  # the replay's verdicts counted (every one of VERDICTS: no condition)
    # what ``players`` name, found in the database (:func:`hhtool.stats.accounts.resolve`): (person or None, site, name)
    # each; None: not looked up, each read as NAME@SITE or a bare name (no person)
    resolved: tuple[tuple[str | None, str, str], ...] | None = None
    # hands with any of these tags (``hand_tags``, :mod:`hhtool.stats.notes`): a condition on each hand, which the sums
    # kept per hour (``player_totals``) cannot answer, so every figure is summed from the seats when it is given
    tags: tuple[str, ...] = ()
    # only the accounts with any of these tags (``player_tags``): a condition on the rows, not on the hands -- a row
    # (an account, a person's accounts) sums its tagged accounts' seats, and one with none is left out
    player_tags: tuple[str, ...] = ()

    def picks(self) -> list[tuple[str | None, str]]:
        """The accounts ``players`` select: (site, name) each as found, else as written (site None: every site)."""
        from hhtool.stats.accounts import picks_of

        if self.resolved is not None:
            return list(dict.fromkeys((s, n) for _, s, n in self.resolved))
        return picks_of(self.players)

    @property
    def every_verdict(self) -> bool:
        """Whether every hand counts whatever its verdict (no condition on it)."""
        return set(VERDICTS) <= set(self.verdicts)

    @property
    def left_out(self) -> tuple[str, ...]:
        """The verdicts whose hands the filter leaves out, in :data:`VERDICTS`' order."""
        return tuple(v for v in VERDICTS if v not in self.verdicts)


def hands_where(f: Filters, hours: bool = False) -> tuple[str, list[Any]]:
    """A WHERE clause on ``hands h`` with placeholders, and its parameters.

    ``hours``: on ``player_totals h`` instead (:mod:`hhtool.store.totals`),
    whose rows have the hands' columns but for ``started_at``, whose UTC
    hour they keep (a day starts on an hour, so the range is the same).
    """
    parts: list[str] = []
    params: list[Any] = []

    def any_of(column: str, values: tuple[Any, ...]) -> None:
        if values:
            parts.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)

    any_of("h.site", f.sites)
    any_of("h.profile", f.profiles)
    any_of("h.structure", f.structures)
    any_of("h.max_seats", f.max_seats)
    if not f.every_verdict:
        parts.append(f"h.verdict IN ({', '.join('?' for _ in f.verdicts) or 'NULL'})")
        params.extend(f.verdicts)
    if f.stakes:
        alternatives = []
        for small, big in f.stakes:
            # "0.50/1.00" is in cents; "200/400" is chips, or whole currency units stored as cents
            if "." in small or "." in big:
                alternatives.append("(h.small_bet = ? AND h.big_bet = ?)")
                params.extend([round(float(small) * 100), round(float(big) * 100)])
            else:
                alternatives.append("((h.small_bet = ? AND h.big_bet = ?) OR (h.small_bet = ? AND h.big_bet = ?))")
                params.extend([int(small), int(big), int(small) * 100, int(big) * 100])
        parts.append("(" + " OR ".join(alternatives) + ")")
    # A hand's day is the UTC date of its start less day_start_hour hours: the days from/to are a range of
    # started_at, compared as it is stored, so that DuckDB skips the row groups outside it (their min and max)
    since = "h.hour" if hours else "h.started_at"
    for day, op in ((f.date_from, ">="), (None if f.date_to is None else f.date_to + dt.timedelta(days=1), "<")):
        if day is not None:
            start = _day_start(day, f.day_start_hour)
            parts.append(f"{since} {op} ?")
            params.append(int(start.timestamp()) // 3600 if hours else start)
    if f.tags:
        if hours:
            raise ValueError("a tag filter needs the hands: player_totals cannot answer it")  # callers check f.tags first
        # by hand_key, a column of the hands and of player_hands alike; a tag is kept on (site, hand_id)
        parts.append(
            "h.hand_key IN (SELECT th.hand_key FROM hands th JOIN hand_tags t ON t.site = th.site AND t.hand_id = th.hand_id "
            f"WHERE t.tag IN ({', '.join('?' for _ in f.tags)}))"
        )
        params.extend(f.tags)
    return (" AND ".join(parts) or "TRUE"), params


def _day_start(day: dt.date, hour: int) -> dt.datetime:
    """When ``day`` starts, for days that start at ``hour`` UTC."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc) + dt.timedelta(hours=hour)


def scope(f: Filters, accounts: list[tuple[str, str]] | list[tuple[str | None, str]] | None = None) -> tuple[str, list[Any], str, list[Any]]:
    """The hands and seats that count: a condition on ``hands h`` and its parameters, one on ``seats s`` and its.

    ``f.players`` (named by the user, usually few) narrows the hands read
    to theirs; ``accounts`` ((site, name) each, site None for every site: the ones a result kept)
    narrows only the seats.  The seats' condition names the hand's ``site``
    bare: the query joins the seats to a row of the hands that has it.
    """
    from hhtool.stats.accounts import accounts_where

    where, params = hands_where(f)
    if f.players:
        picks = f.picks()
        if all(site is None for site, _ in picks):
            who, names = accounts_where("player", "site", picks)
            where += f" AND h.hand_key IN (SELECT hand_key FROM seats WHERE dealt_in AND {who})"
        else:  # the account's site is the hand's: the seats joined to the hands (a seat row has no site)
            who, names = accounts_where("s.player", "site", picks)
            where += f" AND h.hand_key IN (SELECT s.hand_key FROM seats s JOIN hands USING (hand_key) WHERE s.dealt_in AND {who})"
        params = params + names
    if accounts is None:
        if not f.players:
            return where, params, "s.dealt_in", []
        picks = f.picks()
    else:
        picks = [(site, n) for site, n in accounts]
    who, names = accounts_where("s.player", "site", picks)
    return where, params, f"s.dealt_in AND {who}", names


def totals_scope(f: Filters) -> tuple[str, list[Any]]:
    """The rows of ``player_totals h`` that count: the filters' hands (:func:`hands_where`), of ``f.players`` when named."""
    from hhtool.stats.accounts import accounts_where

    where, params = hands_where(f, hours=True)
    if f.players:
        who, names = accounts_where("h.player", "h.site", f.picks())
        where, params = f"{where} AND {who}", params + names
    return where, params


class UnknownPlayerError(StoreError):
    """A ``--player`` that has no hand in the database (a usage error), with the names it may have meant."""


def check_players(con: duckdb.DuckDBPyConnection, names: tuple[str, ...], totals: bool | None = None) -> tuple[tuple[str | None, str, str], ...]:
    """What ``names`` select (:func:`hhtool.stats.accounts.resolve`); :class:`UnknownPlayerError` for one that selects no
    account of the database: "did you mean 'alice'?".

    A misspelt name would otherwise give an empty table, or a report with
    nothing in it, that looks like an answer.  ``totals``: whether
    ``player_totals`` is current (None: look); a name with a hand dealt in
    is found there, a few rows, and only the others are looked for among
    every seat (a name never dealt in is still a player of the database).
    """
    from hhtool.stats.accounts import aliases_of, all_accounts, resolve, shared_names

    if not names:
        return ()
    if totals is None:
        totals = current(con, PLAYER_TOTALS)
    found, missing = resolve(con, names, totals)
    if not missing:
        return found
    import difflib

    accounts = all_accounts(con)
    shared = shared_names(con, None, False)
    everyone = {p for _, p in accounts} | {f"{p}@{s}" for s, p in accounts if p in shared or "@" in p} | set(aliases_of(con).values())
    folded = {name_key(p)[0]: p for p in sorted(everyone)}
    parts = []
    for name in missing:
        close = difflib.get_close_matches(name_key(name)[0], list(folded), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(repr(folded[c]) for c in close)}?" if close else ""
        parts.append(f"no player {name!r} in this database{hint}")
    raise UnknownPlayerError("; ".join(parts))
