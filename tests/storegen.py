"""Input for the import tests: valid hands with fresh ids, made from the bundled samples, and broken ones."""

from __future__ import annotations

import re
from pathlib import Path

from tests.sample_paths import SAMPLES

_ID = re.compile(r"^(\S+ Hand #)([A-Za-z0-9-]+)(:)", re.M)

TEMPLATE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8").strip("\n") + "\n"
"""FORMAT.md's example: a valid classic hand that replays ``ok``."""


def hand(hand_id: str, template: str = TEMPLATE) -> str:
    """The template with its id replaced."""
    return _ID.sub(lambda m: m.group(1) + hand_id + m.group(3), template, count=1)


def broken(hand_id: str) -> str:
    """A hand that does not parse (an action line no rule knows)."""
    return hand(hand_id).replace("carol: folds", "carol: dances on the table")


def write_files(folder: Path, files: int, hands_per_file: int, broken_every: int = 0, prefix: str = "K") -> tuple[int, int]:
    """Write ``files`` files of hands with unique ids; returns (valid hands, broken hands)."""
    folder.mkdir(parents=True, exist_ok=True)
    good = bad = 0
    for f in range(files):
        parts = []
        for i in range(hands_per_file):
            hid = f"{prefix}-{f}-{i}"
            if broken_every and i % broken_every == broken_every - 1:
                parts.append(broken(hid))
                bad += 1
            else:
                parts.append(hand(hid))
                good += 1
        (folder / f"hh_{f:03d}.txt").write_text("\n".join(parts), encoding="utf-8")
    return good, bad
