"""The decision model of the dumping signal (hhtool/collusion/model.py; docs/integrity.md, "Strata"): it recovers a known
logistic from synthetic decisions, and a decision the player almost never makes weighs more than one it often makes."""

from __future__ import annotations

import math
from random import Random

import numpy as np
import polars as pl

from hhtool.collusion import model

PLAYERS = [f"p{i:02d}" for i in range(12)]


def _sc(street: int, bets: int, cat: int, top: int, shown: int = 0, hu: int = 0) -> int:
    """A facing decision's stratum number, as :func:`hhtool.collusion.spots.read_strata` packs it."""
    rank_class = 2 if top >= 12 else 1 if top >= 10 else 0
    return (((2 + hu) * 8 + street) * 8 + bets) * 32 + 1 + 6 * cat + 2 * rank_class + shown


def _truth(looseness: float, street: int, cat: int, top: int) -> float:
    """A made-up honest player: goes on more with a better hand, less on later streets, by its own looseness."""
    strength = cat + (top - 2) / 13.0
    return 1.0 / (1.0 + math.exp(-(looseness + 2.2 * (strength - 1.0) - 0.3 * street)))


def _room(seed: int, per_cell: int) -> tuple[pl.DataFrame, dict[str, float]]:
    """Every player facing every other's bet at each street and read, ``per_cell`` times, going on with :func:`_truth`."""
    rng = Random(seed)
    loose = {p: rng.uniform(-1.0, 1.0) for p in PLAYERS}
    rows: list[tuple[str, str, str, int, int, int, int, int]] = []
    for p in PLAYERS:
        for o in PLAYERS:
            if o == p:
                continue
            for street in (2, 3, 4):
                for cat, top in ((0, 9), (0, 13), (0, 14), (1, 5), (1, 11), (1, 14), (2, 8), (3, 12)):
                    go = sum(rng.random() < _truth(loose[p], street, cat, top) for _ in range(per_cell))
                    rows.append(("S", p, o, _sc(street, 1, cat, top), 16 * cat + top, 3, per_cell, per_cell - go))
    schema = {"site": pl.String, "player": pl.String, "against": pl.String, "sc": pl.Int64, "mq": pl.Int64, "pin": pl.Int64,
              "n": pl.Int64, "folds": pl.Int64}
    return pl.DataFrame(rows, schema=schema, orient="row"), loose


def test_the_model_recovers_a_known_logistic() -> None:
    """Fitted on 40,000 synthetic decisions, each cell's probability of going on is within a few points of the truth."""
    df, loose = _room(7, 6)
    index = {p: i for i, p in enumerate(PLAYERS)}
    c = model.cells_of([index[p] for p in df["player"]], [index[o] for o in df["against"]], df["sc"].to_list(), df["mq"].to_list(),
                       df["pin"].to_list(), df["n"].to_list(), df["folds"].to_list())
    f = model.fit(c, len(PLAYERS))
    got = 1.0 / (1.0 + np.exp(-model.linear(f, c)))
    sc = df["sc"].to_numpy()
    street, read = (sc // 256) % 8, sc % 32
    want = np.array([_truth(loose[p], int(s), int((r - 1) // 6), int(q) % 16)
                     for p, s, r, q in zip(df["player"], street, read, df["mq"])])
    assert float(np.max(np.abs(got - want))) < 0.12
    assert float(np.mean(np.abs(got - want))) < 0.025
    # the players' own terms follow their looseness
    assert float(np.corrcoef([f.a[index[p]] for p in PLAYERS], [loose[p] for p in PLAYERS])[0, 1]) > 0.95


def test_a_decision_the_player_seldom_makes_weighs_more() -> None:
    """Six calls of p00 into p01's bets: with the weakest hand, which p00 folds almost always, they make a lead; with a
    middling one, which it calls half the time, none.  The pair's own decisions do not make p00 look loose."""
    df, _ = _room(11, 6)
    pairs = sorted({("S", min(p, o), max(p, o)) for p, o in zip(df["player"], df["against"])})

    def with_calls(sc: int, mq: int) -> pl.DataFrame:
        return pl.concat([df, pl.DataFrame([("S", "p00", "p01", sc, mq, 3, 6, 0)], orient="row", schema=df.schema)])

    weak, middling = _sc(4, 1, 0, 9), _sc(4, 1, 1, 11)
    rows_weak = model.dumping(with_calls(weak, 9), pairs, "d", "")
    rows_mid = model.dumping(with_calls(middling, 16 + 11), pairs, "d", "")
    honest = model.dumping(df, pairs, "d", "")
    z_weak = rows_weak[("S", "p00", "p01")].z or 0.0
    z_mid = rows_mid[("S", "p00", "p01")].z or 0.0
    z_honest = honest[("S", "p00", "p01")].z or 0.0
    assert z_weak > z_mid + 1.0 and z_weak > 2.0
    assert abs(z_honest) < 2.0
    assert max((r.z or 0.0) for p, r in rows_weak.items() if p != ("S", "p00", "p01")) < 3.0
