"""The replay's words: why a pot goes where it goes, how a rule reads, names as one says them.

The walk, the card checks and the settlement call these to write findings
and, when a person will read them (``replay(explain=True)``), the reasons
of each pot and round; nothing here decides anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from hhtool.game.evaluate import CATEGORY_LABELS, HandValue
from hhtool.game.rules import RuleSet
from hhtool.game.showdown import choose, explain


def show_rule(rules: RuleSet) -> str:
    """Who shows first under ``rules``, in words (RULES.md §6)."""
    return {
        "last_aggressor_else_button_left": "the last bettor or raiser shows first; with no bet, the first player left of the button",
        "last_aggressor_else_opener": "the last bettor or raiser shows first; if all checked, the player who opened the final round",
        "seat_order": "everyone shows in seat order from the button's left",
    }[rules.showdown_order]


def pot_reason(names: list[str], values: list[HandValue], won: list[str], rules: RuleSet, room_cites: dict[str, str] | None = None) -> str:
    """Why ``won`` (of ``names``, holding ``values``) take a pot: the deciding cards, named after their players.

    ``room_cites``: where a room file sets ``tie_break`` or ``sf_rule``
    differently from its base profile, the citation of that line, used in
    place of RULES.md's when that rule decides.
    """
    n = len(names)
    values = choose(values, rules.sf_rule)  # explain the straight flushes actually played
    if len(won) > 1:
        a, b = values[names.index(won[0])], values[names.index(won[1])]
        r = explain(a, b, rules, n)
        return f"{and_words(won)} split: {r.text} ({_cite(r.rule, room_cites)})"
    w = won[0]
    wv = values[names.index(w)]
    others = [(nm, v) for nm, v in zip(names, values) if nm != w]
    if not others:  # the other contenders' cards are unknown (a cards_unknown finding says so)
        return f"{w}'s {hand_noun(wv.description)} is the only hand known in it: nothing to compare it with"
    best_other = max(others, key=lambda t: t[1].key)
    r = explain(wv, best_other[1], rules, n)
    if r.decided_by is not None and wv.category == best_other[1].category and "ranks first" not in r.rule:
        # the deciding cards or ranks, named after their players: "bob's Q♥ beats alice's Q♣"
        mine, theirs = r.decided_by
        cat = CATEGORY_LABELS[wv.category]
        held = wv.description if wv.description == best_other[1].description else cat
        how = r.context[len(f"both {cat}") :].removeprefix(" with ").removeprefix("; ").replace("; ", ", so ")
        return f"both hold {held}, and {w}'s {mine} beats {best_other[0]}'s {theirs} ({how}; {_cite(r.rule, room_cites)})"
    return f"{w}'s {hand_noun(wv.description)} beats {best_other[0]}'s {hand_noun(best_other[1].description)}: {r.text} ({_cite(r.rule, room_cites)})"


def _cite(rule: str, room_cites: dict[str, str] | None) -> str:
    """The rule that decided a pot, cited from the room's file where the room sets it, else from RULES.md."""
    if room_cites:
        for param, cite in room_cites.items():
            if f" {param} " in rule:
                return cite
    return rule_words(rule)


def hand_noun(description: str) -> str:
    """A description as a noun after a name: "a flush, Diamonds" -> "flush (Diamonds)", so "Sofia's flush (Diamonds)"."""
    text = description[2:] if description.startswith("a ") else description[3:] if description.startswith("an ") else description
    head, sep, rest = text.partition(", ")
    return f"{head} ({rest})" if sep else text


def rule_words(rule: str) -> str:
    """A showdown rule's citation as one reads it: "RULES.md §3, tie-break card order"."""
    out = rule.replace(" (ranks first)", ", ranks first").replace(" tie_break ", ", tie-break ").replace(" sf_rule ", ", straight-flush rule ")
    return out.replace("_", " ")


def and_words(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: names as one says them."""
    items = list(names)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def street_words(street: str | None) -> str:
    """Where a player folded, as the summary says it: "on 3rd street", "on the vela"."""
    return "on the vela" if street == "vela" else f"on {street} street" if street else "before the deal"


def pot_words(name: str) -> str:
    """A pot's name after "from": "the main pot", "side pot-1" (as the history writes it)."""
    return name.replace("main pot", "the main pot")


def count_words(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
