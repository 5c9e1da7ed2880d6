"""Findings: what the replay engine noticed, as values, never exceptions.

Every code is listed once here, with its severity, the verdict it pushes
the hand towards and the RULES.md section it enforces; ``docs/findings.md``
is generated from this table and a test keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]
Effect = Literal["invalid", "disputed", "none"]


@dataclass(frozen=True, slots=True)
class Code:
    """A kind of finding: ``invalid`` codes mean the hand could not have happened
    under its rules; ``disputed`` codes mean the money went elsewhere than the
    rules send it; warnings leave the verdict alone."""

    name: str
    severity: Severity
    effect: Effect
    rule: str
    summary: str


_CODES = [
    # cards (§1, §4)
    Code("card_twice", "error", "invalid", "§1", "a card appears twice in the hand"),
    Code("card_not_in_deck", "error", "invalid", "§1", "a card is not in the profile's deck for the players dealt in"),
    Code("deck_exhausted", "error", "invalid", "§1, §4", "more cards dealt (with burns and the vela) than the deck holds"),
    Code("deal_missing", "error", "invalid", "§4", "a player still in the hand was not dealt a card on a street"),
    Code("deal_to_folded", "error", "invalid", "§4", "a card was dealt to a player who had folded or was never in the hand"),
    Code("deal_count", "error", "invalid", "§4", "a deal line holds the wrong number of cards for its street"),
    Code("deal_changed", "error", "invalid", "§4", "the cards repeated on a later street differ from those dealt before"),
    Code("deal_order", "warning", "none", "§4", "deal lines are not in dealing order from the button's left"),
    Code("vela_missing", "error", "invalid", "§4 vela", "the profile deals a vela but the hand has none"),
    Code("vela_unexpected", "error", "invalid", "§4 vela", "a vela in a profile (or variant) that has none"),
    Code("vela_early", "error", "invalid", "§4 vela", "the vela was turned before the last betting round it follows"),
    Code("exposure", "warning", "none", "§4 exposure", "an exposure line that the profile's exposure variant does not call for"),
    Code("exposure_missing", "error", "invalid", "§4 exposure", "a player bets with more or fewer cards face up than the exposure variant leaves"),
    # forced bets (§4)
    Code("ante_missing", "error", "invalid", "§4 forced bets", "a player dealt in posted no ante"),
    Code("ante_amount", "error", "invalid", "§4 forced bets", "an ante of the wrong amount"),
    Code("forced_bet_kind", "error", "invalid", "§4 forced bets", "antes in a blinds profile, or blinds in an ante profile"),
    Code("blind_missing", "error", "invalid", "§4 forced bets", "a blind was not posted"),
    Code("blind_player", "error", "invalid", "§4 forced bets", "a blind posted by the wrong player"),
    Code("blind_amount", "error", "invalid", "§4 forced bets", "a blind of the wrong amount"),
    Code("bring_in_player", "error", "invalid", "§4 round 1 opener", "the bring-in is not the player with the highest door card"),
    Code("bring_in_amount", "error", "invalid", "§4 bring-in", "a bring-in of the wrong amount"),
    Code("bring_in_unexpected", "error", "invalid", "§4 bring-in", "a bring-in in a profile without one, or after the round opened"),
    # turn and action (§4, §5)
    Code("wrong_opener", "error", "invalid", "§4 openers", "the betting round was opened by the wrong player"),
    Code("out_of_turn", "error", "invalid", "§5", "a player acted out of turn"),
    Code("action_after_fold", "error", "invalid", "§5", "a player acted after folding"),
    Code("action_after_all_in", "error", "invalid", "§5", "a player acted after going all-in"),
    Code("action_not_in_hand", "error", "invalid", "§5", "an action by a player not dealt into the hand"),
    Code("action_after_round", "error", "invalid", "§5", "an action after the betting round was over"),
    Code("check_facing_bet", "error", "invalid", "§5", "a check facing a bet"),
    Code("call_without_bet", "error", "invalid", "§5", "a call with nothing to call"),
    Code("call_amount", "error", "invalid", "§5", "a call of the wrong amount"),
    Code("bet_facing_bet", "error", "invalid", "§5", "a bet facing a bet (it should be a raise)"),
    Code("bet_size", "error", "invalid", "§5 structure", "a bet of an illegal size for the structure"),
    Code("raise_without_bet", "error", "invalid", "§5", "a raise with no bet to raise"),
    Code("raise_size", "error", "invalid", "§5 structure", "a raise of an illegal size for the structure"),
    Code("raise_over_cap", "error", "invalid", "§5 cap", "a bet or raise after the betting was capped"),
    Code("raise_not_reopened", "error", "invalid", "§5 all-in", "a raise by a player to whom a short all-in did not reopen the betting"),
    Code("raise_arithmetic", "warning", "none", "§5", "'raises X to Y' where X is not Y less the bet faced"),
    Code("complete_amount", "error", "invalid", "§4 bring-in", "a completion to another amount than the small bet"),
    Code("stack_exceeded", "error", "invalid", "§5", "a player put in more than their stack"),
    Code("all_in_flag", "warning", "none", "§5", "'and is all-in' missing on a line that empties the stack, or present when chips remain"),
    Code("round_unfinished", "error", "invalid", "§5", "a new street began before the betting round was finished"),
    Code("uncalled_missing", "error", "disputed", "§5 uncalled bet", "an uncalled bet was not returned"),
    Code("uncalled_wrong", "error", "disputed", "§5 uncalled bet", "a bet returned as uncalled that was called, or the wrong amount"),
    Code("info_double_bet", "warning", "none", "§5 option", "'a double bet is allowed' where no pair shows in round 2"),
    Code("info_capped", "warning", "none", "§5 cap", "'Betting is capped' where the betting was not capped"),
    # showdown (§6)
    Code("show_order", "warning", "none", "§6", "the wrong player showed first at showdown"),
    Code("shown_cards", "error", "invalid", "§6", "cards shown differ from the cards dealt"),
    Code("description", "warning", "none", "§6, FORMAT.md", "a hand's description does not match its cards"),
    Code("muck_not_allowed", "warning", "none", "§6", "a player mucked where the profile has everyone show"),
    Code("showdown_unexpected", "warning", "none", "§6", "a showdown with one player left"),
    Code("cards_unknown", "warning", "none", "§6", "a contender's cards are unknown: the winner cannot be checked"),
    # money (§7)
    Code("wrong_winner", "error", "disputed", "§7", "a pot went to another player than the rules send it to"),
    Code("wrong_amount", "error", "disputed", "§7", "a player collected another amount than the rules give"),
    Code("total_pot", "error", "disputed", "§7", "the total pot does not equal what was put in"),
    Code("rake_exceeds_pot", "error", "invalid", "§7", "the rake is larger than the pot"),
    Code("rake_over", "error", "disputed", "room file [rake]", "the rake line states more than the room's rake schedule takes"),
    Code("rake_under", "error", "disputed", "room file [rake]", "the rake line states less than the room's rake schedule takes"),
    Code("side_pots", "error", "disputed", "§7", "main and side pot amounts differ from the contributions"),
    Code("pot_label", "warning", "none", "§7", "a collection names a pot that does not exist or is not the one won"),
    # summary
    Code("summary_outcome", "warning", "none", "FORMAT.md summary", "a seat outcome in the summary disagrees with the hand"),
    Code("summary_vela", "warning", "none", "FORMAT.md summary", "the summary's vela differs from the one turned"),
    Code("players", "error", "invalid", "§4 deck", "more or fewer players than the profile allows"),
    Code("rules_option", "error", "invalid", "§4 variants", "an option the profile does not allow"),
]

CODES: dict[str, Code] = {c.name: c for c in _CODES}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the replay noticed: code, severity, source line, and words for a person.

    ``caused_by`` is the index (in the replay's ``findings``) of the earlier
    finding this one follows from, or ``None`` for a cause: one wrong bet
    makes the calls after it wrong too, and a reader should meet the bet
    first (see :func:`grouped`).
    """

    code: str
    severity: Severity
    line: int
    message: str
    caused_by: int | None = None

    @property
    def rule(self) -> str:
        return CODES[self.code].rule

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "severity": self.severity, "line": self.line, "message": self.message, "caused_by": self.caused_by}


def citation(rule: str) -> str:
    """Where a rule is written, as a reader looks it up: ``RULES.md §5``, ``FORMAT.md, Summary outcomes``."""
    parts = [p.strip() for p in rule.split(",")]
    rules = [p for p in parts if p.startswith("§")]
    formats = ["FORMAT.md, Summary outcomes" if p == "FORMAT.md summary" else p for p in parts if p.startswith("FORMAT.md")]
    out = []
    if rules:
        out.append("RULES.md " + ", ".join(rules))
    out += formats
    out += [p for p in parts if not p.startswith(("§", "FORMAT.md"))]  # a room file's table: "room file [rake]"
    return "; ".join(out)


def finding(code: str, line: int, message: str, cites: str | None = None) -> Finding:
    """A finding of a known code; its severity comes from the table, its message ends with where the rule is written.

    ``cites``: where instead of RULES.md (a room file's lines, :meth:`hhtool.game.room.Room.cites`).
    """
    c = CODES[code]
    return Finding(code, c.severity, line, f"{message} ({cites if cites is not None else citation(c.rule)})")


RULE_PARAMS: dict[str, tuple[str, ...]] = {
    "card_not_in_deck": ("deck",),
    "deck_exhausted": ("deck", "burns", "vela"),
    "players": ("min_players", "max_players", "deck"),
    "vela_missing": ("vela",),
    "vela_unexpected": ("vela",),
    "vela_early": ("vela", "vela_betting_round"),
    "exposure": ("exposure",),
    "exposure_missing": ("exposure",),
    "rules_option": ("variants_allowed", "wild", "exposure", "vela"),
    "forced_bet_kind": ("forced_bets",),
    "ante_missing": ("forced_bets",),
    "blind_missing": ("forced_bets",),
    "bring_in_player": ("bring_in", "showing_tie"),
    "bring_in_unexpected": ("bring_in",),
    "bring_in_amount": ("bring_in",),
    "complete_amount": ("bring_in",),
    "wrong_opener": ("showing_tie", "bring_in", "big_blind_is_bet"),
    "bet_size": ("big_bet_from_round", "pair_showing_option", "big_blind_is_bet"),
    "raise_size": ("big_bet_from_round", "pair_showing_option", "big_blind_is_bet"),
    "raise_over_cap": ("cap_bets", "cap_heads_up", "big_blind_is_bet"),
    "info_capped": ("cap_bets", "cap_heads_up"),
    "info_double_bet": ("pair_showing_option",),
    "show_order": ("showdown_order",),
    "muck_not_allowed": ("showdown_order",),
    "wrong_winner": ("tie_break", "sf_rule"),
    "wrong_amount": ("tie_break", "sf_rule"),
}
"""The rule parameters each code's check reads: where a room file sets one differently from its base profile, the finding cites the file's line, not RULES.md."""


# What can follow from what: a cause's family, and the families of the findings it may bring about.
# Only errors are causes (a warning changes nothing the replay follows).
_FAMILY: dict[str, str] = {}
for _family, _codes in (
    ("header", "players rules_option"),
    ("cards", "card_twice card_not_in_deck deck_exhausted deal_missing deal_to_folded deal_count deal_changed deal_order exposure exposure_missing"),
    ("vela", "vela_missing vela_unexpected vela_early"),
    ("forced", "ante_missing ante_amount forced_bet_kind blind_missing blind_player blind_amount bring_in_amount bring_in_unexpected"),
    ("showdown", "show_order shown_cards description muck_not_allowed showdown_unexpected cards_unknown"),
    ("money", "wrong_winner wrong_amount total_pot rake_exceeds_pot rake_over rake_under side_pots pot_label"),
    ("summary", "summary_outcome summary_vela"),
):
    for _code in _codes.split():
        _FAMILY[_code] = _family
for _code in CODES:
    _FAMILY.setdefault(_code, "betting")  # §4 openers and §5: turn, amounts, the round's end

_LATER = {"betting", "showdown", "money", "summary"}
_MAY_CAUSE: dict[str, frozenset[str]] = {
    "header": frozenset({"header", "cards", "forced", "vela", *_LATER}),
    "cards": frozenset({"cards", *_LATER}),
    "forced": frozenset(_LATER),
    "vela": frozenset(_LATER),
    "betting": frozenset({"vela", *_LATER}),  # a round out of step can put the vela out of its place
    "showdown": frozenset({"showdown", "money", "summary"}),
    "money": frozenset({"money", "summary"}),
    "summary": frozenset(),
}


def grouped(findings: list[Finding]) -> tuple[Finding, ...]:
    """The findings in line order (errors first on a line), each consequence right after its cause and linked to it.

    Walking in line order, a finding follows from the latest earlier cause
    that may bring it about: a card, forced-bet, vela or header error
    brings about what comes later in the hand; a betting error the later
    betting findings (the calls of a wrong bet, a round left unfinished, a
    bet left uncalled, and on later streets the stacks and turns it put out
    of step) and what the betting leads to (showdown order, pots, payouts,
    the summary); a money error the money and summary findings after it.  Anything else is a
    cause of its own.  The replay follows the history as written, so it
    cannot tell a knock-on from an independent second mistake of the same
    kind: grouping is a reading aid, and every finding keeps its code,
    line and effect on the verdict.
    """
    if len(findings) < 2:
        return tuple(findings)
    order = sorted(range(len(findings)), key=lambda i: (findings[i].line, findings[i].severity != "error"))  # on one line, errors first
    causes: list[int] = []  # positions in ``order``, causes so far
    cause_of: dict[int, int] = {}
    for k, i in enumerate(order):
        f = findings[i]
        family = _FAMILY[f.code]
        for c in reversed(causes):
            cause = findings[order[c]]
            cf = _FAMILY[cause.code]
            if family not in _MAY_CAUSE[cf]:
                continue
            cause_of[k] = c
            break
        else:
            if f.severity == "error":
                causes.append(k)
    out: list[Finding] = []
    for c in [k for k in range(len(order)) if k not in cause_of]:
        root = len(out)
        out.append(findings[order[c]])
        for k in range(c + 1, len(order)):
            if cause_of.get(k) == c:
                f = findings[order[k]]
                out.append(Finding(f.code, f.severity, f.line, f.message, root))
    return tuple(out)


def findings_markdown() -> str:
    """The text of ``docs/findings.md``: every code, generated from the table above."""
    lines = [
        "# Audit findings",
        "",
        "Every code `hhtool audit` can report. Generated from",
        "`hhtool/replay/findings.py` (`python -m hhtool.replay.findings > docs/findings.md`);",
        "a test keeps this page and the code in step.",
        "",
        "A hand's verdict: `invalid` if any finding's effect is *invalid* (the hand",
        "could not have happened under its rules), else `disputed` if any is",
        "*disputed* (the rules award the money differently from the history), else",
        "`ok`. Warnings (the text is inconsistent but the money is right) leave the",
        "verdict alone. A hand that does not parse is `unparsed`.",
        "",
        "## Where a finding points",
        "",
        "Each finding names the line that is wrong: the bet, the deal, the collection,",
        "the `Total pot … | Rake …` line, the `Main pot …` line. A money dispute names",
        "its pot (`side pot-1: the rules award it to Luca; the history pays Matteo`)",
        "when the collection lines say which pot they take from; when they do not",
        "(`from pot` in a hand with side pots) the players' totals are compared. When",
        "every player got what the rules give, a collection naming another pot than",
        "the one won is only `pot_label`. A rake that does not leave what was",
        "collected, while each winner's collection and seat line agree, is reported",
        "on the rake line (the collections agree with the seat lines, but the",
        "history disagrees with itself, and the audit's verdict names neither side);",
        "a rake over the pot is `rake_exceeds_pot` alone. Where a room file states",
        "the room's rake (docs/rooms.md), the rake is computed and a Rake line that",
        "differs is `rake_over` or `rake_under` on that line, with both amounts, the",
        "computation and the room file's lines; the payouts are the rules' after the",
        "room's rake. A finding on a rule the room sets differently from its base",
        "profile cites the room file's line instead of RULES.md. A",
        "missing line is reported where it belongs: a missing ante on the line of the",
        "next seat's ante (antes are posted in seat order), or after the last one; a",
        "missing vela on the first line after 5th street's betting (in classic the",
        "vela round's bets are then read as that round).",
        "",
        "## Causes and consequences",
        "",
        "One mistake often makes others appear: a wrong bet makes the calls after it",
        "wrong, leaves the round unfinished and a bet uncalled. The findings are",
        "listed in line order with each consequence right after its cause, and each",
        "carries `caused_by`, the index of its cause in the hand's findings (`null`",
        "for a cause; the database's `findings.cause_seq`); `hhtool audit` indents",
        "consequences under their cause. A finding follows from the latest earlier",
        "error that may bring it about:",
        "",
        "| an error about | may bring about later findings about |",
        "|---|---|",
        "| the header (players, options) | everything |",
        "| the cards | the cards, the betting, the showdown, the money, the summary |",
        "| the forced bets | the betting, the showdown, the money, the summary |",
        "| the vela | the betting, the showdown, the money, the summary |",
        "| the betting | the betting, the vela, the showdown, the money, the summary |",
        "| the showdown | the showdown, the money, the summary |",
        "| the money | the money, the summary |",
        "",
        "Warnings are never causes. The replay follows the history as written, so it",
        "cannot tell a knock-on from a second, independent mistake of a kind the first",
        "may bring about: grouping is a reading aid, and every finding keeps its code,",
        "line and effect on the verdict. (The mutation corpus checks that each fault",
        "class gives exactly one cause, first, on the line the fault changed.)",
        "",
        "## Codes",
        "",
        "| code | severity | effect | RULES.md | meaning |",
        "|---|---|---|---|---|",
    ]
    for c in _CODES:
        lines.append(f"| `{c.name}` | {c.severity} | {c.effect} | {c.rule} | {c.summary} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(findings_markdown(), end="")
