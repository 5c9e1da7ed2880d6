"""The integrity screen's plumbing (docs/integrity.md): the cache never changes a result, a dossier on a screen
already read, a pair never dealt in together, the filters that choose pairs, the passes' sums.

A simulated room with a pool of players rotating (so some pairs never meet), imported into a real DuckDB file.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import polars as pl
import pytest

from hhtool.collusion import Screen, UnknownPairError, dossier, screen
from hhtool.collusion import pricing
from hhtool.collusion.passes import passes_path
from hhtool.collusion.pricing import PriceCache, cache_path
from hhtool.simulate import make_config, write_simulation
from hhtool.stats.filters import Filters
from hhtool.store.db import connect
from tests.inprocess import hhtool

spots = importlib.import_module("hhtool.collusion.spots")


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """600 hands, 6-max, 14 players joining and leaving: some pairs never sit together."""
    folder = tmp_path_factory.mktemp("pool")
    out = folder / "pool.txt"
    write_simulation(make_config(rules="classic", seed=85, pool=14, collude=["soft-play:0.6"]), 600, out)
    db = folder / "pool.duckdb"
    r = hhtool("import", str(out), "--db", str(db), "--workers", "1")
    assert r.returncode == 0, r.stderr
    return db


@pytest.fixture(scope="module")
def bare(pool: Path) -> Screen:
    return screen(pool, cache=False)


def test_a_cache_of_another_pricing_is_not_read(pool: Path, bare: Screen, tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    shutil.copy(pool, db)
    cold = screen(db)
    warm = screen(db)
    assert cold.priced > 0 and warm.priced == 0 and warm.cached == cold.priced
    for s in (cold, warm):
        assert s.pairs.equals(bare.pairs) and s.signals.equals(bare.signals)
    # the same keys with other figures, as another pricing (other samples, another seed, the first file's format) makes them
    path = cache_path(db)
    assert path is not None
    entries = pl.read_parquet(path)
    assert set(entries["pricing"].to_list()) == {getattr(pricing, 'PRICING', None)}
    other = entries.with_columns(pl.when(pl.col("value") > 0.5).then(0.01).otherwise(0.99).alias("value"))
    for stale in (other.with_columns(pl.lit("v2 samples=50 exact=0 seed=1").alias("pricing")),
                  other.drop("pricing").with_columns(pl.lit(1, dtype=pl.Int64).alias("version"))):
        stale.write_parquet(path)
        kept = passes_path(path)  # without the passes' file, whose rows would spare the screen the equities
        assert kept is not None
        kept.unlink(missing_ok=True)
        again = screen(db)
        assert again.cached == 0 and again.priced == cold.priced
        assert again.pairs.equals(bare.pairs) and again.signals.equals(bare.signals)
        assert set(pl.read_parquet(path)["pricing"].to_list()) == {getattr(pricing, 'PRICING', None)}  # written again with this pricing
    assert PriceCache(path).values  # and read


def test_dossier_reads_the_screen_given(pool: Path, bare: Screen) -> None:
    top = bare.pairs.row(0, named=True)
    alone = dossier(pool, top["a"], top["b"], cache=False)
    given = dossier(pool, top["a"], top["b"], cache=False, screen=bare)
    assert given.screen is bare
    assert given.pair == alone.pair == top
    for x, y in ((given.hands, alone.hands), (given.decisions, alone.decisions), (given.baseline, alone.baseline)):
        assert x.equals(y)
    assert given.hands.height == top["hands_together"]
    with pytest.raises(ValueError, match="other filters"):
        dossier(pool, top["a"], top["b"], Filters(sites=("Elsewhere",)), cache=False, screen=bare)


def test_a_pair_never_dealt_in_together_is_unknown(pool: Path, bare: Screen) -> None:
    met = set(zip(bare.pairs["a"].to_list(), bare.pairs["b"].to_list()))
    names = sorted(set(bare.pairs["a"].to_list()) | set(bare.pairs["b"].to_list()))
    apart = next((a, b) for i, a in enumerate(names) for b in names[i + 1:] if (a, b) not in met and (b, a) not in met)
    for s in (None, bare):
        with pytest.raises(UnknownPairError, match="never dealt in together"):
            dossier(pool, apart[0], apart[1], cache=False, screen=s)
    assert hhtool("integrity", "--db", str(pool), "--pair", apart[0], apart[1], "--no-cache").returncode == 2


def test_players_choose_pairs_not_hands(pool: Path, bare: Screen) -> None:
    name = str(bare.pairs["a_name"][0])
    mine = screen(pool, Filters(players=(name,)), cache=False)
    assert mine.hands_read == bare.hands_read  # the room is screened: the player's baselines are the room's
    want = bare.pairs.filter((pl.col("a_name") == name) | (pl.col("b_name") == name))
    assert want.height > 1 and mine.pairs.equals(want)  # the room's ranks kept
    assert set(zip(mine.signals["a"], mine.signals["b"])) == set(zip(want["a"], want["b"]))


def test_min_hands_chooses_the_accounts(pool: Path, bare: Screen) -> None:
    con = connect(pool, read_only=True)
    try:
        seated = dict(con.execute("SELECT player, count(*) FROM seats WHERE dealt_in GROUP BY player").fetchall())
    finally:
        con.close()
    n = sorted(seated.values())[len(seated) // 2]
    s = screen(pool, Filters(min_hands=n), cache=False)
    want = bare.pairs.filter(pl.col("a_name").replace_strict(seated, default=0).ge(n)
                             & pl.col("b_name").replace_strict(seated, default=0).ge(n))
    assert 0 < s.pairs.height < bare.pairs.height and s.pairs.drop("rank").equals(want.drop("rank"))
    assert s.pairs["rank"].to_list() == list(range(1, s.pairs.height + 1))  # ranked among the pairs listed, as --min-hands does
    together = int(bare.pairs["hands_together"].sort()[bare.pairs.height // 2])
    t = screen(pool, min_hands=together, cache=False)
    assert t.pairs.height and min(t.pairs["hands_together"]) >= together


def test_player_flows_are_the_pairs_sums(pool: Path) -> None:
    """Each player's flows, added from the pairs' integer sums, are the sums over every (opponent, hand) of the hands' flows:
    exactly, on the grid the screen sums on, and within half a grid step a hand of the flows themselves."""
    con = connect(pool, read_only=True)
    try:
        spots.scoped_hands(con, Filters())
        ph = spots.pair_hands(con)
        fast = spots.player_flows(ph)
        slow = spots.frame(con, f"""
            WITH f AS ({spots.flows_sql()})
            SELECT site, player, sum(q) / {spots.FLOW_GRID} AS recv, count(*) AS terms, sum(abs(q)) / {spots.FLOW_GRID} AS vol,
                sum(flow) AS recv_exact, sum(abs(flow)) AS vol_exact FROM (
                SELECT site, b AS player, q, flow FROM f UNION ALL SELECT site, a AS player, -q, -flow FROM f
            ) GROUP BY site, player ORDER BY site, player""")
    finally:
        con.close()
    assert fast["player"].to_list() == slow["player"].to_list()
    assert fast["terms"].to_list() == slow["terms"].to_list()
    for c in ("recv", "vol"):
        assert fast[c].to_list() == slow[c].to_list()
        for got, exact, n in zip(fast[c], slow[f"{c}_exact"], fast["terms"]):
            assert abs(got - exact) <= n / spots.FLOW_GRID / 2 + 1e-9


def test_quick_reads_are_the_bots_read_of_every_seat(pool: Path) -> None:
    """``iq`` (SQL, per hand and player: spots.quick_reads) is :func:`hhtool.game.evaluate.quick_category` of each player's
    cards known at each level, for every seat and level where they are all known, and at no other."""
    from collections import defaultdict

    from hhtool.game.cards import Card, parse_card
    from hhtool.game.evaluate import quick_category

    level = {"3rd": 2, "4th": 3, "5th": 4}
    con = connect(pool, read_only=True)
    try:
        spots.scoped_hands(con, Filters())
        spots.quick_reads(con)
        got = {(int(k), str(p), int(lv)): (int(n), int(c), int(t))
               for k, p, lv, n, c, t in con.execute("SELECT hand_key, player, lvl, cards, cat, top FROM iq").fetchall()}
        held: dict[tuple[int, str], list[tuple[int, Card]]] = defaultdict(list)
        for k, p, st, card in con.execute("SELECT hand_key, player, street, card FROM cards WHERE player IS NOT NULL").fetchall():
            held[(int(k), str(p))].append((level.get(str(st), 1), parse_card(str(card))))
    finally:
        con.close()
    want = {}
    for (k, p), cards in held.items():
        for lv in range(1, 5):
            known = [c for s, c in cards if s <= lv]
            if len(known) == lv + 1:
                cat, top = quick_category(known, None)
                want[(k, p, lv)] = (lv + 1, cat, top)
    assert len(want) > 3000
    assert got == want


def test_strata_read_the_vela_on_its_street(pool: Path) -> None:
    """A decision on the vela's street is read with the vela (``iread`` level 5), not as on 5th street: the stratum's
    category of each such decision, tallied per player, is the bots' read of the player's five cards and the vela."""
    from collections import Counter

    from hhtool.game.cards import Card, parse_card
    from hhtool.game.evaluate import quick_category

    from tests.strata import strata_tables

    with strata_tables(pool) as con:
        got = Counter((str(p), str(st).split(":")[1][0]) for p, st, in con.execute(
            "SELECT player, stratum FROM istr WHERE stratum LIKE '__vela%'").fetchall())
        cards: dict[tuple[int, str | None], list[Card]] = {}
        for k, p, card in con.execute("SELECT hand_key, player, card FROM cards").fetchall():
            cards.setdefault((int(k), p), []).append(parse_card(str(card)))
        decided = con.execute(
            "SELECT hand_key, player FROM actions WHERE street = 'vela' AND kind IN ('bet', 'raise', 'complete', 'call', 'check', 'fold') "
            "AND NOT coalesce(all_in, FALSE)").fetchall()
    want = Counter((str(p), str(min(3, quick_category(cards[(int(k), p)] + cards[(int(k), None)], None)[0]))) for k, p in decided)
    assert sum(want.values()) > 300
    assert got == want


def test_the_screen_bounds_duckdbs_memory(pool: Path) -> None:
    """A database the screen opens itself gets DuckDB's memory bounded (its default, 80 % of the machine, took 8 GB on a
    million hands); its passes spill beside the database beyond that (docs/integrity.md, "Speed")."""
    from hhtool.collusion.screen import MEMORY_LIMIT, open_db

    con, ours, _ = open_db(pool)
    try:
        assert ours
        (limit,) = con.execute("SELECT current_setting('memory_limit')").fetchone() or ("",)
    finally:
        con.close()
    assert MEMORY_LIMIT.endswith("MB")
    mib = {"KiB": 2**-10, "MiB": 1.0, "GiB": 2**10}
    value, unit = str(limit).split()
    assert float(value) * mib[unit] <= int(MEMORY_LIMIT[:-2]) * 1.0


def test_the_passes_read_numbers_and_the_views_name_them(pool: Path) -> None:
    """The tables the passes read hold the accounts, streets, kinds and strata as numbers (no text column: the joins and
    groups of a million hands are on integers), and the views ``idec`` and ``istr`` give every decision back with the
    names the ``actions`` table has (docs/integrity.md, "Speed")."""
    from tests.strata import strata_tables

    with strata_tables(pool) as con:
        types = con.execute(
            "SELECT table_name, column_name, data_type FROM duckdb_columns() "
            "WHERE table_name IN ('idec_n', 'iread_w', 'iq_n', 'istr_n') AND NOT internal"
        ).fetchall()
        assert {str(t) for t, _, _ in types} == {"idec_n", "iread_w", "iq_n", "istr_n"}
        assert [(t, c) for t, c, d in types if "VARCHAR" in str(d)] == []
        for view in ("idec", "istr"):
            (n, wrong) = con.execute(
                f"SELECT count(*), count(*) FILTER (WHERE v.player IS DISTINCT FROM a.player OR v.kind IS DISTINCT FROM a.kind "
                f"OR v.street IS DISTINCT FROM a.street) FROM {view} v JOIN actions a USING (hand_key, seq)"
            ).fetchone() or (0, 0)
            assert n > 5000 and wrong == 0, view
        (n, wrong) = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE b.player IS DISTINCT FROM d.bettor) FROM idec d "
            "JOIN actions b ON b.hand_key = d.hand_key AND b.seq = (SELECT max(seq) FROM actions x WHERE x.hand_key = d.hand_key "
            "AND x.seq < d.seq AND x.kind IN ('bet', 'raise', 'complete', 'bring_in')) WHERE d.bettor IS NOT NULL"
        ).fetchone() or (0, 0)
        assert n > 1000 and wrong == 0
