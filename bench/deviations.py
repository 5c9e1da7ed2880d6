"""Where a simulated room's colluding decisions fall among the integrity screen's spots (never a test; docs/integrity.md).

For each room of ``bench/integrity.py``'s detection part (its cache,
``bench/.cache/integrity/rooms``, at strength 0.5), each deviation the
simulator's manifest records (``room.txt.collusion.jsonl``: the line of
the action, who, what it did, what its bot would have done) is joined by
its line to the screen's decisions (:func:`hhtool.collusion.spots.read_strata`'s
``istr_n``) and counted by where it lies:

- card sharing: in the hidden-cards test's spot (``hb``) with the
  partner among the players whose hidden cards it counts (``beaters``),
  in the spot with the partner not among them, or outside the spot;
- soft play and chip dumping: against the partner (the bettor faced, or
  heads-up the opponent), heads-up or not, or against another.

    python bench/deviations.py --seeds 4305,4306,4307,4308,4313,4315,4316
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ROOMS = ROOT / "bench" / ".cache" / "integrity" / "rooms"


def where(seed: int, pool: int, players: int, hands: int) -> collections.Counter[tuple[str, str, str]]:
    """(kind, would -> did, where) counts of one room's deviations."""
    import duckdb

    from hhtool.collusion import spots
    from hhtool.stats.filters import Filters

    room = ROOMS / f"p{pool}x{players}-{hands}-s{seed}-x0.5"
    if not (room / "room-v2.duckdb").exists() or not (room / "room.txt.collusion.jsonl").exists():
        raise SystemExit(f"bench/deviations.py: no room for seed {seed} in {room}: build it first with "
                         f"python bench/integrity.py --part detection --seeds {seed} --strengths 0.5")
    con = duckdb.connect(str(room / "room-v2.duckdb"), read_only=True)
    spots.scoped_hands(con, Filters())
    spots.decisions(con)
    spots.quick_reads(con)
    spots.read_strata(con)
    pid = dict(con.execute("SELECT player, pid FROM ipl").fetchall())
    rows = {line: (aid, hu, hb, beaters) for line, aid, hu, hb, beaters in con.execute(
        "SELECT a.line, i.aid, i.hu, i.hb, i.beaters FROM istr_n i JOIN actions a ON a.hand_key = i.hand_key AND a.seq = i.seq"
    ).fetchall()}
    pairs: dict[int, dict[str, object]] = {}
    out: collections.Counter[tuple[str, str, str]] = collections.Counter()
    with open(room / "room.txt.collusion.jsonl", encoding="utf-8") as f:
        for text in f:
            e = json.loads(text)
            if e["entry"] == "pair":
                pairs[e["pair"]] = e
                continue
            for d in e["deviations"]:
                pair = pairs[e["pair"]]
                partner = pid.get(str(pair["b"] if d["player"] == pair["a"] else pair["a"]))
                r = rows.get(d["line"])
                if r is None:
                    spot = "no decision of the screen's"
                elif e["kind"] == "card-sharing":
                    aid, hu, hb, beaters = r
                    spot = ("in the spot, the partner counted" if hb and partner in (beaters or []) else
                            "in the spot, the partner not counted" if hb else "outside the spot")
                else:
                    aid, hu, hb, beaters = r
                    spot = ("against the partner" if aid == partner else "against another" if aid else "against nobody") + \
                        (", heads-up" if hu else "")
                out[(str(e["kind"]), f"{d['would']} -> {d['did']}", spot)] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", required=True, help="comma list of rooms already built by bench/integrity.py --part detection")
    ap.add_argument("--pool", type=int, default=30)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--hands", type=int, default=20_000)
    args = ap.parse_args()
    total: collections.Counter[tuple[str, str, str]] = collections.Counter()
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        ap.error(f"--seeds: a comma list of whole numbers, not {args.seeds!r}")
    for seed in seeds:
        total += where(seed, args.pool, args.players, args.hands)
    for (kind, move, spot), n in sorted(total.items()):
        print(f"{kind:13} {move:28} {spot:40} {n:5}")


if __name__ == "__main__":
    main()
