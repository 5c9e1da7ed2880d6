"""One self-contained HTML report: plotly's JavaScript inline, every hand-history string escaped."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.db import connect
from .compute import STATS, Filters, StatsResult, compute, sessions
from .render import fmt_value

if TYPE_CHECKING:
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

_SHOWS = re.compile(r"^(?P<player>.+?): shows \[[^\]]*\] \((?P<desc>[^)]*)\)\s*$", re.M)

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


def _winnings_figures(result: StatsResult) -> list[str]:
    import plotly.graph_objects as go
    import polars as pl

    out = []
    for player in result.players()[:MAX_GRAPHS]:
        d = result.per_hand.filter(pl.col("player") == player).sort(["started_at", "hand_key"])
        bb = d["big_bets"]
        sd = d.select(pl.when(pl.col("went_to_showdown")).then(pl.col("big_bets")).otherwise(0.0))
        x = list(range(1, d.height + 1))
        fig = go.Figure()
        sd_cum = sd.to_series().cum_sum()
        fig.add_trace(go.Scatter(x=x, y=sd_cum.to_list(), name="showdown", line={"color": "#36c"}))
        fig.add_trace(go.Scatter(x=x, y=(bb.cum_sum() - sd_cum).to_list(), name="non-showdown", line={"color": "#c33"}))
        fig.add_trace(go.Scatter(x=x, y=bb.cum_sum().to_list(), name="net", line={"color": "#2a7", "width": 3, "dash": "dot"}))
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


def showdown_categories(db: str | Path, result: StatsResult) -> pl.DataFrame:
    """Per player and hand category shown at showdown: times shown, times won something, net."""
    import polars as pl

    keys = result.per_hand.filter(pl.col("went_to_showdown"))
    if keys.height == 0:
        return pl.DataFrame(schema={"player": pl.Utf8, "category": pl.Utf8, "shown": pl.Int64, "won": pl.Int64, "net": pl.Int64})
    con = connect(db, read_only=True)
    try:
        wanted = [int(k) for k in keys["hand_key"].unique().to_list()]
        texts = pl.DataFrame(
            con.execute("SELECT hand_key, raw_text FROM hands WHERE list_contains(?::BIGINT[], hand_key)", [wanted]).fetchall(),
            schema={"hand_key": pl.Int64, "raw_text": pl.Utf8},
            orient="row",
        )
    finally:
        con.close()
    rows = []
    for hand_key, text in texts.iter_rows():
        for m in _SHOWS.finditer(str(text)):
            rows.append({"hand_key": hand_key, "player": m.group("player"), "category": m.group("desc").split(",")[0].strip()})
    if not rows:
        return pl.DataFrame(schema={"player": pl.Utf8, "category": pl.Utf8, "shown": pl.Int64, "won": pl.Int64, "net": pl.Int64})
    shown = pl.DataFrame(rows, schema={"hand_key": pl.Int64, "player": pl.Utf8, "category": pl.Utf8}).unique(["hand_key", "player"])
    j = shown.join(keys.select("hand_key", "player", "won_at_showdown", "net"), on=["hand_key", "player"])
    return (
        j.group_by(["player", "category"])
        .agg(pl.len().alias("shown"), pl.col("won_at_showdown").cast(pl.Int64).sum().alias("won"), pl.col("net").sum().alias("net"))
        .sort(["player", "shown"], descending=[False, True])
    )


RANK_ORDER = "AKQJT98765432"


def starting_cards(db: str | Path, result: StatsResult) -> pl.DataFrame:
    """Per hole rank and door rank: hands and net won in big bets (hands whose hole card is known)."""
    import polars as pl

    empty = pl.DataFrame(schema={"hole": pl.Utf8, "door": pl.Utf8, "hands": pl.Int64, "big_bets": pl.Float64})
    ph = result.per_hand.select("hand_key", "player", "big_bets")
    if ph.height == 0:
        return empty
    con = connect(db, read_only=True)
    try:
        wanted = [int(k) for k in ph["hand_key"].unique().to_list()]
        rows = con.execute(
            "SELECT hand_key, player, card, up FROM cards WHERE street = '2nd' AND list_contains(?::BIGINT[], hand_key)",
            [wanted],
        ).fetchall()
    finally:
        con.close()
    cards = pl.DataFrame(rows, schema={"hand_key": pl.Int64, "player": pl.Utf8, "card": pl.Utf8, "up": pl.Boolean}, orient="row")
    pairs = cards.group_by(["hand_key", "player"]).agg(
        hole=pl.col("card").filter(~pl.col("up")).str.slice(0, 1),
        door=pl.col("card").filter(pl.col("up")).str.slice(0, 1),
    ).filter((pl.col("hole").list.len() == 1) & (pl.col("door").list.len() == 1))
    pairs = pairs.with_columns(pl.col("hole").list.first(), pl.col("door").list.first())
    j = pairs.join(ph, on=["hand_key", "player"])
    if j.height == 0:
        return empty
    return j.group_by(["hole", "door"]).agg(hands=pl.len().cast(pl.Int64), big_bets=pl.col("big_bets").sum())


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


def audit_rows(db: str | Path, filters: Filters) -> list[tuple[Any, ...]]:
    """(site, hand id, started, verdict, code, line, message) of every disputed, invalid or error hand."""
    from .compute import _where

    where, params = _where(filters)
    player_clause = ""
    if filters.players:
        player_clause = f" AND h.hand_key IN (SELECT hand_key FROM seats WHERE player IN ({', '.join('?' for _ in filters.players)}))"
        params = params + list(filters.players)
    con = connect(db, read_only=True)
    try:
        rows = con.execute(
            f"""
            SELECT h.site, h.hand_id, h.started_at, h.verdict, f.code, f.line, f.message, h.file
            FROM hands h LEFT JOIN findings f ON f.hand_key = h.hand_key AND f.severity = 'error'
            WHERE h.verdict IN ('disputed', 'invalid', 'error') AND {where}{player_clause}
            ORDER BY h.started_at, h.hand_key, f.seq
            LIMIT 2000
            """,
            params,
        ).fetchall()
    finally:
        con.close()
    return [tuple(r) for r in rows]


def build_report(db: str | Path, filters: Filters | None = None, *, gap_minutes: int = 30, title: str = "hhtool report") -> str:
    """The whole report as one HTML string."""
    from plotly.offline import get_plotlyjs

    f = filters or Filters()
    result = compute(db, f)
    parts: list[str] = []

    # summary
    t = result.table
    total_hands = int(result.per_hand["hand_key"].n_unique()) if result.per_hand.height else 0
    summary_rows = [
        ["players", e(t.height)],
        ["hands (distinct)", e(f"{total_hands:,}")],
        ["player-hands", e(f"{int(t['hands'].sum()) if t.height else 0:,}")],
        ["net won, all players (minor units)", e(f"{float(t['net'].sum()) if t.height else 0:,.0f}")],
        ["rake paid, all players (minor units)", e(f"{float(t['rake'].sum()) if t.height else 0:,.0f}")],
    ]
    parts.append(_section("summary", _table(["", "value"], summary_rows)))

    graphs = _winnings_figures(result)
    note = f'<p class="note">cumulative big bets per hand (net / big bet), at most {MAX_GRAPHS} players with the most hands.</p>'
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

    cats = showdown_categories(db, result)
    cat_rows = [[e(r["player"]), e(r["category"]), e(r["shown"]), e(r["won"]), e(f"{r['net']:,}")] for r in cats.to_dicts()]
    parts.append(_section("showdown", _table(["player", "category shown", "showdowns", "won", "net"], cat_rows, left=(0, 1))))

    start = starting_cards(db, result)
    if start.height:
        start_html = (
            '<p class="note">hands whose hole card is known (audit views and your own): '
            "the sum of net won in big bets, by rank.</p>" + _starting_figure(start)
        )
    else:
        start_html = "<p>no hand with a known hole card.</p>"
    parts.append(_section("starting", start_html))

    ses = sessions(result.per_hand, gap_minutes)
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

    audit = audit_rows(db, f)
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
