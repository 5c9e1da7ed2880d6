"""The library's public surface: ``import hhtool`` gives the documented entry points, and the README's examples run."""

from __future__ import annotations

import doctest
import inspect
from pathlib import Path

import pytest

import hhtool

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_exports_its_entry_points_with_docstrings() -> None:
    names = [n for n in hhtool.__all__ if n != "__version__"]
    assert set(names) <= set(dir(hhtool))
    for name in names:
        obj = getattr(hhtool, name)
        assert callable(obj), name
        doc = inspect.getdoc(obj)
        assert doc and len(doc) > 40, f"hhtool.{name} has no docstring worth the name"
    with pytest.raises(AttributeError):
        getattr(hhtool, "no_such_entry_point")


def test_import_hhtool_loads_no_heavy_library() -> None:
    import subprocess
    import sys

    code = "import sys, hhtool; hhtool.parse_hand; print(sorted(m for m in ('polars', 'duckdb', 'plotly', 'lark') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_readme_python_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    failures, tried = doctest.testfile(str(ROOT / "README.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried >= 10, "the README's Python section lost its examples"
    assert failures == 0


def test_the_package_exports_every_name_of_the_api_by_name() -> None:
    """``hhtool.__all__`` is written out (a type checker reads only a literal list): it must hold every name of the API."""
    import hhtool
    import hhtool.api

    assert set(hhtool.__all__) == {"__version__", *hhtool.api.__all__}
    for name in hhtool.api.__all__:
        assert getattr(hhtool, name) is getattr(hhtool.api, name), name
