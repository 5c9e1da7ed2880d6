"""What the all-in benchmarks share: ``bench/import.py``'s cached files, replayed, the hands with an all-in kept.

Not a benchmark: ``bench/run.py`` skips it.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
CACHED = ROOT / "bench" / ".cache" / "import-100000-10"
"""``bench/import.py``'s default files, made and cached by its first run."""

if TYPE_CHECKING:
    from hhtool.replay import Replay


def allin_replays(folder: Path, chunk: int = 0) -> tuple[int, list[list[Replay]]]:
    """Every hand of ``folder`` read and replayed as the import replays (``explain=False``): how many, and those
    that pass ``has_all_in`` (the only ones the rows price), grouped by the chunk of ``chunk`` hands they fall in
    (one group when ``chunk`` is 0).  Exits with a word when the folder is not there."""
    if not folder.is_dir():
        sys.exit(f"{folder}: no such folder; run python bench/import.py first (it makes and caches the files)")
    sys.path.insert(0, str(ROOT))
    from hhtool.history.events import Hand
    from hhtool.history.reader import Cp1252Warning, read_file
    from hhtool.replay import replay
    from hhtool.replay.equities import has_all_in

    warnings.simplefilter("ignore", Cp1252Warning)
    total = 0
    groups: list[list[Replay]] = [[]]
    for f in sorted(p for p in folder.iterdir() if not p.name.startswith(".")):
        for h in read_file(f):
            if isinstance(h, Hand):
                total += 1
                r = replay(h, explain=False)
                if has_all_in(r):
                    groups[-1].append(r)
                if chunk and total % chunk == 0:
                    groups.append([])
    return total, groups
