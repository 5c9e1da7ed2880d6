"""The README's example outputs are what the commands they show print today.

Each fenced block that starts with ``$ hhtool ...`` is run from the
project's folder; its other lines must appear in the output in order, a
line ``...`` standing for any lines in between (so an example may show
the start of a long output).  Lines are compared with trailing spaces
removed.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```\n(\$ hhtool .+?)\n```$", re.M | re.S)


def examples() -> list[tuple[str, list[str]]]:
    found = []
    for block in BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        command, *shown = block.split("\n")
        found.append((command[2:], [line.rstrip() for line in shown]))
    return found


def matches(shown: list[str], printed: list[str]) -> bool:
    """``shown`` is ``printed`` with runs of lines replaced by ``...``: in order, no line changed."""
    at = 0
    gap = False
    for line in shown:
        if line == "...":
            gap = True
            continue
        if gap:
            while at < len(printed) and printed[at] != line:
                at += 1
        if at >= len(printed) or printed[at] != line:
            return False
        at += 1
        gap = False
    return gap or at == len(printed)


def test_the_readme_has_examples() -> None:
    assert len(examples()) >= 2


@pytest.mark.parametrize(("command", "shown"), examples(), ids=[c for c, _ in examples()])
def test_readme_example_output_is_current(command: str, shown: list[str]) -> None:
    args = shlex.split(command)[1:]
    r = subprocess.run([sys.executable, "-m", "hhtool.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=120, env=None)
    printed = [line.rstrip() for line in r.stdout.splitlines()]
    assert matches(shown, printed), "README shows:\n" + "\n".join(shown) + "\n\nthe command prints:\n" + "\n".join(printed)


def test_matches_reads_gaps() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "..."], ["a", "b"])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert not matches(["a", "...", "x"], ["a", "b"])
