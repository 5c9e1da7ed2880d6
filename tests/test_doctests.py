"""Every ``>>>`` example in hhtool's docstrings runs, in the compiled build as in the pure one.

The docstrings are read from each module's source, not from the imported
objects: a module compiled by mypyc keeps no docstrings for
:mod:`doctest` to find, and its examples must still hold.  They run
against the imported module (compiled or not), from the project's folder
(examples name ``sample_histories/``).  The README's examples are run by
``tests/test_api.py``.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import hhtool

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(hhtool.__path__, "hhtool.") if not m.name.endswith("__main__"))


def docstrings(source: str) -> list[tuple[str, int, str]]:
    """``(qualified name, line, docstring)`` of the module and of every class and function in it, nested ones too."""
    tree = ast.parse(source)
    found: list[tuple[str, int, str]] = []
    doc = ast.get_docstring(tree, clean=False)
    if doc:
        found.append(("", 1, doc))

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{node.name}"
                doc = ast.get_docstring(node, clean=False)
                if doc:
                    found.append((name, node.lineno, doc))
                walk(node.body, name + ".")

    walk(tree.body, "")
    return found


def source_of(name: str) -> Path | None:
    """The module's Python source, also where it is compiled (``cards.cpython-311-x86_64-linux-gnu.so``: ``cards.py`` beside it)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None
    origin = Path(spec.origin)
    source = origin.with_name(origin.name.split(".", 1)[0] + ".py")
    return source if source.exists() else None  # None: a C extension, such as hhtool._native._scan


def examples(name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(name)
    source = source_of(name)
    if source is None:
        return []
    parser = doctest.DocTestParser()
    tests = []
    for qualname, line, doc in docstrings(source.read_text(encoding="utf-8")):
        test = parser.get_doctest(doc, dict(vars(module)), f"{name}.{qualname}".rstrip("."), str(source), line)
        if test.examples:
            tests.append(test)
    return tests


@pytest.mark.parametrize("name", _modules())
def test_module_examples_hold(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    for test in examples(name):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_the_examples_are_found() -> None:
    """Every module's source is found, compiled or not, and the parser's docstrings hold examples: else the tests above would pass by finding nothing."""
    assert {name for name in _modules() if source_of(name) is None} <= {"hhtool._native._scan", "hhtool._native._columns"}
    assert sum(len(t.examples) for name in _modules() for t in examples(name)) >= 2


def test_docstrings_are_read_from_nested_definitions() -> None:
    source = 'def f():\n    """>>> 1\n    1\n    """\nclass C:\n    def g(self):\n        """g"""\n'
    assert [(n, line) for n, line, _ in docstrings(source)] == [("f", 1), ("C.g", 6)]
