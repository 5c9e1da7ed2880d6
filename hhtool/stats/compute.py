"""Player statistics over the hand database: counts of actions over counts of opportunities.

Everything is computed per hand and player first (one row per seat dealt
in, with a 0/1 flag for every action and every opportunity), then summed
per player.  A statistic with no opportunity is ``None`` and shows as
``-``.  Definitions: ``docs/stats.md``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.db import connect

if TYPE_CHECKING:
    import polars as pl

STREETS = ("2nd", "3rd", "4th", "5th", "vela")
AGGRESSIVE = ("bet", "raise", "complete")
FORCED = ("ante", "small_blind", "big_blind", "bring_in", "uncalled")


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Ratio:
    """``actions`` out of ``opportunities``; ``value`` is None when there was no opportunity."""

    actions: float
    opportunities: int

    @property
    def value(self) -> float | None:
        return None if self.opportunities == 0 else self.actions / self.opportunities


@dataclass(frozen=True)
class StatDef:
    key: str
    label: str
    kind: str  # "pct" (ratio shown as %), "ratio" (plain number), "money", "count", "rate"


# (key, label, kind): ratio stats have per-hand columns f"{key}_n" and f"{key}_d".
STATS: tuple[StatDef, ...] = (
    StatDef("hands", "hands", "count"),
    StatDef("net", "net won", "money"),
    StatDef("rake", "rake paid", "money"),
    StatDef("bb100", "win rate, big bets/100 (fixed)", "rate"),
    StatDef("bl100", "win rate, bb or antes/100 (pot, no)", "rate"),
    StatDef("sd_net", "showdown winnings", "money"),
    StatDef("nsd_net", "non-showdown winnings", "money"),
    StatDef("vpip", "VPIP (2nd street)", "pct"),
    StatDef("complete", "completed the bring-in", "pct"),
    StatDef("raise2", "2nd-street raise", "pct"),
    StatDef("steal", "steal (late completion)", "pct"),
    StatDef("bi_fold_steal", "bring-in folds to a steal", "pct"),
    StatDef("saw_3rd", "saw 3rd street", "pct"),
    StatDef("saw_4th", "saw 4th street", "pct"),
    StatDef("saw_5th", "saw 5th street", "pct"),
    StatDef("saw_vela", "saw the vela", "pct"),
    StatDef("af", "aggression factor", "ratio"),
    StatDef("afq", "aggression frequency", "pct"),
    StatDef("fold_to_bet", "fold to a bet", "pct"),
    StatDef("wtsd", "went to showdown (of saw 3rd)", "pct"),
    StatDef("wsd", "won money at showdown", "pct"),
    StatDef("wwsf", "won when saw 3rd street", "pct"),
)
RATIO_KINDS = ("pct", "ratio")


@dataclass
class StatsResult:
    """Per-player totals (``table``), the per hand-and-player rows (``per_hand``) and per-street aggression."""

    table: pl.DataFrame
    per_hand: pl.DataFrame
    by_street: pl.DataFrame
    filters: Filters = field(default_factory=Filters)

    def players(self) -> list[str]:
        return [str(p) for p in self.table["player"].to_list()]

    def row(self, player: str) -> dict[str, Any]:
        import polars as pl

        rows = self.table.filter(pl.col("player") == player).to_dicts()
        if not rows:
            raise KeyError(player)
        return rows[0]

    def ratio(self, player: str, key: str) -> Ratio:
        r = self.row(player)
        return Ratio(float(r[f"{key}_n"]), int(r[f"{key}_d"]))


def _where(f: Filters) -> tuple[str, list[Any]]:
    """A WHERE clause on ``hands h`` with placeholders, and its parameters."""
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
    day = "CAST(timezone('UTC', h.started_at) - to_hours(?) AS DATE)"
    if f.date_from is not None:
        parts.append(f"{day} >= ?")
        params.extend([f.day_start_hour, f.date_from])
    if f.date_to is not None:
        parts.append(f"{day} <= ?")
        params.extend([f.day_start_hour, f.date_to])
    return (" AND ".join(parts) or "TRUE"), params


def _frame(con: Any, sql: str, params: list[Any]) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(con.sql(sql, params=params))


def load(con: Any, f: Filters) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(seat rows with their hand's columns and rake share, action rows, hand-reached-street rows)."""
    where, params = _where(f)
    seats = _frame(
        con,
        f"""
        WITH hs AS (SELECT * FROM hands h WHERE {where}),
        rk AS (
            SELECT p.hand_key, u.w AS player,
                   sum(p.rake * u.s / NULLIF(list_sum(p.shares), 0)) AS rake_paid
            FROM pots p JOIN hs USING (hand_key),
                 LATERAL (SELECT unnest(p.winners) AS w, unnest(p.shares) AS s) u
            GROUP BY ALL
        )
        SELECT s.hand_key, s.player, s.net, s.collected, s.went_to_showdown, s.won_at_showdown,
               s.fold_street, hs.started_at, hs.site, hs.hand_id, hs.structure, hs.profile,
               hs.big_bet, coalesce(hs.big_blind, hs.ante, hs.small_bet) AS blind_unit,
               hs.vela IS NOT NULL AS has_vela, coalesce(rk.rake_paid, 0)::DOUBLE AS rake_paid
        FROM seats s JOIN hs USING (hand_key)
        LEFT JOIN rk ON rk.hand_key = s.hand_key AND rk.player = s.player
        WHERE s.dealt_in
        ORDER BY hs.started_at, s.hand_key
        """,
        params,
    )
    actions = _frame(
        con,
        f"""
        SELECT a.hand_key, a.seq, a.street, a.player, a.kind, h.bring_in IS NOT NULL AS has_bring_in
        FROM actions a JOIN hands h USING (hand_key) WHERE {where}
        ORDER BY a.hand_key, a.seq
        """,
        params,
    )
    reached = _frame(
        con,
        f"""
        SELECT DISTINCT c.hand_key, c.street FROM cards c JOIN hands h USING (hand_key)
        WHERE {where} AND c.street IN ('3rd', '4th', '5th')
        """,
        params,
    )
    return seats, actions, reached


def per_hand(seats: pl.DataFrame, actions: pl.DataFrame, reached: pl.DataFrame) -> pl.DataFrame:
    """One row per hand and player dealt in, with every action and opportunity flag (0/1)."""
    import polars as pl

    rnd = ["hand_key", "street"]
    is_aggr = pl.col("kind").is_in(list(AGGRESSIVE) + ["big_blind"])
    a = actions.with_columns(
        aggr_before=is_aggr.cast(pl.Int32).cum_sum().shift(1, fill_value=0).over(rnd, order_by="seq"),
        last_aggr=pl.when(is_aggr).then(pl.col("player")).otherwise(None).forward_fill().shift(1).over(rnd, order_by="seq"),
    )
    decision = ~pl.col("kind").is_in(list(FORCED))
    facing = (pl.col("aggr_before") > 0) & (pl.col("last_aggr") != pl.col("player"))
    second = pl.col("street") == "2nd"
    a = a.with_columns(
        decision=decision,
        facing=facing.fill_null(False),
        is_aggr=pl.col("kind").is_in(list(AGGRESSIVE)),
    )
    i = pl.Int64

    def flag(expr: pl.Expr) -> pl.Expr:
        return expr.cast(i)

    street_cols: list[pl.Expr] = []
    for st in STREETS:
        on = pl.col("street") == st
        street_cols += [
            flag(on & pl.col("is_aggr")).sum().alias(f"aggr_{st}"),
            flag(on & (pl.col("kind") == "call")).sum().alias(f"calls_{st}"),
            flag(on & (pl.col("kind") == "fold")).sum().alias(f"folds_{st}"),
            flag((on & pl.col("decision") & pl.col("facing")).any()).alias(f"ftb_d_{st}"),
            flag((on & pl.col("decision") & pl.col("facing") & (pl.col("kind") == "fold")).any()).alias(f"ftb_n_{st}"),
        ]
    by_player = a.group_by(["hand_key", "player"]).agg(
        vpip_d=flag((second & pl.col("decision")).any()),
        vpip_n=flag((second & pl.col("kind").is_in(["call", "complete", "raise", "bet"])).any()),
        complete_d=flag((second & pl.col("decision") & pl.col("has_bring_in") & (pl.col("aggr_before") == 0)).any()),
        complete_n=flag((second & (pl.col("kind") == "complete")).any()),
        raise2_d=flag((second & pl.col("decision") & pl.col("facing")).any()),
        raise2_n=flag((second & pl.col("facing") & (pl.col("kind") == "raise")).any()),
        *street_cols,
    )
    steals = _steals(actions)
    by_player = by_player.join(steals, on=["hand_key", "player"], how="left")
    reached_w = (
        reached.with_columns(one=pl.lit(1, i))
        .pivot(on="street", index="hand_key", values="one", aggregate_function="first")
        if reached.height
        else pl.DataFrame(schema={"hand_key": pl.Int64})
    )
    for st in ("3rd", "4th", "5th"):
        if st not in reached_w.columns:
            reached_w = reached_w.with_columns(pl.lit(None, i).alias(st))
    reached_w = reached_w.select(
        "hand_key", *(pl.col(st).fill_null(0).cast(i).alias(f"reach_{st}") for st in ("3rd", "4th", "5th"))
    )
    df = (
        seats.join(by_player, on=["hand_key", "player"], how="left")
        .join(reached_w, on="hand_key", how="left")
        .with_columns(pl.col(c).fill_null(0) for c in by_player.columns + reached_w.columns if c not in ("hand_key", "player"))
    )
    order = {s: k for k, s in enumerate(STREETS)}
    fold_at = pl.col("fold_street").replace_strict(order, default=99, return_dtype=pl.Int64).fill_null(99)
    reach = {
        "3rd": pl.col("reach_3rd") == 1,
        "4th": pl.col("reach_4th") == 1,
        "5th": pl.col("reach_5th") == 1,
        "vela": (pl.col("reach_5th") == 1) & pl.col("has_vela"),
    }
    df = df.with_columns(
        **{f"saw_{st}_n": flag(reach[st] & (fold_at >= order[st])) for st in ("3rd", "4th", "5th", "vela")},
    )
    fixed = pl.col("structure") == "fixed"
    aggr = sum((pl.col(f"aggr_{st}") for st in STREETS), pl.lit(0, i))
    calls = sum((pl.col(f"calls_{st}") for st in STREETS), pl.lit(0, i))
    folds = sum((pl.col(f"folds_{st}") for st in STREETS), pl.lit(0, i))
    df = df.with_columns(
        hands=pl.lit(1, i),
        **{f"saw_{st}_d": pl.lit(1, i) for st in ("3rd", "4th", "5th", "vela")},
        af_n=aggr,
        af_d=calls,
        afq_n=aggr,
        afq_d=aggr + calls + folds,
        fold_to_bet_n=sum((pl.col(f"ftb_n_{st}") for st in STREETS), pl.lit(0, i)),
        fold_to_bet_d=sum((pl.col(f"ftb_d_{st}") for st in STREETS), pl.lit(0, i)),
        wtsd_n=flag(pl.col("saw_3rd_n").cast(pl.Boolean) & pl.col("went_to_showdown")),
        wtsd_d=pl.col("saw_3rd_n"),
        wsd_n=flag(pl.col("won_at_showdown")),
        wsd_d=flag(pl.col("went_to_showdown")),
        wwsf_n=flag(pl.col("saw_3rd_n").cast(pl.Boolean) & (pl.col("collected") > 0)),
        wwsf_d=pl.col("saw_3rd_n"),
        sd_net=pl.when(pl.col("went_to_showdown")).then(pl.col("net")).otherwise(0),
        nsd_net=pl.when(pl.col("went_to_showdown")).then(0).otherwise(pl.col("net")),
        bb_n=pl.when(fixed).then(pl.col("net") / pl.col("big_bet")).otherwise(0.0),
        bb_d=flag(fixed),
        bl_n=pl.when(fixed).then(0.0).otherwise(pl.col("net") / pl.col("blind_unit")),
        bl_d=flag(~fixed),
        big_bets=pl.col("net") / pl.col("big_bet"),
    )
    return df


def _steals(actions: pl.DataFrame) -> pl.DataFrame:
    """Steal and bring-in-folds-to-steal flags per hand and player (docs/stats.md).

    On 2nd street of a bring-in hand, players act first in order from the
    bring-in (position 0).  A player among the last two to act (positions
    n-2 and n-1 of n) has a steal opportunity when everyone between the
    bring-in and them folded; completing is the steal.  The bring-in then
    faces the steal when everyone after the stealer folded too; folding at
    the next turn is folding to it.
    """
    import polars as pl

    i = pl.Int64
    a2 = actions.filter(
        (pl.col("street") == "2nd") & pl.col("has_bring_in") & ~pl.col("kind").is_in(["ante", "small_blind", "big_blind", "uncalled"])
    )
    empty = pl.DataFrame(
        schema={"hand_key": actions.schema["hand_key"], "player": pl.String, "steal_n": i, "steal_d": i, "bi_fold_steal_n": i, "bi_fold_steal_d": i}
    )
    if a2.height == 0:
        return empty
    firsts = (
        a2.sort("seq")
        .group_by(["hand_key", "player"])
        .agg(
            seq=pl.col("seq").first(),
            kind=pl.col("kind").first(),
            second=pl.col("kind").slice(1, 1).first(),
        )
        .sort(["hand_key", "seq"])
        .with_columns(
            k=pl.col("seq").rank("ordinal").over("hand_key").cast(i) - 1,
            n=pl.len().over("hand_key").cast(i),
        )
    )
    opened = (pl.col("k") >= 1) & (pl.col("kind") != "fold")
    firsts = firsts.with_columns(
        open_before=(opened.cast(i).cum_sum().over("hand_key", order_by="k") - opened.cast(i)),
        brought_in=(pl.col("kind") == "bring_in").any().over("hand_key"),
    )
    steal_d = pl.col("brought_in") & (pl.col("k") >= 1) & (pl.col("k") >= pl.col("n") - 2) & (pl.col("open_before") == 0)
    firsts = firsts.with_columns(steal_d=steal_d, steal_n=steal_d & (pl.col("kind") == "complete"))
    stealer_k = pl.when(pl.col("steal_n")).then(pl.col("k")).otherwise(None).min().over("hand_key")
    after = (pl.col("k") > stealer_k) & (pl.col("kind") != "fold")
    firsts = firsts.with_columns(faced=stealer_k.is_not_null() & (after.cast(i).sum().over("hand_key") == 0))
    bi = (pl.col("k") == 0) & pl.col("faced")
    return firsts.select(
        "hand_key",
        "player",
        steal_n=pl.col("steal_n").cast(i),
        steal_d=pl.col("steal_d").cast(i),
        bi_fold_steal_n=(bi & (pl.col("second") == "fold")).fill_null(False).cast(i),
        bi_fold_steal_d=bi.cast(i),
    )


def aggregate(df: pl.DataFrame, min_hands: int = 0) -> pl.DataFrame:
    """Sum the per-hand rows per player (at least ``min_hands`` hands), most hands first."""
    import polars as pl

    sums = ["hands", "net", "sd_net", "nsd_net", "bb_n", "bb_d", "bl_n", "bl_d"]
    for s in STATS:
        if s.kind in RATIO_KINDS:
            sums += [f"{s.key}_n", f"{s.key}_d"]
    t = df.group_by("player").agg(
        *(pl.col(c).sum() for c in sums),
        pl.col("rake_paid").sum().alias("rake"),
    )
    t = t.with_columns(
        bb100=pl.when(pl.col("bb_d") > 0).then(pl.col("bb_n") / pl.col("bb_d") * 100),
        bl100=pl.when(pl.col("bl_d") > 0).then(pl.col("bl_n") / pl.col("bl_d") * 100),
    )
    return t.filter(pl.col("hands") >= min_hands).sort(["hands", "player"], descending=[True, False])


def street_aggression(df: pl.DataFrame, players: list[str]) -> pl.DataFrame:
    """Per player and street: bets+raises, calls, folds, AF and AFq (None without opportunity)."""
    import polars as pl

    d = df.filter(pl.col("player").is_in(players))
    frames = []
    for st in STREETS:
        frames.append(
            d.group_by("player").agg(
                pl.lit(st).alias("street"),
                pl.col(f"aggr_{st}").sum().alias("bets_raises"),
                pl.col(f"calls_{st}").sum().alias("calls"),
                pl.col(f"folds_{st}").sum().alias("folds"),
                pl.col(f"ftb_n_{st}").sum().alias("fold_to_bet_n"),
                pl.col(f"ftb_d_{st}").sum().alias("fold_to_bet_d"),
            )
        )
    if not frames or d.height == 0:
        return pl.DataFrame(schema={"player": pl.Utf8, "street": pl.Utf8})
    out = pl.concat(frames)
    total = pl.col("bets_raises") + pl.col("calls") + pl.col("folds")
    return out.with_columns(
        af=pl.when(pl.col("calls") > 0).then(pl.col("bets_raises") / pl.col("calls")),
        afq=pl.when(total > 0).then(pl.col("bets_raises") / total),
    ).sort(["player", "street"])


def compute(db: str | Path, filters: Filters | None = None) -> StatsResult:
    """Every statistic for every player (or ``filters.players``) on a read-only connection."""
    import polars as pl

    f = filters or Filters()
    con = connect(db, read_only=True)
    try:
        seats, actions, reached = load(con, f)
    finally:
        con.close()
    df = per_hand(seats, actions, reached)
    if f.players:
        df = df.filter(pl.col("player").is_in(list(f.players)))
    table = aggregate(df, f.min_hands)
    keep = [str(p) for p in table["player"].to_list()]
    df = df.filter(pl.col("player").is_in(keep))
    return StatsResult(table=table, per_hand=df, by_street=street_aggression(df, keep), filters=f)


def sessions(per_hand_df: pl.DataFrame, gap_minutes: int = 30) -> pl.DataFrame:
    """Per player: a new session after ``gap_minutes`` without a hand.  Start, end, hands, net, big bets."""
    import polars as pl

    if per_hand_df.height == 0:
        return pl.DataFrame(schema={"player": pl.Utf8, "session": pl.Int64})
    d = per_hand_df.sort(["player", "started_at", "hand_key"]).with_columns(
        gap=(pl.col("started_at").diff().over("player") > pl.duration(minutes=gap_minutes)).fill_null(False)
    )
    d = d.with_columns(session=pl.col("gap").cast(pl.Int64).cum_sum().over("player") + 1)
    return (
        d.group_by(["player", "session"])
        .agg(
            pl.col("started_at").min().alias("start"),
            pl.col("started_at").max().alias("end"),
            pl.len().alias("hands"),
            pl.col("net").sum().alias("net"),
            pl.col("big_bets").sum().round(2).alias("big_bets"),
        )
        .sort(["player", "session"])
    )
