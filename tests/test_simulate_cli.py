"""``hhtool simulate`` on the command line: files written, exit codes 0 and 2 (in the test's process; the first case real processes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.inprocess import hhtool

HHTOOL = [sys.executable, "-m", "hhtool.cli"]


def run(*args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``hhtool simulate *args`` in this process (:mod:`tests.inprocess`), or as a real process if ``process``."""
    if process:
        return subprocess.run([*HHTOOL, "simulate", *args], capture_output=True, text=True, timeout=120)
    return hhtool("simulate", *args)


def test_writes_hands_that_audit_ok(tmp_path: Path) -> None:
    out = tmp_path / "sim.txt"
    r = run("--hands", "40", "--rules", "italian", "--structure", "pot", "--players", "8", "--italian-options", "una-coperta", "--seed", "3", "--view", "alice", "--out", str(out), process=True)
    assert r.returncode == 0, r.stderr
    assert "40 hand(s) written" in r.stderr
    audit = subprocess.run([*HHTOOL, "audit", str(out)], capture_output=True, text=True, timeout=120)
    assert audit.returncode == 0, audit.stdout[-2000:]
    assert "40 hand(s) audited: 40 ok" in audit.stderr + audit.stdout


def test_faults_write_a_manifest(tmp_path: Path) -> None:
    out = tmp_path / "f.txt"
    r = run("--hands", "30", "--rules", "classic", "--faults", "0.5", "--site", "Casino", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "f.txt.faults.jsonl").read_text(encoding="utf-8").count("\n") > 5
    assert out.read_text(encoding="utf-8").startswith("Casino Hand #0-0-1: Telesina classic Fixed Limit (€0.50/€1.00)")


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    out = str(tmp_path / "x.txt")
    for args in (
        ("--rules", "bogus"),
        ("--rules", "classic", "--players", "7"),
        ("--rules", "italian", "--players", "9"),
        ("--rules", "stellapoker", "--players", "1"),
        ("--rules", "classic", "--structure", "spread"),
        ("--rules", "classic", "--view", "nobody"),
        ("--rules", "classic", "--italian-options", "wild=7"),
        ("--rules", "classic", "--faults", "2"),
        ("--rules", "classic", "--hands", "-1"),
    ):
        r = run(*args, "--out", out)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith("hhtool: ") or "Error" in r.stderr
    r = run("--rules", "classic")  # --out is required
    assert r.returncode == 2
