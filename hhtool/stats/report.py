"""The HTML report: one self-contained file, plotly's JavaScript inline, every hand-history string escaped.

What it shows is :func:`~hhtool.stats.report_data.report_data`'s (the
statistics, the hands for the graphs and the sessions, the sections' sums,
the disputed hands, all read through one connection); this module draws
it: the tables, sortable, each figure with its counts on hover; the
figures as plotly draws them (:mod:`hhtool.stats.figures`); a hand replayer
for each disputed hand; the page around them.
"""

from __future__ import annotations

import html
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.history.currency import Currency, Rates, currency_of, format_money
from hhtool.stats.definitions import MONEY_KEYS, STATS, StatDef
from hhtool.stats.figures import CONFIG, figure_html
from hhtool.stats.filters import Filters
from hhtool.stats.order import currency_rank, name_key
from hhtool.stats.points import MAX_POINTS, line_points
from hhtool.stats.render import converted, fmt_value, heading, ratio_value, rounded
from hhtool.stats.report_data import (
    MAX_REPLAYERS,
    EmptyReportError,
    ReportData,
    StudyHand,
    big_bet_lines,
    filters_text,
    game_results,
    report_data,
)
from hhtool.store.flags import CHECK_RAISE_STREETS, RERAISE_STREETS

if TYPE_CHECKING:
    import polars as pl

    from hhtool.stats.result import StatsResult

__all__ = ["MAX_GRAPHS", "SECTIONS", "EmptyReportError", "build_report", "replayers_html", "report_html", "write_report"]

STUDY_SECTION = ("study", "Study list")
"""The section of ``report --tag``, first: the tagged hands in the order played, with their notes and replayers."""
SECTIONS = (
    ("players", "Players"),
    ("summary", "Summary"),
    ("winnings", "Winnings"),
    ("results", "Results by stakes, site and table size"),
    ("stats", "Statistics"),
    ("aggression", "Aggression by street"),
    ("showdown", "Showdown results by hand category"),
    ("starting", "Net won by starting cards"),
    ("sessions", "Sessions"),
    ("audit", "Disputed and invalid hands"),
)
MAX_GRAPHS = 6
"""Players the winnings graphs are drawn for, those with the most hands: a graph each is a few hundred kilobytes of the file."""

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;padding:0 1em;color:#222;max-width:1320px}
table{border-collapse:collapse;margin:.5em 0;font-size:.85em}
th,td{border:1px solid #ccc;padding:.2em .3em;text-align:right}
td{white-space:nowrap}
th:first-child,td:first-child{text-align:left}
td.l{text-align:left}
td.name{min-width:6em;max-width:11em;white-space:normal;overflow-wrap:anywhere}
td.wrap{min-width:8em;max-width:26em;white-space:normal;overflow-wrap:anywhere}
th.sort{cursor:pointer;user-select:none}th.sort:after{content:" \\2195";color:#aaa}
.wide{overflow-x:auto;max-width:100%}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ddd;margin-top:1.5em}
nav ol{columns:2;font-size:.9em}
.note{color:#666;font-size:.85em}
details.replay summary{cursor:pointer;padding:.2em 0}
.study-note{white-space:pre-wrap;overflow-wrap:anywhere;border-left:3px solid #17402e;padding:.2em .6em;margin:.3em 0;max-width:60em}
.js-plotly-plot,.plotly-graph-div{max-width:100%}
"""

_SORT_JS = """
document.querySelectorAll("table.sortable").forEach(function (t) {
  t.querySelectorAll("th").forEach(function (th, i) {
    th.classList.add("sort");
    th.addEventListener("click", function () {
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var down = th.dataset.dir !== "down"; th.dataset.dir = down ? "down" : "up";
      function key(r) { var c = r.cells[i], v = c.dataset.v; return v === undefined ? c.textContent.toLowerCase() : parseFloat(v); }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x === "number" && isNaN(x)) return 1;
        if (typeof y === "number" && isNaN(y)) return -1;
        return (x < y ? -1 : x > y ? 1 : 0) * (down ? -1 : 1);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""
"""Click a column's heading to sort by it (again to reverse); numbers sort by value (``data-v``), '-' last."""


def e(value: object) -> str:
    """Escape for HTML text and attributes; control characters shown as in the terminal (``\\x1b``), not dropped unseen."""
    from hhtool.textsafe import term

    return html.escape(term(str(value)), quote=True)


def e_lines(value: str) -> str:
    """:func:`e` of a text of several lines (a note): its line ends kept, for ``white-space: pre-wrap`` to show."""
    from hhtool.textsafe import term_lines

    return html.escape(term_lines(value), quote=True)


def _table(
    header: list[str], rows: list[list[str]], left: tuple[int, ...] = (0,), *, sortable: bool = False, titles: list[str] | None = None,
    wrap: tuple[int, ...] = (),
) -> str:
    """``rows`` must already be escaped (a cell may be a whole ``<td ...>...</td>`` of its own, see :func:`_num`, :func:`_name`).

    Every table is in a box of the page's width that scrolls sideways when the table is wider (``.wide``), so the
    page itself never does; the columns in ``wrap`` (long free text: reasons, file names) break their lines
    anywhere within a bounded width instead of widening the table (issue 41: 2,401 px of disputed hands).
    """
    head = "".join(f'<th title="{e(t)}">{e(h)}</th>' if t else f"<th>{e(h)}</th>" for h, t in zip(header, titles or [""] * len(header)))

    def cell(i: int, c: str) -> str:
        if c.startswith("<td"):
            return c
        if i in wrap:
            return f'<td class="l wrap">{c}</td>'
        return f'<td class="l">{c}</td>' if i in left else f"<td>{c}</td>"

    body = "".join("<tr>" + "".join(cell(i, c) for i, c in enumerate(r)) + "</tr>" for r in rows)
    cls = ' class="sortable"' if sortable else ""
    return f'<div class="wide"><table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _name(text: object) -> str:
    """A cell of text from the histories (a player's, a site's name, a hand id): whole, its lines broken anywhere past 11em,
    never clipped (a name of a hundred letters without a space is a column of a few lines, not a page's width)."""
    return f'<td class="l name">{e(text)}</td>'


def _num(text: str, value: float | int | None, detail: str = "") -> str:
    """A numeric cell that sorts by ``value`` (``-`` sorts last); ``detail`` shows on hover."""
    v = "NaN" if value is None else repr(float(value))
    title = f' title="{e(detail)}"' if detail else ""
    return f'<td data-v="{v}"{title}>{e(text)}</td>'


def _stats_table(t: pl.DataFrame, stats: list[StatDef]) -> str:
    """A sortable table of ``stats``, a row per player of the statistics' table ``t`` in the order of names, each
    figure with its counts on hover."""
    rows = []
    for r in sorted(t.to_dicts(), key=lambda r: name_key(str(r["player"]))):
        row = [_name(r["player"]), _num(f"{int(r['hands']):,}", int(r["hands"]))]
        for s in stats:
            v, d = fmt_value(s, r)
            row.append(_num(v, ratio_value(s, r), d))
        rows.append(row)
    return _table(["player", "hands", *(_SHORT.get(s.label, s.label) for s in stats)], rows, sortable=True,
                  titles=["", "", *(s.label for s in stats)])


def _fig_html(fig: Any) -> str:
    return str(fig.to_html(full_html=False, include_plotlyjs=False, config=CONFIG))


_LINE_STYLE: dict[str, dict[str, Any]] = {
    "showdown": {"color": "#36c"},
    "non-showdown": {"color": "#c33"},
    "net": {"color": "#2a7", "width": 3, "dash": "dot"},
    "all-in adjusted": {"color": "#e90", "width": 2},
}


def _winnings_figures(per_hand: pl.DataFrame, players: list[str]) -> list[str]:
    """Per player (the first :data:`MAX_GRAPHS`): big bets over hands (net, showdown, non-showdown, all-in adjusted), and money over dates.

    Big bets add across currencies (a big bet is a big bet); money never
    does: the money graph has one net line per currency, in its units.
    """
    import polars as pl

    from plotly.subplots import make_subplots

    out = []
    counts = per_hand.group_by("player").len()
    most = dict(zip(counts["player"].to_list(), counts["len"].to_list()))
    top = sorted(players, key=lambda p: (-most.get(p, 0), name_key(p)))[:MAX_GRAPHS]
    # one filter and one sort for all of them; each player's rows keep the order
    by_player = per_hand.filter(pl.col("player").is_in(top)).sort(["started_at", "hand_key"]).partition_by("player", as_dict=True)
    layout = {"height": 320, "margin": {"l": 60, "r": 20, "t": 40, "b": 40}}
    for player in top:
        d = by_player.get((player,))
        if d is None:
            continue
        # plain figure dicts, not plotly's graph objects (hhtool.stats.figures): the player's page draws its graph the same way
        out.append(figure_html(
            [{"type": "scatter", "x": x, "y": y, "name": name, "line": _LINE_STYLE[name]} for name, x, y in big_bet_lines(d)],
            {"title": {"text": e(f"{player}: big bets over hands")}, "margin": layout["margin"], "xaxis": {"title": {"text": "hands"}},
             "yaxis": {"title": {"text": "big bets"}}, "height": layout["height"]},  # in the order plotly's objects wrote them
        ))
        # money over dates: a panel per currency, each on its own scale (never one axis for euros and chips)
        parts = sorted(
            ((currency_of(str(sign or ""), str(unit)), part) for (sign, unit), part in d.group_by(["currency", "unit"])),
            key=lambda cp: currency_rank(cp[0]),
        )
        money = make_subplots(rows=len(parts), cols=1, shared_xaxes=True, vertical_spacing=0.08, subplot_titles=[c.name for c, _ in parts])
        money.update_layout(
            title={"text": e(f"{player}: net won over dates, each money apart")},
            height=180 + 150 * len(parts),
            margin={"l": 60, "r": 20, "t": 60, "b": 40},
            showlegend=False,
        )
        panels = money.to_dict()["layout"]  # the panels' axes and titles, laid out by plotly
        traces = []
        for row, (cur, part) in enumerate(parts, start=1):
            running = part["net"].cast(pl.Int128).cum_sum()  # exact whatever the amounts (docs/schema.md, "Bounds")
            idx = line_points(running)
            totals = running.gather(idx).to_list()
            axis = "" if row == 1 else str(row)
            traces.append({
                "type": "scatter", "x": part["started_at"].gather(idx).to_list(), "y": [v / 10**cur.decimals for v in totals],
                "text": [format_money(v, cur) for v in totals], "hovertemplate": "%{x}: %{text}<extra></extra>",
                "name": f"net won, {cur.name}", "mode": "lines", "xaxis": f"x{axis}", "yaxis": f"y{axis}",
            })
            panels[f"yaxis{axis}"]["title"] = {"text": cur.name}
        out.append(figure_html(traces, panels))
    return out


def _aggression_figure(result: StatsResult) -> str:
    import plotly.graph_objects as go
    import polars as pl

    fig = go.Figure()
    for player in result.players()[:MAX_GRAPHS]:
        d = result.by_street.filter(pl.col("player") == player)
        fig.add_trace(go.Bar(x=d["street"].to_list(), y=[None if v is None else 100 * v for v in d["afq"].to_list()], name=e(player)))
    fig.update_layout(title={"text": "aggression frequency by street (%)"}, barmode="group", height=340, margin={"l": 50, "r": 20, "t": 40, "b": 40})
    return _fig_html(fig)


RANK_ORDER = "AKQJT98765432"


def _starting_figure(df: pl.DataFrame) -> str:
    import plotly.graph_objects as go

    ranks = [r for r in RANK_ORDER if r in set(df["hole"].to_list()) | set(df["door"].to_list())]
    cell = {(h, d): (bb, n) for h, d, n, bb in df.select("hole", "door", "hands", "big_bets").iter_rows()}
    z = [[None if (v := cell.get((h, d), (None, 0))[0]) is None else float(v) for h in ranks] for d in ranks]
    text = [[f"{cell[(h, d)][1]} hands" if (h, d) in cell else "" for h in ranks] for d in ranks]
    fig = go.Figure(
        go.Heatmap(
            x=ranks, y=ranks, z=z, text=text, colorscale="RdBu", zmid=0,
            hovertemplate="hole %{x}, door %{y}: %{z:.1f} big bets, %{text}<extra></extra>",
        )
    )
    fig.update_layout(
        title="net won (big bets) by hole card and door card rank",
        xaxis_title="hole card", yaxis_title="door card", height=460, margin={"l": 60, "r": 20, "t": 50, "b": 50},
    )
    fig.update_yaxes(autorange="reversed")
    return _fig_html(fig)


def replayers_html(rows: list[tuple[Any, ...]], total: int) -> str:
    """A replayer for each hand (:mod:`hhtool.replayer.html`), each in a ``<details>`` under its site, id and verdict; the assets once."""
    from hhtool.replay.steps import steps_from_text
    from hhtool.replayer.html import replayer_assets, replayer_html

    if not rows:
        return ""
    out = [
        "<h3>Replays</h3>",
        f'<p class="note">a replayer for the {len(rows):,} most recent of the {total:,} disputed or invalid hands'
        + (f" (at most {MAX_REPLAYERS:,}: {total - len(rows):,} more are not embedded; <code>hhtool audit --hand ID</code> shows any)" if total > len(rows) else "")
        + "; the finding is highlighted at its step.</p>",
    ]
    for site, hid, verdict, file, first_line, raw, room in rows:
        try:
            fragment = replayer_html(steps_from_text(raw, first_line=first_line, source=file, room=room), assets=False)
        except Exception as err:  # a hand that no longer parses or replays: said, and the others still shown
            fragment = f'<p class="note">no replay: {e(type(err).__name__)}: {e(err)}</p>'
        out.append(f'<details class="replay"><summary>{e(site)} hand {e(hid)}: {e(verdict)} ({e(file)}:{e(first_line)})</summary>{fragment}</details>')
    out.append(replayer_assets())
    return "".join(out)


def study_html(hands: list[StudyHand], total: int, tags: tuple[str, ...]) -> str:
    """The study list: the tagged hands in the order played, each with its tags, its note (escaped, its lines kept) and its
    replayer in a ``<details>``; the replayer's assets once."""
    from hhtool.replay.steps import steps_from_text
    from hhtool.replayer.html import replayer_assets, replayer_html

    out = [
        f'<p class="note">the {total:,} hand{"s" if total != 1 else ""} tagged {e(" or ".join(tags))} under these filters, in the order played'
        + (f" (the first {len(hands):,} here: <code>hhtool serve</code>'s /study lists every one)" if total > len(hands) else "")
        + "; open a hand to replay it.</p>",
        '<ol id="study-list">',
    ]
    for h in hands:
        try:
            fragment = replayer_html(steps_from_text(h.raw_text, first_line=h.first_line, source=h.file, room=h.room), assets=False)
        except Exception as err:  # a hand that no longer parses or replays: said, and the others still shown
            fragment = f'<p class="note">no replay: {e(type(err).__name__)}: {e(err)}</p>'
        started = h.started_at.isoformat(sep=" ")[:19] if h.started_at is not None else ""
        note = f'<div class="study-note">{e_lines(h.note)}</div>' if h.note else '<p class="note">no note</p>'
        out.append(
            f'<li class="study-hand"><p><strong>{e(h.site)} hand {e(h.hand_id)}</strong>, {e(started)} UTC, {e(h.verdict)}; '
            f'tags: {e(" ".join(h.tags))}</p>{note}'
            f'<details class="replay"><summary>replay {e(h.site)} hand {e(h.hand_id)}</summary>{fragment}</details></li>'
        )
    out.append("</ol>")
    if hands:
        out.append(replayer_assets())
    return "".join(out)


_SHORT = {
    "VPIP (2nd street)": "VPIP",
    "completed the bring-in": "compl.",
    "2nd-street raise": "raise 2nd",
    "steal (late completion)": "steal",
    "bring-in folds to a steal": "BI fold",
    "saw 3rd street": "saw 3rd",
    "saw 4th street": "saw 4th",
    "saw 5th street": "saw 5th",
    "saw the vela": "saw vela",
    "aggression factor": "AF",
    "aggression frequency": "AFq",
    "fold to a bet": "fold to bet",
    "went to showdown (of saw 3rd)": "WTSD",
    "won money at showdown": "W$SD",
    "won when saw 3rd street": "WWSF",
    "re-raise (3-bet), all streets": "3-bet",
    "check-raise, all streets": "chk-raise",
    "bet 3rd street after completing": "c-bet",
    "folds to that 3rd-street bet": "fold c-bet",
    "big bets/100 hands": "bets/100",
    "big blinds/100 (blind games)": "blinds/100",
    "antes/100 (ante games)": "antes/100",
}
"""Column headings of the statistics table, short enough for thirty players' rows to fit a screen; the full name is the heading's tooltip."""

STAT_BY_KEY = {s.key: s for s in STATS}
PER_STREET_KEYS = frozenset(f"{key}_{st}" for key, streets in (("reraise", RERAISE_STREETS), ("check_raise", CHECK_RAISE_STREETS)) for st in streets)
"""The statistics counted on each street apart: shown in the per-street table (a row a player and street), not as columns of the statistics table."""
RAISE_KEYS = ("reraise", "check_raise", "cbet", "cbet_fold")
"""The raising statistics over every street: a table of their own under "Aggression by street", so that the statistics table fits 1,400 px."""


def _money_cell(minor: int | Decimal | None, cur: Currency, detail: str = "") -> str:
    return _num("-" if minor is None else format_money(minor, cur), None if minor is None else float(minor) / 10**cur.decimals, detail)


def build_report(
    db: str | Path, filters: Filters | None = None, *, gap_minutes: int = 30, title: str = "hhtool report", rates: Rates | None = None
) -> str:
    """The whole report as one HTML string; :class:`EmptyReportError` when no hand matches the filters."""
    return report_html(report_data(db, filters, gap_minutes=gap_minutes), title=title, rates=rates)


def report_html(data: ReportData, *, title: str = "hhtool report", rates: Rates | None = None) -> str:
    """The page of :func:`~hhtool.stats.report_data.report_data`'s ``data``: every section, the figures, the replayers."""
    from plotly.offline import get_plotlyjs

    f, result, players, per_hand, gap_minutes = data.filters, data.result, data.players, data.per_hand, data.gap_minutes
    parts: list[str] = []
    whose = players[0] if len(players) == 1 else "all players"
    currencies = result.currencies()

    # summary: one figure per currency, never added across
    t = result.table
    total_hands = int(per_hand["hand_key"].n_unique()) if per_hand.height else 0
    summary_rows = [
        ["players", e(f"{t.height:,}")],
        ["hands (distinct)", e(f"{total_hands:,}")],
        ["player-hands", e(f"{int(t['hands'].sum()):,}")],
    ]
    for cur in currencies:
        figures = [result.money_of(p).get(cur) for p in players]
        net = sum(x["net"] for x in figures if x)
        rake = sum(x["rake"] for x in figures if x)
        hands = sum(x["hands"] for x in figures if x)
        summary_rows.append([e(f"net won, {whose}, {cur.name} hands ({hands:,})"), e(format_money(net, cur))])
        summary_rows.append([e(f"rake paid, {whose}, {cur.name} hands"), e(format_money(rake, cur))])
    if rates is not None:
        for key, label in (("net", "net won"), ("rake", "rake paid")):
            total = [converted(result, p, key, rates)[0] for p in players]
            known = [x for x in total if x is not None]
            summary_rows.append([e(f"{label}, {whose}, {rates.describe()}"), e(format_money(sum(known, Decimal(0)), rates.target) if known else "-")])
    if data.study is not None:
        parts.append(_section("study", study_html(data.study, data.studied, f.tags)))
    parts.append(_section("players", _grid_html(result)))
    parts.append(_section("summary", _table(["", "value"], summary_rows)))

    graphs = _winnings_figures(per_hand, players)
    note = (
        f'<p class="note">for the {MAX_GRAPHS} players with the most hands at most: cumulative big bets over hands '
        "(net / big bet, every currency alike; the all-in adjusted line counts each all-in pot at its expected value "
        "when betting ended, docs/stats.md), and cumulative net won over dates in each money apart; "
        f"a line keeps the exact totals at {MAX_POINTS:,} hands at most: the first and the last, each stretch's lowest and highest, "
        "and the biggest single hands.</p>"
    )
    parts.append(_section("winnings", note + ("".join(graphs) or "<p>no hands</p>")))

    parts.append(_section("results", _results_html(result, data.games, rates)))

    # the statistics: a row per player, sortable, every figure with its counts on hover
    ratio_stats = [s for s in STATS if s.kind not in ("money", "count") and s.key not in PER_STREET_KEYS and s.key not in RAISE_KEYS]
    stats_note = (
        '<p class="note">a row per player; click a heading to sort, hover a value for actions/opportunities '
        "(win rates: the hands they are over); \"-\": no opportunity. Money per currency is under Results.</p>"
    )
    parts.append(_section("stats", stats_note + _stats_table(t, ratio_stats)))

    bs = result.by_street
    agg_rows = []
    if bs.height:
        for r in bs.to_dicts():
            af = "-" if r["af"] is None else f"{r['af']:,.2f}"
            afq = "-" if r["afq"] is None else f"{100 * r['afq']:.1f} %"
            ftb = "-" if not r["fold_to_bet_d"] else f"{100 * r['fold_to_bet_n'] / r['fold_to_bet_d']:.1f} %"
            player_row = result.row(str(r["player"]))
            per_street = []
            for key in ("reraise", "check_raise"):
                stat = STAT_BY_KEY.get(f"{key}_{r['street']}")
                if stat is None:  # no such spot on this street (no check-raise on 2nd street): no opportunity
                    per_street.append(_num("-", None))
                else:
                    v, d = fmt_value(stat, player_row)
                    per_street.append(_num(v, ratio_value(stat, player_row), d))
            agg_rows.append([_name(r["player"]), e(r["street"]), *(_num(f"{int(r[k]):,}", int(r[k])) for k in ("bets_raises", "calls", "folds")), e(af), e(afq), e(ftb),
                             *per_street])
    raises_html = (
        '<p class="note">re-raises, check-raises and stud\'s continuation bet over every street, a row per player; '
        "each street apart in the table below.</p>" + _stats_table(t, [STAT_BY_KEY[k] for k in RAISE_KEYS])
    )
    agg_html = raises_html + (_aggression_figure(result) if bs.height else "") + _table(
        ["player", "street", "bets+raises", "calls", "folds", "AF", "AFq", "fold to bet", "3-bet", "check-raise"], agg_rows, left=(0, 1), sortable=True
    )
    parts.append(_section("aggression", agg_html))

    cat_rows = []
    for r in data.showdowns.to_dicts():
        cur = currency_of(r["currency"], r["unit"])
        bb = r["big_bets"]
        cat_rows.append([_name(r["player"]), e(r["category"]), _num(f"{r['shown']:,}", r["shown"]), _num(f"{r['won']:,}", r["won"]), _money_cell(int(r["net"]), cur),
                         _num(rounded(bb, 2, grouping=True), float(bb))])
    cat_note = '<p class="note">the category the shown cards make with the vela, under each hand\'s rules; net in each money apart.</p>'
    parts.append(
        _section("showdown", cat_note + _table(["player", "category shown", "showdowns", "won", "net", "big bets"], cat_rows, left=(0, 1), sortable=True))
    )

    if data.starting.height:
        start_html = (
            '<p class="note">hands whose hole card is known (audit views and your own): '
            "the sum of net won in big bets, by rank.</p>" + _starting_figure(data.starting)
        )
    else:
        start_html = "<p>no hand with a known hole card.</p>"
    parts.append(_section("starting", start_html))

    ses = data.sessions
    ses_rows = []
    if "start" in ses.columns:
        for r in ses.to_dicts():
            cur = currency_of(r["currency"], r["unit"])
            ses_rows.append([
                _name(r["player"]), _num(f"{r['session']:,}", r["session"]), e(r["start"]), e(r["end"]), _num(f"{r['hands']:,}", r["hands"]),
                _money_cell(int(r["net"]), cur), _num(f"{float(r['big_bets']):,.2f}", float(r["big_bets"])),
            ])
    parts.append(
        _section(
            "sessions",
            f'<p class="note">a gap of more than {gap_minutes} minutes starts a new session; a player\'s hands in each money are sessions apart.</p>'
            + _table(["player", "session", "start", "end", "hands", "net", "big bets"], ses_rows, left=(0,), sortable=True),
        )
    )

    audit_html_rows = [
        [_name(site), _name(hid), e(started), e(verdict), e(code or ""), e("" if line is None else line), e(msg or ""), e(file)]
        for site, hid, started, verdict, code, line, msg, file in data.audit
    ]
    parts.append(
        _section(
            "audit",
            (f"<p>{len(audit_html_rows)} finding(s)</p>" if audit_html_rows else "<p>none: every hand audited ok.</p>")
            + _table(["site", "hand", "started", "verdict", "code", "line", "reason", "file"], audit_html_rows, left=(0, 1, 3, 4), wrap=(6, 7))
            + replayers_html(data.replays, data.disputed),
        )
    )
    filt = filters_text(f)
    shown = ((STUDY_SECTION,) if data.study is not None else ()) + SECTIONS
    toc = "<nav><ol>" + "".join(f'<li><a href="#{key}">{e(label)}</a></li>' for key, label in shown) + "</ol></nav>"
    money_note = ", ".join(c.name for c in currencies) or "none"
    rates_note = f"; converted {rates.describe()}" if rates is not None else ""
    rooms_note = "; rules: " + "; ".join(
        (f"{room}'s ({source})" if source else f"{room}'s") + f" for {n:,} hand{'s' if n != 1 else ''}" if room is not None
        else f"the profiles of RULES.md for {n:,} hand{'s' if n != 1 else ''}"
        for room, source, n in data.rooms
    ) if data.rooms else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{_CSS}</style>"
        f"<script type=\"text/javascript\">{get_plotlyjs()}</script></head><body>"
        f"<h1>{e(title)}: {e(heading(result, players[0]) if len(players) == 1 else f'{len(players):,} players')}</h1>"
        f'<p class="note">{e(filt)}; money: {e(money_note)}{e(rates_note)}{e(rooms_note)}</p>'
        + toc
        + "".join(parts)
        + f"<script>{_SORT_JS}</script></body></html>\n"
    )


def _grid_html(result: StatsResult) -> str:
    """The players grid (:mod:`hhtool.stats.grid`, the one ``/players`` shows): a row per player by hands, sortable here."""
    from hhtool.stats.grid import grid_from_result

    grid = grid_from_result(result)
    columns = grid.columns()
    rows = []
    for r in grid.sorted("hands", True):
        row = [_name(r.player)]
        for c in columns[1:]:
            cell = r.cell(c)
            value = None if cell.value is None else float(cell.value) / (10**c.currency.decimals if c.currency is not None else 1)
            row.append(_num(cell.text, value, cell.detail))
        rows.append(row)
    note = (
        '<p class="note">a row per player, the most hands first; click a heading to sort (each net column by its own money, '
        'the players without a hand in it last), hover a figure for its counts; "-": no opportunity, or no hand in that money. '
        "Every statistic is under Statistics, every money figure under Results.</p>"
    )
    return note + _table([c.heading for c in columns], rows, sortable=True, titles=[c.title for c in columns])


def _results_html(result: StatsResult, games: pl.DataFrame, rates: Rates | None) -> str:
    """Each player's money per currency, then the results by stakes, site and table size (each money apart)."""
    rows = []
    for player in sorted(result.players(), key=name_key):
        for cur, fig in result.money_of(player).items():
            rows.append([
                _name(player), e(cur.name), _num(f"{fig['hands']:,}", fig["hands"]),
                *(_money_cell(fig[key], cur) for key in MONEY_KEYS),
            ])
        if rates is not None:
            conv = [converted(result, player, key, rates) for key in MONEY_KEYS]
            if any(total is not None for total, _ in conv):
                used = conv[0][1]
                rows.append([
                    _name(player), e(f"in {rates.target.code} ({', '.join(c.name for c in used)})"), _num("", None),
                    *(_money_cell(total, rates.target) for total, _ in conv),
                ])
    html_parts = [
        '<p class="note">each money apart (amounts of different currencies are never added'
        + (f"; the converted rows use the rates given: {e(rates.describe())}" if rates is not None else "")
        + "); click a heading to sort.</p>",
        _table(["player", "money", "hands", "net won", "showdown", "non-showdown", "all-in adjusted", "luck", "rake paid"], rows, left=(0, 1), sortable=True),
    ]
    if games.height:

        def by(columns: list[str], label: str, show: Any) -> str:
            body = []
            for r in game_results(games, columns):
                cur = currency_of(r["currency"], r["unit"])
                bb100 = r["bb100"]
                body.append([_name(show(r, cur)), e(cur.name), _num(f"{r['hands']:,}", r["hands"]), _money_cell(int(r["net"]), cur),
                             _num("-" if bb100 is None else rounded(bb100, 2, grouping=True), None if bb100 is None else float(bb100))])
            return f"<h3>{e(label)}</h3>" + _table([label, "money", "hands", "net won", "big bets/100"], body, left=(0, 1), sortable=True)

        html_parts.append(by(["small_bet", "big_bet", "structure"], "stakes", lambda r, cur: f"{format_money(r['small_bet'], cur)}/{format_money(r['big_bet'], cur)} {r['structure']} limit"))
        html_parts.append(by(["site"], "site", lambda r, cur: r["site"]))
        html_parts.append(by(["max_seats"], "table size", lambda r, cur: f"{r['max_seats']}-max"))
    return "".join(html_parts)


def _section(key: str, body: str) -> str:
    heading = dict((STUDY_SECTION, *SECTIONS))[key]
    return f'<section id="{key}"><h2>{e(heading)}</h2>{body}</section>'


def write_report(db: str | Path, out: str | Path, filters: Filters | None = None, *, gap_minutes: int = 30, rates: Rates | None = None) -> Path:
    """Write the report to ``out``; nothing is written when no hand matches (:class:`EmptyReportError`)."""
    text = build_report(db, filters, gap_minutes=gap_minutes, rates=rates)
    p = Path(out)
    p.write_text(text, encoding="utf-8")
    return p
