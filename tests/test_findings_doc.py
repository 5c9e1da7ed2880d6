"""docs/findings.md lists every finding code, as generated from the code table."""

from __future__ import annotations

from pathlib import Path

from hhtool.replay.findings import CODES, findings_markdown

DOC = Path(__file__).resolve().parent.parent / "docs" / "findings.md"


def test_doc_is_generated_from_the_table() -> None:
    assert DOC.read_text(encoding="utf-8") == findings_markdown(), "run: python -m hhtool.replay.findings > docs/findings.md"


def test_every_code_used_in_the_engine_is_in_the_table() -> None:
    import re

    src = "".join(p.read_text(encoding="utf-8") for p in (DOC.parent.parent / "hhtool" / "replay").glob("*.py"))
    used = set(re.findall(r'(?:self\.add|IllegalAction)\(\s*"([a-z_]+)"', src))
    used |= set(re.findall(r'code = "([a-z_]+)"', src))
    assert used <= set(CODES), used - set(CODES)
