"""What a replay returns: the verdict, the findings, the pots as the rules settle them.

:class:`Replay` is the result of :func:`hhtool.replay.replay`; the audit
report, the store's rows and the statistics read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hhtool._native.frozen import written_init
from hhtool.game.rules import RuleSet
from hhtool.history.events import Hand
from hhtool.history.money import display_amount
from hhtool.replay.findings import Finding

Verdict = Literal["ok", "disputed", "invalid"]


@dataclass(frozen=True, slots=True, init=False)
class PotResult:
    """One pot as the rules settle it (its written ``__init__``: see :mod:`hhtool._native.frozen`)."""

    name: str  # "main pot", "side pot-1", ...
    amount: int
    rake: int
    eligible: tuple[str, ...]
    winners: dict[str, int]
    reason: str  # why the winners win it, in words ("" when replayed with ``explain=False``)
    verified: bool  # False when a contender's cards are unknown

    def __init__(
        self, name: str, amount: int, rake: int, eligible: tuple[str, ...], winners: dict[str, int], reason: str, verified: bool
    ) -> None:
        self.name = name  # type: ignore[misc]
        self.amount = amount  # type: ignore[misc]
        self.rake = rake  # type: ignore[misc]
        self.eligible = eligible  # type: ignore[misc]
        self.winners = winners  # type: ignore[misc]
        self.reason = reason  # type: ignore[misc]
        self.verified = verified  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Replay:
    """The result of replaying one hand (its written ``__init__``: see :mod:`hhtool._native.frozen`)."""

    hand: Hand
    rules: RuleSet
    verdict: Verdict
    findings: tuple[Finding, ...]
    payouts: dict[str, int]
    claimed: dict[str, int]
    pots: tuple[PotResult, ...]
    showdown_order: tuple[str, ...]
    rounds: tuple[str, ...]  # the pot built round by round, who opened and why (empty with ``explain=False``)
    stacks: dict[str, int]  # each player's stack after the hand, by the rules
    categories: dict[str, str]  # each player who showed five cards: what they make with the vela (``CATEGORY_LABELS``)

    def __init__(
        self,
        hand: Hand,
        rules: RuleSet,
        verdict: Verdict,
        findings: tuple[Finding, ...],
        payouts: dict[str, int],
        claimed: dict[str, int],
        pots: tuple[PotResult, ...],
        showdown_order: tuple[str, ...],
        rounds: tuple[str, ...],
        stacks: dict[str, int],
        categories: dict[str, str],
    ) -> None:
        self.hand = hand  # type: ignore[misc]
        self.rules = rules  # type: ignore[misc]
        self.verdict = verdict  # type: ignore[misc]
        self.findings = findings  # type: ignore[misc]
        self.payouts = payouts  # type: ignore[misc]
        self.claimed = claimed  # type: ignore[misc]
        self.pots = pots  # type: ignore[misc]
        self.showdown_order = showdown_order  # type: ignore[misc]
        self.rounds = rounds  # type: ignore[misc]
        self.stacks = stacks  # type: ignore[misc]
        self.categories = categories  # type: ignore[misc]

    def fmt(self, amount: int) -> str:
        """An amount as a person reads it (:func:`hhtool.history.money.display_amount`)."""
        return display_amount(amount, self.hand.money)


written_init(PotResult, Replay)
