"""Frozen dataclasses with a written ``__init__`` (hhtool._native.frozen), and the value-object idiom's promise (docs/architecture.md)."""

from __future__ import annotations

import dataclasses
from dataclasses import FrozenInstanceError, dataclass

import pytest

from hhtool.game.cards import parse_cards
from hhtool.game.evaluate import evaluate
from hhtool._native.frozen import written_init
from hhtool.replay import replay
from hhtool.game.rules import profile
from tests.test_replay_samples import HANDS


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


def test_hand_values_stay_frozen() -> None:
    """``HandValue`` has a written ``__init__`` (compiled: direct stores) and refuses assignment in both builds."""
    rules = profile("classic")
    value = evaluate(parse_cards("As Ks Qs Js 9h"), rules, rules.lowest_rank(4))
    with pytest.raises(FrozenInstanceError):
        setattr(value, "key", None)
    assert hash(value) == hash(evaluate(parse_cards("9h Js Qs Ks As"), rules, rules.lowest_rank(4)))
    assert [f.name for f in dataclasses.fields(value)] == [
        "key", "category", "five", "played", "tie_break", "low", "min_sf", "max_sf", "alternatives",
    ]


def test_the_replay_results_are_value_objects() -> None:
    """``Replay``, ``PotResult`` and the card facts in the value-object idiom: equality, ``repr``, ``replace``;
    compiled, an assignment to a field raises ``AttributeError`` (``Final``); in both builds ``mypy --strict`` refuses one."""
    r = replay(HANDS[0])
    assert replay(HANDS[0]) == r and r.facts == replay(HANDS[0]).facts
    assert dataclasses.replace(r.pots[0], reason="x").reason == "x"
    assert repr(r.pots[0]).startswith("PotResult(name='main pot', ")
    compiled = "__mypyc_attrs__" in type(r).__dict__
    for obj, name in ((r, "verdict"), (r.pots[0], "reason"), (r.facts, "vela"), (r.facts.cards[0], "up")):
        assert ("__mypyc_attrs__" in type(obj).__dict__) == compiled
        if compiled:
            with pytest.raises(AttributeError):
                setattr(obj, name, None)
    assert replay(HANDS[0]) == r
