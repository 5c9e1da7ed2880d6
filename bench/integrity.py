"""How well the integrity screen finds: simulated rooms with known colluding pairs, the rank each pair gets.

Run: ``python bench/integrity.py --out DIR SEED... [--honest SEED...] [--hands 20000] [--pool 30] [--strength 0.5]``.
Never a test.

Each colluding seed is a room of ``--hands`` hands at 6-max, ``--pool``
players rotating, three colluding pairs (soft play, chip dumping, card
sharing) at ``--strength`` (``hhtool simulate``'s ``--collude``); each
honest seed the same room without them.  Rooms are made and imported
into ``DIR`` once (kept: a second run only screens).  Per room: each
colluding pair's rank among the pairs and its lead, the best innocent
pair's lead, and the leads' counts.  The acceptance: every colluding pair
ranks above every innocent pair; with no collusion, no ``strong`` or
``moderate`` lead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

KINDS = ("soft-play", "chip-dumping", "card-sharing")


def room(out: Path, seed: int, hands: int, pool: int, strength: float | None) -> Path:
    """The room's database, made and imported unless it is there already."""
    from hhtool.simulate import make_config, write_simulation
    from tests.inprocess import hhtool

    name = f"{'c' if strength else 'h'}{seed}"
    db = out / f"{name}.duckdb"
    if db.exists():
        return db
    text = out / f"{name}.txt"
    collude = [f"{k}:{strength}" for k in KINDS] if strength else []
    write_simulation(make_config(rules="classic", seed=seed, pool=pool, collude=collude), hands, text)
    r = hhtool("import", str(text), "--db", str(db), "--workers", "1")
    if r.returncode != 0:
        sys.exit(r.stderr)
    return db


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", nargs="*", type=int)
    ap.add_argument("--honest", nargs="*", type=int, default=[])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--pool", type=int, default=30)
    ap.add_argument("--strength", type=float, default=0.5)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from hhtool.collusion import screen

    print("| seed | " + " | ".join(KINDS) + " | best innocent | leads |")
    print("|---|" + "---|" * (len(KINDS) + 2))
    for seed, strength in [(s, args.strength) for s in args.seeds] + [(s, None) for s in args.honest]:
        db = room(args.out, seed, args.hands, args.pool, strength)
        t = time.perf_counter()
        s = screen(db)
        took = time.perf_counter() - t
        manifest = db.with_suffix(".txt.collusion.jsonl")
        colluding: dict[tuple[str, str], str] = {}
        if manifest.exists():
            for line in manifest.read_text(encoding="utf-8").splitlines():
                e = json.loads(line)
                if e.get("entry") == "pair":
                    a, b = sorted([e["a"], e["b"]])
                    colluding[(a, b)] = e["kind"]
        found: dict[str, str] = {}
        innocent = ""
        for r in s.pairs.iter_rows(named=True):
            kind = colluding.get((r["a_name"], r["b_name"]))
            if kind:
                found[kind] = f"{r['rank']} ({r['lead']})"
            elif not innocent:
                innocent = f"{r['rank']} ({r['lead']})"
        leads = dict(s.pairs.group_by("lead").len().rows()) if s.pairs.height else {}
        cells = [found.get(k, "-") for k in KINDS] if strength else ["-"] * len(KINDS)
        counts = ", ".join(f"{k} {leads[k]}" for k in ("strong", "moderate", "weak") if k in leads) or "none"
        print(f"| {seed}{'' if strength else ' (honest)'} | " + " | ".join(cells) + f" | {innocent} | {counts} |  <!-- {took:.0f} s -->")


if __name__ == "__main__":
    main()
