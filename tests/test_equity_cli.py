"""``hhtool equity`` end to end: its figures, tables and refusals.

The commands run in this process (Typer's ``CliRunner``, :mod:`tests.inprocess`:
a process start is most of each case's cost); the exact JSON case and one bad
input run as real processes too, for what only a process shows.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from tests.inprocess import hhtool

HHTOOL = [sys.executable, "-m", "hhtool.cli"]


def run(*args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``hhtool equity *args`` in this process (:mod:`tests.inprocess`), or as a real process if ``process``."""
    if process:
        return subprocess.run([*HHTOOL, "equity", *args], capture_output=True, text=True, timeout=120)
    return hhtool("equity", *args)


def test_exact_json_shape_in_input_order() -> None:
    r = run("--rules", "classic", "--json", "Ah Kd Jh 8d", "Qc Qs 9c 7h", process=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert list(out) == ["exact", "runouts", "players"]
    assert out["exact"] is True and out["runouts"] == 24 * 23 * 22
    assert [p["cards"] for p in out["players"]] == [["Ah", "Kd", "Jh", "8d"], ["Qc", "Qs", "9c", "7h"]]
    for p in out["players"]:
        assert list(p) == ["cards", "equity", "win", "tie"]
        assert all(isinstance(p[k], float) for k in ("equity", "win", "tie"))
        assert p["equity"] == pytest.approx(p["win"] + p["tie"] / 2)
    assert sum(p["equity"] for p in out["players"]) == pytest.approx(1)


def test_sampled_json_shape_and_seed() -> None:
    args = ("--rules", "classic", "--json", "--samples", "3000", "Qc Qs", "Ah Kd", "?? Th Td")
    r = run(*args, "--seed", "5")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert list(out) == ["exact", "samples", "seed", "stderr", "players"]
    assert out["exact"] is False and out["samples"] == 3000 and out["seed"] == 5
    assert isinstance(out["stderr"], float) and 0 < out["stderr"] < 0.02
    assert [p["cards"] for p in out["players"]] == [["Qc", "Qs"], ["Ah", "Kd"], ["??", "Th", "Td"]]
    assert all(list(p) == ["cards", "equity", "win", "tie", "stderr"] for p in out["players"])
    assert run(*args, "--seed", "5").stdout == r.stdout  # the same seed, the same figures
    assert run(*args, "--seed", "6").stdout != r.stdout


def test_text_table_best_first_within_80_columns() -> None:
    r = run("--rules", "classic", "--dead", "7h 8d", "--dead", "9s", "Ah Kd Jh", "Qc Qs 9c")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("rules: classic") and "vela: to come" in lines[0]
    assert lines[1] == "dead: 7h 8d 9s"
    assert lines[2].startswith("exact: every one of ") and "runouts" in lines[2]
    assert lines[4].split()[:4] == ["2", "Qc", "Qs", "9c"]  # the pair of queens first
    r2 = run("--rules", "italian", "--players", "8", "--vela", "??", "--wild", "3", "--samples", "1000", "?? Qs", "Ah ??", "3h 3c", "4d 4s")
    assert r2.returncode == 0, r2.stderr  # 1,000 samples: the grouped count; a wild card's sample costs ~15 ms in the pure build
    assert "sampled: 1,000 of" in r2.stdout and "±" in r2.stdout
    many_dead = "3h 4h 5h 6h 3d 4d 5d 6d 3c 4c 5c 6c 3s 4s 5s 6s 7h 7d 7c 7s 8h 8d 8c 8s 9h 9d 9c"
    r3 = run("--rules", "italian", "--players", "8", "--dead", many_dead, "?? Qs Qd Qc Qh", "?? Ah Ad Ac As")
    assert r3.returncode == 0, r3.stderr
    assert r3.stdout.splitlines()[1].startswith("dead: 3h") and r3.stdout.splitlines()[2].startswith("      ")
    for text in (r.stdout, r2.stdout, r3.stdout):
        assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--rules", "classic", "Qc Qs 9c", "Ah Zd"], "'Zd'"),
        (["--rules", "classic", "Qc Qs 9c", "Qc Ah"], "Qc appears twice"),
        (["--rules", "classic", "--dead", "7h Ah", "Qc Qs 9c", "Ah Kd"], "Ah appears twice"),
        (["--rules", "classic", "--vela", "Qs", "Qc Qs 9c", "Ah Kd"], "Qs appears twice"),
        (["--rules", "classic", "Qc Qs 9c Jc Jd Kh", "Ah Kd"], "Kh is one too many"),
        (["--rules", "stellapoker", "--vela", "Ks", "Qc Qs 9c", "Ah Kd"], "--vela Ks"),
        (["--rules", "classic", "Qc Qs 9c", "Ah 6d"], "6d is not in the classic deck"),
        (["--rules", "italian", "--players", "4", "Qc Qs 9c", "Ah 6d"], "6d is not in the italian deck"),
        (["--rules", "classic", "--dead", "Xx", "Qc Qs 9c", "Ah Kd"], "'Xx'"),
        (["--rules", "classic", "--wild", "7", "Qc Qs 9c"], "no wild cards"),
        (["--rules", "poker", "Qc Qs 9c"], "poker"),
        (["--rules", "classic"], "give the hands of at least two players"),
        (["--rules", "classic", "Qc Qs 9c"], "give the hands of at least two players"),
        (["--rules", "classic", "--seed", "-1", "Qc Qs", "Ah Kd", "Th Td"], "seed must be"),
        (["--rules", "classic", "--samples", "0", "Qc Qs", "Ah Kd", "Th Td"], "samples must be"),
        (["--rules", "classic", "--players", "7", "Qc Qs", "Ah Kd"], "2-6 players, not 7"),
    ],
)
def test_bad_input_exits_2_naming_the_card(args: list[str], needle: str) -> None:
    r = CliRunner().invoke(app, ["equity", *args])
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), (r.stdout, r.stderr, r.exception)
    assert needle in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_bad_input_from_the_console_script() -> None:
    """The same words and exit code from a real process: one line on stderr, nothing on stdout."""
    r = run("--rules", "classic", "Qc Qs 9c", "Ah Zd", process=True)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "'Zd'" in r.stderr and r.stderr.startswith("hhtool: ") and r.stderr.count("\n") == 1
    assert "Traceback" not in r.stderr and r.stdout == ""
