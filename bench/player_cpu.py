"""The CPU of each part of a cold player's page and of the hands lists, in one process, on the million hands.  Never a test.

Run: ``python bench/player_cpu.py [DB]`` (default: ``bench/stats.py``'s
million-hand database, built first when it is not there yet).  For the busiest player: the
statistics summed from the seats and from ``player_totals``, every
player's, a filtered page's; the graph's and sessions' rows from the seats
and from ``player_hands``, the sessions, the lines, the whole graph; then
the hands lists ``bench/serve.py`` asks for.  CPU time (``process_time``,
best of a few runs), which a machine shared with other jobs disturbs less
than wall time.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hhtool.stats.compute import Filters, compute_on  # noqa: E402
from hhtool.stats.series import player_series, session_list  # noqa: E402
from hhtool.store.db import connect  # noqa: E402
from hhtool.store.totals import current_tables  # noqa: E402
from hhtool.web.hands import STAT_SEATS, hand_page  # noqa: E402
from hhtool.web.params import hand_query  # noqa: E402
from hhtool.web.player import winnings_figure, winnings_traces  # noqa: E402


def cpu(label: str, fn: Callable[[], Any], runs: int = 3) -> Any:
    best, out = float("inf"), None
    for _ in range(runs):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    print(f"  {label:46} {best * 1000:8.1f} ms of CPU", flush=True)
    return out


def main() -> None:
    if len(sys.argv) > 1:
        db = Path(sys.argv[1])
    else:
        from stats import database  # bench/stats.py: the same million hands, built once and cached

        db, made = database(1_000_000, 100_000)
        print(f"database: {made}")
    con = connect(db, read_only=True, memory_limit="640MB")  # the server's cap
    players = [r[0] for r in con.execute("SELECT player, count(*) n FROM seats WHERE dealt_in GROUP BY 1 ORDER BY n DESC, 1").fetchall()]
    p = players[0]
    f = Filters(players=(p,))
    g = Filters(players=(p,), date_from=dt.date(2026, 1, 3), date_to=dt.date(2026, 3, 1), day_start_hour=6, structures=("fixed",))
    print(f"{db.name}: {len(players)} players; the busiest, {p}")
    d = cpu("which derived tables are current (once a batch)", lambda: current_tables(con))
    cpu("statistics from the seats", lambda: compute_on(con, f, from_seats=True), 1)
    cpu("statistics from player_totals", lambda: compute_on(con, f, derived=d))
    cpu("statistics filtered, from the seats", lambda: compute_on(con, g, from_seats=True), 1)
    cpu("statistics filtered, from player_totals", lambda: compute_on(con, g, derived=d))
    cpu("every player's, from the seats", lambda: compute_on(con, Filters(), from_seats=True), 1)
    cpu("every player's, from player_totals", lambda: compute_on(con, Filters(), derived=d))
    cpu("graph rows from the seats", lambda: player_series(con, f, p, from_seats=True), 1)
    rows = cpu("graph rows from player_hands", lambda: player_series(con, f, p, derived=d))
    print(f"  ({len(rows):,} hands)")
    cpu("sessions", lambda: session_list(rows))
    cpu("the three lines' points", lambda: winnings_traces(rows.hand_key, rows.big_bets, rows.showdown))
    cpu("the graph and sessions, whole", lambda: winnings_figure(con, f, p, d))
    cpu("the graph and sessions, filtered", lambda: winnings_figure(con, g, p, d))
    cpu("the graph and sessions, whole, from the seats", lambda: winnings_figure(con, f, p, frozenset()), 1)
    lists = ["", "page=2", "verdict=disputed", "sort=pot", "showdown=1&allin=1"]
    lists += [f"player={n}" for n in players[:3]] + [f"player={n}&stat=vpip&taken=1" for n in players[:3]]
    lists += [f"player={n}&sort=net" for n in players[:2]]
    for u in lists:
        q = hand_query(parse_qsl(u), STAT_SEATS)
        cpu(f"hands?{u}", lambda: hand_page(con, q), 2)


if __name__ == "__main__":
    main()
