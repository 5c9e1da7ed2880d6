"""The screen: every pair of accounts dealt in together, its signals, one score, ranked (:func:`screen`).

The stages: the hands and decisions from SQL (:mod:`hhtool.collusion.spots`),
the quick read of the cards and the pricing of the decisions that pass
the pre-filters (:mod:`hhtool.collusion.pricing`, cached), the signals
against their baselines (:mod:`hhtool.collusion.signals`), one score and
the lead's level (:mod:`hhtool.collusion.score`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hhtool.game.cards import Card

from hhtool.collusion import signals as sg
from hhtool.collusion import spots
from hhtool.collusion.passes import Passes, passes_path
from hhtool.collusion.pricing import STREET_NO, HandCards, HandState, HandTask, PriceCache, PricePool, cache_path
from hhtool.collusion.score import combine, lead
from hhtool.stats.filters import Filters
from hhtool.stats.accounts import Account
from hhtool.stats.notes import tagged_accounts

if TYPE_CHECKING:
    import duckdb
    import polars as pl

FULL_VIEW: float = 0.95
"""The share of seats dealt in whose hole card the histories show, at and above which they are a room's full view."""
def _memory_limit() -> str:
    """Half the machine's memory, at least 4,000 MB: see :data:`MEMORY_LIMIT`."""
    import os

    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):  # a system that cannot say: the floor
        total = 0
    return f"{max(4000, total // 2)}MB"


MEMORY_LIMIT: str = _memory_limit()
"""DuckDB's memory for a screen of a database it opens itself: half the machine's, at least 4,000 MB (DuckDB's default,
80 % of the machine, took 8 GB on a million hands).  Beyond it the passes spill to ``DB.tmp/``, which costs CPU, and
some of them cannot spill: with the stratified and hidden-cards passes a million hands ran out of a fixed 4,000 MB
(docs/integrity.md, "Speed")."""
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
    cached: int = 0  # priced figures read from the cache (the equities' file, or the passes' with the rows they made)
    keys: dict[tuple[str, str], str] = field(default_factory=dict)  # (site, name) -> the account's key
    chosen_from: int | None = None  # the pairs listed before the filters' accounts chose among them (None: none chosen)
    passes: int = 0  # SQL passes run in this run (0: every frame read from DB.integrity-passes.parquet)


def open_db(db: Any) -> tuple[duckdb.DuckDBPyConnection, bool, Path | None]:
    """(connection, whether it is ours to close, the database file): a path opened read-only, or a connection as given."""
    if isinstance(db, (str, Path)):
        from hhtool.store.db import connect

        return connect(db, read_only=True, memory_limit=MEMORY_LIMIT), True, Path(db)
    path: Path | None = None
    try:
        row = db.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
        if row and row[0]:
            path = Path(str(row[0]))
    except Exception:  # a connection that cannot say its file: no cache
        path = None
    return db, False, path


def quick(cards: Sequence[Card] | None, wild: int | None) -> tuple[int, int]:
    """The bots' quick read of known cards (category, main rank), (-1, 0) when unknown."""
    if not cards:
        return (-1, 0)
    from hhtool.game.evaluate import quick_category

    return quick_category(cards, wild)


def hidden_beaters(h: HandCards, decider: str, street: int, still_in: list[str]) -> list[str] | None:
    """The players still in whose whole hand beats the decider's read when no one's up cards do (the card-sharing test's spot).

    As :func:`hhtool.collusion.spots.hidden_beaten` reads it in SQL: the
    quick read's category of the decider's known cards against each
    opponent's up cards (``None``: an up board beats it, or the decider's
    cards are unknown: not the test's spot) and against each opponent's
    whole hand (those it names).  Wild cards read as their rank, as there.
    """
    mine = h.known(decider, street)
    if mine is None:
        return None
    cat = quick(mine, None)[0]
    out = []
    for q in still_in:
        whole = h.known(q, street)
        if whole is None:
            continue
        if quick(h.up(q, street), None)[0] > cat:
            return None
        if quick(whole, None)[0] > cat:
            out.append(q)
    return out


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
    to the priced equities beside the database (``DB.integrity-cache.parquet``)
    and the SQL passes' frames (``DB.integrity-passes.parquet``).

    Two of the statistics' filters choose pairs, not hands, as the
    ``/integrity`` page does: ``filters.players`` lists the pairs holding
    one of those accounts, every pair of the room being screened (a
    player's baselines are the room's, and the ranks stay the room's);
    ``filters.player_tags`` the pairs holding an account with one of those
    tags (with ``players`` too: an account that is both);
    ``filters.min_hands`` lists only pairs of two accounts with at least
    that many hands in the hands screened (its meaning in the statistics).
    """
    f = filters or Filters()
    con, ours, path = open_db(db)
    try:
        return _screen(con, f, min_hands or 0, PriceCache(cache_path(path) if cache else None))
    finally:
        if ours:
            con.close()


def _screen(con: duckdb.DuckDBPyConnection, f: Filters, min_hands: int, prices: PriceCache) -> Screen:
    with PricePool() as pool:  # ended however the screen ends
        return _screen_with(con, f, min_hands, prices, pool)


def _screen_with(con: duckdb.DuckDBPyConnection, f: Filters, min_hands: int, prices: PriceCache, pool: PricePool) -> Screen:
    """The screen (:func:`screen`), its pricing overlapped with the work that does not feed it (docs/integrity.md, "Speed").

    When the priced signals are reckoned in this run (a full view, the
    passes' file without them): the pricing processes start first, on a
    room of :data:`POOL_EARLY_FROM` hands or more (their start beside the
    passes); the decisions to price are handed to them once the SQL passes
    are done; the signals that do not need the figures (soft play,
    dumping, calls into, card sharing) and the accounts' keys are reckoned
    while they price.
    """
    import polars as pl

    kept = Passes(con, room_of(replace(f, min_hands=0)), passes_path(prices.path))  # the passes' frames, kept or run now
    hands_read = kept.hands_read()
    (known, dealt) = kept.seen()
    full = dealt > 0 and known >= FULL_VIEW * dealt
    pricing = full and not kept.holds_priced()  # the priced signals reckoned now, not read from the passes' file
    if pricing and hands_read >= POOL_EARLY_FROM:
        pool.start()
    ph = kept.pair_hands()
    pf = spots.player_flows(ph)
    tr = kept.traffic()
    hu = kept.heads_up()

    all_pairs: list[sg.Pair] = [(s, a, b) for s, a, b in zip(ph["site"], ph["a"], ph["b"])] if ph.height else []
    together = dict(zip(all_pairs, ph["together"].to_list())) if ph.height else {}
    rows: dict[str, dict[sg.Pair, sg.Row]] = {}
    rows["co_presence"] = sg.co_presence(
        together.items(),
        {(s, p): int(n) for s, p, n in zip(tr["site"], tr["player"], tr["hands"])} if tr.height else {},
        _beside(tr),
    )
    rows["chip_flow"] = sg.chip_flow(
        {p: (int(n), float(fl), float(f2), float(v)) for p, n, fl, f2, v in zip(all_pairs, ph["together"], ph["flow"], ph["flow2"], ph["vol"])}
        if ph.height else {},
        {(s, p): (float(r), float(v)) for s, p, r, v in zip(pf["site"], pf["player"], pf["recv"], pf["vol"])} if pf.height else {},
    )
    aggr = sg.Tally()
    for site, p, o, st, n, m in hu.iter_rows() if hu.height else ():
        c = aggr.vs[(site, p, o, st)]
        c[0] += int(n)
        c[1] += int(n) - int(m)  # marked: the passive ones
    rows["aggression"] = sg.against_baseline(
        "aggression", aggr, all_pairs, "heads-up decisions against each other", False,
        "heads up against each other they checked or called {obs:,} of {n:,} times, where their play against others in the same "
        "spots gives {expect:,.0f}", two_sided=True, two_way=False,
    )

    finish: Callable[[], tuple[dict[str, dict[sg.Pair, sg.Row]], int]] | None = None
    if pricing:
        # every SQL pass first, then the decisions handed to the processes: DuckDB's threads and the processes beside
        # each other cost more CPU than they save idle time (docs/integrity.md, "Speed")
        kept.strata(), kept.hidden_beaten(), kept.calls_into()
        finish = _priced_start(con, kept, kept.candidates(), kept.tallies(), all_pairs, prices, pool)
    st_rows = kept.strata()
    soft: list[sg.Cell] = []
    facing: list[sg.Cell] = []
    for site, p, o, st, n, folds, aggr in st_rows.iter_rows() if st_rows.height else ():
        if int(n) > int(folds):  # soft play: of the decisions that went on, the bets and raises
            soft.append((site, p, o, st, int(n) - int(folds), int(aggr)))
        if st[0] == "F":  # chip dumping: facing a bet, the folds
            facing.append((site, p, o, st, int(n), int(folds)))
    def soft_decisions(leads: list[sg.Pair]) -> list[sg.Decision]:
        """The pair's decisions that went on (not folds), marked: a bet or raise; as the soft-play cells count them."""
        return [(s, p, o, st, int(k), kind in spots.AGGRESSIVE)
                for s, p, o, st, k, kind, _ in kept.between_pairs(leads).iter_rows() if kind != "fold"]

    def facing_decisions(leads: list[sg.Pair]) -> list[sg.Decision]:
        """The pair's decisions facing each other's bets, marked: a fold; as the dumping cells count them."""
        return [(s, p, o, st, int(k), kind == "fold")
                for s, p, o, st, k, kind, _ in kept.between_pairs(leads).iter_rows() if st[0] == "F"]

    rows["soft_play"] = kept.signal_rows("soft_play", lambda: sg.stratified(
        "soft_play", soft, all_pairs, lambda st: st[0] == "F" or st[1] == "H", "fewer",
        "decisions where a bet or raise into each other was possible",
        "bet or raised into each other {obs:,.0f} of {n:,} times where a bet or raise was possible, where their play against "
        "others with the same cards showing in the same spots gives {expect:,.0f}", soft_decisions,
    ))
    rows["dumping"] = kept.signal_rows("dumping", lambda: sg.stratified(
        "dumping", facing, all_pairs, lambda st: True, "grain", "decisions facing each other's bets",
        "facing each other's bets they folded where they call or called where they fold {obs:,.0f} of {n:,} times, where "
        "their play facing others' bets with the same cards showing gives {expect:,.1f}", facing_decisions,
    ))

    into = sg.Tally()
    for site, p, o, st, n, folds in kept.calls_into().iter_rows():
        c = into.vs[(site, p, o, st)]
        c[0] += int(n)
        c[1] += int(n) - int(folds)  # marked: the calls and raises
    rows["calls_into"] = sg.against_baseline(
        "calls_into", into, all_pairs, "decisions facing each other's bets", False,
        "called or raised each other's bets {obs:,} of {n:,} times, where their play facing others' bets gives {expect:,.0f}",
    )

    keys = _keys(con, all_pairs)  # while the processes price
    not_computed: list[tuple[str, str]] = []
    n_priced = 0
    if full:
        def run() -> tuple[dict[str, dict[sg.Pair, sg.Row]], int]:
            if finish is not None:
                return finish()
            return _priced_start(con, kept, kept.candidates(), kept.tallies(), all_pairs, prices, pool)()

        priced_rows, n_priced = kept.priced(run)
        pool.close()
        rows.update(priced_rows)
    else:
        why = (f"own-view histories: the hole cards of {known:,} of {dealt:,} seats are shown (a player's own, and what is shown down); "
               "the others' are needed")
        for s in sg.PRICED:
            not_computed.append((s, why))
            rows[s] = {p: sg.Row(s, None, None, 0, None, why) for p in all_pairs}
    prices.save()

    seated = {(s, p): int(n) for s, p, n in zip(tr["site"], tr["player"], tr["hands"])} if tr.height else {}
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
                "a": keys[(site, a)], "b": keys[(site, b)], "signal": s, "value": _round(r.value), "baseline": _round(r.baseline),
                "sample": r.sample, "z": _round(r.z), "scored": r.z is not None, "why_not": r.why_not,
            })
            if r.z is not None:
                zs.append(r.z)
                scored_rows.append(r)
        score, p = combine(zs, [r.signal for r in scored_rows])
        level = lead(p, n_pairs, len(zs))
        for sr in sorted(scored_rows, key=lambda x: -(x.z or 0.0)):
            if (sr.z or 0.0) >= sg.NAMED_FROM and sr.words:
                words.append(f"{sr.signal.replace('_', ' ')}: {sr.words} (z {sr.z:.1f})")
                rest += [h for h in sr.hands if h not in rest]
        n = int(together[pair])
        shown = not (n < min_hands or (f.min_hands and min(seated.get((site, a), 0), seated.get((site, b), 0)) < f.min_hands))
        pair_rows.append({
            "a": keys[(site, a)], "b": keys[(site, b)], "site": site, "a_name": a, "b_name": b, "hands_together": n,
            "score": round(score, 3), "lead": level, "p": p,
            "sure": _sure(n, len(zs), n_pairs),
            "signals": "; ".join(words) or "nothing beyond what their play against others gives",
            "hand_keys": rest, "shown": shown,
        })
    pair_rows.sort(key=lambda r: (-r["score"], -r["hands_together"], r["a"], r["b"]))
    # every lead's hands, listed or not: the same question whatever min_hands, so that the passes' file answers it
    _name_hands(kept, [r for r in pair_rows if r["lead"] != "none" and not r["hand_keys"]])
    kept.save()
    pair_rows = [r for r in pair_rows if r.pop("shown")]
    ids = _hand_ids(con, sorted({k for r in pair_rows for k in r["hand_keys"][:HANDS_LISTED]}))
    for i, pr in enumerate(pair_rows):
        pr["rank"] = i + 1
        listed = [ids[k] for k in pr.pop("hand_keys")[:HANDS_LISTED] if k in ids]
        pr["hand_ids"] = listed
        pr["hands"] = ", ".join(listed)
        pr.pop("p")
    schema: dict[str, Any] = {
        "rank": pl.Int64, "a": pl.String, "b": pl.String, "site": pl.String, "a_name": pl.String, "b_name": pl.String,
        "hands_together": pl.Int64, "score": pl.Float64, "lead": pl.String, "sure": pl.String, "signals": pl.String,
        "hands": pl.String, "hand_ids": pl.List(pl.String),
    }
    pairs_df = pl.DataFrame(pair_rows, schema=schema) if pair_rows else pl.DataFrame(schema=schema)
    sig_schema: dict[str, Any] = {"a": pl.String, "b": pl.String, "signal": pl.String, "value": pl.Float64, "baseline": pl.Float64,
                  "sample": pl.Int64, "z": pl.Float64, "scored": pl.Boolean, "why_not": pl.String}
    chosen_from = None
    if f.players or f.player_tags:  # the pairs of these accounts, the room's ranks kept
        chosen_from = pairs_df.height
        pairs_df = pairs_of(pairs_df, f.picks() if f.players else None, tagged_accounts(con, f.player_tags) if f.player_tags else None)
    sig_df = pl.DataFrame(sig_rows, schema=sig_schema) if sig_rows else pl.DataFrame(schema=sig_schema)
    sig_df = sig_df.join(pairs_df.select("a", "b"), on=["a", "b"], how="semi", maintain_order="left") if sig_df.height else sig_df
    return Screen(pairs_df, sig_df, tuple(not_computed), int(hands_read), f, n_priced - prices.hits - kept.priced_kept,
                  prices.hits + kept.priced_kept, keys, chosen_from, kept.ran)


def room_of(f: Filters) -> Filters:
    """The filters of the hands screened: ``f`` without its players and player tags, which choose pairs, not hands
    (:func:`screen`)."""
    return replace(f, players=(), resolved=None, player_tags=()) if f.players or f.resolved is not None or f.player_tags else f


def pairs_of(pairs: pl.DataFrame, picks: list[tuple[str | None, str]] | None, tagged: set[Account] | None) -> pl.DataFrame:
    """The pairs (rows of :attr:`Screen.pairs`) holding an account that is one of ``picks`` ((site or None, name) each:
    NAME on every site, NAME@SITE on that one) and has one of the tags (``tagged``, the accounts that do); ``None``:
    no condition of that kind.  The screen's order and ranks are kept: they are the room's."""
    import polars as pl

    def holds(name: str) -> pl.Expr:
        hit = pl.lit(True)
        if picks is not None:
            picked = pl.lit(False)
            for site, who in picks:
                here = pl.lit(True) if site is None else pl.col("site") == site
                picked = picked | (here & (pl.col(name) == who))
            hit = hit & picked
        if tagged is not None:  # one membership test, however many accounts carry the tag
            account = pl.concat_str([pl.col("site").fill_null(""), pl.col(name)], separator="\x1f")
            hit = hit & account.is_in([f"{site}\x1f{who}" for site, who in sorted(tagged)])
        return hit

    return pairs.filter(holds("a_name") | holds("b_name"))


def _round(x: float | None) -> float | None:
    """Six decimals: the figures' last bits follow the order DuckDB summed in, which is not the same every run."""
    return None if x is None else round(x, 6)


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


def _name_hands(kept: Passes, leads: list[dict[str, Any]]) -> None:
    """Every lead names the hands it rests on: where no signal of z 2 or more named any (a lead of several weaker
    signals), the pair's hands together with the most money between the two, largest first."""
    got = kept.named_hands([(r["site"], r["a_name"], r["b_name"]) for r in leads], HANDS_LISTED)
    for r in leads:
        r["hand_keys"] = got.get((r["site"], r["a_name"], r["b_name"]), [])


def _hand_ids(con: duckdb.DuckDBPyConnection, keys: list[int]) -> dict[int, str]:
    if not keys:
        return {}
    return {int(k): str(i) for k, i in con.execute(
        "SELECT hand_key, hand_id FROM hands WHERE list_contains(?::BIGINT[], hand_key)", [keys]).fetchall()}


POOL_EARLY_FROM: int = 20_000
"""Hands in scope from which a screen that prices starts the pricing processes before it knows what to price (their start
overlaps the passes): such a room prices many more than :data:`hhtool.collusion.pricing.PARALLEL_FROM` decisions."""
PRICED_PAIRS: int = 25
"""Per priced signal, the pairs whose read of the cards points most (z of at least :data:`PRICE_FROM`) whose decisions are priced."""
PRICE_FROM: float = 1.0
BASELINE_SAMPLE: int = 150
"""Per player and signal, the decisions against everyone else priced to tell what share of the read's marks the equity keeps."""

PRIOR: float = 20.0
"""The shares the equity keeps are drawn toward everyone's by this many decisions' weight: a player with few priced
decisions outside the pair gets everyone's share, not a share of 0 from 0 of 12."""

WHAT: dict[str, str] = {"strong_fold": "strong", "hopeless_call": "hopeless", "passive_best": "best"}
"""Each priced signal's candidates in :func:`hhtool.collusion.spots.candidates`."""


def _priced_start(
    con: duckdb.DuckDBPyConnection, kept: Passes, cand: pl.DataFrame, tal: pl.DataFrame, pairs: list[sg.Pair], prices: PriceCache,
    pool: PricePool,
) -> Callable[[], tuple[dict[str, dict[sg.Pair, sg.Row]], int]]:
    """The signals priced with the exact equity: strong folds, passive best hands, hopeless money, card sharing.

    Two passes (docs/integrity.md, "What is priced"): the quick read of the
    cards marks candidates in every decision of every pair (SQL: ``cand``,
    and ``tal`` the decisions counted); then, for the pairs where the read
    points most, the candidates between the two are priced, and a sample of
    each player's candidates against everyone else, so that the baseline is
    the share of the read's marks the equity keeps.

    This picks the decisions and hands them to ``pool``, and returns at
    once what finishes: the rows, and how many decisions were priced, once
    the figures are in (reading ``kept``'s hidden-cards frame).
    """
    import hashlib

    import polars as pl

    out: dict[str, dict[sg.Pair, sg.Row]] = {}
    by_what = {what: cand.filter(pl.col("what") == what) for what in WHAT.values()}
    den: dict[str, dict[tuple[str, str, str, str], int]] = defaultdict(dict)
    for site, p, o, st, what, n in tal.iter_rows():
        den[what][(site, p, o, st)] = den[what].get((site, p, o, st), 0) + int(n)
    plans: dict[str, tuple[sg.Tally, list[sg.Pair]]] = {}
    spread: dict[str, float] = {}
    for signal, what in WHAT.items():
        tally = _tally(by_what[what], what == "best")
        if what != "best":  # the decisions the read did not mark count too
            for (site, p, o, st), n in den[what].items():
                c = tally.vs[(site, p, o, st)]
                c[0] = max(c[0], n)
        rows = sg.against_baseline(signal, tally, pairs, *_TEXT[signal])
        spread[signal] = _spread(rows)
        out[signal] = rows
        chosen = sorted((p for p, r in rows.items() if r.z is not None and r.z >= PRICE_FROM), key=lambda p: (-(rows[p].z or 0.0), p))
        plans[signal] = (tally, chosen[:PRICED_PAIRS])
    # the decisions to price: every candidate between a chosen pair's two, a sample of each one's against the others;
    # read only over the candidates by or against a chosen pair's player (the loop tests the sites and pairs exactly),
    # a row's columns as plain lists and the row itself (what -> its index in the frame) kept for the few priced
    near: dict[str, pl.DataFrame] = {}
    picked: dict[tuple[int, int], tuple[str, int]] = {}
    between: dict[str, list[int]] = {}
    players: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for signal, (_, chosen) in plans.items():
        what = WHAT[signal]
        names = sorted({who for _, a, b in chosen for who in (a, b)})
        near[what] = df = by_what[what].filter(pl.col("player").is_in(names) | pl.col("against").is_in(names))
        inside = {(s, a, b) for s, a, b in chosen}
        for s, a, b in chosen:
            players[what] |= {(s, a), (s, b)}
        sample: dict[tuple[str, str, str], list[tuple[str, int]]] = defaultdict(list)
        between[what] = []
        cols = (df[c].to_list() for c in ("hand_key", "site", "seq", "player", "against"))
        for i, (k, site, seq, player, against) in enumerate(zip(*cols)):
            pair = (site, min(player, against), max(player, against))
            if pair in inside:
                picked[(k, seq)] = (what, i)
                between[what].append(i)
                continue
            h = ""
            for side, who in (("by", player), ("vs", against)):
                if (site, who) in players[what]:
                    h = h or hashlib.blake2b(f"{k}:{seq}".encode(), digest_size=8).hexdigest()
                    sample[(side, site, who)].append((h, i))
        ks, seqs = df["hand_key"], df["seq"]
        for idx in sample.values():
            for _, i in sorted(idx, key=lambda x: x[0])[:BASELINE_SAMPLE]:
                picked[(ks[i], seqs[i])] = (what, i)
    rows_at: dict[str, dict[int, tuple[Any, ...]]] = {}
    for what, df in near.items():
        at = sorted({i for w, i in picked.values() if w == what} | set(between[what]))
        rows_at[what] = dict(zip(at, df[at].rows())) if at else {}
    to_price = {key: rows_at[w][i] for key, (w, i) in picked.items()}
    pending = _price_start(con, list(to_price.values()), prices, pool)

    def finish() -> tuple[dict[str, dict[sg.Pair, sg.Row]], int]:
        card_sharing = _card_sharing(kept, pairs)  # before the figures: it does not read them
        equities = pending()
        _refine_all(out, plans, spread, to_price, rows_at, between, equities)
        out["card_sharing"] = card_sharing
        return out, len(equities)

    return finish


def _refine_all(
    out: dict[str, dict[sg.Pair, sg.Row]], plans: dict[str, tuple[sg.Tally, list[sg.Pair]]], spread: dict[str, float],
    to_price: dict[tuple[int, int], tuple[Any, ...]], rows_at: dict[str, dict[int, tuple[Any, ...]]], between: dict[str, list[int]],
    equities: dict[tuple[int, int], float | None],
) -> None:
    """Each chosen pair's row of ``out`` replaced by its row with the equity (:func:`_refined`)."""
    for signal, (tally, chosen) in plans.items():
        what = WHAT[signal]
        # ("by" or "vs", site, player) -> [candidates priced by the player (against the player) outside the pairs, kept]
        keep: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
        chosen_set = set(chosen)
        for (k, seq), row in to_price.items():
            if row[8] != what:
                continue
            eq = equities.get((k, seq))
            site, player, against = row[1], row[6], row[9]
            if eq is None or (site, min(player, against), max(player, against)) in chosen_set:
                continue
            passed = _passes(what, eq)
            for key in (("by", site, player), ("vs", site, against), ("all", site, "")):
                c = keep[key]
                c[0] += 1
                c[1] += int(passed)
        ctx = _Refine(tally, [rows_at[what][i] for i in between.get(what, [])], chosen_set)
        for pair in chosen:
            tau2 = next((x.tau2 for x in out[signal].values()), 0.0)
            r = _refined(signal, what, pair, ctx, equities, keep, tau2)
            if r.z is not None:
                r.z /= spread[signal]
            out[signal][pair] = r


def _card_sharing(kept: Passes, pairs: list[sg.Pair]) -> dict[sg.Pair, sg.Row]:
    """The card-sharing signal's rows, from the hidden-cards pass."""
    counts: dict[tuple[str, str, str, sg.Stratum], tuple[int, int]] = {}
    hands_of: dict[tuple[str, str, str, sg.Stratum], list[int]] = {}
    for site, p, beater, street, facing, bets, hu, cat, high, n, passive, hands in kept.hidden_beaten().iter_rows():
        st = (street, facing, bets, hu, cat, high)
        counts[(site, p, beater, st)] = (int(n), int(passive))
        if beater and hands:
            hands_of[(site, p, beater, st)] = list(hands)
    return sg.hidden_beaten(counts, pairs, hands_of, _TEXT["card_sharing"][0], _TEXT["card_sharing"][2])


def _tally(cands: pl.DataFrame, best: bool) -> sg.Tally:
    """One signal's candidates (:func:`hhtool.collusion.spots.candidates`' rows of one ``what``) counted in bulk: the
    :class:`hhtool.collusion.signals.Tally` that adding them one by one in the frame's order gives, the same counts
    in the same order (a key's first row), each key's hands in the rows' order.

    ``best``: the stratum is the spot (:func:`_spot`) and a check or call is the mark; otherwise the street, every row a mark.
    """
    import polars as pl

    tally = sg.Tally()
    kind = pl.col("kind")
    if best:  # the spot: the street, facing a bet or not (a call or raise faces one)
        stratum = pl.when(kind.is_in(list(FACED)).fill_null(False)).then(pl.col("street") + FACING).otherwise(pl.col("street"))
        marked = kind.is_in(["check", "call"]).fill_null(False)
    else:
        stratum, marked = pl.col("street"), pl.lit(True)
    df = cands.select("hand_key", "site", "player", "against", stratum.alias("stratum"), marked.alias("marked"))
    counts = df.group_by("site", "player", "against", "stratum", maintain_order=True).agg(pl.len(), pl.col("marked").sum())
    for site, player, against, st, n, m in counts.iter_rows():
        tally.vs[(site, player, against, st)] = [int(n), int(m)]
    hands = df.filter(pl.col("marked")).group_by("site", "player", "against", maintain_order=True).agg(pl.col("hand_key"))
    for site, player, against, keys in hands.iter_rows():
        tally.hands[(site, player, against)] = keys
    return tally


def _spread(rows: dict[sg.Pair, sg.Row]) -> float:
    """How much :func:`hhtool.collusion.signals.deflate` widened these rows' z's (1: not at all), for the priced rows that replace some."""
    raw = {p: sg.Row(r.signal, r.value, r.baseline, r.sample, r.z) for p, r in rows.items()}
    return sg.deflate(raw)


FACED: Final = ("call", "raise")
"""The decisions that faced a bet, for a heads-up decision's spot (:func:`_spot`, and :func:`_tally` in bulk)."""
FACING: Final = " facing a bet"
"""What a spot that faced a bet adds to its street."""


def _spot(street: str, kind: str) -> str:
    """A heads-up decision's spot: its street, and whether it faced a bet (a call or a raise did)."""
    return street + (FACING if kind in FACED else "")


def _passes(what: str, eq: float) -> bool:
    return eq >= sg.STRONG if what == "strong" else eq <= sg.HOPELESS if what == "hopeless" else eq >= sg.BEST


class _Refine:
    """What :func:`_refined` reads for every chosen pair of one signal, reckoned once (not once per pair).

    The tally's sums, its rows per (site, player, opponent), and the
    candidates between the two of each chosen pair.
    """

    def __init__(self, tally: sg.Tally, cands: list[tuple[Any, ...]], chosen: set[sg.Pair]) -> None:
        self.tally = tally
        self.totals = tally.totals()
        self.by_opp, self.every = tally.faced()
        self.rows: dict[tuple[str, str, str], list[tuple[str, int, int]]] = defaultdict(list)
        for (s, p, o, st), (k, m) in tally.vs.items():
            self.rows[(s, p, o)].append((st, k, m))
        self.mine: dict[sg.Pair, list[tuple[Any, ...]]] = defaultdict(list)
        for r in cands:
            pair = (r[1], min(r[6], r[9]), max(r[6], r[9]))
            if pair in chosen and r[6] != r[9]:
                self.mine[pair].append(r)


def _refined(
    signal: str, what: str, pair: sg.Pair, ctx: _Refine, equities: dict[tuple[int, int], float | None],
    keep: dict[tuple[str, str, str], list[int]], tau2: float,
) -> sg.Row:
    """A chosen pair's row with the equity: the candidates between the two priced, the baseline the read's share kept by it."""
    site, a, b = pair
    tally, totals, by_opp, every = ctx.tally, ctx.totals, ctx.by_opp, ctx.every
    n = 0
    obs = 0
    expect = var = 0.0
    hands: list[int] = []
    mine = ctx.mine.get(pair, [])
    every_kept = keep[("all", site, "")]
    frac_all = (every_kept[1] + 0.5) / (every_kept[0] + 1.0)
    for p, o in ((a, b), (b, a)):
        # the share of the read's marks the equity keeps: the player's, times the opponent's factor
        by, vs = keep[("by", site, p)], keep[("vs", site, o)]
        frac = (by[1] + PRIOR * frac_all) / (by[0] + PRIOR) * ((vs[1] + PRIOR * frac_all) / (vs[0] + PRIOR)) / frac_all
        for st, k, m in ctx.rows.get((site, p, o), []) if what != "best" else ():
            # (for "best" the spots themselves are the priced best hands: n and the marks both from the equity)
            rate = min(0.999, sg.expected_rate(totals[(site, p, st)], by_opp[(site, o, st)], every[(site, st)], k, m) * frac)
            n += k
            expect += k * rate
            var += k * rate * (1 - rate)
        for r in mine:
            if r[6] != p:
                continue
            eq = equities.get((r[0], r[2]))
            if eq is None:
                continue
            if what == "best":
                if eq >= sg.BEST:
                    # the passive share in the same spot against others, of the hands read ahead, with the opponent's factor
                    spot = _spot(r[4], r[7])
                    k_, m_ = tally.vs[(site, p, o, spot)]
                    rate = sg.expected_rate(totals[(site, p, spot)], by_opp[(site, o, spot)], every[(site, spot)], k_, m_)
                    n += 1
                    passive = r[7] in ("check", "call")
                    obs += int(passive)
                    expect += rate
                    var += rate * (1 - rate)
                    if passive:
                        hands.append(r[0])
            elif _passes(what, eq):
                obs += 1
                hands.append(r[0])
    value = obs / n if n else None
    base = expect / n if n else None
    if n < sg.MIN_SAMPLE[signal]:
        return sg._not(signal, value, base, n, _TEXT[signal][0])
    z = sg.rate_z(obs, expect, var) if what == "best" else sg.count_z(obs, expect)
    if tau2 > 0 and n:  # the pairs' spread beyond their samples, as the read's rows of the signal have it
        v = (var if what == "best" else max(expect, 0.5)) / (n * n)
        z *= math.sqrt(v / (v + tau2))
    return sg.Row(signal, value, base, n, z, words=_TEXT[signal][2].format(obs=obs, n=n, expect=expect), hands=sorted(set(hands)))


_TEXT: dict[str, tuple[str, bool, str]] = {
    "strong_fold": ("folds facing the partner's bet", True,
                    "folded {obs:,} strong hands (60 % equity or more) of {n:,} folds to each other's bets, where their folds to "
                    "others give {expect:.1f}"),
    "passive_best": ("heads-up decisions with the best hand against each other", False,
                     "with the best hand heads up against each other they checked or called {obs:,} of {n:,} times, where their play "
                     "against others gives {expect:,.0f}"),
    "hopeless_call": ("decisions putting money in against the partner", True,
                      "put money in with a hopeless hand (15 % equity or less) {obs:,} times of {n:,} against each other, where their "
                      "play against others gives {expect:.1f}"),
    "card_sharing": ("decisions the other's face-down cards beat", False,
                     "folded or checked {obs:,} of {n:,} times with a card to come when the other's face-down cards beat their hand "
                     "(its up cards did not), where their play when someone else's did gives {expect:,.0f}"),
}
"""Each signal's sample unit, whether its marks are rare (Poisson) and its words."""


def _price_start(
    con: duckdb.DuckDBPyConnection, rows: list[tuple[Any, ...]], prices: PriceCache, pool: PricePool
) -> Callable[[], dict[tuple[int, int], float | None]]:
    """The equity of each decision (hand_key, seq) of ``rows`` (candidates): those in the cache read now, the others handed
    to ``pool``; returns what waits for them (and adds them to the cache)."""
    if not rows:
        return dict
    keys = sorted({int(r[0]) for r in rows})
    facts = {int(k): (str(s), str(i), int(th)) for k, s, i, th in con.execute(
        "SELECT hand_key, site, hand_id, text_hash FROM hands WHERE list_contains(?::BIGINT[], hand_key)", [keys]).fetchall()}
    out: dict[tuple[int, int], float | None] = {}
    todo = []
    for r in rows:
        k, seq = int(r[0]), int(r[2])
        site, hid, th = facts[k][0], facts[k][1], facts[k][2]
        hit, v = prices.get((site, hid, th, seq, "eq"))
        if hit:
            out[(k, seq)] = v
        else:
            todo.append(r)
    if not todo:
        return lambda: out
    pending = pool.submit(price_tasks(con, todo))

    def done() -> dict[tuple[int, int], float | None]:
        for k, seq, v in pending.result():
            prices.put((facts[k][0], facts[k][1], facts[k][2], seq, "eq"), v)
            out[(k, seq)] = v
        return out

    return done


def price_tasks(con: duckdb.DuckDBPyConnection, rows: list[tuple[Any, ...]]) -> list[HandTask]:
    """The pricing of these candidates (:func:`hhtool.collusion.spots.candidates`' rows) as plain values, one task a hand,
    for :func:`hhtool.collusion.pricing.price_many`: the hand's cards, who was dealt in and when each folded, its decisions."""
    need = sorted({int(r[0]) for r in rows})
    if not need:
        return []
    facts = {int(k): (str(pr), int(d), w) for k, pr, d, w in con.execute(
        "SELECT hand_key, profile, dealt_in, wild_rank FROM hands WHERE list_contains(?::BIGINT[], hand_key)", [need]).fetchall()}
    rows_of: dict[int, list[tuple[object, ...]]] = defaultdict(list)
    for c in spots.cards_of(con, need):
        rows_of[int(c[0])].append(c)
    states = hand_states(con, need)
    asked: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    for r in rows:
        k, seq, lvl, player = int(r[0]), int(r[2]), int(r[5]), str(r[6])
        asked[k].append((seq, player, STREET_NO.get(str(r[4]), lvl)))
    return [(k, rows_of.get(k, []), facts[k], states[k], asked[k]) for k in need]


def hand_states(con: duckdb.DuckDBPyConnection, keys: list[int]) -> dict[int, HandState]:
    """Who was dealt in each of these hands, in seat order, and when each folded."""
    states: dict[int, HandState] = defaultdict(HandState)
    for k, p in con.execute(
        "SELECT hand_key, player FROM seats WHERE dealt_in AND list_contains(?::BIGINT[], hand_key) ORDER BY hand_key, seat", [keys]
    ).fetchall():
        states[int(k)].dealt.append(str(p))
    for k, p, q in con.execute(
        "SELECT hand_key, player, min(seq) FROM actions WHERE kind = 'fold' AND list_contains(?::BIGINT[], hand_key) GROUP BY ALL", [keys]
    ).fetchall():
        states[int(k)].fold_seq[str(p)] = int(q)
    return states
