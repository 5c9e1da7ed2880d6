"""``/``: the dashboard -- the database at a glance, each figure a few indexed or derived-table reads.

What it shows (docs/serve.md, "The dashboard"): the hands stored (by
verdict) and the players; the results per currency (each money apart,
never one added to another: its hands, its pots and rake, its biggest
winner and loser); the latest sessions; the disputed and invalid hands to
look at, newest first, each linking to its page; the imports (the live
import's state when the server watches folders, the files imported and
the hands that failed).

Every figure is read from what the server keeps fast: the players and
their nets from the players grid (:func:`hhtool.web.grid.grid_for`, over
``player_totals``), the sessions from ``player_hands`` (a few row groups
of the players who played last), the hands' counts in one pass over the
``hands`` table's few columns, the disputes a top-N by start.  The whole
is kept while no hand is added (:class:`hhtool.web.hands.Kept`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hhtool.history.currency import Currency, currency_of, format_money
from hhtool.stats.filters import Filters
from hhtool.stats.order import currency_rank, name_key
from hhtool.stats.series import EPOCH, HandSeries, session_list
from hhtool.store.totals import PLAYER_HANDS, PLAYER_TOTALS
from hhtool.web.params import HandQuery

if TYPE_CHECKING:
    import duckdb

    from hhtool.web.hands import Kept

SESSIONS = 10
"""The latest sessions shown."""
DISPUTES = 10
"""The disputed and invalid hands shown (the newest; ``/audit`` lists them all)."""
GAP_MINUTES = 30
"""A new session after this long without a hand of the player in that money (as on a player's page)."""


@dataclass(frozen=True, slots=True)
class MoneySummary:
    """One currency's results: its hands, pots and rake, and its players' biggest win and loss (each in its money)."""

    currency: Currency
    hands: int
    players: int
    pots: str
    rake: str
    winner: tuple[str, str] | None  # (player, net as shown)
    loser: tuple[str, str] | None


@dataclass(frozen=True, slots=True)
class SessionRow:
    player: str
    money: str
    start: dt.datetime | None
    end: dt.datetime | None
    hands: int
    net: str
    big_bets: float


@dataclass(frozen=True, slots=True)
class Dashboard:
    hands: int
    verdicts: dict[str, int]
    players: int
    monies: list[MoneySummary]
    sessions: list[SessionRow]
    disputes: list[dict[str, Any]]
    disputes_total: int
    files: int
    last_import: dt.datetime | None
    failed: int


def dashboard(cur: duckdb.DuckDBPyConnection, kept: Kept, derived: frozenset[str]) -> Dashboard:
    """The dashboard's figures, each kept while no hand is added."""
    from hhtool.web.grid import grid_for
    from hhtool.web.hands import hand_page

    grid = kept.get(("grid", repr(Filters())), lambda: grid_for(cur, Filters(), derived))
    per_money, verdicts = kept.get(("dashboard-hands",), lambda: _hands(cur))
    monies = []
    for cur_, (hands, pots, rake) in sorted(per_money.items(), key=lambda kv: currency_rank(kv[0])):
        nets = [(r.net[cur_], r.player) for r in grid.rows if cur_ in r.net]
        # the biggest win and loss, a tie to the name first in order
        best = min(nets, key=lambda np_: (-np_[0], name_key(np_[1])), default=None)
        worst = min(nets, key=lambda np_: (np_[0], name_key(np_[1])), default=None)
        monies.append(MoneySummary(
            cur_, hands, len(nets), format_money(pots, cur_), format_money(rake, cur_),
            None if best is None or best[0] <= 0 else (best[1], format_money(best[0], cur_)),
            None if worst is None or worst[0] >= 0 else (worst[1], format_money(worst[0], cur_)),
        ))
    sessions = kept.get(("dashboard-sessions",), lambda: latest_sessions(cur, derived))
    disputes = kept.get(("dashboard-disputes",), lambda: hand_page(cur, HandQuery(verdicts=("disputed", "invalid"), limit=DISPUTES),
                                                                    derived=derived))
    files, last, failed = kept.get(("dashboard-imports",), lambda: _imports(cur))
    return Dashboard(
        hands=sum(verdicts.values()), verdicts=verdicts, players=len(grid.rows), monies=monies, sessions=sessions,
        disputes=disputes.rows, disputes_total=disputes.total, files=files, last_import=last, failed=failed,
    )


def _hands(cur: duckdb.DuckDBPyConnection) -> tuple[dict[Currency, tuple[int, int, int]], dict[str, int]]:
    """Per currency: hands, the sum of pots and of rake (minor units, exact); and the hands per verdict: one pass."""
    rows = cur.execute(
        "SELECT currency, unit, verdict, count(*), sum(total_pot)::HUGEINT, sum(rake)::HUGEINT FROM hands GROUP BY ALL"
    ).fetchall()
    per: dict[Currency, tuple[int, int, int]] = {}
    verdicts: dict[str, int] = {}
    for currency, unit, verdict, n, pots, rake in rows:
        c = currency_of(currency, unit)
        h, p, r = per.get(c, (0, 0, 0))
        per[c] = (h + int(n), p + int(pots or 0), r + int(rake or 0))
        verdicts[str(verdict)] = verdicts.get(str(verdict), 0) + int(n)
    order = ("ok", "disputed", "invalid", "error")
    return per, dict(sorted(verdicts.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0])))


def _imports(cur: duckdb.DuckDBPyConnection) -> tuple[int, dt.datetime | None, int]:
    """Files imported, when the last import ended, hands that failed to parse (``files``, ``failed``)."""
    (files, last), = cur.execute("SELECT count(*), max(imported_at) FROM files").fetchall()
    (failed,), = cur.execute("SELECT count(*) FROM failed").fetchall()
    return int(files), last, int(failed)


def latest_sessions(cur: duckdb.DuckDBPyConnection, derived: frozenset[str], n: int = SESSIONS) -> list[SessionRow]:
    """The ``n`` sessions that ended last, of any player and money, newest first.

    A session ends after 30 minutes without a hand, so an hour without one
    ends it: each player's and money's last run of hours with hands (from
    ``player_totals``' hours, a pass over its few rows, a gaps-and-islands
    query) holds their last session whole.  Those runs are taken newest
    first, and each one's hands (a few row groups of ``player_hands``) are
    walked as a player's page walks them (:func:`~hhtool.stats.series.session_list`),
    until no run left can end later than the ``n`` sessions found.  Where
    the derived tables are not current, the seats joined to the hands.
    A session is an account's (a name at a site, named by its key:
    docs/stats.md, "Players and accounts").
    """
    from hhtool.stats.accounts import account_key, shared_names
    from hhtool.store.totals import HOUR_SQL

    if PLAYER_TOTALS.name in derived:
        hours = f"SELECT DISTINCT player, site, currency, unit, hour FROM {PLAYER_TOTALS.name} WHERE hands > 0"
    else:
        hours = (f"SELECT DISTINCT s.player, h.site, h.currency, h.unit, {HOUR_SQL} AS hour FROM seats s JOIN hands h USING (hand_key) "
                 "WHERE s.dealt_in AND h.started_at IS NOT NULL")
    runs = cur.execute(
        f"""
        WITH hrs AS ({hours}),
        isl AS (SELECT *, hour - row_number() OVER (PARTITION BY player, site, currency, unit ORDER BY hour) AS run FROM hrs),
        ends AS (SELECT player, site, currency, unit, min(hour) AS first, max(hour) AS last FROM isl GROUP BY player, site, currency, unit, run)
        SELECT player, site, currency, unit, first, last FROM ends
        QUALIFY row_number() OVER (PARTITION BY player, site, currency, unit ORDER BY last DESC) = 1
        ORDER BY last DESC, player, site
        """
    ).fetchall()
    hands = PLAYER_HANDS.name in derived
    source = (f"FROM {PLAYER_HANDS.name} h WHERE h.player = ? AND h.site = ?" if hands
              else "FROM seats s JOIN hands h USING (hand_key) WHERE s.dealt_in AND s.player = ? AND h.site = ?")
    net = "h.net" if hands else "s.net"
    out: list[SessionRow] = []
    shared: set[str] | None = None
    for name, site, currency, unit, first, last in runs:
        since, end = EPOCH + dt.timedelta(hours=int(first)), EPOCH + dt.timedelta(hours=int(last) + 1)
        if len(out) >= n and all(r.end is not None and r.end >= end for r in out):
            break  # the runs left end before every session found
        table = cur.sql(
            f"SELECT h.hand_key, epoch_us(h.started_at) AS t, {net} AS net, coalesce(h.big_bet, 0) AS big_bet {source} "
            "AND h.currency IS NOT DISTINCT FROM ? AND h.unit IS NOT DISTINCT FROM ? AND h.started_at >= ? AND h.started_at < ? "
            "ORDER BY h.started_at, h.hand_key",
            params=[name, site, currency, unit, since, end],
        ).fetchnumpy()
        if shared is None:  # the names on two sites, asked once the first session is walked (a few of the runs are)
            shared = shared_names(cur, None, PLAYER_TOTALS.name in derived)
        player = account_key(str(site), str(name), name in shared)
        got = session_list(_series(table, player, currency, unit), GAP_MINUTES) if len(table["t"]) else []
        if got:
            s = got[-1]
            cur_ = currency_of(currency, unit)
            out.append(SessionRow(player, cur_.name, s.start, s.end, s.hands, format_money(s.net, cur_), s.big_bets))
            out.sort(key=lambda r: (r.end or EPOCH, r.start or EPOCH), reverse=True)
            out = out[:n]
    return out


def _series(table: dict[str, Any], player: str, currency: str | None, unit: str | None) -> HandSeries:
    """One player's hands in one money as :class:`~hhtool.stats.series.HandSeries` (the sessions' walk)."""
    import numpy as np

    keys = np.asarray(table["hand_key"], dtype=np.int64)
    net = np.asarray(table["net"], dtype=np.int64)
    big_bet = np.asarray(table["big_bet"], dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        big_bets = np.where(big_bet > 0, net / np.where(big_bet > 0, big_bet, 1), np.nan)
    return HandSeries(keys, np.asarray(table["t"], dtype=np.int64), np.zeros(len(keys), dtype=np.int64), [(player, currency, unit)],
                      net, np.zeros(len(keys), dtype=bool), big_bets, big_bet)
