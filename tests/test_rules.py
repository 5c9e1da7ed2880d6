"""The rule set's answers to the questions several modules ask (RULES.md §4, §6): nobody works them out again."""

from __future__ import annotations

import pytest

from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER, Exposure


@pytest.mark.parametrize("exposure", ["standard", "carte_coperte", "una_coperta"])
def test_face_up_cards_and_the_exposure_variants(exposure: Exposure) -> None:
    """``exposes`` where a card is dealt down and turned up by its player; ``up_before``: one card up a street, four in the vela round."""
    rules = ITALIAN.with_options(exposure=exposure)
    assert rules.exposes == (exposure != "standard")
    assert [rules.up_before(r) for r in range(1, 6)] == [1, 2, 3, 4, 4]
    dealt_down = any(not rules.dealt_up(r)[-1] for r in range(1, 5))
    assert dealt_down == rules.exposes  # a variant deals some card down, which its player exposes


def test_who_shows_and_in_what_order() -> None:
    """RULES.md §6: italian shows everyone in seat order; classic clockwise from the first; stellapoker's callers as they like."""
    assert (CLASSIC.all_show, CLASSIC.shows_clockwise) == (False, True)
    assert (STELLAPOKER.all_show, STELLAPOKER.shows_clockwise) == (False, False)
    assert (ITALIAN.all_show, ITALIAN.shows_clockwise) == (True, True)
