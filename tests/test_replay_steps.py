"""The replayer's steps on every sample and on every fault of the mutation corpus.

At every step before the collections the chips are conserved (stacks and
pot add up to the stacks the players sat down with), the last step's
stacks are the replay's settlement, and every finding sits at exactly one
step, the step of its line or the nearest before it.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from hhtool.simulate.mutate import FAULTS
from hhtool.history.parse import parse_hand_text
from hhtool.history.reader import split_hands
from hhtool.replay import replay
from hhtool.replay.equities import street_equities
from hhtool.replay.steps import HandSteps, steps_from_text
from hhtool.history.write import write_hand
from tests.sample_paths import GOOD
from tests.test_replay_samples import HANDS


def _sample_texts() -> list[tuple[str, int, str]]:
    """(file, first line, text) of every sample hand, as the import keeps it (UTF-8, ``\\n``, a final line end)."""
    out = []
    for path in GOOD:
        data = path.read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("cp1252")
        for item in split_hands(text.splitlines(), str(path)):
            if isinstance(item, tuple):
                first, lines = item
                out.append((path.name, first, "\n".join(lines) + "\n"))
    return out


SAMPLE_TEXTS = _sample_texts()


def check(hs: HandSteps) -> None:
    steps = hs.steps
    seated = sum(s.stack for s in hs.hand.seats)
    assert steps[0].kind == "start" and [s.kind for s in steps[-2:]] == ["result", "verdict"]
    for s in steps:
        if s.kind in ("collect", "result", "verdict"):
            break
        assert sum(p.stack for p in s.seats) + s.pot == seated, (hs.hand.hand_id, s.index, s.sentence)
        assert s.pot == sum(p.total for p in s.seats), (hs.hand.hand_id, s.index)
        assert s.text == hs.lines[s.line - hs.first_line]
    last = steps[-1]
    assert {p.name: p.stack for p in last.seats if p.dealt} == hs.replay.stacks
    placed = Counter(f for s in steps for f in s.findings)
    assert placed == Counter(hs.replay.findings)
    for s in steps:
        for f in s.findings:
            # the step of the finding's line, else the nearest step before it
            assert s.line <= f.line or s.index == 0
            assert not any(s.line < t.line <= f.line for t in steps)
    json.dumps(hs.to_json())


@pytest.mark.parametrize(("name", "first", "text"), SAMPLE_TEXTS, ids=[f"{n}:{f}" for n, f, _ in SAMPLE_TEXTS])
def test_steps_of_every_sample(name: str, first: int, text: str) -> None:
    hs = steps_from_text(text, first_line=first, source=name)
    check(hs)
    assert hs.replay == replay(hs.hand)  # the walk is the replay, not a second reckoning
    shown = {s.kind for s in hs.steps}
    assert {"post", "deal", "action"} <= shown


def test_every_sample_is_stepped() -> None:
    assert sorted({t.split("\n", 1)[0].split("#")[1].split(":")[0] for _, _, t in SAMPLE_TEXTS}) == sorted(h.hand_id for h in HANDS)


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_every_finding_of_a_fault_is_placed(fault: object) -> None:
    applied = 0
    for hand in HANDS:
        altered = fault.apply(hand, random.Random(1))  # type: ignore[attr-defined]
        if altered is None:
            continue
        hs = steps_from_text(write_hand(altered.hand))
        check(hs)
        assert hs.replay.findings, (hand.hand_id, altered.change)
        applied += 1
    assert applied


def test_the_json_shape() -> None:
    name, first, text = next(t for t in SAMPLE_TEXTS if t[0].startswith("030"))
    data = steps_from_text(text, first_line=first).to_json()
    assert data["currency"] == {"code": "chips", "decimals": 0, "unit": "chip"}
    assert [s["street"] for s in data["streets"]] == ["start", "2nd", "3rd", "4th", "5th", "showdown", "result"]
    step = data["steps"][data["streets"][1]["step"]]
    assert step["text"] == "*** 2nd STREET ***" and step["line"] == 13
    raise_step = next(s for s in data["steps"] if s["text"].startswith("Luca: raises"))
    luca = next(p for p in raise_step["seats"] if p["name"] == "Luca")
    assert luca["stack"] == {"amount": 0, "currency": "chips", "text": "0 chips"}
    assert luca["in_front"]["amount"] == 2900 and luca["all_in"]
    assert luca["cards"] == [
        {"card": {"card": "Qh", "symbol": "Q♥", "suit": "h"}, "up": False},
        {"card": {"card": "Qs", "symbol": "Q♠", "suit": "s"}, "up": True},
    ]
    assert raise_step["sentence"] == "Luca raises 2,500 chips to 2,900 chips and is all-in"
    result = data["steps"][-2]["result"]
    assert [(p["name"], p["winners"][0]["player"]) for p in result] == [("main pot", "Sofia"), ("side pot-1", "Luca"), ("side pot-2", "Matteo")]
    assert result[0]["reason"] == hs_reason(text, first)
    assert data["steps"][-1]["verdict"] == "ok"


def hs_reason(text: str, first: int) -> str:
    return replay(parse_hand_text(text.removesuffix("\n"), first_line=first)).pots[0].reason


def test_own_view_cards_unknown_are_backs() -> None:
    name, first, text = next(t for t in SAMPLE_TEXTS if t[0].startswith("060"))
    hs = steps_from_text(text, first_line=first)
    deal = next(s for s in hs.steps if s.text == "Dealt to Lia [Td]")
    lia = next(p for p in deal.seats if p.name == "Lia")
    assert [(c.card is None, c.up) for c in lia.cards] == [(True, False), (False, True)]
    before_show = next(s for s in hs.steps if s.kind == "showdown")
    bruno = next(p for p in before_show.seats if p.name == "Bruno")
    assert bruno.cards[0].card is None  # his hole card, unseen until he shows
    shown = next(s for s in hs.steps if s.text.startswith("Bruno: shows"))
    assert all(c.card is not None for c in next(p for p in shown.seats if p.name == "Bruno").cards)


def test_equity_per_street_from_its_last_deal() -> None:
    name, first, text = next(t for t in SAMPLE_TEXTS if t[0].startswith("060"))
    hs = steps_from_text(text, first_line=first, equity=True)
    assert hs.equities == tuple(street_equities(hs.replay))
    assert [e.street for e in hs.equities] == ["3rd", "4th"]
    for k, e in enumerate(hs.equities):
        of_street = [s for s in hs.steps if s.street == e.street]
        last_deal = max(s.index for s in of_street if s.kind == "deal")
        assert [s.index for s in of_street if s.equity == k] == [s.index for s in of_street if s.index >= last_deal]
    data = hs.to_json()
    assert [c["player"] for c in data["equities"][0]["contenders"]] == ["Bruno", "Piero"]
    assert sum(c["equity"] for c in data["equities"][1]["contenders"]) == pytest.approx(1)
    assert steps_from_text(text, first_line=first).equities == ()  # off unless asked
