"""``hhtool audit`` end to end: text, JSON, --hand, --rules, exit codes (in the test's process, one case a real process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.inprocess import hhtool
from tests.sample_paths import BROKEN, SAMPLES

HHTOOL = [sys.executable, "-m", "hhtool.cli"]
EXAMPLE = str(SAMPLES / "000_format_example.txt")


def run(*args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``hhtool audit *args`` in this process (:mod:`tests.inprocess`), or as a real process if ``process``."""
    if process:
        return subprocess.run([*HHTOOL, "audit", *args], capture_output=True, text=True, timeout=120)
    return hhtool("audit", *args)


def test_ok_hand_exit_0_with_reason() -> None:
    r = run(EXAMPLE, process=True)  # one real process: the command's path through the entry point
    assert r.returncode == 0, r.stderr
    assert "verdict: ok" in r.stdout
    assert "both hold two pair, Queens and Jacks, and bob's Q♥ beats alice's Q♣ (" in r.stdout
    assert "2nd street: alice opens (highest door card Q♠" in r.stdout


def test_json_shape() -> None:
    r = run("--json", EXAMPLE)
    assert r.returncode == 0
    (obj,) = [json.loads(line) for line in r.stdout.splitlines()]
    assert obj["hand_id"] == "C-1001" and obj["site"] == "Vela" and obj["profile"] == "classic"
    assert obj["verdict"] == "ok" and obj["findings"] == []
    assert obj["payouts"] == {"bob": 1090} and obj["claimed"] == {"bob": 1090}
    assert obj["pots"] == [{"name": "main pot", "amount": 1140, "rake": 50, "eligible": ["alice", "bob"], "winners": {"bob": 1090}}]
    assert obj["showdown_order"] == ["bob", "alice"]


def test_disputed_hand_exits_1(tmp_path: Path) -> None:
    text = Path(EXAMPLE).read_text(encoding="utf-8").replace("bob collected €10.90", "alice collected €10.90")
    f = tmp_path / "disputed.txt"
    f.write_text(text, encoding="utf-8")
    r = run("--json", str(f))
    assert r.returncode == 1
    obj = json.loads(r.stdout)
    assert obj["verdict"] == "disputed"
    assert "wrong_winner" in {x["code"] for x in obj["findings"]}
    assert obj["payouts"] == {"bob": 1090} and obj["claimed"] == {"alice": 1090}


def test_unparsed_hands_are_reported_and_others_go_on() -> None:
    junk = next(p for p in BROKEN if "junk_and_one_bad_hand" in p.name)
    r = run("--json", str(junk))
    assert r.returncode == 1
    verdicts = [json.loads(line)["verdict"] for line in r.stdout.splitlines()]
    assert "unparsed" in verdicts and "ok" in verdicts


def test_hand_filter_and_missing_hand() -> None:
    path = str(SAMPLES / "010_classic_own_view_three_hands.txt")
    r = run("--json", "--hand", "C-2003", path)
    assert [json.loads(line)["hand_id"] for line in r.stdout.splitlines()] == ["C-2003"]
    r = run("--hand", "NOPE", path)
    assert r.returncode == 2 and "no hand 'NOPE'" in r.stderr


def test_rules_override_and_usage_errors(tmp_path: Path) -> None:
    r = run("--json", "--rules", "stellapoker", EXAMPLE)
    obj = json.loads(r.stdout)
    assert obj["profile"] == "stellapoker" and obj["payouts"] == {"alice": 545, "bob": 545}
    assert run("--rules", "texas", EXAMPLE).returncode == 2
    assert run(str(tmp_path / "missing.txt")).returncode == 2


def test_the_player_who_must_show_first_may_not_muck(tmp_path: Path) -> None:
    """Bob bet last on the vela round: he shows first (RULES.md §6); mucking instead is a finding."""
    text = Path(EXAMPLE).read_text(encoding="utf-8").replace(
        "bob: shows [Js Jh 8d Qh Qd] (two pair, Queens and Jacks)\nalice: shows", "bob: mucks hand\nalice: shows"
    )
    f = tmp_path / "muck.txt"
    f.write_text(text, encoding="utf-8")
    obj = json.loads(run("--json", str(f)).stdout)
    assert "muck_not_allowed" in {x["code"] for x in obj["findings"]}
    assert obj["payouts"] == {"alice": 1090}  # a mucked hand has given up the pot


def test_on_a_terminal_of_80_columns_every_line_fits() -> None:
    """``--width 80`` (what a terminal of 80 columns gets by default) breaks the report at spaces, continuations
    indented; every line of every sample, the unparsed ones' long parse errors included, fits in 80 columns as the
    terminal counts them."""
    from hhtool.textsafe import columns

    r = subprocess.run([*HHTOOL, "audit", "--width", "80", str(SAMPLES)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    assert [x for x in lines if columns(x) > 80] == []
    assert "The pot went to bob (€10.90), as the classic rules award it: both hold two pair," in lines
    assert "    Queens and Jacks, and bob's Q♥ beats alice's Q♣ (the same ranks and the same" in lines


def test_to_a_file_each_fact_stays_one_line() -> None:
    """Without a terminal (a pipe, a file), even with ``$COLUMNS`` set as CI and test runners set it, nothing is
    broken: ``grep`` finds a whole fact."""
    import os

    env = {**os.environ, "COLUMNS": "80"}
    r = subprocess.run([*HHTOOL, "audit", EXAMPLE], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert any(x.startswith("The pot went to bob") and x.endswith("tie-break card order).") for x in r.stdout.splitlines())
