"""The reader: splitting, encodings, line ends, lenient and strict, streaming."""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator

import pytest

from hhtool.errors import ErrorRecord, HandParseError, IncompleteHandError
from hhtool.events import Hand
from hhtool.reader import Cp1252Warning, Skipped, read_file, read_stream, read_text
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
