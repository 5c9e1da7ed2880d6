"""The hands behind the pages: the filtered, sorted, paginated list, one hand, and the hands behind a statistic.

Every query is parameterised: the values of a request (names, sites,
dates, amounts) travel as DuckDB parameters, never in the SQL text; the
only words put into the SQL are this module's own (column names, the
statistics' conditions of :data:`STAT_SEATS`, ``ASC``/``DESC``).  The
hand filters are the statistics' own (:func:`hhtool.stats.compute.scope`),
so a page's hands are the hands its figures count.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import quote

from hhtool.history.currency import Currency, currency_of, format_money
from hhtool.stats.compute import scope
from hhtool.store.totals import ALLIN_HANDS, PLAYER_HANDS, PLAYER_TOTALS, current, current_tables, stat_bits_condition
from hhtool.store.totals import STAT_SEATS as STAT_SEATS  # the statistics' hands, as the pages import them from here
from hhtool.web.params import HandQuery

if TYPE_CHECKING:
    import duckdb


PER_DECISION = frozenset(("af", "afq", "fold_to_bet"))
"""Statistics that count decisions, not hands: their lists hold the hands with at least one."""

_COLUMNS = (
    "h.hand_key, h.site, h.hand_id, h.started_at, h.profile, h.structure, h.currency, h.unit, h.small_bet, h.big_bet, "
    "h.total_pot, h.rake, h.verdict, h.findings, h.showdown, h.dealt_in, h.max_seats, h.table_name, h.file, h.first_line, h.room"
)


@dataclass(frozen=True, slots=True)
class HandPage:
    """One page of the list: its rows (dicts, money exact), the count of every hand that matches, and the query."""

    rows: list[dict[str, Any]]
    total: int
    query: HandQuery


def _query_sql(
    q: HandQuery, player_hands: bool = False, allin_hands: bool = False, picks: list[list[tuple[str | None, str]]] | None = None
) -> tuple[str, list[Any], bool]:
    """The FROM and WHERE of the list, its parameters, and whether the player's seat is joined as ``s``.

    ``player_hands``: the list of a named player from ``player_hands h``
    alone (:mod:`hhtool.store.totals`: each of their hands with the facts
    the list filters and sorts by, the statistics' answers as bits), the
    same hands as the hands joined to the seats.  ``picks``: each named
    player's accounts ((site or None, name) each: a person's several; None:
    each name read as ``NAME@SITE`` or a bare name, :func:`~hhtool.stats.accounts.picks_of`).
    """
    from hhtool.stats.accounts import accounts_where, picks_of

    f = q.filters
    groups = picks if picks is not None else [picks_of([name]) for name in f.players]
    first, others = (groups[0], groups[1:]) if groups else (None, [])
    hand_where, params, _, _ = scope(replace(f, players=(), resolved=None))
    joins = ""
    join_params: list[Any] = []
    table = "hands h"
    if player_hands and first is not None:
        table = f"{PLAYER_HANDS.name} h"
        who, names = accounts_where("h.player", "h.site", first)
        hand_where = f"{who} AND {hand_where}"
        params = [*names, *params]
    elif first is not None:
        who, names = accounts_where("s.player", "h.site", first)
        joins = f" JOIN seats s ON s.hand_key = h.hand_key AND s.dealt_in AND {who}"
        join_params += names
    parts = [hand_where]
    for group in others:  # hands that every named player played
        who, names = accounts_where("o.player", "h.site", group)
        parts.append(f"h.hand_key IN (SELECT o.hand_key FROM seats o WHERE o.dealt_in AND {who})")
        params += names
    if q.verdicts:
        parts.append(f"h.verdict IN ({', '.join('?' for _ in q.verdicts)})")
        params.extend(q.verdicts)
    for amount, op in ((q.pot_min, ">="), (q.pot_max, "<=")):
        if amount is not None:  # in the hand's major unit: chips as they are, currencies in cents
            parts.append(f"((h.unit = 'chip' AND h.total_pot {op} ?) OR (h.unit <> 'chip' AND h.total_pot {op} ?))")
            params.extend([amount, amount * 100])
    if q.showdown is not None:
        parts.append("h.showdown = ?")
        params.append(q.showdown)
    if q.all_in is not None and table != "hands h":
        parts.append("h.all_in = ?")
        params.append(q.all_in)
    elif q.all_in is not None and allin_hands:
        parts.append(f"h.hand_key {'' if q.all_in else 'NOT '}IN (SELECT hand_key FROM {ALLIN_HANDS.name})")
    elif q.all_in is not None:
        parts.append(("" if q.all_in else "NOT ") + "EXISTS (SELECT 1 FROM actions a WHERE a.hand_key = h.hand_key AND a.all_in)")
    if q.stat is not None and table != "hands h":
        parts.append(stat_bits_condition(q.stat, q.taken))
    elif q.stat is not None:
        opportunity, action = STAT_SEATS[q.stat]
        parts.append(opportunity)
        if q.taken is not None:
            parts.append(f"({action})" if q.taken else f"NOT coalesce({action}, FALSE)")
    return f"FROM {table}{joins} WHERE " + " AND ".join(f"({p})" for p in parts), join_params + params, first is not None


T = TypeVar("T")


class Kept:
    """What the pages computed (a list's count, a player's statistics and graph), kept while the database holds the same hands.

    A hands page's rows are a top-N that DuckDB reads from the sort
    columns, but its count is a pass over every hand that matches, and a
    player's page sums every seat of theirs (440,000 of a million hands for
    the busiest player of the benchmark): the larger part of those pages.
    People page through a list, go back, follow a statistic's link, open
    the player again: the same figures, asked again.  ``version()`` is a
    value that changes whenever hands are added (the live import's hands
    stored; hands are never changed or removed while the server holds the
    file); it is read before the figure is computed, so that one computed
    while hands arrive is kept under the older value and never shown for
    the newer.  At most ``most`` are kept, the least recently asked dropped.
    """

    def __init__(self, version: Callable[[], object], most: int = 256) -> None:
        self.version = version
        self.most = most
        self._lock = threading.Lock()
        self._known: OrderedDict[tuple[object, ...], tuple[object, Any]] = OrderedDict()

    def get(self, key: tuple[object, ...], compute: Callable[[], T]) -> T:
        """The value kept under ``key`` for the database as it is, or ``compute()``'s, kept."""
        version = self.version()
        with self._lock:
            got = self._known.get(key)
            if got is not None and got[0] == version:
                self._known.move_to_end(key)
                return cast(T, got[1])
        value = compute()
        with self._lock:
            self._known[key] = (version, value)
            self._known.move_to_end(key)
            while len(self._known) > self.most:
                self._known.popitem(last=False)
        return value


def _count(con: duckdb.DuckDBPyConnection, body: str, params: list[Any]) -> int:
    got = con.execute(f"SELECT count(*) {body}", params).fetchone()
    return int(got[0]) if got else 0


def hand_page(
    con: duckdb.DuckDBPyConnection, q: HandQuery, kept: Kept | None = None, *, from_seats: bool = False, derived: frozenset[str] | None = None
) -> HandPage:
    """The page of hands ``q`` asks for, and how many match in all (kept in ``kept``, when given).

    A named player's list is read from ``player_hands`` where it holds
    exactly the stored hands: the page's keys a top-N over that player's
    rows, then those hands' rows; else (and with ``from_seats``) from the
    hands joined to the seats.  ``derived``: the derived tables known
    current (:func:`~hhtool.store.totals.current_tables`; None: look, once).
    """
    asks = not from_seats and (bool(q.filters.players) or q.all_in is not None)  # whether a derived table could serve
    known = current_tables(con) if derived is None and asks else derived or frozenset()
    fast = asks and bool(q.filters.players) and current(con, PLAYER_HANDS, known)
    picks: list[list[tuple[str | None, str]]] | None = None
    if q.filters.players:  # each name's accounts: a person's, NAME@SITE's, a bare name's (docs/stats.md, "Players and accounts")
        from hhtool.stats.accounts import picks_of, resolve

        totals = current(con, PLAYER_TOTALS, known or None)
        picks = []
        for name in q.filters.players:
            mine: list[tuple[str | None, str]] = list(dict.fromkeys((s, n) for _, s, n in resolve(con, (name,), totals)[0]))
            picks.append(mine or picks_of([name]))
    body, params, joined = _query_sql(q, fast, asks and q.all_in is not None and current(con, ALLIN_HANDS, known), picks)
    direction = "DESC" if q.descending else "ASC"
    order = {
        "time": f"h.started_at {direction}, h.hand_key {direction}",
        "pot": f"h.total_pot {direction}, h.started_at {direction}, h.hand_key {direction}",
        "net": f"{'h' if fast else 's'}.net {direction}, h.started_at {direction}, h.hand_key {direction}",
    }[q.sort]
    if fast:
        keys = con.execute(f"SELECT h.hand_key, h.net {body} ORDER BY {order} LIMIT ? OFFSET ?", params + [q.limit, q.offset]).fetchall()
        found = {int(r["hand_key"]): r for r in _rows(con, f"SELECT {_COLUMNS} FROM hands h WHERE {_listed('h.hand_key', len(keys))}",
                                                      [int(k) for k, _ in keys])}
        rows = [{**found[int(k)], "player_net": net} for k, net in keys]
    else:
        net = ", s.net AS player_net" if joined else ""
        rows = _rows(con, f"SELECT {_COLUMNS}{net} {body} ORDER BY {order} LIMIT ? OFFSET ?", params + [q.limit, q.offset])
    if q.offset == 0 and len(rows) < q.limit:
        total = len(rows)  # the whole list is on the page: no second pass
    else:
        total = _count(con, body, params) if kept is None else kept.get(("count", body, repr(params)), lambda: _count(con, body, params))
    return HandPage([row_json(r) for r in rows], total, q)


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]


def _listed(column: str, n: int) -> str:
    """``column`` is one of ``n`` values given as parameters: DuckDB reads the matching rows' vectors only, not a join's pass."""
    return f"{column} IN ({', '.join('?' for _ in range(n))})" if n else "FALSE"


def money(amount: int | None, cur: Currency) -> dict[str, Any] | None:
    """An amount as the API gives it: exact minor units, the currency, and the text a person reads."""
    if amount is None:
        return None
    return {"amount": int(amount), "currency": cur.code, "decimals": cur.decimals, "text": format_money(int(amount), cur)}


def hand_path(site: str, hand_id: str) -> str:
    """``SITE/HAND_ID`` with each part percent-encoded on its own (``/`` as ``%2F``, ``?``, ``#``, ``%`` too).

    A site or an id of a database may hold any character; encoded apart,
    ``a/b`` and ``x`` can never be read as ``a`` and ``b/x``: the routes
    split the raw path at ``/`` and decode each part (``app._segments``).
    """
    return f"{_part(site)}/{_part(hand_id)}"


_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*")
"""The characters ``quote(..., safe='')`` leaves as they are (RFC 3986's unreserved): a part of only these is its own encoding."""


def _part(text: str) -> str:
    """``quote(text, safe='')``, without its work where nothing needs encoding.

    A graph links each of its thousands of points to its hand: quoting every
    site and id cost a cold player's page ~10 ms; sites and ids are nearly
    always unreserved characters, which one match of a compiled pattern tells.
    """
    return text if _UNRESERVED.fullmatch(text) else quote(text, safe="")


def hand_url(site: str, hand_id: str) -> str:
    """The hand's page, ``/hands/SITE/HAND_ID`` (:func:`hand_path`)."""
    return "/hands/" + hand_path(site, hand_id)


def share_url(site: str, hand_id: str) -> str:
    """The hand as a file to share, ``/share/SITE/HAND_ID`` (:mod:`hhtool.web.share`; :func:`hand_path`)."""
    return "/share/" + hand_path(site, hand_id)


def api_hand_url(site: str, hand_id: str) -> str:
    """The hand in the JSON API, ``/api/hands/SITE/HAND_ID`` (:func:`hand_path`)."""
    return "/api/hands/" + hand_path(site, hand_id)


def row_json(row: dict[str, Any]) -> dict[str, Any]:
    """A hands row with its amounts as :func:`money`, its time in ISO 8601, and its links (``url``: its JSON, ``page``: its page)."""
    cur = currency_of(row["currency"], row["unit"])
    out = {k: v for k, v in row.items() if k not in ("currency", "unit")}
    for key in ("small_bet", "big_bet", "total_pot", "rake", "player_net"):
        if key in out:
            out[key] = money(out[key], cur)
    out["currency"] = cur.code
    out["started_at"] = row["started_at"].isoformat() if row["started_at"] is not None else None
    out["url"] = api_hand_url(str(row["site"]), str(row["hand_id"]))
    out["page"] = hand_url(str(row["site"]), str(row["hand_id"]))
    return out


def find_hand(con: duckdb.DuckDBPyConnection, site: str, hand_id: str) -> dict[str, Any] | None:
    """The ``hands`` row of ``(site, hand_id)`` with its raw text, or None."""
    cursor = con.execute(f"SELECT {_COLUMNS}, h.rules_digest, h.raw_text, h.zone FROM hands h WHERE h.site = ? AND h.hand_id = ?", [site, hand_id])
    names = [d[0] for d in cursor.description]
    row = cursor.fetchone()
    return None if row is None else dict(zip(names, row))


_KEYS = "hand_key IN (SELECT unnest(?::BIGINT[]))"
"""A table's rows of a list of hand keys: one join, not a search of the list for every row."""


def stored_findings(con: duckdb.DuckDBPyConnection, hand_keys: list[int]) -> dict[int, list[dict[str, Any]]]:
    """The findings the import stored for each of ``hand_keys``, in order (the audit page's reasons)."""
    out: dict[int, list[dict[str, Any]]] = {k: [] for k in hand_keys}
    if not hand_keys:
        return out
    for key, seq, code, severity, line, message, cause in con.execute(
        "SELECT hand_key, seq, code, severity, line, message, cause_seq FROM findings "
        f"WHERE {_KEYS} ORDER BY hand_key, seq",
        [hand_keys],
    ).fetchall():
        out[int(key)].append({"seq": seq, "code": code, "severity": severity, "line": line, "message": message, "cause_seq": cause})
    return out


def known_player(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    row = con.execute("SELECT 1 FROM seats WHERE player = ? LIMIT 1", [name]).fetchone()
    return row is not None
