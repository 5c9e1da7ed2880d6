"""The import's all-in EV alone, on every hand of ``bench/import.py``'s files that has an all-in.  Never a test.

Run: ``python bench/allin_ev.py [--folder bench/.cache/import-100000-10] [--rounds 5]``.

Every hand of the folder (``bench/import.py``'s cached files: run it first)
is read and replayed as the import replays (``explain=False``), untimed;
the hands that pass ``has_all_in`` (the only ones the rows price) are then
priced ``--rounds`` times by ``allin_adjustments``, as ``RowBuilder.add_hand``
prices them.  Printed: the CPU of this process for each round, over every
hand of the folder (what the EV costs the import a hand) and over each hand
priced, and a digest of every pot's figures (exact or sampled, each
contender's expected value and equity): two trees that price alike print
the same digest, the check that a faster pricing still stores the same
``seats.allin_net`` (the EV is seeded: the same draws give the same numbers).
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
from pathlib import Path

from corpus import CACHED, allin_replays  # bench/, this script's folder
from procs import own_cpu as cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", type=Path, default=CACHED)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    total, (results,) = allin_replays(args.folder)

    from hhtool.replay.equities import allin_adjustments, allin_evs

    times = []
    priced = 0
    for _ in range(args.rounds):
        t = cpu()
        priced = sum(bool(allin_adjustments(rep)) for rep in results)
        times.append(cpu() - t)
    digest = hashlib.blake2b(digest_size=8)
    for rep in results:
        for p in allin_evs(rep):
            digest.update(repr((p.index, p.exact, sorted(p.ev.items()), sorted(p.equity.items()))).encode())
    med = statistics.median(times)
    print(f"{total:,} hands, {len(results):,} with an all-in, {priced:,} priced; {args.rounds} rounds")
    print(f"  CPU a round: {', '.join(f'{t:.2f}' for t in times)} s")
    print(f"  median {med / total * 1e6:.1f} µs a hand of the folder, {med / max(priced, 1) * 1e3:.2f} ms a hand priced "
          f"(best {min(times) / total * 1e6:.1f} µs)")
    print(f"  digest of every pot's figures: {digest.hexdigest()}")


if __name__ == "__main__":
    main()
