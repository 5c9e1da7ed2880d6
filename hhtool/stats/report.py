"""One self-contained HTML report: plotly's JavaScript inline, every hand-history string escaped.

Every section reads the database through one read-only connection, and
each asks DuckDB for what it shows, not for the hands: the statistics
(:func:`compute_on`), the showdowns and the starting cards (sums over the
seats, whose categories and cards the import wrote), the disputed hands.
Only the winnings graph and the sessions need every hand of every player
(:func:`load_per_hand`, a few columns), and the graph keeps at most
:data:`MAX_POINTS` points a line.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.db import connect
from .compute import STATS, Filters, StatsResult, compute_on, exact_sums, load_per_hand, scope, sessions
from .render import fmt_value

if TYPE_CHECKING:
    import duckdb
    import polars as pl

SECTIONS = (
    ("summary", "Summary"),
    ("winnings", "Winnings over hands"),
    ("stats", "Statistics"),
    ("aggression", "Aggression by street"),
    ("showdown", "Showdown results by hand category"),
    ("starting", "Net won by starting cards"),
    ("sessions", "Sessions"),
    ("audit", "Disputed and invalid hands"),
)
MAX_GRAPHS = 6
MAX_POINTS = 2000
"""Points a line of the winnings graph keeps: the exact running totals at evenly spaced hands, first and last included."""

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th:first-child,td:first-child{text-align:left}
td.l{text-align:left}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ddd;margin-top:1.5em}
.note{color:#666;font-size:.85em}
"""


def e(value: object) -> str:
    """Escape for HTML text and attributes."""
    return html.escape(str(value), quote=True)


def _table(header: list[str], rows: list[list[str]], left: tuple[int, ...] = (0,)) -> str:
    """``rows`` must already be escaped."""
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td class="l">{c}</td>' if i in left else f"<td>{c}</td>" for i, c in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _fig_html(fig: Any) -> str:
    return str(fig.to_html(full_html=False, include_plotlyjs=False, config={"displaylogo": False, "responsive": True}))


def sample_points(n: int, most: int = MAX_POINTS) -> list[int]:
    """Indices of at most ``most`` of ``n`` points, evenly spaced, the first and the last always among them."""
    if n <= most:
        return list(range(n))
    return sorted({round(i * (n - 1) / (most - 1)) for i in range(most)})


def _winnings_figures(per_hand: pl.DataFrame, players: list[str]) -> list[str]:
    import plotly.graph_objects as go
    import polars as pl

    out = []
    top = players[:MAX_GRAPHS]
    # one filter and one sort for all of them; each player's rows keep the order
    by_player = per_hand.filter(pl.col("player").is_in(top)).sort(["started_at", "hand_key"]).partition_by("player", as_dict=True)
    for player in top:
        d = by_player[(player,)]
        net = d["big_bets"].fill_null(0.0).cum_sum()
        sd = d.select(pl.when(pl.col("went_to_showdown")).then(pl.col("big_bets")).otherwise(0.0).fill_null(0.0)).to_series().cum_sum()
        keep = sample_points(d.height)
        x = [i + 1 for i in keep]
        fig = go.Figure()
        fig.add_trace(go.Scatter(x=x, y=sd.gather(keep).to_list(), name="showdown", line={"color": "#36c"}))
        fig.add_trace(go.Scatter(x=x, y=(net - sd).gather(keep).to_list(), name="non-showdown", line={"color": "#c33"}))
        fig.add_trace(go.Scatter(x=x, y=net.gather(keep).to_list(), name="net", line={"color": "#2a7", "width": 3, "dash": "dot"}))
        fig.update_layout(
            title={"text": e(player)},
            xaxis_title="hands",
            yaxis_title="big bets",
            height=340,
            margin={"l": 50, "r": 20, "t": 40, "b": 40},
        )
        out.append(_fig_html(fig))
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


def showdown_categories(con: duckdb.DuckDBPyConnection, filters: Filters, players: list[str]) -> pl.DataFrame:
    """Per player and hand category shown at showdown: times shown, times won something, net.

    A player *showed* when the summary says so (``seats.outcome`` won or
    lost at a showdown) and their five cards are known; the category is
    what those five and the vela make under the hand's own rules, as the
    replay ranked them at import (``seats.shown_category``).
    """
    import polars as pl

    from ..evaluate import CATEGORY_LABELS

    hand_where, hand_params, seat_where, seat_params = scope(filters, players)
    order = ", ".join(f"'{label}'" for label in CATEGORY_LABELS)  # constants of ours, never input
    return exact_sums(pl.DataFrame(
        con.sql(
            f"""
            SELECT * FROM (
                SELECT s.player, s.shown_category AS category, count(*)::BIGINT AS shown,
                       count_if(s.won_at_showdown)::BIGINT AS won, coalesce(sum(s.net), 0)::HUGEINT AS net
                FROM seats s JOIN hands h USING (hand_key)
                WHERE {hand_where} AND {seat_where} AND s.went_to_showdown AND s.outcome IN ('won', 'lost')
                      AND s.shown_category IS NOT NULL
                GROUP BY s.player, s.shown_category
            )
            ORDER BY player, list_position([{order}], category) DESC
            """,
            params=hand_params + seat_params,
        )
    ), ("net",))


RANK_ORDER = "AKQJT98765432"


def starting_cards(con: duckdb.DuckDBPyConnection, filters: Filters, players: list[str]) -> pl.DataFrame:
    """Per hole rank and door rank: hands and net won in big bets (hands whose hole card is known).

    A player's 2nd-street cards are one face down (the hole card) and one
    up (the door card); both are known in own histories and audit views
    (``seats.hole_card``, ``seats.door_card``, written at import).
    """
    import polars as pl

    hand_where, hand_params, seat_where, seat_params = scope(filters, players)
    return pl.DataFrame(
        con.sql(
            f"""
            SELECT left(s.hole_card, 1) AS hole, left(s.door_card, 1) AS door,
                   count(*)::BIGINT AS hands, sum(s.net / h.big_bet) AS big_bets
            FROM seats s JOIN hands h USING (hand_key)
            WHERE {hand_where} AND {seat_where} AND s.hole_card IS NOT NULL
            GROUP BY ALL
            """,
            params=hand_params + seat_params,
        )
    )


def _starting_figure(df: pl.DataFrame) -> str:
    import plotly.graph_objects as go

    ranks = [r for r in RANK_ORDER if r in set(df["hole"].to_list()) | set(df["door"].to_list())]
    cell = {(h, d): (bb, n) for h, d, n, bb in df.select("hole", "door", "hands", "big_bets").iter_rows()}
    z = [[cell.get((h, d), (None, 0))[0] for h in ranks] for d in ranks]
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


def audit_rows(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[tuple[Any, ...]]:
    """(site, hand id, started, verdict, code, line, message, file) of every disputed, invalid or error hand (2,000 at most)."""
    hand_where, hand_params, _, _ = scope(filters)
    rows = con.execute(
        f"""
        SELECT h.site, h.hand_id, h.started_at, h.verdict, f.code, f.line, f.message, h.file
        FROM hands h LEFT JOIN findings f ON f.hand_key = h.hand_key AND f.severity = 'error'
        WHERE h.verdict IN ('disputed', 'invalid', 'error') AND {hand_where}
        ORDER BY h.started_at, h.hand_key, f.seq
        LIMIT 2000
        """,
        hand_params,
    ).fetchall()
    return [tuple(r) for r in rows]


def build_report(db: str | Path, filters: Filters | None = None, *, gap_minutes: int = 30, title: str = "hhtool report") -> str:
    """The whole report as one HTML string."""
    from plotly.offline import get_plotlyjs

    f = filters or Filters()
    con = connect(db, read_only=True)
    try:
        result = compute_on(con, f, Path(db))
        players = result.players()
        per_hand = load_per_hand(con, f, players)
        cats = showdown_categories(con, f, players)
        start = starting_cards(con, f, players)
        audit = audit_rows(con, f)
    finally:
        con.close()
    parts: list[str] = []

    # summary
    t = result.table
    total_hands = int(per_hand["hand_key"].n_unique()) if per_hand.height else 0
    summary_rows = [
        ["players", e(t.height)],
        ["hands (distinct)", e(f"{total_hands:,}")],
        ["player-hands", e(f"{int(t['hands'].sum()) if t.height else 0:,}")],
        ["net won, all players (minor units)", e(f"{int(t['net'].sum()) if t.height else 0:,}")],
        ["rake paid, all players (minor units)", e(f"{float(t['rake'].sum()) if t.height else 0:,.0f}")],
    ]
    parts.append(_section("summary", _table(["", "value"], summary_rows)))

    graphs = _winnings_figures(per_hand, players)
    note = (
        f'<p class="note">cumulative big bets per hand (net / big bet), at most {MAX_GRAPHS} players with the most hands; '
        f"a line keeps the exact totals at {MAX_POINTS:,} evenly spaced hands at most, the first and the last among them.</p>"
    )
    parts.append(_section("winnings", note + ("".join(graphs) or "<p>no hands</p>")))

    header = ["statistic"] + result.players()
    stat_rows = []
    per_player = t.to_dicts()
    for s in STATS:
        row = [e(s.label)]
        for r in per_player:
            v, d = fmt_value(s, r)
            row.append(f'<span title="{e(d)}">{e(v)}</span>')
        stat_rows.append(row)
    parts.append(_section("stats", '<p class="note">"-": no opportunity; hover a value for actions/opportunities.</p>' + _table(header, stat_rows)))

    bs = result.by_street
    agg_rows = []
    if bs.height:
        for r in bs.to_dicts():
            af = "-" if r["af"] is None else f"{r['af']:.2f}"
            afq = "-" if r["afq"] is None else f"{100 * r['afq']:.1f} %"
            ftb = "-" if not r["fold_to_bet_d"] else f"{100 * r['fold_to_bet_n'] / r['fold_to_bet_d']:.1f} %"
            agg_rows.append([e(r["player"]), e(r["street"]), e(r["bets_raises"]), e(r["calls"]), e(r["folds"]), e(af), e(afq), e(ftb)])
    agg_html = (_aggression_figure(result) if bs.height else "") + _table(
        ["player", "street", "bets+raises", "calls", "folds", "AF", "AFq", "fold to bet"], agg_rows, left=(0, 1)
    )
    parts.append(_section("aggression", agg_html))

    cat_rows = [[e(r["player"]), e(r["category"]), e(r["shown"]), e(r["won"]), e(f"{r['net']:,}")] for r in cats.to_dicts()]
    cat_note = '<p class="note">the category the shown cards make with the vela, under each hand\'s rules.</p>'
    parts.append(_section("showdown", cat_note + _table(["player", "category shown", "showdowns", "won", "net"], cat_rows, left=(0, 1))))

    if start.height:
        start_html = (
            '<p class="note">hands whose hole card is known (audit views and your own): '
            "the sum of net won in big bets, by rank.</p>" + _starting_figure(start)
        )
    else:
        start_html = "<p>no hand with a known hole card.</p>"
    parts.append(_section("starting", start_html))

    ses = sessions(per_hand, gap_minutes)
    ses_rows = [
        [e(r["player"]), e(r["session"]), e(r["start"]), e(r["end"]), e(r["hands"]), e(f"{r['net']:,}"), e(r["big_bets"])]
        for r in ses.to_dicts()
    ] if "start" in ses.columns else []
    parts.append(
        _section(
            "sessions",
            f'<p class="note">a gap of more than {gap_minutes} minutes starts a new session.</p>'
            + _table(["player", "session", "start", "end", "hands", "net", "big bets"], ses_rows, left=(0,)),
        )
    )

    audit_html_rows = [
        [e(site), e(hid), e(started), e(verdict), e(code or ""), e("" if line is None else line), e(msg or ""), e(file)]
        for site, hid, started, verdict, code, line, msg, file in audit
    ]
    parts.append(
        _section(
            "audit",
            (f"<p>{len(audit_html_rows)} finding(s)</p>" if audit_html_rows else "<p>none: every hand audited ok.</p>")
            + _table(["site", "hand", "started", "verdict", "code", "line", "reason", "file"], audit_html_rows, left=(0, 1, 3, 4, 6, 7)),
        )
    )
    filt = _filters_text(f)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{e(title)}</title><style>{_CSS}</style>"
        f"<script type=\"text/javascript\">{get_plotlyjs()}</script></head><body>"
        f"<h1>{e(title)}</h1><p class=\"note\">{e(filt)}</p>" + "".join(parts) + "</body></html>\n"
    )


def _section(key: str, body: str) -> str:
    heading = dict(SECTIONS)[key]
    return f'<section id="{key}"><h2>{e(heading)}</h2>{body}</section>'


def _filters_text(f: Filters) -> str:
    bits = []
    for name, v in (("players", f.players), ("sites", f.sites), ("profiles", f.profiles), ("structures", f.structures), ("table sizes", f.max_seats)):
        if v:
            bits.append(f"{name}: {', '.join(map(str, v))}")
    if f.date_from or f.date_to:
        bits.append(f"dates: {f.date_from or '…'} to {f.date_to or '…'}")
    if f.min_hands:
        bits.append(f"at least {f.min_hands} hands")
    return "filters: " + ("; ".join(bits) if bits else "none")


def write_report(db: str | Path, out: str | Path, filters: Filters | None = None, *, gap_minutes: int = 30) -> Path:
    text = build_report(db, filters, gap_minutes=gap_minutes)
    p = Path(out)
    p.write_text(text, encoding="utf-8")
    return p
