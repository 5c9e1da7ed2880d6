"""docs/python.md, the library's guide: every example in it runs, and gives what the page says (issue 41)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_example_of_the_python_guide_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guide builds its own database from ``sample_histories/`` in a temporary folder: run from the project's folder."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("HHTOOL_DB", raising=False)
    failures, tried = doctest.testfile(str(ROOT / "docs" / "python.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried >= 25, "the guide lost its examples"
    assert failures == 0
