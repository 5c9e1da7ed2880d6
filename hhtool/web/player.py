"""A player's page: the statistics of ``hhtool stats`` (computed by :mod:`hhtool.stats.compute`, never again here),
each linked to the hands behind it, the winnings graph whose points open their hands, and the sessions."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from hhtool.history.currency import Rates, currency_of, format_money
from hhtool.stats.compute import STATS, Filters, StatsResult
from hhtool.stats.figures import CONFIG, template
from hhtool.stats.points import line_points
from hhtool.stats.playtime import HAND_SECONDS
from hhtool.stats.render import fmt_value, money_lines, play_lines
from hhtool.stats.series import Session, player_series, running_lines, session_list
from hhtool.web.hands import PER_DECISION, STAT_SEATS

if TYPE_CHECKING:
    from concurrent.futures import Executor

    import duckdb
    import numpy as np


@dataclass(frozen=True, slots=True)
class StatLine:
    """One statistic as the page shows it: its figure(s), and the links to its opportunities and its actions."""

    key: str
    label: str
    values: list[tuple[str, str]]  # (figure, detail): one line, or one per currency for money
    opportunities: str | None  # the hands list's URL, or None where the statistic has no list
    taken: str | None
    per_decision: bool


def player_url(name: str) -> str:
    return f"/players/{quote(name, safe='')}"


def filter_items(f: Filters) -> list[tuple[str, str]]:
    """The filters as query parameters, the way :func:`hhtool.web.params.filters` reads them back."""
    items: list[tuple[str, str]] = [("player", p) for p in f.players]
    if f.date_from is not None:
        items.append(("from", f.date_from.isoformat()))
    if f.date_to is not None:
        items.append(("to", f.date_to.isoformat()))
    items += [("site", s) for s in f.sites] + [("profile", p) for p in f.profiles] + [("structure", s) for s in f.structures]
    items += [("seats", str(n)) for n in f.max_seats] + [("stakes", f"{a}/{b}") for a, b in f.stakes]
    if f.day_start_hour:
        items.append(("day_start", str(f.day_start_hour)))
    if not f.every_verdict:  # the hands behind a figure are the ones it counts; /hands lists every verdict unless told
        items.append(("verdicts", ",".join(f.verdicts)))
    items += [("tag", t) for t in f.tags]
    return items


def stat_lines(result: StatsResult, player: str, rates: Rates | None) -> list[StatLine]:
    """Every statistic of ``docs/stats.md`` for ``player``, as ``hhtool stats`` words it, with its hands' links."""
    row = result.row(player)
    base = filter_items(result.filters)
    out = []
    for s in STATS:
        values = money_lines(result, player, s.key, rates) if s.kind == "money" else [fmt_value(s, row)]
        opp = taken = None
        if s.key in STAT_SEATS:
            opp = "/hands?" + urlencode([*base, ("stat", s.key)])
            if s.key != "hands":
                taken = "/hands?" + urlencode([*base, ("stat", s.key), ("taken", "1")])
        elif s.kind == "money":
            opp = "/hands?" + urlencode([*base, ("sort", "net")])
        out.append(StatLine(s.key, s.label, values, opp, taken, s.key in PER_DECISION))
    return out


def winnings_traces(hand_key: np.ndarray[Any, Any], big_bets: np.ndarray[Any, Any], showdown: np.ndarray[Any, Any]) -> list[dict[str, Any]]:
    """The graph's lines (showdown, non-showdown, net: big bets over hands) of one player's hands in time order.

    Each line keeps its own points (:func:`line_points`); ``x`` is the
    hand's number in the player's list, ``y`` the running total after it (to
    a hundredth), ``customdata`` the point's hand key: a click opens
    ``/hand/KEY``, which redirects to the hand's page (looking up the
    site and id of every point here cost a third of a page of 442,050
    hands).
    """
    import numpy as np

    traces = []
    for name, y in running_lines(big_bets, showdown):
        keep = np.asarray(line_points(y), dtype=np.int64)
        traces.append({"type": "scatter", "x": (keep + 1).tolist(), "y": np.round(y[keep], 2).tolist(), "name": name, "line": LINES[name],
                       "mode": "lines+markers", "marker": {"size": 4}, "customdata": hand_key[keep].tolist(),
                       "hovertemplate": "hand %{x}: %{y} big bets<extra>" + name + "</extra>"})
    return traces


LINES: dict[str, dict[str, Any]] = {"showdown": {"color": "#36c"}, "non-showdown": {"color": "#c33"}, "net": {"color": "#2a7", "width": 3}}
"""Each line's colour and width."""


def winnings_figure(
    con: duckdb.DuckDBPyConnection, f: Filters, player: str, derived: frozenset[str] | None = None, *, beside: Executor | None = None
) -> tuple[str | None, list[dict[str, Any]]]:
    """The winnings graph (big bets over hands, each point a link to its hand) as HTML, and the sessions' rows.

    Each line keeps at most :data:`~hhtool.stats.points.MAX_POINTS` points, its extremes and its
    biggest hands among them (:func:`line_points`); a click on one opens
    that hand.  Big bets add across currencies; the sessions keep each
    currency's money apart, as the report does.  The player's hands come
    as arrays (:func:`~hhtool.stats.series.player_series`), not a frame:
    numbers, walked by numpy.  ``derived``: the derived tables known
    current (None: look).  ``beside``: where the sessions are walked while
    the lines are drawn here (numpy leaves the GIL for most of both: 70
    against 85 ms for the 442,050 hands of ``bench/serve.py``'s busiest
    player); None walks them first, in this thread.
    """
    hands = player_series(con, f, player, derived=derived)
    walked = beside.submit(session_list, hands) if beside is not None else None
    traces = winnings_traces(hands.hand_key, hands.big_bets, hands.showdown) if len(hands) else []
    rows = []
    for s in walked.result() if walked is not None else session_list(hands):
        cur = currency_of(s.currency, s.unit)
        rows.append({"session": s.session, "start": s.start, "end": s.end, "hands": s.hands, "net": s.net, "net_text": format_money(s.net, cur),
                     "big_bets": s.big_bets, "currency": cur.code, "unit": s.unit, "played_us": session_us(s),
                     # what the page shows: grouped by thousands, as the report's sessions (issue 41: "4031")
                     "session_text": f"{s.session:,}", "hands_text": f"{s.hands:,}", "big_bets_text": f"{s.big_bets:,.2f}"})
    if len(hands) == 0:
        return None, rows
    layout = {"xaxis": {"title": {"text": "hands"}}, "yaxis": {"title": {"text": "big bets"}}, "height": 360,
              "margin": {"l": 60, "r": 20, "t": 20, "b": 40}}
    return figure_data_html(traces, layout, "winnings"), rows


def session_us(s: Session) -> int:
    """A session's length in microseconds as :mod:`hhtool.stats.playtime` counts it: first to last start, plus its last hand."""
    span = 0 if s.start is None or s.end is None else (s.end - s.start) // dt.timedelta(microseconds=1)
    return span + HAND_SECONDS * 1_000_000


def play_lines_of(result: StatsResult, player: str, sessions: list[dict[str, Any]], rates: Rates | None) -> list[tuple[str, str, str]]:
    """The page's block of time played: ``hhtool stats --format detail``'s lines (:func:`~hhtool.stats.render.play_lines`),
    of the sessions the page walked already (:func:`winnings_figure`'s rows), not another walk of the player's hands."""
    import polars as pl

    totals: dict[tuple[str, str | None], list[int]] = {}
    for r in sessions:
        t = totals.setdefault((r["currency"], r["unit"]), [0, 0])
        t[0] += 1
        t[1] += int(r["played_us"])
    frame = pl.DataFrame(
        [(player, c, u, n, us) for (c, u), (n, us) in totals.items()], orient="row",
        schema={"player": pl.String, "currency": pl.String, "unit": pl.String, "sessions": pl.Int64, "played_us": pl.Int64},
    )
    return play_lines(replace(result, play_time=frame), player, rates)


def figure_data_html(data: list[dict[str, Any]], layout: dict[str, Any], div_id: str) -> str:
    """A figure as the server's pages draw it: its box, and the figure as JSON that ``/static/graph.js`` draws.

    The report's figures are ``plotly.io.to_html``'s, with their script
    inline (:func:`hhtool.stats.figures.figure_html`); the pages run no
    inline script (their Content-Security-Policy), so here the figure is
    data, with the same template and options, and the click on a point
    that opens its hand (``/hand/KEY``, the point's ``customdata``) is
    the script's.
    """
    from hhtool.replayer.html import script_json

    fig = {"data": data, "layout": {"template": template(), **layout}, "config": CONFIG}
    height = int(layout.get("height", 450))
    return (f'<div id="{div_id}" class="plotly-graph-div" style="height:{height}px;width:100%"></div>'
            f'<script type="application/json" class="hh-figure" data-plot="{div_id}">{script_json(fig)}</script>')
