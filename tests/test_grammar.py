"""The grammar: it builds strictly, ships as package data, and the fast matcher agrees with Lark."""

from __future__ import annotations

import random
import re
import warnings

import pytest
from lark.exceptions import UnexpectedInput

from tests.handgen import generate_hand
from hhtool.history.grammar import START_SYMBOLS, build_parser, grammar_text, lark_match, matcher
from tests.sample_paths import GOOD, ROOT

_SEAT = re.compile(r"Seat ([0-9]+): (.*) \(([^()]*) in chips\)$")


def test_grammar_builds_strict() -> None:
    parser = build_parser(strict=True)
    assert set(parser.options.start) == set(START_SYMBOLS)


def test_grammar_is_package_data_and_the_top_level_file() -> None:
    assert grammar_text() == (ROOT / "grammars" / "telesina.lark").read_text(encoding="utf-8")


def _substituted(hand_text: str) -> list[tuple[str, str]]:
    """(start symbol, line) pairs with seated names replaced, as the reader does."""
    lines = hand_text.strip("\n").split("\n")
    out = [("header", lines[0]), ("table", lines[1])]
    names: list[str] = []
    i = 2
    while lines[i].startswith("Seat ") and " in chips)" in lines[i]:
        out.append(("seat", lines[i]))
        m = _SEAT.match(lines[i])
        assert m
        names.append(m.group(2))
        i += 1
    tokens = {n: f"\x1f{k:02d}" for k, n in enumerate(names)}
    order = sorted(names, key=len, reverse=True)
    for line in lines[i:]:
        sub = line
        for n in order:
            if line.startswith(n) and line[len(n) : len(n) + 1] in (":", " "):
                sub = tokens[n] + line[len(n) :]
                break
            if line.startswith("Dealt to " + n) and line[9 + len(n) : 10 + len(n)] in (" ", ""):
                sub = "Dealt to " + tokens[n] + line[9 + len(n) :]
                break
            m = re.match(r"Seat [0-9]+: ", line)
            if m and line.startswith(n, m.end()) and line[m.end() + len(n) : m.end() + len(n) + 1] in (" ", ""):
                sub = line[: m.end()] + tokens[n] + line[m.end() + len(n) :]
                break
            if line.startswith("Uncalled bet (") and line.endswith(" returned to " + n):
                sub = line[: len(line) - len(n)] + tokens[n]
                break
        out.append(("line", sub))
    return out


def _agree(start: str, text: str) -> None:
    fast = matcher(start).match(text)
    try:
        slow = lark_match(start, text)
    except UnexpectedInput:
        slow = None
    assert fast == slow, (start, text)


def test_fast_matcher_agrees_with_lark_on_samples() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in GOOD:
            raw = path.read_bytes()
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = raw.decode("cp1252")
            for hand in re.split(r"\n\s*\n", text.replace("\r\n", "\n").strip()):
                for start, line in _substituted(hand):
                    if start == "line" and matcher("line").match(line) is None:
                        start = "stranger"  # chatter about someone not seated
                    assert matcher(start).match(line) is not None, (path.name, line)
                    _agree(start, line)


def test_fast_matcher_agrees_with_lark_on_generated_hands() -> None:
    rng = random.Random(7)
    for k in range(150):
        for start, line in _substituted(generate_hand(rng, k)):
            _agree(start, line)


@pytest.mark.parametrize(
    "start,text",
    [
        ("line", "\x1f00: calls €0.5"),
        ("line", "\x1f00: raises €1 to"),
        ("line", "Dealt to \x1f00 [Qc Qs] [9c] [8c]"),
        ("line", "*** 6th STREET ***"),
        ("line", "\x1f00 collected 5 from side pot-0"),
        ("header", "Vela Hand #1: Telesina poker Fixed Limit (1/2) - ante 1 - 2026/11/29 18:00:00 UTC"),
        ("seat", "Seat 1: (5 in chips)"),
        ("stranger", "\x1f00 joins the table at seat #3"),
        ("line", "Main pot 5. Side pot-1 3"),
        ("line", "Seat 1: \x1f00 (button) (button) mucked"),
    ],
)
def test_both_refuse_bad_lines(start: str, text: str) -> None:
    assert matcher(start).match(text) is None
    with pytest.raises(UnexpectedInput):
        lark_match(start, text)


def test_lark_path_keeps_placeholders_and_nones() -> None:
    assert lark_match("line", "\x1f01: raises €1.00 to €2.00") == ("raise_to", ("\x1f01", "€1.00", "€2.00", None))
    assert matcher("line").match("\x1f01: raises €1.00 to €2.00 and is all-in") == (
        "raise_to", ("\x1f01", "€1.00", "€2.00", " and is all-in"),
    )
