"""A player's page: the statistics of ``hhtool stats`` (computed by :mod:`hhtool.stats.compute`, never again here),
each linked to the hands behind it, the winnings graph whose points open their hands, and the sessions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from hhtool.history.currency import Rates, currency_of, format_money
from hhtool.stats.compute import STATS, Filters, StatsResult, in_time_order, load_per_hand, sessions
from hhtool.stats.render import fmt_value, money_lines
from hhtool.stats.points import line_points
from hhtool.web.hands import PER_DECISION, STAT_SEATS, hand_links, hand_url

if TYPE_CHECKING:
    import duckdb
    import polars as pl


@dataclass(frozen=True)
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


def winnings_traces(per_hand: pl.DataFrame) -> list[dict[str, Any]]:
    """The graph's lines (showdown, non-showdown, net: big bets over hands) of one player's hands in time order.

    Each line keeps its own points (:func:`line_points`); ``x`` is the
    hand's number in the player's list, ``y`` the running total after it (to
    a hundredth), ``customdata`` the point's hand key, for
    :func:`link_points` to turn into the hand's URL.
    """
    import polars as pl

    step = per_hand["big_bets"].fill_null(0.0)
    sd_step = per_hand.select(pl.when(pl.col("went_to_showdown")).then(pl.col("big_bets")).otherwise(0.0).fill_null(0.0)).to_series()
    keys = per_hand["hand_key"]
    traces = []
    for name, y, line in (
        ("showdown", sd_step.cum_sum(), {"color": "#36c"}),
        ("non-showdown", (step - sd_step).cum_sum(), {"color": "#c33"}),
        ("net", step.cum_sum(), {"color": "#2a7", "width": 3}),
    ):
        keep = line_points(y)
        traces.append({"type": "scatter", "x": [i + 1 for i in keep], "y": y.gather(keep).round(2).to_list(), "name": name, "line": line,
                       "mode": "lines+markers", "marker": {"size": 4}, "customdata": [int(k) for k in keys.gather(keep).to_list()],
                       "hovertemplate": "hand %{x}: %{y} big bets<extra>" + name + "</extra>"})
    return traces


def link_points(con: duckdb.DuckDBPyConnection, traces: list[dict[str, Any]]) -> None:
    """Each point's hand key (``customdata``) replaced by its hand's URL, read in one query for every line."""
    links = hand_links(con, sorted({k for t in traces for k in t["customdata"]}))
    urls = {k: hand_url(*where) for k, where in links.items()}  # once a hand: the lines share most of their points' hands
    for t in traces:
        t["customdata"] = [urls.get(k, "") for k in t["customdata"]]


def winnings_figure(con: duckdb.DuckDBPyConnection, f: Filters, player: str) -> tuple[str | None, list[dict[str, Any]]]:
    """The winnings graph (big bets over hands, each point a link to its hand) as HTML, and the sessions' rows.

    Each line keeps at most :data:`MAX_POINTS` points, its extremes and its
    biggest hands among them (:func:`line_points`); a click on one opens
    that hand.  Big bets add across currencies; the sessions keep each
    currency's money apart, as the report does.
    """
    import plotly.io as pio

    per_hand = in_time_order(load_per_hand(con, f, [player]))
    rows = []
    for r in sessions(per_hand).to_dicts():
        cur = currency_of(r["currency"], r["unit"])
        rows.append({**r, "net_text": format_money(int(r["net"]), cur), "net": int(r["net"]), "currency": cur.code})
    if per_hand.height == 0:
        return None, rows
    traces = winnings_traces(per_hand)
    link_points(con, traces)
    layout = {"xaxis": {"title": {"text": "hands"}}, "yaxis": {"title": {"text": "big bets"}}, "height": 360,
              "margin": {"l": 60, "r": 20, "t": 20, "b": 40}}
    # a click on a point opens its hand; the URL is the point's own customdata, percent-encoded, never HTML
    click = "document.getElementById('{plot_id}').on('plotly_click', function (d) { var u = d.points[0].customdata; if (u) window.location.assign(u); });"
    # a plain figure dict, not validated by plotly's graph objects: they cost ten times the page's budget
    html = pio.to_html({"data": traces, "layout": layout}, validate=False, full_html=False, include_plotlyjs=False, div_id="winnings",
                       post_script=click, config={"displaylogo": False, "responsive": True})
    return str(html), rows
