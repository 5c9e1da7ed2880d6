"""The ``dumping`` signal alone, by the decision model and its variants, on the detection bench's rooms (issue 42).

Never a test.  For each seed's room at strength 0.5 (``bench/integrity.py``
builds it; ``bench/.cache/integrity/rooms``): the share of the room's
decisions facing a bet whose read is a full house or better (what the
exact made hand's x reads apart from a read capped at trips), then the
chip-dumping pair's ``dumping`` z and rank among the room's pairs against
the innocent pairs' largest, by the model as built
(:func:`hhtool.collusion.model.dumping`), the strata's score sum (u - q)/q
on the model's rates, each without the per-player floor, without the
bettor's term, and with the player's slope drawn less (ridge 1).

    python bench/dumping_probe.py 912 961 4306
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl

from hhtool.collusion import model
from hhtool.collusion import signals as sg
from hhtool.collusion.passes import Passes
from hhtool.collusion.screen import room_of
from hhtool.stats.filters import Filters

ROOMS = Path(__file__).resolve().parent / ".cache" / "integrity" / "rooms"


def grain(cells: pl.DataFrame, pairs: list[sg.Pair]) -> dict[sg.Pair, sg.Row]:
    """``dumping`` with the model's rates and the strata's score, sum (u - q)/q, q = min(p, 1 - p) at least GRAIN_FLOOR."""
    names = pl.concat([cells.select("site", pl.col("player").alias("name")), cells.select("site", pl.col("against").alias("name"))]) \
        .filter(pl.col("name") != "").unique().sort("site", "name").with_row_index("i")
    index = {(str(s), str(nm)): int(i) for i, s, nm in names.select("i", "site", "name").iter_rows()}
    pi = np.array([index[(s, p)] for s, p in zip(cells["site"], cells["player"])])
    ai = np.array([index.get((s, a), -1) for s, a in zip(cells["site"], cells["against"])])
    ai = np.where(ai == pi, -1, ai)
    c = model.cells_of(pi, ai, cells["sc"].to_numpy(), cells["mq"].to_numpy(), cells["pin"].to_numpy(), cells["n"].to_numpy(),
                       cells["folds"].to_numpy())
    fold = 1.0 - model.pair_rates(model.fit(c, len(index)), c)
    t = np.flatnonzero(c.against >= 0)
    n, p = c.n[t], fold[t]
    folds = n - c.go[t]
    q = np.maximum(sg.GRAIN_FLOOR, np.minimum(p, 1 - p))
    u = np.where(p < 0.5, folds, n - folds)
    parts = np.stack([n, (u - n * q) / q, n * (1 - q) / q, u, n * q, n * (1 - q) * (1 - 2 * q) / (q * q)])
    lo, hi = np.minimum(c.player[t], c.against[t]), np.maximum(c.player[t], c.against[t])
    keys, inv = np.unique(lo * len(index) + hi, return_inverse=True)
    sums = np.stack([np.bincount(inv, weights=r, minlength=len(keys)) for r in parts])
    accounts = list(index)
    acc: dict[sg.Pair, list[float]] = {}
    for j, k in enumerate(keys.tolist()):
        (s, a), (_, b) = accounts[k // len(index)], accounts[k % len(index)]
        acc[(s, a, b) if a < b else (s, b, a)] = sums[:, j].tolist()
    return sg.scored_rows("dumping", acc, pairs, "d", "{obs}{n}{expect}")


def show(seed: int, name: str, rows: dict[sg.Pair, sg.Row], pair: frozenset[str]) -> None:
    zs = sorted(((r.z if r.z is not None else -9.0), p) for p, r in rows.items())[::-1]
    rank, z = next((i + 1, z) for i, (z, p) in enumerate(zs) if frozenset(p[1:]) == pair)
    best = max(z for z, p in zs if frozenset(p[1:]) != pair)
    print(f"  {seed} {name:30} the pair's z {z:5.2f} (#{rank}), the innocent pairs' largest {best:5.2f}", flush=True)


def main(seeds: list[int]) -> None:
    for seed in seeds:
        folder = ROOMS / f"p30x6-20000-s{seed}-x0.5"
        pair = next(frozenset((e["a"], e["b"])) for e in map(json.loads, open(folder / "room.txt.collusion.jsonl", encoding="utf-8"))
                    if e["entry"] == "pair" and e["kind"] == "chip-dumping")
        con = duckdb.connect(str(next(folder.glob("room-v*.duckdb"))), read_only=True)
        kept = Passes(con, room_of(Filters()), None)
        ph = kept.pair_hands()
        pairs: list[sg.Pair] = [(s, a, b) for s, a, b in zip(ph["site"], ph["a"], ph["b"])]
        cells = kept.facing_cells()
        total, fh = int(cells["n"].sum()), int(cells.filter(pl.col("mq") >= 64)["n"].sum())
        print(f"seed {seed}: {total:,} decisions facing a bet, {fh:,} ({fh / total:.2%}) with a full house or better", flush=True)
        st = kept.strata()
        facing = [(site, p, o, x, int(n), int(f)) for site, p, o, x, n, f, _ in st.iter_rows() if x[0] == "F"]
        show(seed, "the strata (the screen as it is)", sg.stratified("dumping", facing, pairs, lambda x: True, "grain", "d",
                                                                     "{obs}{n}{expect}"), pair)

        def dump() -> dict[sg.Pair, sg.Row]:
            return model.dumping(cells, pairs, "d", "{obs}{n}{expect}")

        show(seed, "the model as built (LLR)", dump(), pair)
        show(seed, "score sum (u - q)/q", grain(cells, pairs), pair)
        variants: list[tuple[str, str, Any]] = [("JUNK", "no floor", -1.0), ("RIDGE_BETTOR", "no bettor's term", 1e9),
                                                ("RIDGE_PLAYER_SLOPE", "the player's slope ridge 1", 1.0)]
        for attr, name, value in variants:
            old = getattr(model, attr)
            setattr(model, attr, value)
            try:
                show(seed, f"LLR, {name}", dump(), pair)
                if attr == "JUNK":
                    show(seed, f"sum (u - q)/q, {name}", grain(cells, pairs), pair)
            finally:
                setattr(model, attr, old)
        con.close()


if __name__ == "__main__":
    main([int(s) for s in sys.argv[1:]])
