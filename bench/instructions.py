"""A fixed workload for instruction counts, which the machine's load does not change.  Never a test.

Run under callgrind, once a mode, the same hands file for both trees compared (say, two builds)::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/instructions.py MODE HANDS

``MODE``: ``setup`` (the imports and the file read only), ``replay`` (parse the hands, replay each three
times), ``import`` (the import's worker on the whole file: parse, replay, rows, frames), ``chunks`` (the
worker's steady work, counted alone: see :func:`_chunks`) or ``stages`` (the same work a stage at a time, a
dump each: see :func:`_stages`; ``python bench/instructions.py sum-stages OUT HANDS`` adds the dumps up by stage).  The mode's
instructions less ``setup``'s, over the hands (three times the hands for ``replay``), are its
instructions a hand.  ``keys`` and ``keys-setup`` take a profile's name in place of ``HANDS``: both draw
10,000 random six-card sets of the 32-card deck (seed 7) and warm ``key_function()`` on them; ``keys``
then keys them three times, so (keys less keys-setup) / 30,000 is the instructions of one key.  ``HANDS``: a file of hands, for example 300 simulated ones::

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
    if mode == "sum-stages":
        _sum_stages(sys.argv[2], int(sys.argv[3]))
        return
    if mode in ("keys", "keys-setup"):
        _keys(sys.argv[2], 3 if mode == "keys" else 0)
        return
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
    elif mode == "chunks":
        _chunks(path, data)
    elif mode == "stages":
        _stages(path, data)
    elif mode != "setup":
        sys.exit(f"usage: {sys.argv[0]} setup|replay|import|chunks|stages HANDS, sum-stages OUT HANDS, or keys|keys-setup PROFILE")


def _chunks(path: Path, data: bytes) -> None:
    """The worker's steady work a hand: ``data`` cut into chunks of about 1 MB at blank lines, as the import
    cuts a file, each parsed, replayed, made rows and frames and pickled, after one warm chunk; the all-in EV
    left out (its cost is its corpus's, ``bench/allin_ev.py``).  Only the chunks are counted under
    ``--zero-before=zlib_crc32 --dump-before=binascii_crc32``: read the dump that ends in ``.1``."""
    import binascii
    import pickle
    import zlib

    import hhtool.store.rows as rows

    def no_ev(result: object) -> dict[str, int]:
        return {}

    setattr(rows, "allin_adjustments", no_ev)  # the compiled module reads its global at each call
    chunks = _cut(data)
    process_chunk(ChunkTask(0, 0, path.name, chunks[0][:200_000], 0, False))
    zlib.crc32(b"")  # the counters start here
    hands = 0
    for k, chunk in enumerate(chunks):
        result = process_chunk(ChunkTask(0, k, path.name, chunk, 0, False))
        pickle.dumps(result, protocol=5)
        hands += result.hands
    binascii.crc32(b"")  # and are written here
    print(f"{hands} hands in {len(chunks)} chunks", file=sys.stderr)


STAGES = ("split", "parse", "replay", "rows", "free hands", "frames", "free rows", "pickle", "free result")
"""The stages of :func:`_stages`, in the order of their dumps within a chunk."""


def _cut(data: bytes) -> list[bytes]:
    """``data`` in chunks of about 1 MB cut at blank lines, as the import cuts a file."""
    chunks, i = [], 0
    while i < len(data):
        j = data.find(b"\n\n", i + (1 << 20))
        j = len(data) if j < 0 else j + 2
        chunks.append(data[i:j])
        i = j
    return chunks


def _stages(path: Path, data: bytes) -> None:
    """:func:`_chunks`' work a stage at a time over each chunk, ``binascii.crc32`` between stages: under
    ``--zero-before=zlib_crc32 --dump-before=binascii_crc32`` each stage of each chunk is a dump of its own
    (:data:`STAGES`, from the ``.2`` dump on).  The worker does the same steps hand by hand
    (``worker._process_chunk``); done stage by stage, each hand's objects are freed in a stage of their own."""
    import binascii
    import gc
    import pickle
    import warnings
    import zlib

    import hhtool.store.rows as rows
    from hhtool.history.parse import parse_hand_text
    from hhtool.history.reader import Skipped
    from hhtool.store import worker
    from hhtool.store.rows import RowBuilder
    from hhtool.store.worker import ChunkResult

    def no_ev(result: object) -> dict[str, int]:
        return {}

    setattr(rows, "allin_adjustments", no_ev)
    chunks = _cut(data)
    process_chunk(ChunkTask(0, 0, path.name, chunks[0][:200_000], 0, False))
    warnings.simplefilter("ignore")
    zlib.crc32(b"")
    mark = binascii.crc32
    hands = 0
    for k, chunk in enumerate(chunks):
        mark(b"")  # split
        gc.disable()
        task = ChunkTask(0, k, path.name, chunk, 0, False)
        items: list[tuple[int, str]] = []
        for item in worker._hand_texts(task, []):
            if not isinstance(item, Skipped) and isinstance(item[1], str):
                items.append((item[0], item[1]))
        mark(b"")  # parse
        parsed = [(parse_hand_text(text, first_line=start, source=task.source), text) for start, text in items]
        mark(b"")  # replay
        result = ChunkResult(0, k, {})
        replays = [worker._replay(hand, None, result) for hand, _ in parsed]
        mark(b"")  # rows
        builder = RowBuilder(worker._RESERVE)
        for (hand, text), (rep, error) in zip(parsed, replays):
            builder.add_hand(hand, text, task.source, 0, rep, error)
            result.hands += 1
        worker._RESERVE.update((table, n + n // 4) for table, n in builder.sizes().items())
        mark(b"")  # free hands
        del parsed, replays, items, hand, text, rep, error
        mark(b"")  # frames
        result.frames = worker._frames(builder, result)
        mark(b"")  # free rows
        del builder
        mark(b"")  # pickle
        pickle.dumps(result, protocol=5)
        hands += result.hands
        mark(b"")  # free result
        del result
        gc.enable()
    mark(b"")
    print(f"{hands} hands in {len(chunks)} chunks", file=sys.stderr)


def _sum_stages(out: str, hands: int) -> None:
    """The instructions a hand of each stage, from the dumps ``OUT.2`` on of a ``stages`` run."""
    import re

    total: dict[str, int] = {}
    k = 2
    while Path(f"{out}.{k}").exists():
        m = re.search(r"^summary: (\d+)", Path(f"{out}.{k}").read_text(errors="replace"), re.M)
        stage = STAGES[(k - 2) % len(STAGES)]
        total[stage] = total.get(stage, 0) + (int(m.group(1)) if m else 0)
        k += 1
    for stage in STAGES:
        print(f"{stage:12s} {total.get(stage, 0) / hands:10,.0f} a hand")
    print(f"{'all':12s} {sum(total.values()) / hands:10,.0f} a hand")


def _keys(name: str, times: int) -> None:
    """Key the same random six-card sets ``times`` times with the profile's key function, warmed first."""
    import random

    from hhtool.game.cards import deck_cards
    from hhtool.game.keys import key_function
    from hhtool.game.rules import profile

    key = key_function(profile(name), 7)
    rng = random.Random(7)
    sets = [rng.sample(deck_cards(7), 6) for _ in range(10_000)]
    for cards in sets:
        key(cards)
    for _ in range(times):
        for cards in sets:
            key(cards)


if __name__ == "__main__":
    main()
