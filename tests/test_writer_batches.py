"""The writer's batch: inserted a group at a time, one transaction, committed whole or not at all (a real DuckDB file)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from hhtool.store.db import connect
from hhtool.store.summary import ImportSummary
from hhtool.store.worker import ChunkResult, ChunkTask, process_chunk
from hhtool.store.writer import Writer
from tests.storegen import hand

CHUNK = 10  # hands a chunk result


def _chunks(count: int) -> list[ChunkResult]:
    """``count`` chunk results of :data:`CHUNK` good hands each, as a worker makes them, every hand id new."""
    out = []
    for c in range(count):
        text = "\n\n".join(hand(f"W{c:03d}{h:03d}") for h in range(CHUNK)) + "\n"
        result = process_chunk(ChunkTask(c, 0, f"/in/w{c}.txt", text.encode(), 0, False))
        assert result.hands == CHUNK and not result.failed
        out.append(result)
    return out


def _hands(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str]]:
    return [(int(r[0]), str(r[1])) for r in con.execute("SELECT hand_key, hand_id FROM hands ORDER BY hand_key").fetchall()]


def test_a_batch_is_inserted_a_group_at_a_time_and_seen_by_others_only_once_committed(tmp_path: Path) -> None:
    """Groups of 20 hands go into the open transaction as they fill (the writer holds no more than a group's frames);
    another cursor sees none of them until the batch of 50 commits, then all; the summary counts only what is committed."""
    con = connect(tmp_path / "h.duckdb")
    other = con.cursor()  # another reader of the same database: sees committed rows only
    commits: list[int] = []
    summary = ImportSummary()
    writer = Writer(con, summary, batch_hands=50, on_commit=commits.append, group_hands=20)
    chunks = _chunks(6)
    for result in chunks[:4]:  # 40 hands: two groups inserted, no commit
        writer.add(result, None)
    assert not writer.pending  # inserted, not held
    assert len(_hands(con)) == 40  # in the writer's transaction
    assert _hands(other) == [] and commits == [] and summary.stored == 0
    writer.add(chunks[4], None)  # 50 hands: the batch commits
    assert commits == [50] and summary.stored == 50
    assert [k for k, _ in _hands(other)] == list(range(1, 51))
    writer.add(chunks[5], None)
    writer.flush()
    assert commits == [50, 60] and summary.stored == 60
    assert len(_hands(other)) == 60
    con.close()


def test_a_batch_given_up_before_its_commit_leaves_nothing_and_the_keys_go_on_unbroken(tmp_path: Path) -> None:
    """A rollback (an interrupted import) after groups were inserted: nothing of them stored or counted, and the
    same hands written again get the keys they would have had (no gap where the rolled-back batch was)."""
    con = connect(tmp_path / "h.duckdb")
    summary = ImportSummary()
    writer = Writer(con, summary, batch_hands=1_000, group_hands=CHUNK)
    chunks = _chunks(3)
    for result in chunks:
        writer.add(result, None)
    assert len(_hands(con)) == 30
    writer.rollback()
    assert _hands(con) == [] and summary.stored == 0 and summary.duplicates == 0 and summary.verdicts == {}
    for result in chunks:
        writer.add(result, None)
    writer.flush()
    stored = _hands(con)
    assert [k for k, _ in stored] == list(range(1, 31)) and len({i for _, i in stored}) == 30
    assert summary.stored == 30 and summary.duplicates == 0
    writer.flush()  # nothing held, nothing open: no commit, nothing counted twice
    assert summary.stored == 30
    con.close()


def _disputed(hand_id: str) -> str:
    """The example hand with bob's win paid to alice: the audit disputes it."""
    text = hand(hand_id).replace("bob collected €10.90 from pot", "alice collected €10.90 from pot")
    return text.replace("and lost with two pair", "and won (€10.90) with two pair").replace(
        "and won (€10.90) with two pair, Queens and Jacks\nSeat 3", "and lost with two pair, Queens and Jacks\nSeat 3"
    )


def test_a_group_of_new_hands_is_counted_as_the_loop_over_its_hands_counts_it(tmp_path: Path) -> None:
    """A group whose hands are all new is counted in polars, one with a hand twice in the Python loop: the same
    hands, the same keys, the same verdict counts in the order first seen (the summary's), the copy a duplicate."""
    texts = [_disputed("V-1"), hand("V-2"), _disputed("V-3"), hand("V-4")]
    chunk = "\n\n".join(texts) + "\n"
    twice = "\n\n".join([*texts, texts[1]]) + "\n"  # V-2 again in the same group
    seen = []
    for i, data in enumerate((chunk, twice)):
        con = connect(tmp_path / f"v{i}.duckdb")
        summary = ImportSummary()
        writer = Writer(con, summary, batch_hands=1_000)
        writer.add(process_chunk(ChunkTask(0, 0, "/in/v.txt", data.encode(), 0, False)), None)
        writer.flush()
        seen.append((list(summary.verdicts.items()), summary.stored, summary.duplicates, _hands(con)))
        con.close()
    assert seen[0][0] == [("disputed", 2), ("ok", 2)]
    assert seen[0][:2] == seen[1][:2] and seen[0][3] == seen[1][3]
    assert (seen[0][2], seen[1][2]) == (0, 1)
