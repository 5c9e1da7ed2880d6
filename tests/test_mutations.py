"""The mutation corpus: every fault class, on every hand it applies to, caught with the right verdict."""

from __future__ import annotations

import random

import pytest

from hhtool.simulate.mutate import FAULTS, FaultClass
from hhtool.replay import replay
from tests.test_replay_samples import HANDS


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_fault_is_caught_on_every_hand_it_applies_to(fault: FaultClass) -> None:
    applied = 0
    for hand in HANDS:
        for seed in range(3):
            altered = fault.apply(hand, random.Random(seed))
            if altered is None:
                continue
            applied += 1
            r = replay(altered.hand)
            codes = {f.code for f in r.findings}
            assert fault.code in codes, (hand.hand_id, altered.change, sorted(codes))
            assert r.verdict == fault.verdict, (hand.hand_id, altered.change, r.verdict, sorted(codes))
    assert applied >= 3, f"{fault.name} applied to only {applied} sample hands"


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_the_first_finding_is_the_cause_on_the_line_the_fault_changed(fault: FaultClass) -> None:
    """One fault, one cause: reported first, on its line, with every other finding grouped under it."""
    for hand in HANDS:
        for seed in range(3):
            altered = fault.apply(hand, random.Random(seed))
            if altered is None:
                continue
            findings = replay(altered.hand).findings
            summary = [(f.line, f.code, f.caused_by) for f in findings]
            assert (findings[0].code, findings[0].line, findings[0].caused_by) == (fault.code, altered.line, None), (
                hand.hand_id, altered.change, summary)
            assert all(f.caused_by == 0 for f in findings[1:]), (hand.hand_id, altered.change, summary)


def test_every_fault_class_of_the_issue_is_in_the_corpus() -> None:
    names = {f.name for f in FAULTS}
    assert names >= {
        "wrong_winner", "wrong_amount", "total_pot_wrong", "rake_wrong", "rake_over_pot",
        "illegal_bet_size", "raise_over_cap", "check_facing_bet", "out_of_turn",
        "action_after_fold", "wrong_bring_in", "wrong_opener", "missing_ante",
        "missing_vela", "extra_vela", "card_twice", "card_outside_deck",
    }


def test_unaltered_hands_have_no_findings() -> None:
    for hand in HANDS:
        assert replay(hand).findings == ()