"""The screen: every pair of accounts dealt in together, its signals, one score, ranked (:func:`screen`).

The stages: the hands and decisions from SQL (:mod:`hhtool.integrity.spots`),
the quick read of the cards and the pricing of the decisions that pass
the pre-filters (:mod:`hhtool.integrity.pricing`, cached), the signals
against their baselines (:mod:`hhtool.integrity.signals`), one score and
the lead's level (:mod:`hhtool.integrity.score`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.integrity import signals as sg
from hhtool.integrity import spots
from hhtool.integrity.pricing import STREET_NO, HandCards, PriceCache, cache_path, hand_cards, price
from hhtool.integrity.score import combine, lead
from hhtool.stats.filters import Filters

if TYPE_CHECKING:
    import duckdb
    import polars as pl

FULL_VIEW: float = 0.95
"""The share of seats dealt in whose hole card the histories show, at and above which they are a room's full view."""
HANDS_LISTED: int = 8
"""Hands a pair's row names (the strongest of what it rests on); the dossier lists them all."""


@dataclass(frozen=True)
class Screen:
    """The ranked pairs, their signals in long form, what could not be computed and why, the hands read, the filters."""

    pairs: pl.DataFrame
    signals: pl.DataFrame
    not_computed: tuple[tuple[str, str], ...]
    hands_read: int
    filters: Filters
    priced: int = 0  # decisions priced in this run (not read from the cache)
    cached: int = 0  # priced figures read from the cache
    keys: dict[tuple[str, str], str] = field(default_factory=dict)  # (site, name) -> the account's key


def open_db(db: Any) -> tuple[duckdb.DuckDBPyConnection, bool, Path | None]:
    """(connection, whether it is ours to close, the database file): a path opened read-only, or a connection as given."""
    if isinstance(db, (str, Path)):
        from hhtool.store.db import connect

        return connect(db, read_only=True), True, Path(db)
    path: Path | None = None
    try:
        row = db.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
        if row and row[0]:
            path = Path(str(row[0]))
    except Exception:  # a connection that cannot say its file: no cache
        path = None
    return db, False, path


def quick(cards: list[int] | None, wild: int | None) -> tuple[int, int]:
    """The bots' quick read of known cards (category, main rank), (-1, 0) when unknown."""
    if not cards:
        return (-1, 0)
    from hhtool.simulate.bots import quick_category

    return quick_category(cards, wild)


@dataclass
class HandState:
    """Who was dealt in and when each folded: who is still in at a decision."""

    dealt: list[str] = field(default_factory=list)
    fold_seq: dict[str, int] = field(default_factory=dict)

    def still_in(self, seq: int, but: str) -> list[str]:
        return [p for p in self.dealt if p != but and self.fold_seq.get(p, 1 << 30) > seq]

    def folded(self, seq: int) -> list[str]:
        return [p for p in self.dealt if self.fold_seq.get(p, 1 << 30) < seq]


def killed_by(h: HandCards, decider: str, street: int, others: list[str]) -> list[str]:
    """The players whose face-down cards hold at least one and at least half of the decider's outs (docs/integrity.md).

    Outs: the cards of the decider's main group's rank (and wild cards)
    among those the decider cannot see (not its own, not face up anywhere,
    not the vela once turned).  Only for a hand of a pair or less.
    """
    mine = h.known(decider, street)
    if mine is None:
        return []
    cat, top = quick(mine, h.wild)
    if cat > 1:
        return []
    seen = set(mine)
    for p in h.held:
        seen.update(h.up(p, street))
    if street >= 5 and h.vela is not None:
        seen.add(h.vela)
    ranks = {top} | ({h.wild} if h.wild is not None else set())
    outs = [r * 4 + s for r in ranks for s in range(4) if r * 4 + s not in seen]
    if not outs:
        return []
    out = []
    for q in others:
        down = set(h.face_down(q, street))
        dead = sum(1 for c in outs if c in down)
        if dead >= 1 and 2 * dead >= len(outs):
            out.append(q)
    return out


def screen(db: Any, filters: Filters | None = None, *, min_hands: int | None = None, cache: bool = True) -> Screen:
    """Every pair of accounts dealt in together in the hands ``filters`` select, best lead first (docs/integrity.md).

    ``db``: a path (opened read-only) or an open DuckDB connection or
    cursor.  ``min_hands``: only pairs with at least this many hands
    together are listed (default: every pair).  ``cache``: read and add
    to the priced equities beside the database (``DB.integrity-cache.parquet``).
    """
    f = filters or Filters()
    con, ours, path = open_db(db)
    try:
        return _screen(con, f, min_hands or 0, PriceCache(cache_path(path) if cache else None))
    finally:
        if ours:
            con.close()


def _screen(con: duckdb.DuckDBPyConnection, f: Filters, min_hands: int, prices: PriceCache) -> Screen:
    import polars as pl

    spots.scoped_hands(con, f)
    (hands_read,) = con.execute("SELECT count(*) FROM ih").fetchone() or (0,)
    ph = spots.pair_hands(con)
    pf = spots.player_flows(con)
    tr = spots.traffic(con)
    spots.decisions(con)
    hu = spots.heads_up(con)

    all_pairs: list[sg.Pair] = [(s, a, b) for s, a, b in zip(ph["site"], ph["a"], ph["b"])] if ph.height else []
    together = dict(zip(all_pairs, ph["together"].to_list())) if ph.height else {}
    rows: dict[str, dict[sg.Pair, sg.Row]] = {}
    rows["co_presence"] = sg.co_presence(
        together.items(),
        {(s, p): int(n) for s, p, n in zip(tr["site"], tr["player"], tr["hands"])} if tr.height else {},
        _beside(tr),
    )
    rows["chip_flow"] = sg.chip_flow(
        {p: (int(n), float(fl), float(f2)) for p, n, fl, f2 in zip(all_pairs, ph["together"], ph["flow"], ph["flow2"])} if ph.height else {},
        {(s, p): (float(r), int(t)) for s, p, r, t in zip(pf["site"], pf["player"], pf["recv"], pf["terms"])} if pf.height else {},
    )
    aggr = sg.Tally()
    for site, p, o, st, n, m in hu.iter_rows() if hu.height else ():
        c = aggr.vs[(site, p, o, st)]
        c[0] += int(n)
        c[1] += int(n) - int(m)  # marked: the passive ones
    rows["aggression"] = sg.against_baseline(
        "aggression", aggr, all_pairs, "heads-up decisions against each other", False,
        "heads up against each other they checked or called {obs:,} of {n:,} times where their play against others gives {expect:,.0f}",
    )

    (known, dealt) = con.execute(
        "SELECT count(*) FILTER (WHERE s.hole_card IS NOT NULL), count(*) FROM seats s JOIN ih USING (hand_key) WHERE s.dealt_in"
    ).fetchone() or (0, 0)
    full = dealt > 0 and known >= FULL_VIEW * dealt
    not_computed: list[tuple[str, str]] = []
    priced_before = prices.added
    if full:
        rows.update(_priced(con, all_pairs, prices))
    else:
        why = (f"own-view histories: the hole cards of {known:,} of {dealt:,} seats are shown (a player's own, and what is shown down); "
               "the others' are needed")
        for s in sg.PRICED:
            not_computed.append((s, why))
            rows[s] = {p: sg.Row(s, None, None, 0, None, why) for p in all_pairs}
    prices.save()

    keys = _keys(con, all_pairs)
    pair_rows: list[dict[str, Any]] = []
    sig_rows: list[dict[str, Any]] = []
    n_pairs = len(all_pairs)
    for pair in all_pairs:
        site, a, b = pair
        zs: list[float] = []
        words: list[str] = []
        rest: list[int] = []
        scored_rows = []
        for s in sg.SIGNALS:
            r = rows[s].get(pair)
            if r is None:
                continue
            sig_rows.append({
                "a": keys[(site, a)], "b": keys[(site, b)], "signal": s, "value": r.value, "baseline": r.baseline,
                "sample": r.sample, "z": r.z, "scored": r.z is not None, "why_not": r.why_not,
            })
            if r.z is not None:
                zs.append(r.z)
                scored_rows.append(r)
        score, p = combine(zs)
        level = lead(p, n_pairs, len(zs))
        for r in sorted(scored_rows, key=lambda r: -(r.z or 0.0)):
            if (r.z or 0.0) >= 2.0 and r.words:
                words.append(f"{r.signal.replace('_', ' ')}: {r.words} (z {r.z:.1f})")
                rest += [h for h in r.hands if h not in rest]
        n = int(together[pair])
        if n < min_hands:
            continue
        pair_rows.append({
            "a": keys[(site, a)], "b": keys[(site, b)], "site": site, "a_name": a, "b_name": b, "hands_together": n,
            "score": round(score, 3), "lead": level, "p": p,
            "sure": _sure(n, len(zs), n_pairs),
            "signals": "; ".join(words) or "nothing beyond what their play against others gives",
            "hand_keys": rest,
        })
    pair_rows.sort(key=lambda r: (-r["score"], -r["hands_together"], r["a"], r["b"]))
    ids = _hand_ids(con, sorted({k for r in pair_rows for k in r["hand_keys"][:HANDS_LISTED]}))
    for i, r in enumerate(pair_rows):
        r["rank"] = i + 1
        listed = [ids[k] for k in r.pop("hand_keys")[:HANDS_LISTED] if k in ids]
        r["hand_ids"] = listed
        r["hands"] = ", ".join(listed)
        r.pop("p")
    schema = {
        "rank": pl.Int64, "a": pl.String, "b": pl.String, "site": pl.String, "a_name": pl.String, "b_name": pl.String,
        "hands_together": pl.Int64, "score": pl.Float64, "lead": pl.String, "sure": pl.String, "signals": pl.String,
        "hands": pl.String, "hand_ids": pl.List(pl.String),
    }
    pairs_df = pl.DataFrame(pair_rows, schema=schema) if pair_rows else pl.DataFrame(schema=schema)
    sig_schema = {"a": pl.String, "b": pl.String, "signal": pl.String, "value": pl.Float64, "baseline": pl.Float64,
                  "sample": pl.Int64, "z": pl.Float64, "scored": pl.Boolean, "why_not": pl.String}
    sig_df = pl.DataFrame(sig_rows, schema=sig_schema) if sig_rows else pl.DataFrame(schema=sig_schema)
    listed_pairs = set(zip(pairs_df["a"].to_list(), pairs_df["b"].to_list()))
    sig_df = sig_df.filter(pl.struct("a", "b").map_elements(lambda x: (x["a"], x["b"]) in listed_pairs, return_dtype=pl.Boolean)) \
        if sig_df.height else sig_df
    return Screen(pairs_df, sig_df, tuple(not_computed), int(hands_read), f, prices.added - priced_before, prices.hits,
                  keys)


def _sure(n: int, scored: int, pairs: int) -> str:
    """How sure the figure is, in words: the sample and the signals scored on it."""
    if scored == 0:
        return f"too few hands ({n:,} together): no signal scored"
    return f"{n:,} hands together, {scored} of {len(sg.SIGNALS)} signals scored, among {pairs:,} pairs"


def _beside(tr: pl.DataFrame) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for site, b in zip(tr["site"], tr["seats_beside"]) if tr.height else ():
        out[site] += float(b)
    return out


def _keys(con: duckdb.DuckDBPyConnection, pairs: list[sg.Pair]) -> dict[tuple[str, str], str]:
    """Each account's key as the statistics print it (NAME, or NAME@SITE where the name is on two sites)."""
    from hhtool.stats.accounts import account_key, shared_names

    accounts = sorted({(s, a) for s, a, _ in pairs} | {(s, b) for s, _, b in pairs})
    shared = shared_names(con, sorted({n for _, n in accounts}), False)
    return {(s, n): account_key(s, n, n in shared) for s, n in accounts}


def _hand_ids(con: duckdb.DuckDBPyConnection, keys: list[int]) -> dict[int, str]:
    if not keys:
        return {}
    return {int(k): str(i) for k, i in con.execute(
        "SELECT hand_key, hand_id FROM hands WHERE list_contains(?::BIGINT[], hand_key)", [keys]).fetchall()}


def _priced(con: duckdb.DuckDBPyConnection, pairs: list[sg.Pair], prices: PriceCache) -> dict[str, dict[sg.Pair, sg.Row]]:
    """The signals priced with the exact equity: strong folds, passive best hands, hopeless money, card sharing."""
    fa = spots.facing(con)
    ps = spots.passive_spots(con)
    keys = sorted(set(fa["hand_key"].to_list()) | set(ps["hand_key"].to_list()))
    facts = {int(k): (str(s), str(i), int(th), str(pr), int(d), w) for k, s, i, th, pr, d, w in con.execute(
        "SELECT hand_key, site, hand_id, text_hash, profile, dealt_in, wild_rank FROM hands WHERE hand_key IN (SELECT hand_key FROM ih)"
    ).fetchall()}
    cards = hand_cards(spots.cards_of(con, keys), {k: (v[3], v[4], v[5]) for k, v in facts.items()})
    states: dict[int, HandState] = defaultdict(HandState)
    for k, p in con.execute("SELECT hand_key, player FROM seats JOIN ih USING (hand_key) WHERE dealt_in ORDER BY hand_key, seat").fetchall():
        states[int(k)].dealt.append(str(p))
    for k, p, q in con.execute(
        "SELECT hand_key, player, min(seq) FROM actions JOIN ih USING (hand_key) WHERE kind = 'fold' GROUP BY hand_key, player"
    ).fetchall():
        states[int(k)].fold_seq[str(p)] = int(q)

    def priced(k: int, seq: int, what: str, decider: str, street: int, dead_of: str | None = None) -> float | None:
        site, hid, th = facts[k][0], facts[k][1], facts[k][2]
        key = (site, hid, th, seq, what)
        hit, v = prices.get(key)
        if hit:
            return v
        h = cards.get(k)
        st = states[k]
        v = None
        if h is not None:
            extra = h.face_down(dead_of, street) if dead_of else []
            v = price(h, decider, st.still_in(seq, decider), st.folded(seq), street, extra)
        prices.put(key, v)
        return v

    strong, hopeless, passive, sharing = sg.Tally(), sg.Tally(), sg.Tally(), sg.Tally()
    for k, site, seq, line, street, player, kind, bettor, n_in, opp in fa.iter_rows():
        st_no = STREET_NO.get(street, 1)
        h = cards.get(k)
        if h is None:
            continue
        mine = h.known(player, st_no)
        theirs = h.known(bettor, st_no)
        if mine is None or theirs is None:
            continue
        me, him = quick(mine, h.wild), quick(theirs, h.wild)
        if st_no <= 3 and kind in ("call", "fold"):  # card sharing: 2nd to 4th street, a card of one's own to come
            state = states[k]
            others = [p for p in state.dealt if p != player]
            killers = killed_by(h, player, st_no, others)
            for q in killers or [""]:
                sharing.add(site, player, q, street, kind == "fold", k)
        if st_no < 2:
            continue
        if kind == "fold":
            marked = False
            if me[0] >= 1 and me >= him:  # pre-filter: a pair or better, not behind the bettor on the cards known
                eq = priced(k, seq, "eq", player, st_no)
                marked = eq is not None and eq >= sg.STRONG
            strong.add(site, player, bettor, street, marked, k)
        else:  # call, raise, completion: money put in against the bettor
            marked = False
            if me < him:  # pre-filter: behind the bettor on the cards known
                eq = priced(k, seq, "eq", player, st_no)
                marked = eq is not None and eq <= sg.HOPELESS
            hopeless.add(site, player, bettor, street, marked, k)
    for k, site, seq, line, street, player, kind, bettor, n_in, opp in ps.iter_rows():
        st_no = STREET_NO.get(street, 1)
        h = cards.get(k)
        if st_no < 2 or h is None:
            continue
        mine, theirs = h.known(player, st_no), h.known(opp, st_no)
        if mine is None or theirs is None:
            continue
        me, him = quick(mine, h.wild), quick(theirs, h.wild)
        if kind in ("bet", "complete") and me < him:  # a bet heads up into the opponent: money put in
            eq = priced(k, seq, "eq", player, st_no)
            hopeless.add(site, player, opp, street, eq is not None and eq <= sg.HOPELESS, k)
        if me > him:  # pre-filter: ahead on the cards known
            eq = priced(k, seq, "eq", player, st_no)
            if eq is not None and eq >= sg.BEST:
                passive.add(site, player, opp, street, kind in ("check", "call"), k)
    out: dict[str, dict[sg.Pair, sg.Row]] = {}
    out["strong_fold"] = sg.against_baseline(
        "strong_fold", strong, pairs, "folds facing the partner's bet", True,
        "folded {obs:,} strong hands (60 % equity or more) of {n:,} folds to each other's bets where their folds to others give {expect:.1f}",
    )
    out["passive_best"] = sg.against_baseline(
        "passive_best", passive, pairs, "heads-up decisions with the best hand against each other", False,
        "with the best hand heads up against each other they checked or called {obs:,} of {n:,} times where their play against "
        "others gives {expect:,.0f}",
    )
    out["hopeless_call"] = sg.against_baseline(
        "hopeless_call", hopeless, pairs, "decisions putting money in against the partner", True,
        "put money in with a hopeless hand (15 % equity or less) {obs:,} times of {n:,} against each other where their play against "
        "others gives {expect:.1f}",
    )
    out["card_sharing"] = sg.against_baseline(
        "card_sharing", sharing, pairs, "decisions with the draw dead in the partner's cards", False,
        "folded {obs:,} of {n:,} times facing a bet when the other's face-down cards held their outs, where their folds with the outs "
        "elsewhere give {expect:.1f}",
    )
    return out
