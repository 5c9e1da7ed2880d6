"""A fixed workload for instruction counts, which the machine's load does not change.  Never a test.

Run under callgrind, once a mode, the same hands file for both trees compared (say, two builds)::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/instructions.py MODE HANDS

``MODE``: ``setup`` (the imports and the file read only), ``replay`` (parse the hands, replay each three
times) or ``import`` (the import's worker on the whole file: parse, replay, rows, frames).  The mode's
instructions less ``setup``'s, over the hands (three times the hands for ``replay``), are its
instructions a hand.  ``HANDS``: a file of hands, for example 300 simulated ones::

    python -c "from hhtool.simulate import simulate_text; from hhtool.simulate.config import make_config; \\
        print(simulate_text(make_config(rules='classic', structure='fixed', players=6, seed=2026), 300)[0], end='')" > hands.txt
"""
from __future__ import annotations

import sys
from pathlib import Path

import polars  # noqa: F401  (the worker's frames: imported in every mode, so that a mode less setup is its work)

from hhtool.history.events import Hand
from hhtool.history.reader import read_text
from hhtool.replay import replay
from hhtool.store.worker import ChunkTask, process_chunk


def main() -> None:
    mode, path = sys.argv[1], Path(sys.argv[2])
    data = path.read_bytes()
    if mode == "replay":
        hands = [h for h in read_text(data.decode()) if isinstance(h, Hand)]
        for _ in range(3):
            for h in hands:
                replay(h, explain=False)
        print(f"{len(hands)} hands replayed 3 times", file=sys.stderr)
    elif mode == "import":
        result = process_chunk(ChunkTask(0, 0, path.name, data, 0, False))
        print(f"{result.hands} hands, {result.failed} failed, {result.replay_errors} replay errors", file=sys.stderr)
    elif mode != "setup":
        sys.exit(f"usage: {sys.argv[0]} setup|replay|import HANDS")


if __name__ == "__main__":
    main()
