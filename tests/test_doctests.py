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


def examples(name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(name)
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None
    source = Path(spec.origin).with_suffix(".py") if not spec.origin.endswith(".py") else Path(spec.origin)
    if not source.exists():  # a C extension (hhtool._native._scan): no Python source, no examples
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
    """The parser's docstrings hold examples: were none found, every test above would pass by finding nothing."""
    assert sum(len(t.examples) for name in _modules() for t in examples(name)) >= 2


def test_docstrings_are_read_from_nested_definitions() -> None:
    source = 'def f():\n    """>>> 1\n    1\n    """\nclass C:\n    def g(self):\n        """g"""\n'
    assert [(n, line) for n, line, _ in docstrings(source)] == [("f", 1), ("C.g", 6)]
