"""Frozen dataclasses with a written ``__init__`` (hhtool._native.frozen): built fast, frozen all the same."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass
from pathlib import Path

import pytest

from hhtool.game import evaluate as evaluate_module
from hhtool.game.cards import parse_cards
from hhtool.game.evaluate import evaluate
from hhtool._native.frozen import written_init
from hhtool.replay import replay
from hhtool.game.rules import profile
from tests.test_replay_samples import HANDS

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True, init=False)
class _Point:
    """Interpreted here whatever the build: the path ``HHTOOL_PURE=1`` takes for the library's classes."""

    x: int
    y: int

    def __init__(self, x: int, y: int = 0) -> None:
        self.x = x  # type: ignore[misc]
        self.y = y  # type: ignore[misc]


written_init(_Point)


def test_an_interpreted_class_sets_its_fields_once() -> None:
    p = _Point(1, 2)
    assert (p.x, p.y) == (1, 2) and p == _Point(1, 2) and hash(p) == hash(_Point(1, 2))
    assert repr(p) == "_Point(x=1, y=2)"
    assert dataclasses.replace(p, y=5) == _Point(1, 5)
    with pytest.raises(FrozenInstanceError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        p.y = 0  # type: ignore[misc]
    assert (p.x, p.y) == (1, 2)


def test_only_frozen_dataclasses_are_accepted() -> None:
    @dataclass
    class Loose:
        x: int

    with pytest.raises(TypeError):
        written_init(Loose)

    @dataclass(frozen=True)
    class Unslotted:
        x: int = 0

    with pytest.raises(TypeError):
        written_init(Unslotted)


def test_the_replay_results_stay_frozen() -> None:
    """``Replay`` and ``PotResult`` have written ``__init__``s (compiled: direct stores)."""
    r = replay(HANDS[0])
    for obj, name in ((r, "verdict"), (r.pots[0], "reason")):
        with pytest.raises(FrozenInstanceError):
            setattr(obj, name, None)
    assert replay(HANDS[0]) == r
    assert dataclasses.replace(r.pots[0], reason="x").reason == "x"


def test_a_hand_value_is_a_value_object() -> None:
    """``HandValue`` in the value-object idiom (docs/architecture.md): equal, hashed and pickled by its fields.

    Compiled, its ``Final`` fields refuse assignment (``AttributeError``);
    interpreted it is a plain class, and mypy refuses the assignment
    (:func:`test_mypy_refuses_assigning_a_hand_value`).
    """
    rules = profile("italian")  # the cycle of straight flushes: a value keeps the other straight flushes
    low = rules.lowest_rank(4)
    value = evaluate(parse_cards("As Ks Qs Js 8h"), rules, low)
    same = evaluate(parse_cards("8h Js Qs Ks As"), rules, low)
    assert value == same and hash(value) == hash(same) and len({value, same}) == 1
    assert value != evaluate(parse_cards("As Ks Qs Js 7h"), rules, low)
    wild = evaluate(parse_cards("As Ks Qs Js 9h"), rules.with_options(wild=9), low)  # the nine played as a ten
    cycle = evaluate(parse_cards("Ah Kh Qh Jh Th 9h"), rules, low)
    assert wild.five != wild.played and cycle.alternatives
    for v in (value, wild, cycle):
        back = pickle.loads(pickle.dumps(v))
        assert back == v and hash(back) == hash(v) and back.alternatives == v.alternatives
    assert repr(value).startswith("HandValue(key=")
    assert [f.name for f in dataclasses.fields(value)] == [
        "key", "category", "five", "played", "tie_break", "low", "min_sf", "max_sf", "alternatives",
    ]
    if str(evaluate_module.__file__).endswith(".so"):
        with pytest.raises(AttributeError):
            setattr(value, "key", 0)
        assert value.key == same.key


def test_mypy_refuses_assigning_a_hand_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both builds: ``mypy --strict`` with the project's configuration refuses any assignment to a ``HandValue`` field.

    mypy reads the snippet and ``evaluate.py`` with what it imports, nothing else (not the package's
    ``__init__``, which would bring in the whole library): a second or two.
    """
    from mypy import api

    monkeypatch.chdir(ROOT)  # the project's configuration (pyproject.toml)
    snippet = tmp_path / "assign.py"
    snippet.write_text(
        "from hhtool.game.evaluate import HandValue\n\n\ndef spoil(v: HandValue) -> None:\n    v.key = 0\n    v.alternatives = ()\n",
        encoding="utf-8",
    )
    sources = ["hhtool/game/evaluate.py", "hhtool/game/cards.py", "hhtool/game/rules.py", "hhtool/_native/pickling.py"]
    out, err, status = api.run(
        ["--strict", "--follow-imports=skip", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(snippet), *sources]
    )
    assert status == 1, out + err
    errors = [line for line in out.splitlines() if "error:" in line]
    assert errors == [
        f'{snippet}:5: error: Cannot assign to final attribute "key"  [misc]',
        f'{snippet}:6: error: Cannot assign to final attribute "alternatives"  [misc]',
    ], out
