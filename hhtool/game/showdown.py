"""Who takes a pot, how it is divided, and why (RULES.md §3 and §7).

Most of the time the best hand is the one with the largest key.  Two
straight-flush rules break that: ``heads_up_low_beats_royal`` (only when
exactly two hands contest a pot) and ``italian_cycle`` (minimum beats
maximum beats medium beats minimum, which is no order at all).  So the pot
goes to the *top cycle* of the contenders: the smallest set of hands that
each beat or tie every hand outside it.  When one hand beats all others
that set is that hand alone; when hands tie it is the tied hands; when
straight flushes beat each other round in a circle it is the circle,
which then splits the pot, as RULES.md §3 asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from hhtool.game.cards import RANK_NAMES, SUIT_NAMES, card_symbol, make_card
from hhtool.game.evaluate import CATEGORY_LABELS, FLUSH, FULL_HOUSE, STRAIGHT_FLUSH, HandValue, suit_cards
from hhtool.game.rules import RuleSet, SfRule


def _sf_class(v: HandValue) -> int:
    """Italian straight-flush classes: 0 minimum, 1 medium, 2 maximum."""
    return 0 if v.min_sf else 2 if v.max_sf else 1


def compare(a: HandValue, b: HandValue, sf_rule: SfRule, contenders: int) -> int:
    """+1 if ``a`` beats ``b``, -1 if ``b`` beats ``a``, 0 if they tie.

    ``contenders`` is the number of hands contesting the pot: the heads-up
    straight-flush rule applies only when it is two.
    """
    if a.category == STRAIGHT_FLUSH and b.category == STRAIGHT_FLUSH and sf_rule != "standard":
        if sf_rule == "heads_up_low_beats_royal":
            if contenders == 2 and {_sf_class(a), _sf_class(b)} == {0, 2}:
                return 1 if a.min_sf else -1
        else:  # italian_cycle
            ca, cb = _sf_class(a), _sf_class(b)
            if ca != cb:
                # min beats max, max beats medium, medium beats min
                beats = {(0, 2), (2, 1), (1, 0)}
                return 1 if (ca, cb) in beats else -1
    return (a.key > b.key) - (a.key < b.key)


def choose(values: Sequence[HandValue], sf_rule: SfRule) -> list[HandValue]:
    """For players holding two straight flushes, the one that does best here.

    RULES.md §3: the player plays the straight flush that does best against
    the other hands contesting the pot.  We count, for each choice, how many
    of the other players' hands it beats (their best hands as the standard
    order sees them), and take the choice that beats most, the higher
    straight flush on a tie.  (Two players each holding two straight
    flushes would need more suited cards than any deck holds with one
    shared vela; the rule is still total.)
    """
    n = len(values)
    chosen = list(values)
    for i, v in enumerate(values):
        if not v.alternatives:
            continue
        others = [w for j, w in enumerate(values) if j != i]

        def score(c: HandValue) -> tuple[int, int]:
            return (sum(compare(c, w, sf_rule, n) > 0 for w in others), c.key)

        chosen[i] = max([v, *v.alternatives], key=score)
    return chosen


def winners(values: Sequence[HandValue], rules: RuleSet) -> list[int]:
    """Indices (in the order given) of the hands that share the pot."""
    if not values:
        return []
    vals = choose(values, rules.sf_rule)
    n = len(vals)
    ge = [[compare(vals[i], vals[j], rules.sf_rule, n) >= 0 for j in range(n)] for i in range(n)]
    # transitive closure of "beats or ties"; the top cycle reaches everyone
    for k in range(n):
        for i in range(n):
            if ge[i][k]:
                row_k = ge[k]
                row_i = ge[i]
                for j in range(n):
                    if row_k[j]:
                        row_i[j] = True
    return [i for i in range(n) if all(ge[i])]


def shares(values: Sequence[HandValue], rules: RuleSet) -> list[Fraction]:
    """The fraction of one pot each hand takes; they sum to 1."""
    win = set(winners(values, rules))
    return [Fraction(1, len(win)) if i in win else Fraction(0) for i in range(len(values))]


def divide(amount: int, winners_from_button: Sequence[str]) -> dict[str, int]:
    """Split ``amount`` minor units equally; odd units go to the first winners.

    ``winners_from_button`` lists the tied winners in seat order starting
    from the button's left (RULES.md §7: the odd chip to the first tied
    winner to the button's left, further odd units clockwise).
    """
    if not winners_from_button:
        raise ValueError("a pot needs at least one winner")
    base, odd = divmod(amount, len(winners_from_button))
    return {w: base + (1 if i < odd else 0) for i, w in enumerate(winners_from_button)}


# ---------------------------------------------------------------------------
# Explanations


@dataclass(frozen=True, slots=True)
class Reason:
    """Why one hand beats (or ties) another: the deciding rule in words."""

    text: str
    rule: str  # the RULES.md section or parameter that decided
    decided_by: tuple[str, str] | None = None  # what decided, for the winner and the loser: ("Q♥", "Q♣")
    context: str = ""  # the text without the deciding pair


def _field_text(label: str, value: HandValue, index: int, raw: int) -> str:
    if label == "category":
        return CATEGORY_LABELS[raw]
    if label in ("rank", "group rank"):
        return RANK_NAMES.get(raw, "Ace (low)") if raw >= 2 else "nothing"
    if label == "flush suit":
        return SUIT_NAMES[raw]
    if label == "card":
        rank, suit = divmod(raw, 4)
        if rank < 2:
            return "nothing"
        return card_symbol(make_card(rank, suit)) if rank >= value.low else "A" + "♠♣♦♥"[suit] + " (low)"
    # suit, group suit
    return SUIT_NAMES[raw]


_SF_CLASS_NAMES = ("the minimum straight flush (ace low)", "a medium straight flush", "the maximum straight flush (ace high)")


def _special_sf_reason(a: HandValue, b: HandValue, sf_rule: SfRule, contenders: int) -> Reason | None:
    """The words for a straight-flush rule that overrode the standard order, if one did."""
    if sf_rule == "heads_up_low_beats_royal":
        if contenders == 2 and {_sf_class(a), _sf_class(b)} == {0, 2}:
            return Reason(
                "heads up, the ace-low straight flush beats the ace-high one, whatever the suits",
                "RULES.md §3 sf_rule heads_up_low_beats_royal",
            )
        return None
    if sf_rule == "italian_cycle" and _sf_class(a) != _sf_class(b):
        win, lose = (a, b) if compare(a, b, sf_rule, contenders) > 0 else (b, a)
        return Reason(
            f"{_SF_CLASS_NAMES[_sf_class(win)]} beats {_SF_CLASS_NAMES[_sf_class(lose)]} "
            "(minimum beats maximum, maximum beats every medium, every medium beats minimum)",
            "RULES.md §3 sf_rule italian_cycle",
        )
    return None


def cycle_reason() -> Reason:
    return Reason(
        "the straight flushes beat each other in a circle (minimum beats maximum, maximum beats medium, "
        "medium beats minimum), so no hand beats all the others and the circle splits the pot",
        "RULES.md §3 sf_rule italian_cycle",
    )


def explain(a: HandValue, b: HandValue, rules: RuleSet, contenders: int) -> Reason:
    """Why ``a`` beats ``b`` (or why they tie), naming the rule that decided."""
    verdict = compare(a, b, rules.sf_rule, contenders)
    if verdict != 0 and a.category == STRAIGHT_FLUSH == b.category:
        special = _special_sf_reason(a, b, rules.sf_rule, contenders)
        if special is not None:
            return special
    fa, fb = a.fields(), b.fields()
    for i, ((label, x), (_, y)) in enumerate(zip(fa, fb)):
        if x == y:
            continue
        win, lose = (a, b) if x > y else (b, a)
        wx, lx = (x, y) if x > y else (y, x)
        if label == "category":
            extra = " (in Telesina a flush outranks a full house)" if {x, y} == {FLUSH, FULL_HOUSE} else ""
            return Reason(f"{CATEGORY_LABELS[wx]} beats {CATEGORY_LABELS[lx]}{extra}", "RULES.md §2")
        pair = (_field_text(label, win, i, wx), _field_text(label, lose, i, lx))
        cat = CATEGORY_LABELS[a.category]
        if label in ("group suit", "suit"):
            k = sum(1 for lab, _ in fa[:i] if lab == label)
            wc, lc = suit_cards(win.category, win.played, win.tie_break), suit_cards(lose.category, lose.played, lose.tie_break)
            if k < len(wc) and k < len(lc):
                pair = (card_symbol(wc[k]), card_symbol(lc[k]))
        if label in ("rank", "group rank"):
            context, rule = f"both {cat}; by rank", "RULES.md §3 (ranks first)"
        elif label == "flush suit":
            context, rule = "both a flush; flushes compare by suit alone", "RULES.md §3 tie_break card_order"
        elif label == "card":
            context = f"both {cat}; single cards compare one by one in card order (rank, then suit)"
            rule = "RULES.md §3 tie_break card_order"
        elif label == "group suit":
            context = f"both {cat} with the same ranks and the same single cards; the best suit in the highest group decides"
            rule = "RULES.md §3 tie_break card_order"
        else:
            context = f"both {cat} with the same ranks; suits decide card by card in order of significance"
            rule = "RULES.md §3 tie_break ranks_then_suits"
        return Reason(f"{context}: {pair[0]} beats {pair[1]}", rule, pair, context)
    if rules.tie_break == "split":
        return Reason(f"both {CATEGORY_LABELS[a.category]} with the same ranks; suits never decide, so they split", "RULES.md §3 tie_break split")
    return Reason("the hands are equal in every respect the rules compare, so they split", "RULES.md §3, §7")
