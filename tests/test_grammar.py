"""The grammar: it builds strictly, ships as package data, and the fast matcher agrees with Lark."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from lark.exceptions import UnexpectedInput

from tests.handgen import generate_hand
from hhtool.history.grammar import (
    START_SYMBOLS,
    GrammarShapeError,
    _rule_shapes,
    _terminal_patterns,
    build_parser,
    grammar_source,
    grammar_text,
    lark_match,
    matcher,
    rule_shapes,
    stranger_forms,
    terminal_patterns,
    with_strangers,
)
from tests.sample_paths import GOOD, ROOT

_SEAT = re.compile(r"Seat ([0-9]+): (.*) \(([^()]*) in chips\)$")


def test_grammar_builds_strict() -> None:
    parser = build_parser(strict=True)
    assert set(parser.options.start) == set(START_SYMBOLS)


def test_grammar_is_package_data_and_the_top_level_file() -> None:
    assert grammar_source() == (ROOT / "grammars" / "telesina.lark").read_text(encoding="utf-8")
    assert grammar_text() == with_strangers(grammar_source())


def test_the_stranger_forms_are_derived_from_the_chatter_rules() -> None:
    """``?stranger``'s alternatives and STRANGER, written from ``?chatter``'s rules, are the forms the five chatter kinds need."""
    alternatives, pattern = stranger_forms(grammar_source())
    assert alternatives == (
        'STRANGER " is disconnected" -> disconnected',
        'STRANGER " has timed out" -> timed_out',
        'STRANGER " said, \\"" [CHAT] "\\"" -> said',
        'STRANGER " joins the table at seat #" INT -> joins',
        'STRANGER " leaves the table" -> leaves',
    )
    assert pattern == r'[^\x1f\n].*?(?= is disconnected$| has timed out$| said, "| joins the table at seat #[0-9]+$| leaves the table$)'
    text = grammar_text()
    assert "?stranger: " + "\n         | ".join(alternatives) + "\n" in text
    assert terminal_patterns()["STRANGER"] == pattern.replace(r"\x1f", "\x1f").replace(r"\n", "\n")  # what Lark compiled (its escapes read)
    assert "?stranger" not in grammar_source() and "\nSTRANGER" not in grammar_source()


def _with_chatter(rule: str) -> str:
    """telesina.lark with one more chatter kind, ``rule`` (named ``sits_out``)."""
    source = grammar_source()
    listed = "?chatter: disconnected | timed_out | said | joins | leaves\n"
    assert listed in source
    return source.replace(listed, listed.replace("\n", " | sits_out\n") + rule + "\n")


def test_a_new_chatter_kind_is_read_about_someone_not_seated() -> None:
    """A chatter rule and its name in ``?chatter`` are all it takes: its stranger form and lookahead follow."""
    from lark import Lark

    from hhtool.history.grammar import _compile_start

    text = with_strangers(_with_chatter('sits_out: PLAYER " sits out for " INT " hands"'))
    assert terminal_patterns(text)["STRANGER"].endswith("| leaves the table$| sits out for [0-9]+ hands$)")
    assert rule_shapes("stranger", text)["sits_out"].shape == "STRANGER lit INT lit"
    lark = Lark(text, parser="lalr", lexer="contextual", start=["line", "stranger"], maybe_placeholders=True, strict=True)
    assert _compile_start(lark, "stranger").match("Mr sits out for 3 hands") == ("sits_out", ("Mr", "3"))
    assert _compile_start(lark, "line").match("\x1f00 sits out for 3 hands") == ("sits_out", ("\x1f00", "3"))
    optional = stranger_forms(_with_chatter('sits_out: PLAYER " sits out" [" for " INT " hands"]'))
    assert optional[1].endswith("| leaves the table$| sits out)")  # an optional part: its prefix only


@pytest.mark.parametrize(
    "source",
    [
        'sits_out: " sits out " PLAYER',  # not a name, then its text
        'sits_out: PLAYER INT " sits out"',  # not its text after the name
        'sits_out: PLAYER " sits out"\n        | PLAYER " sits down"',  # two expansions
        'sits_out: PLAYER " sits out" // for a while',  # a comment in the rule
        'sits_out: PLAYER " sits out"i',  # a flag
        'sits_out: PLAYER " sits out" ["!"',  # unbalanced
        'sits_out: PLAYER " sits out for " SIDE_POTS',  # a terminal of more than one string or regex
    ],
)
def test_a_chatter_rule_of_another_form_is_refused(source: str) -> None:
    with pytest.raises(GrammarShapeError):
        with_strangers(_with_chatter(source))


def test_stranger_is_not_written_by_hand() -> None:
    with pytest.raises(GrammarShapeError, match="derived"):
        with_strangers(grammar_source() + '\n?stranger: STRANGER " leaves the table" -> leaves\n')
    with pytest.raises(GrammarShapeError, match="chatter"):
        with_strangers(grammar_source().replace("?chatter:", "?talk:"))


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


_FACTS_PROBE = (
    "import json, sys\n"
    "from hhtool.history.grammar import START_SYMBOLS, rule_shapes, terminal_patterns\n"
    "shapes = {s: [[n, r.rule, r.shape, list(r.literals)] for n, r in rule_shapes(s).items()] for s in START_SYMBOLS}\n"
    "print(json.dumps(['lark' in sys.modules, list(terminal_patterns().items()), shapes]))\n"
)


def _facts_run(cache: Path) -> list[object]:
    """What a new process reads of the grammar (the C reader's configuration), and whether it loaded Lark for it."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    out = subprocess.run([sys.executable, "-c", _FACTS_PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    result: list[object] = json.loads(out)
    return result


def test_grammar_facts_are_kept_for_the_next_process(tmp_path: Path) -> None:
    """The terminals and rule shapes the C reader is configured from are read by Lark once, then from a file:
    a worker process of an import starts without loading the grammar (0.3 s of CPU each)."""
    first, second = _facts_run(tmp_path), _facts_run(tmp_path)
    assert first[0] is True and second[0] is False
    assert first[1:] == second[1:]
    fresh = {s: [[n, r.rule, r.shape, list(r.literals)] for n, r in _rule_shapes(s, None).items()] for s in START_SYMBOLS}
    assert second[1:] == [[list(kv) for kv in _terminal_patterns(None).items()], fresh]


def test_grammar_facts_of_another_grammar_or_damaged_are_read_again(tmp_path: Path) -> None:
    """A facts file of another grammar (or Lark, or layout) or a damaged one is passed by: the grammar is read again, the file written anew."""
    good = _facts_run(tmp_path)
    (facts,) = (tmp_path / "hhtool").glob("telesina-facts-*.json")
    data = json.loads(facts.read_text(encoding="utf-8"))
    data["key"] = "another grammar"
    data["terminals"] = {"PLAYER": "nothing"}
    facts.write_text(json.dumps(data), encoding="utf-8")
    again = _facts_run(tmp_path)
    assert again[0] is True and again[1:] == good[1:]
    facts.write_text('{"key": ', encoding="utf-8")
    assert _facts_run(tmp_path)[1:] == good[1:]
    assert _facts_run(tmp_path)[0] is False  # written whole again


def test_grammar_facts_of_two_installs_are_kept_apart(tmp_path: Path) -> None:
    """Two installs (another Lark's files, as a pure and a compiled build's venvs have) keep a file each, named by their
    key: another install's facts written where it keeps them leave this install's file to be read, not read again."""
    from hhtool.history.grammar import facts_file

    assert facts_file("0" * 64) != facts_file("f" * 64)
    assert _facts_run(tmp_path)[0] is True
    (mine,) = (tmp_path / "hhtool").glob("telesina-facts-*.json")
    other = json.loads(mine.read_text(encoding="utf-8"))
    other["key"] = "f" * 64
    (tmp_path / "hhtool" / "telesina-facts-ffffffffffffffff.json").write_text(json.dumps(other), encoding="utf-8")
    assert _facts_run(tmp_path)[0] is False


def test_grammar_facts_unused_for_a_month_are_removed_when_new_ones_are_kept(tmp_path: Path) -> None:
    """Each install keeps its own facts file, so old installs' files would pile up in the cache folder: when a new
    file is kept, those no process has read for 30 days go; one read again recently (its time refreshed by the
    reader, at most once a day) stays, whatever its age."""
    folder = tmp_path / "hhtool"
    assert _facts_run(tmp_path)[0] is True
    (mine,) = folder.glob("telesina-facts-*.json")
    month = 31 * 86400
    old_unused = folder / "telesina-facts-1111111111111111.json"
    recent = folder / "telesina-facts-2222222222222222.json"
    not_facts = folder / "notes-3333.json"
    for f in (old_unused, recent, not_facts):
        f.write_text("{}", encoding="utf-8")
        os.utime(f, (time.time() - month, time.time() - month))
    os.utime(recent, (time.time() - month, time.time() - 3600))
    os.utime(mine, (time.time() - month, time.time() - month))
    assert _facts_run(tmp_path)[0] is False  # mine read: its time refreshed, nothing kept anew, nothing removed
    assert time.time() - mine.stat().st_mtime < 60 and old_unused.exists()
    mine.unlink()
    assert _facts_run(tmp_path)[0] is True  # kept anew: the month-old unused file goes
    assert not old_unused.exists() and recent.exists() and not_facts.exists()
    assert len(list(folder.glob("telesina-facts-*.json"))) == 2
