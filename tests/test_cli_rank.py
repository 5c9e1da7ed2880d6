"""``hhtool rank`` end to end: its words and exit codes in the test's process; a table, stdin and ``--help`` through real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.inprocess import hhtool

HHTOOL = [sys.executable, "-m", "hhtool.cli"]


def run(*args: str, stdin: str | None = None, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``hhtool *args`` in this process (:mod:`tests.inprocess`), or as a real process if ``process`` or given ``stdin`` (a pipe)."""
    if process or stdin is not None:
        return subprocess.run([*HHTOOL, *args], input=stdin, capture_output=True, text=True, timeout=60)
    return hhtool(*args)


def test_text_table_best_first_with_reason() -> None:
    r = run("rank", "--rules", "classic", "--vela", "Ks", "Qc Qs 9c Jc Jd", "Js Jh 8d Qh Qd", process=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[2].split()[0] == "2"  # bob's hand first
    assert "hand 2 wins" in r.stdout and "RULES.md §3" in r.stdout


def test_json_in_input_order() -> None:
    r = run("rank", "--rules", "classic", "--vela", "Ks", "--json", "Qc Qs 9c Jc Jd", "Js Jh 8d Qh Qd")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out[0] == {
        "cards": ["Qc", "Qs", "9c", "Jc", "Jd"],
        "best": ["Qc", "Qs", "Jd", "Jc", "Ks"],
        "category": "two_pair",
        "description": "two pair, Queens and Jacks",
        "share": 0.0,
    }
    assert out[1]["share"] == 1.0


def test_split_shares() -> None:
    r = run("rank", "--rules", "stellapoker", "--json", "Ah Kd Qc 9s 8s", "As Kc Qd 9h 8h")
    assert [h["share"] for h in json.loads(r.stdout)] == [0.5, 0.5]


def test_players_sizes_the_italian_deck_and_wild() -> None:
    r = run("rank", "--rules", "italian", "--players", "5", "--json", "Ah 6d 7c 8s 9h")
    assert json.loads(r.stdout)[0]["category"] == "straight"
    r = run("rank", "--rules", "italian", "--wild", "7", "--players", "4", "--json", "Ah Ad Ac As 7d")
    assert json.loads(r.stdout)[0]["category"] == "pokerissimo"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--rules", "classic", "Qc Qs 9c Jc Zd"], "'Zd'"),
        (["--rules", "classic", "Qc Qs 9c Jc Jd", "Qc Ah Kh Th 9h"], "Qc appears twice"),
        (["--rules", "classic", "Qc Qs 9c Jc 6d"], "6d is not in the classic deck"),
        (["--rules", "classic", "Qc Qs 9c Jc"], "has 4 cards"),
        (["--rules", "stellapoker", "--vela", "Ks", "Qc Qs 9c Jc Jd"], "has no vela"),
        (["--rules", "classic", "--wild", "7", "Qc Qs 9c Jc Jd"], "no wild"),
        (["--rules", "texas", "Qc Qs 9c Jc Jd"], "--rules texas: expected a rule profile (classic, stellapoker, italian) or a room file"),
        (["--rules", "classic", "--vela", "Qc", "Qc Qs 9c Jc Jd"], "Qc appears twice"),
        (["--rules", "italian", "--players", "9", "Qc Qs 9c Jc Jd"], "2-8 players"),
        (["--rules", "classic"], "at least one hand"),
    ],
)
def test_bad_input_exits_2_naming_the_card(args: list[str], needle: str) -> None:
    r = run("rank", *args)
    assert r.returncode == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr


def test_batch_reports_bad_lines_and_goes_on(tmp_path: Path) -> None:
    batch = tmp_path / "hands.jsonl"
    batch.write_text(
        '{"hands": ["Qc Qs 9c Jc Jd", "Js Jh 8d Qh Qd"], "vela": "Ks"}\n'
        '{"hands": ["Qc Qs 9c Jc Zd"]}\n'
        "not json\n"
        '{"hands": [["As", "7s", "8s", "9s", "Ts"], "Ah Kh Qh Jh Th"], "players": 2, "vela": null}\n',
        encoding="utf-8",
    )
    r = run("rank", "--rules", "classic", "--batch", str(batch))
    assert r.returncode == 2
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 2 and all(isinstance(o, list) for o in out)  # one array per good line, in order
    assert [h["share"] for h in out[0]] == [0.0, 1.0]
    assert [h["share"] for h in out[1]] == [1.0, 0.0]
    assert f"{batch}:2:" in r.stderr and "'Zd'" in r.stderr and f"{batch}:3:" in r.stderr


def test_batch_from_stdin_all_good_exits_0() -> None:
    r = run("rank", "--rules", "italian", "--batch", "-", stdin='{"hands": ["Kh Qd 9c 8s 7c", "Kd Qs 9s 8c 7s"], "players": 4}\n')
    assert r.returncode == 0, r.stderr
    assert [h["share"] for h in json.loads(r.stdout)] == [1.0, 0.0]


def test_missing_batch_file_is_a_usage_error(tmp_path: Path) -> None:
    r = run("rank", "--batch", str(tmp_path / "nope.jsonl"))
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_help_is_fast_and_lists_rank() -> None:
    start = time.perf_counter()
    r = run("--help", process=True)  # a process's start is what is timed
    assert r.returncode == 0 and "rank" in r.stdout
    assert time.perf_counter() - start < 5  # generous: CI machines vary; measured in bench/


def test_help_does_not_import_heavy_libraries() -> None:
    code = "import sys; import hhtool.cli; print(sorted(m for m in ('polars','duckdb','plotly','numpy','lark') if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ})
    assert r.stdout.strip() == "[]"
