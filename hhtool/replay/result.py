"""What a replay returns: the verdict, the findings, the pots as the rules settle them.

:class:`Replay` is the result of :func:`hhtool.replay.replay`; the audit
report, the store's rows and the statistics read it.  Both classes are
value objects in the project's idiom (docs/architecture.md, "Value
objects"): a written ``__init__`` storing ``Final`` fields, the dataclass
decorator for equality and ``repr``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from hhtool.game.room import Room
from hhtool.game.rules import RuleSet
from hhtool.history.events import Hand
from hhtool.history.money import display_amount
from hhtool.replay.facts import CardFacts
from hhtool.replay.findings import Finding
from hhtool.replay.holdings import Holdings

Verdict = Literal["ok", "disputed", "invalid"]


@dataclass(init=False)
class PotResult:
    """One pot as the rules settle it."""

    name: Final[str]  # "main pot", "side pot-1", ...
    amount: Final[int]
    rake: Final[int]
    eligible: Final[tuple[str, ...]]
    winners: Final[dict[str, int]]
    reason: Final[str]  # why the winners win it, in words ("" when replayed with ``explain=False``)
    verified: Final[bool]  # False when a contender's cards are unknown

    def __init__(
        self, name: str, amount: int, rake: int, eligible: tuple[str, ...], winners: dict[str, int], reason: str, verified: bool
    ) -> None:
        self.name = name
        self.amount = amount
        self.rake = rake
        self.eligible = eligible
        self.winners = winners
        self.reason = reason
        self.verified = verified


@dataclass(init=False)
class RakeCheck:
    """The hand's Rake line against the room's rake schedule, or against its own collections: what the verdict says of the rake.

    ``ruled``: the room's file states the rake (``due`` is its amount,
    ``words`` the computation, ``cites`` the file's lines); otherwise the
    rake line and the collections disagree and nothing says which is
    wrong.  ``matches``: which rake the collections agree with, ``"room"``
    (the room's), ``"stated"`` (the Rake line's) or ``"neither"``.
    """

    stated: Final[int]
    due: Final[int]
    ruled: Final[bool]
    words: Final[str]
    cites: Final[str]
    collected: Final[int]
    total: Final[int]
    matches: Final[str]

    def __init__(self, stated: int, due: int, ruled: bool, words: str, cites: str, collected: int, total: int, matches: str) -> None:
        self.stated = stated
        self.due = due
        self.ruled = ruled
        self.words = words
        self.cites = cites
        self.collected = collected
        self.total = total
        self.matches = matches

    @property
    def in_question(self) -> bool:
        """The Rake line is not the room's rake, or (without a room's rake) disagrees with the collections."""
        return not self.ruled or self.stated != self.due


@dataclass(init=False)
class Replay:
    """The result of replaying one hand."""

    hand: Final[Hand]
    rules: Final[RuleSet]
    verdict: Final[Verdict]
    findings: Final[tuple[Finding, ...]]
    payouts: Final[dict[str, int]]
    claimed: Final[dict[str, int]]
    pots: Final[tuple[PotResult, ...]]
    showdown_order: Final[tuple[str, ...]]
    rounds: Final[tuple[str, ...]]  # the pot built round by round, who opened and why (empty with ``explain=False``)
    stacks: Final[dict[str, int]]  # each player's stack after the hand, by the rules
    categories: Final[dict[str, str]]  # each player who showed five cards: what they make with the vela (``CATEGORY_LABELS``)
    facts: Final[CardFacts]  # the history's cards as its lines show them, for the store (:mod:`hhtool.replay.facts`)
    holdings: Final[Holdings]  # each player's cards as the replay read them, for the equities (:mod:`hhtool.replay.holdings`)
    room: Final[Room | None]  # the room whose file governed the replay (None: the profile of RULES.md)
    rake_check: Final[RakeCheck | None]  # where the rake is in question: the room's rake against the Rake line, or the line against the collections

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
        facts: CardFacts,
        holdings: Holdings,
        room: Room | None = None,
        rake_check: RakeCheck | None = None,
    ) -> None:
        self.hand = hand
        self.rules = rules
        self.verdict = verdict
        self.findings = findings
        self.payouts = payouts
        self.claimed = claimed
        self.pots = pots
        self.showdown_order = showdown_order
        self.rounds = rounds
        self.stacks = stacks
        self.categories = categories
        self.facts = facts
        self.holdings = holdings
        self.room = room
        self.rake_check = rake_check

    def fmt(self, amount: int) -> str:
        """An amount as a person reads it (:func:`hhtool.history.money.display_amount`)."""
        return display_amount(amount, self.hand.money)

    @property
    def rules_words(self) -> str:
        """Whose rules settled the hand, as a sentence names them: "the classic rules", "Circolo Vela's rules"."""
        return f"{self.room.name}'s rules" if self.room is not None else f"the {self.rules.name} rules"


def has_all_in(replay: Replay) -> bool:
    """A player ended the hand with nothing behind before the payouts: the cheap test before
    :func:`hhtool.replay.equities.allin_adjustments`, which the import asks of every hand."""
    due = replay.payouts
    return any(left == due.get(n, 0) for n, left in replay.stacks.items())
