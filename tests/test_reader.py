"""The reader: splitting, encodings, line ends, lenient and strict, streaming."""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator

import pytest

from hhtool.history.errors import ErrorRecord, HandParseError, IncompleteHandError
from hhtool.history.events import Hand
from hhtool.history.reader import Cp1252Warning, Skipped, read_file, read_stream, read_text
from tests.sample_paths import SAMPLES

EXAMPLE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")


def test_bom_and_crlf() -> None:
    data = b"\xef\xbb\xbf" + EXAMPLE.replace("\n", "\r\n").encode("utf-8")
    records = list(read_stream(io.BytesIO(data), "x"))
    assert len(records) == 1 and isinstance(records[0], Hand)
    assert records[0].header.site == "Vela"


def test_windows_1252_fallback_warns() -> None:
    data = ("\n\n" + EXAMPLE).encode("cp1252")
    notes: list[str] = []
    with pytest.warns(Cp1252Warning):
        records = list(read_stream(io.BytesIO(data), "old.txt", notes=notes))
    assert isinstance(records[0], Hand) and records[0].money.symbol == "€"
    assert notes and "Windows-1252" in notes[0]


def test_empty_and_blank_files() -> None:
    assert list(read_stream(io.BytesIO(b""), "e")) == []
    assert list(read_stream(io.BytesIO(b"\n\r\n  \n"), "e")) == []


def test_junk_between_hands_is_skipped() -> None:
    text = "junk\nmore junk\n\n" + EXAMPLE + "\n-- page --\n\n" + EXAMPLE.replace("C-1001", "C-1002")
    records = list(read_text(text, "j"))
    kinds = [type(r).__name__ for r in records]
    assert kinds == ["Skipped", "Hand", "Hand"] or kinds == ["Skipped", "Hand", "Skipped", "Hand"]
    skipped = [r for r in records if isinstance(r, Skipped)]
    assert skipped[0].line == 1 and skipped[0].count == 2


def test_hands_without_blank_lines_between_them() -> None:
    text = EXAMPLE + EXAMPLE.replace("C-1001", "C-1002")
    records = list(read_text(text))
    assert [r.hand_id for r in records if isinstance(r, Hand)] == ["C-1001", "C-1002"]
    assert [r for r in records if isinstance(r, Hand)][1].first_line == 58


def test_truncated_last_hand_is_an_error_record() -> None:
    cut = EXAMPLE + "\n" + "\n".join(EXAMPLE.replace("C-1001", "C-1009").split("\n")[:30])
    records = list(read_text(cut, "t.txt"))
    assert isinstance(records[0], Hand)
    bad = records[1]
    assert isinstance(bad, ErrorRecord)
    assert bad.kind == "incomplete" and bad.hand_id == "C-1009" and bad.source == "t.txt"
    assert bad.raw.startswith("Vela Hand #C-1009") and bad.line == 88


def test_lenient_goes_on_and_strict_stops() -> None:
    broken = EXAMPLE.replace("C-1001", "C-1002").replace("bob: checks", "bob: dances")
    text = EXAMPLE + "\n" + broken + "\n" + EXAMPLE.replace("C-1001", "C-1003")
    records = list(read_text(text, "l.txt"))
    assert [type(r).__name__ for r in records] == ["Hand", "ErrorRecord", "Hand"]
    err = records[1]
    assert isinstance(err, ErrorRecord)
    assert (err.line, err.column, err.line_text, err.hand_id) == (85, 4, "bob: dances", "C-1002")
    assert err.expected and "': checks'" in err.expected
    assert "bob: dances" in err.raw
    with pytest.raises(HandParseError):
        list(read_text(text, "l.txt", strict=True))
    with pytest.raises(IncompleteHandError):
        list(read_text(EXAMPLE.split("*** SUMMARY")[0], strict=True))


def test_reading_is_lazy() -> None:
    """The reader pulls lines as it needs them: memory does not grow with the file."""
    pulled = 0

    def lines() -> Iterator[bytes]:
        nonlocal pulled
        for k in range(10_000):
            for line in EXAMPLE.replace("C-1001", f"C-{k}").encode("utf-8").splitlines(keepends=True):
                pulled += 1
                yield line
            yield b"\n"

    stream = read_stream(lines(), "gen")
    first = next(stream)
    assert isinstance(first, Hand)
    assert pulled < 200


def test_read_file(tmp_path: object) -> None:
    import pathlib

    path = pathlib.Path(str(tmp_path)) / "h.txt"
    path.write_text(EXAMPLE, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = list(read_file(path))
    assert len(records) == 1 and isinstance(records[0], Hand) and records[0].source == str(path)


def _records(data: bytes, **kw: object) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [repr(r) for r in read_stream(io.BytesIO(data), "c.txt", **kw)]  # type: ignore[arg-type]


def test_chunk_boundaries_and_the_line_by_line_rules_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading in chunks of any size gives what reading a line at a time gives (blocks, junk, odd blank lines)."""
    import random

    from hhtool.history import reader
    from tests.handgen import generate_hand

    rng = random.Random(5)
    parts = ["junk first\n", "\n"]
    for k in range(12):
        parts.append(generate_hand(rng, k))
        parts.append(rng.choice(["\n", "", "  \n", "\n\n\n", "\t\n-- page --\n\n"]))
    parts.append(EXAMPLE.replace("bob: checks", "bob: dances"))
    data = "".join(parts).encode("utf-8")
    line_by_line = [repr(r) for r in reader.read_lines(data.decode("utf-8").split("\n"), "c.txt")]
    assert _records(data) == line_by_line
    for size in (1, 7, 100, 4096):
        monkeypatch.setattr(reader, "CHUNK_BYTES", size)
        assert _records(data) == line_by_line, size
        assert _records(data.replace(b"\n", b"\r\n")) == line_by_line, size
        pieces = [data[i : i + size] for i in range(0, len(data), size)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert [repr(r) for r in read_stream(pieces, "c.txt")] == line_by_line, size


def test_cp1252_from_the_middle_of_a_chunk() -> None:
    """The lines before the first bad one stay UTF-8; the rest is Windows-1252, as line by line."""
    first = EXAMPLE.replace("C-1001", "C-1").replace("alice", "Ännchen")
    second = EXAMPLE.replace("C-1001", "C-2")
    data = first.encode("utf-8") + b"\n" + second.encode("cp1252")
    notes: list[str] = []
    with pytest.warns(Cp1252Warning):
        records = list(read_stream(io.BytesIO(data), "m.txt", notes=notes))
    assert [r.hand_id for r in records if isinstance(r, Hand)] == ["C-1", "C-2"]
    assert "Ännchen" in records[0].players  # type: ignore[union-attr]
    assert len(notes) == 1


def test_error_quotes_the_line_it_names() -> None:
    broken = EXAMPLE.replace("*** 3rd STREET ***", "*** 4th STREET ***")
    err = next(r for r in read_text(EXAMPLE + "\n" + broken, "q.txt") if isinstance(r, ErrorRecord))
    lines = (EXAMPLE + "\n" + broken).split("\n")
    assert err.line is not None and err.line_text == lines[err.line - 1] == "*** 4th STREET ***"


@pytest.mark.parametrize(("before", "after"), [(20_000, ""), (10_000, ""), (4_090, ""), (0, " " * 20_000)])
def test_a_line_over_the_bound_reads_the_same_wherever_the_reads_end(before: int, after: str) -> None:
    """A line longer than the bound, with a header's words past its first 4,096 characters (or a header with a long
    tail), and the read cut anywhere in it: the same records as one read (a header is told by the line's start,
    the part a cut read keeps; found by the fuzz test: 16,000 x's glued to a header, cut at byte 16,389)."""
    from hhtool.history.reader import LINE_BYTES

    hand = (SAMPLES / "000_format_example.txt").read_bytes().split(b"\n\n")[0] + b"\n"
    header, rest = hand.split(b"\n", 1)
    data = b"x" * before + header + after.encode() + b"\n" + rest
    whole = list(read_stream([data], "long.txt"))
    for cut in sorted({1, 4_096, LINE_BYTES - 1, LINE_BYTES, LINE_BYTES + 1, LINE_BYTES + 5, before, before + 3, len(data) - 1}):
        if 0 < cut < len(data):
            assert list(read_stream([data[:cut], data[cut:]], "long.txt")) == whole, cut
    kinds = [type(r).__name__ for r in whole]
    if before > 4_096 - len("Vela Hand #"):
        assert kinds == ["Skipped"]  # no header at the line's start: junk, counted
    else:
        assert kinds == ["ErrorRecord"] and "longest accepted is 4,096" in str(whole[0])  # a hand over the bound


def test_newlines_c_matches_the_regular_expression() -> None:
    """The splitter's one-pass C check (``_scan.newlines``) says what ``_BLANKISH_LINE`` and ``str.count`` say, in every string width."""
    import random

    from hhtool.history.reader import _newlines_py

    scan = pytest.importorskip("hhtool._native._scan")
    fixed = ["", "\n", "a\nb", "a\n \nb", "a\n", "a\n\t", "a\n\u3000x\n", "a\n\u3000", "a\nb\n  c", "a\n\x85\nb", "a\n\u20ac \n", "a\n\U0001f600\n \n"]
    rng = random.Random(44)
    alphabet = ["a", "\n", " ", "\t", "\r", "\x0b", "\x1c", "\x85", "\xa0", "\u20ac", "\u3000", "\u2028", "\U0001f600"]
    drawn = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(20_000)]
    for text in fixed + drawn:
        assert scan.newlines(text) == _newlines_py(text), repr(text)
