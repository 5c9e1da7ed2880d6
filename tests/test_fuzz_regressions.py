"""Inputs the long fuzz run (bench/fuzz.py) found, each kept as a test once mended."""

from __future__ import annotations

import io

from hhtool.history.reader import read_stream, read_text
from tests.sample_paths import SAMPLES

EXAMPLE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")


def test_a_header_past_an_over_long_lines_head_is_read_alike_from_text_and_bytes() -> None:
    """57,000 '€' and then a header on one line (seed 11): junk from a file, and now from a string too."""
    text = "€" * 57_000 + EXAMPLE
    assert list(read_text(text, "x")) == list(read_stream(io.BytesIO(text.encode()), "x"))


def test_a_final_bare_cr_is_a_line_end_either_way() -> None:
    """A CRLF file missing its last LF: a hand from a file and from a string alike."""
    text = EXAMPLE.strip("\n").replace("\n", "\r\n") + "\r"
    from_text = list(read_text(text, "x"))
    assert from_text == list(read_stream(io.BytesIO(text.encode()), "x"))
    assert [type(r).__name__ for r in from_text] == ["Hand"]
