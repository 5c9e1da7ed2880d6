"""The integrity screen's pricing spread over processes (docs/integrity.md, "Speed"): the same figures as in one."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from hhtool.collusion import spots
from hhtool.collusion import screen
from hhtool.collusion.pricing import PricePool, hand_cards, price, price_hands, price_many
from hhtool.collusion.screen import hand_states, price_tasks
from hhtool.simulate import make_config, write_simulation
from hhtool.stats.filters import Filters
from hhtool.store.db import connect
from tests.inprocess import hhtool


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("speed")
    out = folder / "room.txt"
    write_simulation(make_config(rules="classic", seed=86, pool=8), 150, out)
    db = folder / "room.duckdb"
    r = hhtool("import", str(out), "--db", str(db), "--workers", "1")
    assert r.returncode == 0, r.stderr
    return db


def test_pricing_over_two_processes_gives_each_figure_as_one(room: Path) -> None:
    """Each decision is priced alone with the fixed seed: spread over two worker processes, in chunks, every figure is the
    one this process gives, and the one a decision priced by itself gives."""
    con = connect(room, read_only=True)
    try:
        spots.scoped_hands(con, Filters())
        spots.decisions(con)
        spots.quick_reads(con)
        rows = list(spots.candidates(con).iter_rows())[:300]
        tasks = price_tasks(con, rows)
        keys = sorted({int(r[0]) for r in rows})
        cards = hand_cards(spots.cards_of(con, keys), {t[0]: t[2] for t in tasks})
        states = hand_states(con, keys)
    finally:
        con.close()
    assert len({(r[0], r[2]) for r in rows}) > 100
    here = price_many(tasks, workers=1)
    spread = price_many(tasks, workers=2, at_least=0)
    assert sorted(spread, key=lambda x: (x[0], x[1])) == sorted(here, key=lambda x: (x[0], x[1]))
    alone = {}
    for k, seq, player, street in ((t[0], s, p, st) for t in tasks for s, p, st in t[4]):
        st_ = states[k]
        h = cards.get(k)
        alone[(k, seq)] = price(h, player, st_.still_in(seq, player), st_.folded(seq), street) if h is not None else None
    assert {(k, s): v for k, s, v in spread} == alone
    assert any(v is not None for v in alone.values())


def test_a_pool_started_ahead_prices_even_a_few_decisions_as_this_process(room: Path) -> None:
    """Processes started before the screen knows what to price (:meth:`PricePool.start`) take what it hands them, however
    few, and give the figures this process gives, in the tasks' order."""
    con = connect(room, read_only=True)
    try:
        spots.scoped_hands(con, Filters())
        spots.decisions(con)
        spots.quick_reads(con)
        tasks = price_tasks(con, list(spots.candidates(con).iter_rows())[:40])
    finally:
        con.close()
    with PricePool(2) as pool:
        pool.start()
        pending = pool.submit(tasks)
        assert pending.parts and not pending.here  # handed to the processes, below PARALLEL_FROM
        assert pending.result() == price_hands(tasks)


def test_the_screen_with_its_pool_started_ahead_is_the_same(room: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A room large enough to start the pricing processes before the passes is screened as one whose few decisions are
    priced in this process."""
    here = screen(room, cache=False)
    monkeypatch.setattr(importlib.import_module("hhtool.collusion.screen"), "POOL_EARLY_FROM", 0)
    ahead = screen(room, cache=False)
    assert here.priced > 0 and ahead.priced == here.priced
    assert ahead.pairs.equals(here.pairs) and ahead.signals.equals(here.signals)
