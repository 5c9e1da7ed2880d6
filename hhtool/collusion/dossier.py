"""One pair laid out for review: every hand together, the decisions between them priced, each player's figures beside the baseline.

:func:`dossier` reads the screen's row of the pair (its score, lead and
signals), then every hand both were dealt in (with the money each won
or lost and the money from one to the other), every decision of one
of one facing the other's bet or heads up against the other, and each
decision the card-sharing test counts against the other (docs/integrity.md),
with the equity at that moment (and, for the decisions facing a bet on 2nd to 4th street whose
outs the other's face-down cards hold, with those cards counted dead:
what a player who saw them would have known), and each player's figures
against the partner and against everyone else.  Words of a lead to review, never a verdict.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from hhtool.collusion import signals as sg
from hhtool.collusion.pricing import STREET_NO, PriceCache, cache_path, hand_cards, priced, question
from hhtool.collusion.screen import Screen, _screen, hand_states, hidden_beaters, killed_by, open_db, room_of
from hhtool.collusion import spots
from hhtool.stats.accounts import parse_key
from hhtool.stats.filters import Filters
from hhtool.store.db import StoreError

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from hhtool.game.equity import Question


class UnknownPairError(StoreError):
    """A pair named that was never dealt in together in the hands selected (a usage error)."""


@dataclass(frozen=True)
class Dossier:
    """The pair's row, its hands, its priced decisions and each player's figures against the partner and everyone else."""

    pair: dict[str, Any]
    hands: pl.DataFrame
    decisions: pl.DataFrame
    baseline: pl.DataFrame
    screen: Screen


def _account(screen: Screen, key: str) -> list[tuple[str, str]]:
    """The accounts ``key`` names among the screen's: its key, or NAME@SITE, or a bare name (every site's)."""
    exact = [acc for acc, k in screen.keys.items() if k == key]
    if exact:
        return exact
    name, site = parse_key(key)
    return [acc for acc in screen.keys if acc[1] == name and (site is None or acc[0] == site)] or \
        [acc for acc in screen.keys if acc[1] == key]


def dossier(
    db: Any, a: str, b: str, filters: Filters | None = None, *, cache: bool = True, screen: Screen | None = None
) -> Dossier:
    """The dossier of the pair ``a``, ``b`` (account keys as the screen prints them, or NAME@SITE).

    ``screen``: a :class:`Screen` already read from this database (the
    ``/integrity`` page keeps one), so that the dossier reads only the
    two players' hands and takes seconds, not the whole screen's time;
    ``filters`` default to its own, and must select the same hands
    (``players`` and ``min_hands`` aside: they choose pairs, not hands).
    Without it the screen is read first.

    Raises :class:`UnknownPairError` when the two were never dealt in
    together in the hands ``filters`` select.
    """
    if screen is not None:
        f = filters if filters is not None else screen.filters
        if room_of(replace(f, min_hands=0)) != room_of(replace(screen.filters, min_hands=0)):
            raise ValueError("the screen given was read with other filters of the hands than the dossier's")
    else:
        f = filters or Filters()
    con, ours, path = open_db(db)
    try:
        prices = PriceCache(cache_path(path) if cache else None)
        scr = screen if screen is not None else _screen(con, f, 0, prices)
        found = None
        for sa in _account(scr, a):
            for sb in _account(scr, b):
                if sa[0] == sb[0] and sa[1] != sb[1]:
                    found = (sa[0], sa[1], sb[1])
                    break
            if found:
                break
        if found is None:
            raise UnknownPairError(f"{a!r} and {b!r} were never dealt in together in the hands selected")
        site, na, nb = found
        import polars as pl

        row = scr.pairs.filter((pl.col("site") == site) & (pl.col("a_name") == min(na, nb)) & (pl.col("b_name") == max(na, nb)))
        pair = row.to_dicts()[0] if row.height else {}
        out = _dossier(con, f, site, na, nb, pair, scr, prices)
        prices.save()
        return out
    finally:
        if ours:
            con.close()


def _dossier(
    con: duckdb.DuckDBPyConnection, f: Filters, site: str, a: str, b: str, pair: dict[str, Any], scr: Screen, prices: PriceCache
) -> Dossier:
    import polars as pl

    # the hands read: those of the two (each one's figures against everyone else are in them), not the room's
    spots.scoped_hands(con, room_of(f))
    con.execute(
        "DELETE FROM ih WHERE site <> ? OR hand_key NOT IN (SELECT hand_key FROM seats WHERE dealt_in AND player IN (?, ?))",
        [site, a, b],
    )
    spots.decisions(con)
    hands = spots.frame(
        con,
        """
        WITH both_in AS (
            SELECT hand_key FROM seats s JOIN ih USING (hand_key) WHERE ih.site = ? AND s.dealt_in AND s.player IN (?, ?)
            GROUP BY hand_key HAVING count(*) = 2
        ), s AS (
            SELECT s.hand_key, s.player, s.net FROM seats s WHERE s.dealt_in AND s.hand_key IN (SELECT hand_key FROM both_in)
        ), w AS (SELECT hand_key, sum(greatest(net, 0)) AS wins FROM s GROUP BY hand_key)
        SELECT h.site, h.hand_id, h.hand_key, h.started_at, h.table_name, h.currency, h.unit, h.text_hash,
            x.net AS net_a, y.net AS net_b,
            CAST(CASE WHEN w.wins > 0 THEN round((greatest(-x.net, 0) * greatest(y.net, 0) - greatest(-y.net, 0) * greatest(x.net, 0))
                 / w.wins) ELSE 0 END AS BIGINT) AS flow
        FROM hands h JOIN s x ON x.hand_key = h.hand_key AND x.player = ? JOIN s y ON y.hand_key = h.hand_key AND y.player = ?
        JOIN w ON w.hand_key = h.hand_key
        ORDER BY h.started_at, h.hand_key
        """,
        [site, a, b, a, b],
    )
    if hands.height == 0:
        raise UnknownPairError(f"{scr.keys.get((site, a), a)!r} and {scr.keys.get((site, b), b)!r} were never dealt in together "
                               "in the hands selected")
    keys = hands["hand_key"].to_list()
    facts = {int(k): (str(i), int(th)) for k, i, th in zip(hands["hand_key"], hands["hand_id"], hands["text_hash"])} if hands.height else {}
    dec = spots.frame(
        con,
        """
        WITH d AS (SELECT * FROM idec WHERE list_contains(?::BIGINT[], hand_key) AND player IN (?, ?)),
        gone AS (SELECT hand_key, player, min(seq) AS fold_seq FROM d WHERE kind = 'fold' GROUP BY hand_key, player)
        SELECT d.hand_key, d.seq, d.line, d.street, d.player, d.kind, d.bettor, d.opponent, coalesce(d.all_in, FALSE) AS all_in
        FROM d LEFT JOIN gone g ON g.hand_key = d.hand_key AND g.player <> d.player
        WHERE g.fold_seq IS NULL OR g.fold_seq > d.seq
        ORDER BY d.hand_key, d.seq
        """,
        [keys, a, b],
    ) if keys else None
    pots = _pots(con, keys)
    info = {int(k): (str(p), int(d), w) for k, p, d, w in con.execute(
        "SELECT hand_key, profile, dealt_in, wild_rank FROM hands WHERE list_contains(?::BIGINT[], hand_key)", [keys]).fetchall()} if keys else {}
    cards = hand_cards(spots.cards_of(con, keys), info) if keys else {}
    states = hand_states(con, keys) if keys else {}
    rows: list[dict[str, Any]] = []
    per_hand: dict[int, list[str]] = defaultdict(list)
    # first the decisions shown and the questions to price (the equities' file first), then every question priced together
    # (hhtool.game.equity.equities: the same figures as one by one), then the signals
    shown: list[tuple[Any, ...]] = []
    asked: dict[tuple[str, str, int, int, str], Question | None] = {}
    for k, seq, line, street, player, kind, bettor, opp, all_in in dec.iter_rows() if dec is not None and dec.height else ():
        partner = b if player == a else a
        st_no = STREET_NO.get(street, 1)
        h = cards.get(k)
        state = states[k]
        facing = bettor if kind in ("call", "fold", "raise", "complete") and bettor and bettor != player else None
        passive = (kind == "fold") if facing else kind in ("check", "bring_in")  # as spots.hidden_beaten counts it
        # the card-sharing test's spot (the partner still in, its face-down cards beating a hand no up card beats) may be
        # any decision; the others are those facing the partner's bet or heads up against it
        shared = h is not None and passive and st_no <= 4 and not all_in and \
            partner in (hidden_beaters(h, player, st_no, state.still_in(seq, player)) or ())
        if not shared and facing != partner and opp != partner:
            continue
        dead_too = False
        if h is not None:
            key = (site, facts[k][0], facts[k][1], seq, "eq")
            if not prices.get(key)[0]:
                asked[key] = question(h, player, state.still_in(seq, player), state.folded(seq), st_no)
            if facing and st_no <= 3 and kind in ("call", "fold"):
                others = [p for p in state.dealt if p != player]
                if partner in killed_by(h, player, st_no, others):
                    dead_too = True
                    key = (site, facts[k][0], facts[k][1], seq, "dead")
                    if not prices.get(key)[0]:
                        asked[key] = question(h, player, state.still_in(seq, player), state.folded(seq), st_no, h.face_down(partner, st_no))
        shown.append((k, seq, line, street, player, kind, facing, opp, partner, st_no, h is not None, dead_too, shared))
    for key, v in zip(asked, priced(list(asked.values()))):
        prices.put(key, v)
    for k, seq, line, street, player, kind, facing, opp, partner, st_no, known, dead_too, shared in shown:
        eq = eq_dead = None
        sig = "card_sharing" if shared else None
        if known:
            eq = prices.values.get((site, facts[k][0], facts[k][1], seq, "eq"))
            if dead_too:
                eq_dead = prices.values.get((site, facts[k][0], facts[k][1], seq, "dead"))
        if eq is not None and sig is None:
            if kind == "fold" and facing == partner and st_no >= 2 and eq >= sg.STRONG:
                sig = "strong_fold"
            elif kind in ("call", "raise", "complete", "bet") and (facing == partner or (facing is None and opp == partner)) \
                    and st_no >= 2 and eq <= sg.HOPELESS:
                sig = "hopeless_call"
            elif opp == partner and kind in ("check", "call") and st_no >= 2 and eq >= sg.BEST:
                sig = "passive_best"
        pot, owed = pots.get((k, seq), (None, None))
        odds = owed / (pot + owed) if pot is not None and owed else None
        rows.append({"site": site, "hand_id": facts[k][0], "line": int(line), "player": player, "street": street, "action": kind,
                     "facing": facing, "equity": eq, "equity_partner_dead": eq_dead, "pot_odds": odds, "signal": sig})
        if sig:
            per_hand[k].append(_HAND_WORDS[sig].format(p=player, eq=100 * (eq or 0.0), street=street,
                                                        did=_DID.get(kind, "checked")))
    dschema = {"site": pl.String, "hand_id": pl.String, "line": pl.Int64, "player": pl.String, "street": pl.String, "action": pl.String,
               "facing": pl.String, "equity": pl.Float64, "equity_partner_dead": pl.Float64, "pot_odds": pl.Float64, "signal": pl.String}
    decisions = pl.DataFrame(rows, schema=dschema) if rows else pl.DataFrame(schema=dschema)
    if hands.height:
        hands = hands.with_columns(
            pl.Series("signals", ["; ".join(per_hand.get(int(k), [])) for k in hands["hand_key"]], dtype=pl.String)
        ).drop("text_hash")
    else:
        hands = hands.with_columns(pl.lit("").alias("signals")).drop("text_hash") if "text_hash" in hands.columns else hands
    return Dossier(pair or {"a": scr.keys.get((site, a), a), "b": scr.keys.get((site, b), b), "site": site, "hands_together": 0},
                   hands, decisions, _baseline(con, site, a, b, scr), scr)


_DID = {"fold": "folded", "check": "checked", "bring_in": "brought in rather than complete"}
"""A passive decision of the card-sharing test in the words of a hand's signal."""

_HAND_WORDS = {
    "strong_fold": "{p} folded with {eq:.0f} % equity on {street} to the other's bet",
    "hopeless_call": "{p} put money in with {eq:.0f} % equity on {street} against the other",
    "passive_best": "{p} checked or called with {eq:.0f} % equity heads up on {street} against the other",
    "card_sharing": "{p} {did} on {street} where the other's face-down cards beat its hand and no up card showed it "
                    "({eq:.0f} % equity against the cards as they lay)",
}


def _pots(con: duckdb.DuckDBPyConnection, keys: list[int]) -> dict[tuple[int, int], tuple[int, int]]:
    """(pot before it, owed by the decider) at every action of these hands, in minor units, from the money lines."""
    out: dict[tuple[int, int], tuple[int, int]] = {}
    if not keys:
        return out
    rows = con.execute(
        "SELECT hand_key, seq, street, player, kind, amount, to_amount FROM actions WHERE list_contains(?::BIGINT[], hand_key) "
        "ORDER BY hand_key, seq", [keys]).fetchall()
    pot = 0
    cur = None
    street = None
    put: dict[str, int] = {}
    for k, seq, st, p, kind, amount, to_amount in rows:
        if k != cur:
            cur, pot, street, put = k, 0, None, {}
        if st != street:
            street, put = st, {}
        top = max(put.values(), default=0)
        mine = put.get(p, 0)
        out[(int(k), int(seq))] = (pot, max(0, top - mine))
        money = 0
        if kind in ("raise", "complete") and to_amount is not None:
            money = int(to_amount) - mine
        elif kind == "uncalled" and amount is not None:
            money = -int(amount)
        elif kind == "ante" and amount is not None:
            pot += int(amount)
            continue
        elif amount is not None:
            money = int(amount)
        put[p] = mine + money
        pot += money
    return out


def _baseline(con: duckdb.DuckDBPyConnection, site: str, a: str, b: str, scr: Screen) -> pl.DataFrame:
    """Each player's figures against the partner and against everyone else: hands, won per 100 hands, heads-up aggression, folds to a bet."""
    rows = []
    for me, partner in ((a, b), (b, a)):
        for against, cond in (("partner", "= ?"), ("everyone else", "<> ?")):
            (hands, net) = con.execute(
                f"""
                SELECT count(DISTINCT s.hand_key), sum(CAST(round(s.net / ih.bb * {spots.FLOW_GRID}) AS BIGINT)) / {spots.FLOW_GRID} FROM seats s JOIN ih USING (hand_key)
                WHERE ih.site = ? AND s.dealt_in AND s.player = ? AND s.hand_key {'IN' if against == 'partner' else 'NOT IN'}
                    (SELECT hand_key FROM seats WHERE dealt_in AND player = ?)
                """, [site, me, partner]).fetchone() or (0, 0)
            (hu_n, hu_aggr, f_n, f_fold) = con.execute(
                f"""
                SELECT count(*) FILTER (WHERE opponent {cond} AND kind <> 'fold'),
                    count(*) FILTER (WHERE opponent {cond} AND kind IN ('bet', 'raise', 'complete')),
                    count(*) FILTER (WHERE bettor {cond} AND bettor <> player AND kind IN ('call', 'fold', 'raise', 'complete')),
                    count(*) FILTER (WHERE bettor {cond} AND bettor <> player AND kind = 'fold')
                FROM idec WHERE site = ? AND player = ?
                """, [partner, partner, partner, partner, site, me]).fetchone() or (0, 0, 0, 0)
            rows.append({
                "player": scr.keys.get((site, me), me), "against": against, "hands": int(hands or 0),
                "won_bb_per_100": (100.0 * float(net or 0.0) / hands) if hands else None,
                "hu_decisions": int(hu_n or 0), "hu_bet_or_raise": (hu_aggr / hu_n) if hu_n else None,
                "facing_bet": int(f_n or 0), "fold_to_bet": (f_fold / f_n) if f_n else None,
            })
    import polars as pl

    return pl.DataFrame(rows, schema={"player": pl.String, "against": pl.String, "hands": pl.Int64, "won_bb_per_100": pl.Float64,
                                      "hu_decisions": pl.Int64, "hu_bet_or_raise": pl.Float64, "facing_bet": pl.Int64,
                                      "fold_to_bet": pl.Float64})
