"""Size bounds (``hhtool/history/bounds.py``): a line over 4,096 characters or a hand over 262,144 is cut where it is read.

In process: the reader's failed hand says how long the line or hand was
and keeps the hand's first part; the import stores the same failed hand
(its chunker counts what it does not send); the counting of bytes not kept
agrees with decoding them; Lark is never asked about a line over the bound,
and is asked about one at the bound.  The processes (peak memory, the
128 MiB line) are in ``test_bounds_size_cli.py``.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hhtool.history.bounds import MAX_HAND_CHARS, MAX_LINE_CHARS
from hhtool.history.errors import ErrorRecord, HandParseError
from hhtool.history.events import Hand
from hhtool.history.parse import parse_hand
from hhtool.history.reader import Skipped, Tally, read_file, read_stream, read_text
from hhtool.store.importer import import_paths, read_chunks
from tests.sample_paths import SAMPLES

EXAMPLE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8").strip("\n")


def hand(hand_id: str) -> list[str]:
    return EXAMPLE.replace("C-1001", hand_id).split("\n")


def with_line(hand_id: str, line: str, at: int = 12) -> list[str]:
    """A hand with ``line`` inserted before its line ``at`` (0-based; 12 is within 2nd street)."""
    lines = hand(hand_id)
    lines.insert(at, line)
    return lines


def join(*hands: list[str]) -> str:
    return "\n\n".join("\n".join(h) for h in hands) + "\n"


def records(text: str) -> tuple[list[str], list[ErrorRecord], int]:
    recs = list(read_stream(io.BytesIO(text.encode("utf-8")), "f.txt"))
    hands = [r.header.hand_id for r in recs if isinstance(r, Hand)]
    errors = [r for r in recs if isinstance(r, ErrorRecord)]
    junk = sum(r.count for r in recs if isinstance(r, Skipped))
    return hands, errors, junk


def test_a_5_mb_line_fails_its_hand_only_with_its_length() -> None:
    text = join(hand("G-1"), with_line("G-2", "Dealt to alice " + "[" * 5_000_000), hand("G-3"))
    hands, errors, junk = records(text)
    assert hands == ["G-1", "G-3"] and junk == 0
    (e,) = errors
    line = len(hand("G-1")) + 1 + 13  # the G-1 lines, the blank line, then G-2's 13th line
    assert (e.kind, e.hand_id, e.line, e.column) == ("parse", "G-2", line, MAX_LINE_CHARS + 1)
    assert e.message.startswith("the line is 5,000,015 characters long; the longest accepted is 4,096 (the text kept is cut")
    assert f"{line}:4097: parse: the line is 5,000,015 characters long" in str(e) and "[hand G-2]" in str(e)
    # the text kept: the hand up to the long line, that line cut to the bound
    kept = hand("G-2")[:12] + ["Dealt to alice " + "[" * (MAX_LINE_CHARS - 15)]
    assert e.raw == "\n".join(kept) + "\n"
    assert e.line_text == kept[-1]
    assert f"{len(e.raw):,} of the hand's {len(e.raw) - MAX_LINE_CHARS + 5_000_015 + sum(len(x) + 1 for x in hand('G-2')[12:]):,} characters" in e.message


def test_a_hand_over_the_bound_keeps_its_first_part() -> None:
    chatter = ['bob said, "hi"'] * 20_000  # 300,000 characters of lines each within the bound
    big = hand("G-2")
    big[12:12] = chatter
    hands, errors, _ = records(join(hand("G-1"), big, hand("G-3")))
    assert hands == ["G-1", "G-3"]
    (e,) = errors
    size = sum(len(x) + 1 for x in big)
    assert e.message.startswith(f"the hand is {size:,} characters long; the largest accepted is {MAX_HAND_CHARS:,}")
    assert e.line == len(hand("G-1")) + 2 and e.hand_id == "G-2" and e.column is None
    assert len(e.raw) <= MAX_HAND_CHARS and "\n".join(big).startswith(e.raw[:-1])
    assert f"of its {len(big):,} lines" in e.message


def test_within_the_bounds_nothing_changes() -> None:
    line = 'bob said, "' + "x" * (MAX_LINE_CHARS - 12) + '"'
    assert len(line) == MAX_LINE_CHARS
    hands, errors, _ = records(join(hand("G-1"), with_line("G-2", line)))
    assert hands == ["G-1", "G-2"] and errors == []
    hands, errors, _ = records(join(with_line("G-2", line + "x")))
    assert hands == [] and errors[0].message.startswith("the line is 4,097 characters long")


def test_a_line_without_a_line_end_is_not_held(tmp_path: Path) -> None:
    """Read by the file reader, 16 KB at most of the line is held; its length is counted to the end."""
    path = tmp_path / "h.txt"
    with path.open("wb") as f:
        f.write((join(hand("G-1")) + "\n" + hand("G-2")[0] + "\n").encode())
        for _ in range(24):
            f.write(b"x" * (1 << 20))
    recs = list(read_file(path))
    assert [type(r) for r in recs] == [Hand, ErrorRecord]
    e = recs[1]
    assert isinstance(e, ErrorRecord)
    assert e.message.startswith(f"the line is {24 << 20:,} characters long") and "2 of its 2 lines" in e.message
    assert e.raw == hand("G-2")[0] + "\n" + "x" * MAX_LINE_CHARS + "\n"


@pytest.mark.parametrize(
    "case",
    ["line", "line_in_chunk", "hand", "big_hand", "crlf", "utf8", "cp1252", "junk", "no_line_end", "long_junk_line"],
)
def test_import_stores_what_the_reader_reports(tmp_path: Path, case: str) -> None:
    """The chunker sends an over-long hand's first part and counts the rest; the failed row is the reader's record."""
    g1, g3 = hand("G-1"), hand("G-3")
    big = hand("G-2")
    encoding = "utf-8"
    if case == "line":
        text = join(g1, with_line("G-2", "Dealt to alice " + "(" * 5_000_000), g3)
    elif case == "line_in_chunk":  # shorter than a chunk: cut by the worker's reader, not the chunker
        text = join(g1, with_line("G-2", "Dealt to alice " + "(" * 1_500_000), g3)
    elif case == "hand":
        big[12:12] = ['bob said, "hi"'] * 20_000
        text = join(g1, big, g3)
    elif case == "big_hand":  # 3 MB of short lines, then a header with no blank line before it
        big[12:12] = ['bob said, "hi"'] * 200_000
        text = join(g1, big)[:-1] + "\n" + join(g3)
    elif case == "crlf":
        big[12:12] = ['bob said, "hi"'] * 200_000
        text = join(g1, with_line("G-4", "Dealt to alice " + "[" * 3_000_000), big, g3).replace("\n", "\r\n")
    elif case == "utf8":
        text = join(g1, with_line("G-2", 'bob said, "' + "é€" * 1_500_000 + '"'), g3)
    elif case == "cp1252":
        text, encoding = join(g1, with_line("G-2", 'bob said, "' + "é" * 3_000_000 + '"'), g3), "cp1252"
    elif case == "junk":
        text = join(g1) + "\n" + "junk line\n" * 400_000 + "\n" + join(g3)
    elif case == "no_line_end":
        text = join(g1) + "\n" + big[0] + "\n" + "x" * 5_000_000
    else:
        text = join(g1) + "\n" + "y" * 5_000_000 + "\njunk\n\n" + join(g3)
    path = tmp_path / "h.txt"
    path.write_bytes(text.encode(encoding))
    with pytest.warns(UserWarning) if encoding == "cp1252" else contextlib.nullcontext():
        recs = list(read_file(path))
    hands = sorted(r.header.hand_id for r in recs if isinstance(r, Hand))
    errors = [(r.line, r.column, r.hand_id, r.kind, r.message, r.line_text, r.raw) for r in recs if isinstance(r, ErrorRecord)]
    junk = sum(r.count for r in recs if isinstance(r, Skipped))
    db = tmp_path / "h.duckdb"
    summary = import_paths([path], db, workers=0)
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = sorted(r[0] for r in con.execute("SELECT hand_id FROM hands").fetchall())
        failed = con.execute("SELECT line, col, hand_id, kind, message, line_text, raw_text FROM failed ORDER BY line").fetchall()
    finally:
        con.close()
    assert "G-1" in hands and (case == "no_line_end" or "G-3" in hands)
    assert stored == hands and failed == errors and summary.junk_lines == junk
    assert all(len(raw) <= MAX_HAND_CHARS for *_, raw in failed)
    assert len(errors) == (0 if case in ("junk", "long_junk_line") else 2 if case == "crlf" else 1)


def test_chunks_of_an_endless_line_are_bounded() -> None:
    """The chunker never holds more than a chunk plus the bound of a hand in bytes, and counts the rest."""
    head = (join(hand("G-1")) + "\n" + hand("G-2")[0] + "\n").encode()
    stream = io.BytesIO(head + b"x" * (40 << 20))
    pieces = list(read_chunks(stream, chunk_bytes=1 << 20))
    assert len(pieces) == 2
    (first, lines0, unread0), (second, lines1, unread1) = pieces
    assert unread0 is None and lines0 == 0 and first.endswith(b"\n\n")
    assert unread1 is not None and lines1 == first.count(b"\n")
    assert len(second) <= 4 * (MAX_HAND_CHARS + MAX_LINE_CHARS)
    assert len(second) - second.index(b"\nx") - 1 + unread1.more == 40 << 20 and unread1.lines == 0


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\r", b"\n", b"\r\n", b"\xff", b" "]), max_size=60),
    st.lists(st.integers(min_value=0, max_value=60), max_size=4),
)
def test_tally_counts_what_the_decoder_would_read(parts: list[bytes], cuts: list[int]) -> None:
    """Counted in pieces cut anywhere, the bytes give the characters and lines that decoding them gives."""
    data = b"".join(parts)
    tally = Tally()
    at = 0
    for cut in sorted(cuts) + [len(data)]:
        tally.add(data[at:cut] if cut > at else b"")
        at = max(at, cut)
    unread = tally.unread()
    for cp1252 in (False, True):
        try:
            text = data.decode("cp1252" if cp1252 else "utf-8", errors="replace" if cp1252 else "strict")
        except UnicodeDecodeError:
            continue  # not UTF-8: the reader would have switched to Windows-1252
        text = text.replace("\r\n", "\n")
        more, lines, chars = unread.chars(cp1252)
        first, nl, rest = text.partition("\n")
        assert more == len(first)
        if not nl:
            assert (lines, chars) == (0, 0)
        else:
            tail = rest.split("\n")
            expected_lines = len(tail) - 1 + (1 if tail[-1] else 0)
            assert lines == expected_lines
            assert chars == len(rest) + (1 if tail[-1] else 0)


@pytest.mark.parametrize("fill", [" ", "[", "("])
@pytest.mark.parametrize("prefix", ["", "alice: ", "Dealt to alice "])
def test_lark_reads_a_line_at_the_bound_and_never_one_over_it(fill: str, prefix: str) -> None:
    """The worst lines of the allowed length reach Lark for their error; one more character does not."""
    lines = hand("C-1")
    for length, lark in ((MAX_LINE_CHARS, True), (MAX_LINE_CHARS + 1, False), (5_000_000, False)):
        line = prefix + fill * (length - len(prefix) - 1) + "x"  # not white space only: a blank line would end the hand
        with pytest.raises(HandParseError) as info:
            parse_hand(lines[:12] + [line] + lines[12:])
        e = info.value
        assert e.line == 13
        if lark:
            assert "characters long" not in e.message and e.column is not None and e.column <= len(prefix) + 2
        else:
            assert e.message == f"the line is {length:,} characters long; the longest accepted is 4,096" and e.column == 4097


def test_read_text_and_strict_report_the_bound() -> None:
    text = join(hand("G-1"), with_line("G-2", "x" * 10_000))
    recs = list(read_text(text, "t.txt"))
    assert isinstance(recs[1], ErrorRecord) and recs[1].message.startswith("the line is 10,000 characters long")
    with pytest.raises(HandParseError) as info:
        list(read_stream(io.BytesIO(text.encode()), "t.txt", strict=True))
    assert info.value.hand_id == "G-2" and info.value.line == len(hand("G-1")) + 14 and info.value.source == "t.txt"
