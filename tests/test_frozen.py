"""The value-object idiom's promise (docs/architecture.md, "Value objects"): equal, hashed, pickled by fields; no field assigned after ``__init__``."""

from __future__ import annotations

import dataclasses
import pickle

from pathlib import Path

import pytest

from hhtool.game import evaluate as evaluate_module
from hhtool.game.cards import parse_cards
from hhtool.game.evaluate import evaluate
from hhtool.replay import replay
from hhtool.game.rules import profile
from tests.test_replay_samples import HANDS

ROOT = Path(__file__).resolve().parent.parent


def test_a_hand_value_is_a_value_object() -> None:
    """``HandValue`` in the value-object idiom (docs/architecture.md): equal, hashed and pickled by its fields.

    Compiled, its ``Final`` fields refuse assignment (``AttributeError``);
    interpreted it is a plain class, and mypy refuses the assignment
    (:func:`test_mypy_refuses_assigning_a_value_objects_field`).
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


def test_mypy_refuses_assigning_a_value_objects_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both builds: ``mypy --strict`` with the project's configuration refuses an assignment to a field of
    ``HandValue``, ``Replay``, ``PotResult``, ``CardFacts`` or ``Holdings``.

    mypy reads the snippet and those modules with what they import, nothing else (not the package's
    ``__init__``, which would bring in the whole library): a second or two.
    """
    from mypy import api

    monkeypatch.chdir(ROOT)  # the project's configuration (pyproject.toml)
    snippet = tmp_path / "assign.py"
    snippet.write_text(
        "from hhtool.game.evaluate import HandValue\nfrom hhtool.replay.facts import CardFacts\nfrom hhtool.replay.holdings import Holdings\n"
        "from hhtool.replay.result import PotResult, Replay\n\n\n"
        "def spoil(v: HandValue, r: Replay, p: PotResult, f: CardFacts, h: Holdings) -> None:\n"
        "    v.key = 0\n    v.alternatives = ()\n    r.verdict = 'ok'\n    p.reason = ''\n    f.vela = None\n    h.last_money = 0\n",
        encoding="utf-8",
    )
    sources = [
        "hhtool/game/evaluate.py", "hhtool/game/cards.py", "hhtool/game/rules.py", "hhtool/_native/pickling.py",
        "hhtool/replay/result.py", "hhtool/replay/facts.py", "hhtool/replay/holdings.py",
    ]
    out, err, status = api.run(
        ["--strict", "--follow-imports=skip", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(snippet), *sources]
    )
    assert status == 1, out + err
    errors = [line for line in out.splitlines() if line.startswith(str(snippet))]  # the modules' own, seen with skipped imports, aside
    assert errors == [
        f'{snippet}:{line}: error: Cannot assign to final attribute "{name}"  [misc]'
        for line, name in ((8, "key"), (9, "alternatives"), (10, "verdict"), (11, "reason"), (12, "vela"), (13, "last_money"))
    ], out


def test_the_replay_results_are_value_objects() -> None:
    """``Replay``, ``PotResult``, the card facts and the holdings in the value-object idiom: equality, ``repr``, ``replace``;
    compiled, an assignment to a field raises ``AttributeError`` (``Final``); in both builds ``mypy --strict`` refuses one."""
    r = replay(HANDS[0])
    assert replay(HANDS[0]) == r and r.facts == replay(HANDS[0]).facts
    assert dataclasses.replace(r.pots[0], reason="x").reason == "x"
    assert repr(r.pots[0]).startswith("PotResult(name='main pot', ")
    compiled = "__mypyc_attrs__" in type(r).__dict__
    held = next(iter(r.holdings.held.values()))
    for obj, name in (
        (r, "verdict"), (r.pots[0], "reason"), (r.facts, "vela"), (r.facts.cards[0], "up"), (r.holdings, "last_money"), (held, "folded"),
    ):
        assert ("__mypyc_attrs__" in type(obj).__dict__) == compiled
        if compiled:
            with pytest.raises(AttributeError):
                setattr(obj, name, None)
    assert replay(HANDS[0]) == r
