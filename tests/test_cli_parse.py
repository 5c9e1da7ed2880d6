"""``hhtool parse``: summary, --json, --strict and the exit codes."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from hhtool.cli import app
from tests.sample_paths import GOOD, SAMPLES

runner = CliRunner()


def test_all_samples_parse() -> None:
    result = runner.invoke(app, ["parse", *[str(p) for p in GOOD]])
    assert result.exit_code == 0, result.output
    assert f"{len(GOOD)} file(s), 12 hand(s) parsed, 0 failed" in result.output


def test_json_one_object_per_hand() -> None:
    result = runner.invoke(app, ["parse", "--json", str(SAMPLES / "010_classic_own_view_three_hands.txt")])
    assert result.exit_code == 0
    objects = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [o["hand_id"] for o in objects] == ["C-2001", "C-2002", "C-2003"]
    first = objects[0]
    assert first["header"]["ante"] == 10 and first["money"]["symbol"] == "€"
    assert first["events"][0] == {"event": "PostAnte", "line": 6, "player": "alice", "amount": 10, "all_in": False}
    deal = next(e for e in first["events"] if e["event"] == "Deal" and e["player"] == "alice")
    assert deal["known"] == ["7s", "Ah"]


def test_failures_exit_1_with_locations() -> None:
    path = SAMPLES / "broken" / "junk_and_one_bad_hand.txt"
    result = runner.invoke(app, ["parse", str(path)])
    assert result.exit_code == 1
    assert f"{path}:73:25: parse:" in result.output
    assert "2 hand(s) parsed, 1 failed, 3 junk line(s) skipped" in result.output


def test_strict_stops_at_first_error() -> None:
    path = SAMPLES / "broken" / "unknown_action.txt"
    result = runner.invoke(app, ["parse", "--strict", str(path), str(GOOD[0])])
    assert result.exit_code == 1
    assert "unknown_action.txt:27:4" in result.output
    assert "bob: dances" in result.output and "   ^" in result.output


def test_json_reports_failed_hands() -> None:
    result = runner.invoke(app, ["parse", "--json", str(SAMPLES / "broken" / "truncated_last_hand.txt")])
    assert result.exit_code == 1
    objects = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [o.get("error") for o in objects] == [None, "incomplete"]


def test_usage_errors_exit_2() -> None:
    assert runner.invoke(app, ["parse", "no/such/file.txt"]).exit_code == 2
    assert runner.invoke(app, ["parse"]).exit_code == 2
    assert runner.invoke(app, ["parse", "--bogus", str(GOOD[0])]).exit_code == 2


def test_empty_file_says_so_and_exits_1() -> None:
    """A file with no hand is not an answer of "0 hands": the user named the wrong file (issue 16)."""
    path = SAMPLES / "broken" / "empty.txt"
    result = runner.invoke(app, ["parse", str(path)])
    assert result.exit_code == 1 and "0 hand(s) parsed" in result.output
    assert f"{path}: no hand in it" in result.output
