"""Player statistics over the hand database: counts of actions over counts of opportunities.

Every flag is decided per hand and player, then summed per player, as
``docs/stats.md`` defines them.  All of that happens inside DuckDB, in
one query (:func:`stats_sql`: action lines as bits of integer masks, see
there why), and only the per-player totals travel to Python (polars,
through Arrow): the cost is DuckDB's columnar, multi-threaded work on
the tables, not a Python or polars row per hand.  A statistic with no
opportunity is ``None`` and shows as ``-``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.db import StoreError, connect

if TYPE_CHECKING:
    import duckdb
    import polars as pl

STREETS = ("2nd", "3rd", "4th", "5th", "vela")
AGGRESSIVE = ("bet", "raise", "complete")
FORCED = ("ante", "small_blind", "big_blind", "bring_in", "uncalled")
VOLUNTARY = ("call", "complete", "raise", "bet")  # money put in on 2nd street by choice


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


# (key, label, kind): ratio stats have per-player columns f"{key}_n" and f"{key}_d".
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
    """Per-player totals (``table``) and per-street aggression (``by_street``).

    ``per_hand`` (one row per hand and player, with the money of the hand)
    is not part of the statistics: it is read from the database only when
    asked for (the report's graph and sessions), because on a large
    database it is millions of rows that the statistics never need.
    """

    table: pl.DataFrame
    by_street: pl.DataFrame
    filters: Filters = field(default_factory=Filters)
    db: Path | None = None

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

    @cached_property
    def per_hand(self) -> pl.DataFrame:
        """hand_key, player, started_at, net, went_to_showdown, big_bets of every hand of ``players()``."""
        if self.db is None:
            raise ValueError("this result has no database to read its hands from")
        con = connect(self.db, read_only=True)
        try:
            return load_per_hand(con, self.filters, self.players())
        finally:
            con.close()


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


def scope(f: Filters, players: list[str] | None = None) -> tuple[str, list[Any], str, list[Any]]:
    """The hands and seats that count: a condition on ``hands h`` and its parameters, one on ``seats s`` and its.

    ``f.players`` (named by the user, usually few) narrows the hands read
    to theirs; ``players`` (the ones a result kept) narrows only the seats.
    """
    where, params = _where(f)
    if f.players:
        where += " AND h.hand_key IN (SELECT hand_key FROM seats WHERE dealt_in AND list_contains(?::VARCHAR[], player))"
        params = params + [list(f.players)]
    names = list(f.players) if players is None else players
    if players is None and not names:
        return where, params, "s.dealt_in", []
    return where, params, "s.dealt_in AND list_contains(?::VARCHAR[], s.player)", [names]


def _in(values: tuple[str, ...]) -> str:
    """A SQL list of constant words (the action kinds and streets above: never user input)."""
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


PERFECT_HASH_BITS = 21
"""Aggregates per hand (``GROUP BY hand_key``) index an array instead of hashing while the hand keys span at
most 2**21 values (DuckDB's ``perfect_ht_threshold``; its default, 12, never applies to a hand table); a
larger database falls back to hashing, so memory stays bounded (a few hundred MB at the most)."""


class StatsLimitError(StoreError):
    """A betting round of more lines than the widest mask holds (see :func:`stats_sql`)."""


@dataclass(frozen=True)
class MaskLayout:
    """How action lines become bits (:func:`stats_sql`): the integer type, its last usable bit, one mask per round or per hand."""

    sql_type: str = "BIGINT"
    last_bit: int = 61  # ``bit << 1`` must stay below the sign bit
    rounds_apart: bool = False


BIGINT_MASKS = MaskLayout()
HUGEINT_MASKS = MaskLayout("HUGEINT", 125)

# Each kept line's kind as three bits, one mask each (A, X, Y), so that three
# aggregates say every line's kind: A is "aggressive" (a posted big blind included).
KIND_CODES = {
    "check": (0, 0, 0), "call": (0, 0, 1), "fold": (0, 1, 0), "bring_in": (0, 1, 1),
    "bet": (1, 0, 0), "raise": (1, 0, 1), "complete": (1, 1, 0), "big_blind": (1, 1, 1),
}  # fmt: skip


def _lowbit(mask: str) -> str:
    """The lowest bit of ``mask`` alone (0 for an empty mask): the earliest of those lines."""
    return f"(({mask}) & -({mask}))"


def _below(bit: str) -> str:
    """Every position below the single bit ``bit``."""
    return f"(({bit}) - 1)"


def _faces(bit: str, others: str, own: str) -> str:
    """The line at ``bit`` faces a bet: the last aggressive line before it in its round is someone else's.

    ``others`` and ``own`` hold the round's aggressive lines by the other
    players and by this one.  They are disjoint, so of the two masks cut
    below ``bit``, the larger integer holds the later line.
    """
    return f"((({others}) & {_below(bit)}) > (({own}) & {_below(bit)}))"


def _any_faces(lines: str, others: str, own: str, layout: MaskLayout) -> str:
    """Some line of ``lines`` faces a bet: :func:`_faces` for each of its bits in turn (the slow, general form)."""
    bit = f"(1::{layout.sql_type} << i::{layout.sql_type})"
    return (
        f"list_bool_or(list_transform(range(0, {layout.last_bit + 1}), "
        f"lambda i: (({lines}) & {bit}) <> 0 AND {_faces(bit, others, own)}))"
    )


def _faces_any(lines: str, others: str, own: str, layout: MaskLayout) -> str:
    """:func:`_any_faces` without the loop for the usual single line (a fold, a raise)."""
    return (
        f"CASE WHEN {lines} = 0 THEN false WHEN ({lines} & ({lines} - 1)) = 0 THEN {_faces(lines, others, own)} "
        f"ELSE {_any_faces(lines, others, own, layout)} END"
    )


def stats_sql(hand_where: str, seat_where: str, named: bool = False, layout: MaskLayout = BIGINT_MASKS) -> str:
    """The one query behind :func:`compute`: a row per player, every statistic's actions and opportunities.

    Order within a round decides "faces a bet", the completion's
    opportunity and the steal, and sorting millions of action lines for a
    window function costs more than everything else together.  So each
    line becomes one bit, ``1 << seq``, of an integer, and a set of lines
    is the OR of their bits.  Two hash aggregations over the lines build,
    per hand, masks that say each line's kind (three bits of
    :data:`KIND_CODES`) and street (three bits of its index in
    :data:`STREETS`) (``hm``), and per hand and player the mask of that
    player's lines (``pm``); their AND gives any set a statistic needs
    ("this player's folds on 4th street").  Antes, the small blind and
    uncalled bets returned are left out: no statistic reads them.  Then
    every flag of docs/stats.md is integer arithmetic on one row:

    * a line faces a bet when, cut below it, the round's aggressive lines
      by others make a larger integer than the player's own (:func:`_faces`);
    * "decided facing a bet" on a street: a decision after the others'
      first aggressive line of the round.  That first later decision faces
      a bet unless a forced aggressive line of the player (a big blind)
      stands between, so in a hand whose one big blind comes before every
      other aggressive line ("regular": every valid hand) it is one
      comparison, and otherwise each decision is tested (:func:`_any_faces`);
    * a fold facing a bet: :func:`_faces` of the fold (a player folds
      once, as a rule; more folds are tested one by one), and a
      2nd-street raise the same way (:func:`_faces_any`);
    * the completion's opportunity: no aggressive line below the first
      2nd-street decision;
    * the steal: a player's first turn on 2nd street is the lowest bit of
      their turns there (bring-in and decisions); OR-ed over the hand
      (``fh``) these first turns are the order of acting, so a position
      ``k`` among ``n`` is a count of bits and "everyone in between
      folded" compares bits (words: docs/stats.md).

    ``layout``: BIGINT masks hold hands of up to 62 lines, HUGEINT ones
    126; with ``rounds_apart`` every round is a group of its own with its
    lines numbered from the round's first (a window function: slow, used
    only when a longer hand is in scope); each flag belongs to one round,
    so the sums per player are the same.

    The CTEs: ``hs`` the hands in scope; ``a`` the lines; ``hm``/``hk``
    the hand's masks; ``pm`` the player's; ``fh`` the first turns; ``out``
    the seats not dealt in (a player's lines count only where the player
    was dealt in; every name in ``actions`` is a seated one, the parser
    reads a line by the seated names); ``ap`` the flags summed per player;
    ``kc`` the bets, calls and folds per street, counted straight from the
    lines (no order needed); ``rc`` the streets each hand reached (a card
    dealt on it); ``rk`` each winner's share of each pot's rake; ``sp`` the
    seats' sums per player.  Placeholders, in order: ``hand_where``'s, the
    player list of ``ap``, ``kc`` and ``rk`` (when ``named``),
    ``seat_where``'s, ``min_hands``.
    """
    t = layout.sql_type

    def kind_bits(j: int) -> str:
        codes = [k for k, c in KIND_CODES.items() if c[j]]
        return f"coalesce(bit_or(bit) FILTER (WHERE kind IN {_in(tuple(codes))}), 0)"

    def street_bits(j: int) -> str:
        names = [st for k, st in enumerate(STREETS) if k >> j & 1]
        return f"coalesce(bit_or(bit) FILTER (WHERE street IN {_in(tuple(names))}), 0)"

    def coded(code: tuple[int, ...], planes: tuple[str, ...]) -> str:
        """The lines whose plane bits equal ``code``."""
        return "(" + " & ".join(["h_all"] + [p if c else f"~{p}" for c, p in zip(code, planes)]) + ")"

    def kinds(*names: str) -> str:
        return "(" + " | ".join(coded(KIND_CODES[n], ("h_a", "h_x", "h_y")) for n in names) + ")"

    def street(st: str) -> str:
        k = STREETS.index(st)
        return coded((k & 1, k >> 1 & 1, k >> 2 & 1), ("h_s0", "h_s1", "h_s2"))

    # every kind but these three is one of KIND_CODES (the schema's list); NOT IN is a cheaper test than IN
    dropped = "('ante', 'small_blind', 'uncalled')"
    from_actions = "actions a" if hand_where == "TRUE" else "actions a JOIN hs USING (hand_key)"
    from_cards = "cards c" if hand_where == "TRUE" else "cards c JOIN hs USING (hand_key)"
    if layout.rounds_apart:
        bit = f"1::{t} << (a.seq - min(a.seq) OVER (PARTITION BY a.hand_key, a.street))::{t}"
        rk_ = ", rnd"
    else:
        bit = f"1::{t} << a.seq::{t}"
        rk_ = ""
    lines = f"""SELECT a.hand_key{', a.street AS rnd' if layout.rounds_apart else ''}, a.player, a.kind, a.street, {bit} AS bit
            FROM {from_actions} WHERE a.kind NOT IN {dropped}"""
    decisions = kinds("check", "call", "fold", "bet", "raise", "complete")
    bets = kinds("bet", "raise", "complete")
    # per hand (or round): the sets of lines the flags read, and whether the hand is regular (above)
    hand_cols = [
        "h_a AS aggr",
        f"{decisions} AS dec",
        f"{kinds('fold')} AS fld",
        f"{kinds('raise')} & {street('2nd')} AS rse2",
        f"({kinds('call')} | {bets}) & {street('2nd')} AS vol2",
        f"{kinds('complete')} AS cmp",
        f"{kinds('bring_in')} AS bri",
        f"({decisions} | {kinds('bring_in')}) & {street('2nd')} AS turns",
        *(f"{street(st)} AS m_{st}" for st in STREETS),
        f"{kinds('big_blind')} AS bb",
    ]
    regular = "(bb = 0 OR ((bb & (bb - 1)) = 0 AND (aggr & ~bb & (bb - 1)) = 0))"
    # the player's lines (a first layer), then the flags; a street's flags are worked out only on the
    # rows with a line on it (a CASE evaluates its branches on the rows that take them)
    line_cols = ["regular", "has_bring_in", "firsts", "bri", "cmp", "fld", "own", "aggr", "dec",
                 *(f"m_{st}" for st in STREETS), "(fld & own & ((fld & own) - 1)) = 0 AS one_fold"]
    flag_cols = []
    for st in STREETS:
        o, p, d, f = f"(aggr & ~own & m_{st})", f"(aggr & own & m_{st})", f"(dec & own & m_{st})", f"(fld & own & m_{st})"
        flag_cols += [
            f"CASE WHEN {d} = 0 THEN false WHEN regular THEN {o} <> 0 AND {d} >= ({_lowbit(o)} << 1) "
            f"ELSE {_any_faces(d, o, p, layout)} END AS ftb_d_{st}",
            f"CASE WHEN {f} = 0 THEN false WHEN one_fold THEN {_faces(f, o, p)} ELSE {_any_faces(f, o, p, layout)} END AS ftb_n_{st}",
        ]
    line_cols += [
        "aggr & ~own & m_2nd AS o_2nd",
        "aggr & own & m_2nd AS p_2nd",
        "dec & own & m_2nd AS d_2nd",
        "rse2 & own AS r2",
        "vol2 & own AS v2",
        "cmp & own & m_2nd AS c2",
        "turns & own AS mine",
        f"{_lowbit('turns & own')} AS me",
        f"{_lowbit('firsts')} AS k0",
    ]
    opens = "(firsts & ~k0 & ~fld)"
    first_open = _lowbit(opens)
    brought_in = "(firsts & bri) <> 0"
    steal_d = f"(mine <> 0 AND {brought_in} AND me <> k0 AND bit_count(firsts & ~{_below('me')}) <= 2 AND ({opens} = 0 OR me <= {first_open}))"
    stealer = f"({brought_in} AND {first_open} <> 0 AND ({first_open} & cmp) <> 0 AND bit_count(firsts & ~{_below(first_open)}) <= 2)"
    bi_d = f"(mine <> 0 AND me = k0 AND {stealer} AND bit_count({opens}) = 1)"
    flag_cols += [
        "d_2nd <> 0 AS vpip_d",
        "v2 <> 0 AS vpip_n",
        f"has_bring_in AND d_2nd <> 0 AND ((o_2nd | p_2nd) & {_below(_lowbit('d_2nd'))}) = 0 AS complete_d",
        "c2 <> 0 AS complete_n",
        f"CASE WHEN regular THEN o_2nd <> 0 AND d_2nd >= ({_lowbit('o_2nd')} << 1) "
        f"ELSE {_any_faces('d_2nd', 'o_2nd', 'p_2nd', layout)} END AS raise2_d",
        f"{_faces_any('r2', 'o_2nd', 'p_2nd', layout)} AS raise2_n",
        f"has_bring_in AND {steal_d} AS steal_d",
        f"has_bring_in AND {steal_d} AND (me & cmp) <> 0 AS steal_n",
        f"has_bring_in AND {bi_d} AS bi_fold_steal_d",
        f"has_bring_in AND {bi_d} AND ({_lowbit('mine & ~me')} & fld) <> 0 AS bi_fold_steal_n",
    ]
    player_cond = "list_contains(?::VARCHAR[], {}.player)" if named else "TRUE"

    order = {st: k for k, st in enumerate(STREETS)}
    fold_at = "CASE s.fold_street " + " ".join(f"WHEN '{st}' THEN {k}" for st, k in order.items()) + " ELSE 99 END"
    saw = {
        "3rd": f"(coalesce(rc.reach, 0) & 1) <> 0 AND {fold_at} >= {order['3rd']}",
        "4th": f"(coalesce(rc.reach, 0) & 2) <> 0 AND {fold_at} >= {order['4th']}",
        "5th": f"(coalesce(rc.reach, 0) & 4) <> 0 AND {fold_at} >= {order['5th']}",
        "vela": f"(coalesce(rc.reach, 0) & 4) <> 0 AND hs.has_vela AND {fold_at} >= {order['vela']}",
    }

    def total(prefix: str) -> str:
        return " + ".join(f"{prefix}_{st}" for st in STREETS)

    flags = ("vpip", "complete", "raise2", "steal", "bi_fold_steal")
    per_seat = [
        "s.player",
        "count(*) AS hands",
        "coalesce(sum(s.net), 0)::BIGINT AS net",
        "coalesce(sum(s.net) FILTER (WHERE s.went_to_showdown), 0)::BIGINT AS sd_net",
        "coalesce(sum(s.net) FILTER (WHERE s.went_to_showdown IS NOT TRUE), 0)::BIGINT AS nsd_net",
        "coalesce(sum(s.net / hs.big_bet) FILTER (WHERE hs.fixed), 0)::DOUBLE AS bb_n",
        "count_if(hs.fixed) AS bb_d",
        "coalesce(sum(s.net / hs.blind_unit) FILTER (WHERE NOT hs.fixed), 0)::DOUBLE AS bl_n",
        "count_if(NOT hs.fixed) AS bl_d",
        *(f"count_if({cond}) AS saw_{st}_n" for st, cond in saw.items()),
        *(f"count(*) AS saw_{st}_d" for st in saw),
        f"count_if({saw['3rd']} AND s.went_to_showdown) AS wtsd_n",
        f"count_if({saw['3rd']}) AS wtsd_d",
        "count_if(s.won_at_showdown) AS wsd_n",
        "count_if(s.went_to_showdown) AS wsd_d",
        f"count_if({saw['3rd']} AND s.collected > 0) AS wwsf_n",
        f"count_if({saw['3rd']}) AS wwsf_d",
    ]
    per_action = [
        "player",
        *(f"count_if({k}_{nd}) AS {k}_{nd}" for k in flags for nd in ("n", "d")),
        f"sum({' + '.join(f'ftb_n_{st}::INT' for st in STREETS)})::BIGINT AS fold_to_bet_n",
        f"sum({' + '.join(f'ftb_d_{st}::INT' for st in STREETS)})::BIGINT AS fold_to_bet_d",
        *(f"count_if(ftb_{nd}_{st}) AS ftb_{nd}_{st}" for st in STREETS for nd in ("n", "d")),
    ]
    # the counts of bets, calls and folds need no order: summed straight from the lines (a tiny hash table)
    per_kind = [
        f"coalesce(sum(n) FILTER (WHERE street = '{st}' AND kind IN {_in(kinds_)}), 0)::BIGINT AS {c}_{st}"
        for st in STREETS
        for c, kinds_ in (("aggr", AGGRESSIVE), ("calls", ("call",)), ("folds", ("fold",)))
    ]
    per_kind += [
        f"coalesce(sum(n) FILTER (WHERE kind IN {_in(AGGRESSIVE)} AND street IN {_in(STREETS)}), 0)::BIGINT AS af_n",
        f"coalesce(sum(n) FILTER (WHERE kind = 'call' AND street IN {_in(STREETS)}), 0)::BIGINT AS af_d",
        f"coalesce(sum(n) FILTER (WHERE kind IN {_in(AGGRESSIVE)} AND street IN {_in(STREETS)}), 0)::BIGINT AS afq_n",
        f"coalesce(sum(n) FILTER (WHERE kind IN {_in(AGGRESSIVE + ('call', 'fold'))} AND street IN {_in(STREETS)}), 0)::BIGINT AS afq_d",
    ]
    kind_names = [c.rsplit(" AS ", 1)[-1] for c in per_kind]
    action_names = [c.rsplit(" AS ", 1)[-1] for c in per_action[1:]]
    return f"""
    WITH hs AS (
        SELECT h.hand_key, h.structure = 'fixed' AS fixed, h.big_bet,
               coalesce(h.big_blind, h.ante, h.small_bet) AS blind_unit,
               h.vela IS NOT NULL AS has_vela, h.bring_in IS NOT NULL AS has_bring_in
        FROM hands h WHERE {hand_where}
    ),
    a AS NOT MATERIALIZED ({lines}),
    hm AS (
        SELECT hand_key{rk_}, coalesce(bit_or(bit), 0) AS h_all,
               {kind_bits(0)} AS h_a, {kind_bits(1)} AS h_x, {kind_bits(2)} AS h_y,
               {street_bits(0)} AS h_s0, {street_bits(1)} AS h_s1, {street_bits(2)} AS h_s2
        FROM a GROUP BY hand_key{rk_}
    ),
    hk AS (
        SELECT *, {regular} AS regular
        FROM (SELECT hm.hand_key{rk_}, hs.has_bring_in, {', '.join(hand_cols)} FROM hm JOIN hs USING (hand_key))
    ),
    pm AS (SELECT hand_key{rk_}, player, bit_or(bit) AS own FROM a GROUP BY hand_key{rk_}, player),
    fh AS (
        SELECT hand_key{rk_}, bit_or({_lowbit('turns & own')}) AS firsts
        FROM pm JOIN hk USING (hand_key{rk_}) WHERE hk.has_bring_in AND (turns & own) <> 0
        GROUP BY hand_key{rk_}
    ),
    out AS (SELECT s.hand_key, s.player FROM seats s JOIN hs USING (hand_key) WHERE NOT s.dealt_in),
    ap AS (
        SELECT {', '.join(per_action)}
        FROM (
            SELECT player, {', '.join(flag_cols)}
            FROM (
                SELECT pm.player, {', '.join(line_cols)}
                FROM pm JOIN hk USING (hand_key{rk_}) LEFT JOIN fh USING (hand_key{rk_})
                ANTI JOIN out ON out.hand_key = pm.hand_key AND out.player = pm.player
                WHERE {player_cond.format('pm')}
            )
        )
        GROUP BY player
    ),
    kc AS (
        SELECT player, {', '.join(per_kind)}
        FROM (
            SELECT a.player, a.street, a.kind, count(*) AS n
            FROM {from_actions} ANTI JOIN out ON out.hand_key = a.hand_key AND out.player = a.player
            WHERE a.kind IN {_in(AGGRESSIVE + ("call", "fold"))} AND {player_cond.format('a')}
            GROUP BY ALL
        )
        GROUP BY player
    ),
    rc AS (
        SELECT c.hand_key, bit_or(CASE c.street WHEN '3rd' THEN 1 WHEN '4th' THEN 2 ELSE 4 END) AS reach
        FROM {from_cards}
        WHERE c.street IN ('3rd', '4th', '5th')
        GROUP BY c.hand_key
    ),
    rk AS (
        SELECT player, sum(share)::DOUBLE AS rake
        FROM (
            SELECT p.hand_key, u.w AS player, p.rake * u.s / NULLIF(list_sum(p.shares), 0) AS share
            FROM pots p JOIN hs USING (hand_key), LATERAL (SELECT unnest(p.winners) AS w, unnest(p.shares) AS s) u
        ) x
        ANTI JOIN out ON out.hand_key = x.hand_key AND out.player = x.player
        WHERE {player_cond.format('x')}
        GROUP BY player
    ),
    sp AS (
        SELECT {', '.join(per_seat)}
        FROM seats s JOIN hs USING (hand_key) LEFT JOIN rc ON rc.hand_key = s.hand_key
        WHERE {seat_where}
        GROUP BY s.player
        HAVING count(*) >= ?
    )
    SELECT sp.*, coalesce(rk.rake, 0)::DOUBLE AS rake,
           {', '.join(f'coalesce(ap.{n}, 0) AS {n}' for n in action_names)},
           {', '.join(f'coalesce(kc.{n}, 0) AS {n}' for n in kind_names)}
    FROM sp LEFT JOIN ap USING (player) LEFT JOIN rk USING (player) LEFT JOIN kc USING (player)
    ORDER BY hands DESC, player
    """


def mask_layout(con: duckdb.DuckDBPyConnection, hand_where: str, params: list[Any]) -> MaskLayout:
    """The narrowest masks that hold every hand in scope (:func:`stats_sql`).

    The first question reads DuckDB's statistics of the whole table, not
    its rows; the others run only when some hand somewhere is longer than
    126 lines.  A single round longer than that is refused, with its hand.
    """
    (longest,) = con.execute("SELECT coalesce(max(seq), 0) FROM actions").fetchall()[0]
    if longest <= BIGINT_MASKS.last_bit:
        return BIGINT_MASKS
    if longest <= HUGEINT_MASKS.last_bit:
        return HUGEINT_MASKS
    in_scope = f"hand_key IN (SELECT h.hand_key FROM hands h WHERE {hand_where})"
    (longest,) = con.execute(f"SELECT coalesce(max(seq), 0) FROM actions WHERE {in_scope}", params).fetchall()[0]
    if longest <= HUGEINT_MASKS.last_bit:
        return HUGEINT_MASKS
    rows = con.execute(
        f"""SELECT h.site, h.hand_id, a.street, max(a.seq) - min(a.seq) + 1 AS lines
            FROM actions a JOIN hands h USING (hand_key) WHERE a.{in_scope}
            GROUP BY ALL HAVING lines > ? ORDER BY lines DESC LIMIT 1""",
        params + [HUGEINT_MASKS.last_bit + 1],
    ).fetchall()
    if rows:
        site, hand_id, street, lines = rows[0]
        raise StatsLimitError(
            f"hand {site} {hand_id} has a betting round ({street} street) of {lines} lines; "
            f"the statistics handle at most {HUGEINT_MASKS.last_bit + 1} lines in one round"
        )
    return MaskLayout("HUGEINT", HUGEINT_MASKS.last_bit, rounds_apart=True)


def compute_on(con: duckdb.DuckDBPyConnection, filters: Filters | None = None, db: Path | None = None) -> StatsResult:
    """Every statistic for every player (or ``filters.players``) on an open connection."""
    import polars as pl

    f = filters or Filters()
    hand_where, hand_params, seat_where, seat_params = scope(f)
    sql = stats_sql(hand_where, seat_where, bool(f.players), mask_layout(con, hand_where, hand_params))
    con.execute(f"SET perfect_ht_threshold = {PERFECT_HASH_BITS}")
    con.execute("SET enable_progress_bar = false")  # a long query must not draw on a terminal that shows our output
    # the placeholders in the order the query has them: hs, ap, kc, rk, sp, HAVING
    t = pl.DataFrame(con.sql(sql, params=hand_params + seat_params * 4 + [f.min_hands]))
    # DuckDB's count_if is a 128-bit integer (a polars Decimal): every count fits 64 bits
    t = t.with_columns(pl.col(c).cast(pl.Int64) for c, dtype in t.schema.items() if isinstance(dtype, pl.Decimal))
    t = t.with_columns(
        bb100=pl.when(pl.col("bb_d") > 0).then(pl.col("bb_n") / pl.col("bb_d") * 100),
        bl100=pl.when(pl.col("bl_d") > 0).then(pl.col("bl_n") / pl.col("bl_d") * 100),
    )
    street_cols = [f"{c}_{st}" for st in STREETS for c in ("aggr", "calls", "folds", "ftb_n", "ftb_d")]
    return StatsResult(table=t.drop(street_cols), by_street=street_aggression(t), filters=f, db=db)


def compute(db: str | Path, filters: Filters | None = None) -> StatsResult:
    """Every statistic for every player (or ``filters.players``) on a read-only connection."""
    con = connect(db, read_only=True)
    try:
        return compute_on(con, filters, Path(db))
    finally:
        con.close()


def street_aggression(table: pl.DataFrame) -> pl.DataFrame:
    """Per player and street: bets+raises, calls, folds, AF and AFq (None without opportunity).

    ``table`` holds the per-street sums of :func:`stats_sql`, one row per player.
    """
    import polars as pl

    if table.height == 0:
        return pl.DataFrame(schema={"player": pl.Utf8, "street": pl.Utf8})
    out = pl.concat(
        table.select(
            "player",
            street=pl.lit(st),
            bets_raises=pl.col(f"aggr_{st}"),
            calls=pl.col(f"calls_{st}"),
            folds=pl.col(f"folds_{st}"),
            fold_to_bet_n=pl.col(f"ftb_n_{st}"),
            fold_to_bet_d=pl.col(f"ftb_d_{st}"),
        )
        for st in STREETS
    )
    total = pl.col("bets_raises") + pl.col("calls") + pl.col("folds")
    return out.with_columns(
        af=pl.when(pl.col("calls") > 0).then(pl.col("bets_raises") / pl.col("calls")),
        afq=pl.when(total > 0).then(pl.col("bets_raises") / total),
    ).sort(["player", "street"])


def load_per_hand(con: duckdb.DuckDBPyConnection, f: Filters, players: list[str]) -> pl.DataFrame:
    """One row per hand and player of ``players`` in scope: the money of the hand, in no particular order.

    ``big_bets`` is net over the hand's big bet (the winnings graph's unit).
    """
    import polars as pl

    hand_where, hand_params, seat_where, seat_params = scope(f, players)
    return pl.DataFrame(
        con.sql(
            f"""
            SELECT s.hand_key, s.player, h.started_at, s.net, s.went_to_showdown, s.net / h.big_bet AS big_bets
            FROM seats s JOIN hands h USING (hand_key)
            WHERE {hand_where} AND {seat_where}
            """,
            params=hand_params + seat_params,
        )
    )


def sessions(per_hand_df: pl.DataFrame, gap_minutes: int = 30) -> pl.DataFrame:
    """Per player: a new session after ``gap_minutes`` without a hand.  Start, end, hands, net, big bets."""
    import polars as pl

    if per_hand_df.height == 0:
        return pl.DataFrame(schema={"player": pl.Utf8, "session": pl.Int64})
    # in time order (a sort on numbers, cheaper than one on the name first); each player's hands keep that
    # order, and the windows per player key on a number for the name (a categorical's code)
    d = per_hand_df.sort(["started_at", "hand_key"]).with_columns(who=pl.col("player").cast(pl.Categorical).to_physical())
    d = d.with_columns(gap=(pl.col("started_at").diff().over("who") > pl.duration(minutes=gap_minutes)).fill_null(False))
    d = d.with_columns(session=pl.col("gap").cast(pl.Int64).cum_sum().over("who") + 1)
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
