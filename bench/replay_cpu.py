"""The replay's CPU a hand: the same 10,000 simulated hands replayed N times in one process, the best pass.  Never a test.

Run: ``python bench/replay_cpu.py [N]`` (default 7).  Process time, not a wall clock, and the best of
several passes, so that two trees (say, before and after a change) compare on a machine whose wall-clock
figures spread by a factor of two; the imports fall back to the flat layout of earlier trees.
"""
from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hhtool.replay import replay  # noqa: E402
from hhtool.simulate import simulate_text  # noqa: E402
from hhtool.simulate.config import make_config  # noqa: E402


def _reader() -> tuple[Any, type]:
    """``read_text`` and ``Hand``, from the layout by stage or the flat one of earlier trees."""
    try:
        reader, events = importlib.import_module("hhtool.history.reader"), importlib.import_module("hhtool.history.events")
    except ImportError:
        reader, events = importlib.import_module("hhtool.reader"), importlib.import_module("hhtool.events")
    return reader.read_text, events.Hand


def main() -> None:
    read_text, hand_type = _reader()
    text, _ = simulate_text(make_config(rules="classic", structure="fixed", players=6, seed=2026), 10000)
    hands: list[Any] = [r for r in read_text(text) if isinstance(r, hand_type)]
    for h in hands[:500]:
        replay(h)
    best = 1e9
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 7):
        t = time.process_time()
        for h in hands:
            replay(h)
        best = min(best, time.process_time() - t)
    print(f"replay, best pass of the same {len(hands):,} hands: {len(hands) / best:,.0f} hands/s, {best / len(hands) * 1e6:.1f} µs of CPU a hand")


if __name__ == "__main__":
    main()
