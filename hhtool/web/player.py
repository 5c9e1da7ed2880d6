"""A player's page: the statistics of ``hhtool stats`` (computed by :mod:`hhtool.stats.compute`, never again here),
each linked to the hands behind it, the winnings graph whose points open their hands, and the sessions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from hhtool.history.currency import Rates, currency_of, format_money
from hhtool.stats.compute import STATS, Filters, StatsResult, load_per_hand, sessions
from hhtool.stats.render import fmt_value, money_lines
from hhtool.stats.report import sample_points
from hhtool.web.hands import PER_DECISION, STAT_SEATS, hand_links, hand_url

if TYPE_CHECKING:
    import duckdb


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


def winnings_figure(con: duckdb.DuckDBPyConnection, f: Filters, player: str) -> tuple[str | None, list[dict[str, Any]]]:
    """The winnings graph (big bets over hands, each point a link to its hand) as HTML, and the sessions' rows.

    The graph keeps at most :data:`hhtool.stats.report.MAX_POINTS` points
    (the exact running totals at evenly spaced hands); a click on one opens
    that hand.  Big bets add across currencies; the sessions keep each
    currency's money apart, as the report does.
    """
    import plotly.io as pio
    import polars as pl

    per_hand = load_per_hand(con, f, [player]).sort(["started_at", "hand_key"])
    rows = []
    for r in sessions(per_hand).to_dicts():
        cur = currency_of(r["currency"], r["unit"])
        rows.append({**r, "net_text": format_money(int(r["net"]), cur), "net": int(r["net"]), "currency": cur.code})
    if per_hand.height == 0:
        return None, rows
    net = per_hand["big_bets"].fill_null(0.0).cum_sum()
    sd = per_hand.select(pl.when(pl.col("went_to_showdown")).then(pl.col("big_bets")).otherwise(0.0).fill_null(0.0)).to_series().cum_sum()
    keep = sample_points(per_hand.height)
    keys = per_hand["hand_key"].gather(keep).to_list()
    links = hand_links(con, [int(k) for k in keys])
    urls = [hand_url(*links[int(k)]) if int(k) in links else "" for k in keys]
    x = [i + 1 for i in keep]
    traces = [
        {"type": "scatter", "x": x, "y": y.gather(keep).round(2).to_list(), "name": name, "line": line,
         "mode": "lines+markers", "marker": {"size": 4}, "customdata": urls,
         "hovertemplate": "hand %{x}: %{y} big bets<extra>" + name + "</extra>"}
        for name, y, line in (
            ("showdown", sd, {"color": "#36c"}),
            ("non-showdown", net - sd, {"color": "#c33"}),
            ("net", net, {"color": "#2a7", "width": 3}),
        )
    ]
    layout = {"xaxis": {"title": {"text": "hands"}}, "yaxis": {"title": {"text": "big bets"}}, "height": 360,
              "margin": {"l": 60, "r": 20, "t": 20, "b": 40}}
    # a click on a point opens its hand; the URL is the point's own customdata, percent-encoded, never HTML
    click = "document.getElementById('{plot_id}').on('plotly_click', function (d) { var u = d.points[0].customdata; if (u) window.location.assign(u); });"
    # a plain figure dict, not validated by plotly's graph objects: they cost ten times the page's budget
    html = pio.to_html({"data": traces, "layout": layout}, validate=False, full_html=False, include_plotlyjs=False, div_id="winnings",
                       post_script=click, config={"displaylogo": False, "responsive": True})
    return str(html), rows

