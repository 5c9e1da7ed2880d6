"""Every sample parses; every broken sample gives the error its README row documents."""

from __future__ import annotations

import re
import warnings

import pytest

from hhtool.history.errors import ErrorRecord
from hhtool.history.events import Hand
from hhtool.history.reader import read_file
from tests.sample_paths import BROKEN, GOOD, SAMPLES


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_sample_parses(path: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        records = list(read_file(str(path), strict=True))
    assert records and all(isinstance(r, Hand) for r in records)


def test_samples_cover_the_brief() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hands = [r for p in GOOD for r in read_file(p) if isinstance(r, Hand)]
    assert {h.header.profile for h in hands} == {"classic", "stellapoker", "italian"}
    assert {h.header.structure for h in hands} == {"fixed", "pot", "no"}
    assert any(h.summary.side_pots for h in hands)
    assert any(len([o for o in h.summary.outcomes if o.outcome == "won"]) > 1 and not h.summary.side_pots for h in hands)
    assert any(h.header.vela_at_start for h in hands) and any(h.header.wild for h in hands)
    assert {h.header.exposure for h in hands} == {"standard", "carte_coperte", "una_coperta"}
    assert {h.money.symbol for h in hands} == {"€", "$", "£", ""}


def _documented() -> dict[str, tuple[int, str, int | None, int | None, str]]:
    text = (SAMPLES / "README.md").read_text(encoding="utf-8")
    table = text.split("## Broken files")[1]
    rows: dict[str, tuple[int, str, int | None, int | None, str]] = {}
    for m in re.finditer(r"^\| `([^`]+)` \| (\d+) \| (\S+) \| (\S+) \| (\S+) \| (.+?) \|$", table, re.M):
        name, hands, kind, line, column, message = m.groups()
        rows[name] = (
            int(hands), kind, None if line == "-" else int(line), None if column == "-" else int(column), message,
        )
    return rows


def test_every_broken_file_is_documented() -> None:
    assert sorted(_documented()) == sorted(p.name for p in BROKEN)


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.name)
def test_broken_file_gives_documented_error(path: object) -> None:
    from pathlib import Path

    p = Path(str(path))
    hands, kind, line, column, message = _documented()[p.name]
    records = list(read_file(p))
    assert sum(isinstance(r, Hand) for r in records) == hands
    errors = [r for r in records if isinstance(r, ErrorRecord)]
    if kind == "-":
        assert errors == []
        return
    assert len(errors) == 1
    e = errors[0]
    assert (e.kind, e.line, e.column) == (kind, line, column), str(e)
    assert message in str(e)
