"""The rule profiles of RULES.md as data.

A :class:`RuleSet` has one field per point on which the seed documents
disagree.  The engine reads these fields and never asks which profile it
is running: a house that plays classic Telesina with a split pot is
``replace(CLASSIC, tie_break="split")``, not a fourth code path.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Final, Literal, get_args

from hhtool.game.cards import ACE, lowest_rank, parse_rank
from hhtool._native.pickling import picklable

Deck = Literal["fixed32", "by_players"]
ForcedBets = Literal["antes", "blinds"]
Vela = Literal["none", "after_fifth", "at_start"]
ShowingTie = Literal["position", "suits"]
TieBreak = Literal["split", "card_order", "ranks_then_suits"]
SfRule = Literal["standard", "heads_up_low_beats_royal", "italian_cycle"]
ShowdownOrder = Literal["last_aggressor_else_button_left", "last_aggressor_else_opener", "seat_order"]
Exposure = Literal["standard", "carte_coperte", "una_coperta"]
Structure = Literal["fixed", "pot", "no"]

PROFILE_NAMES = ("classic", "stellapoker", "italian")

StreetName = Literal["2nd", "3rd", "4th", "5th"]
"""A street: each deals every player still in a card, and opens a betting round (RULES.md §4)."""
RoundName = Literal[StreetName, "vela"]
"""A betting round: one a street, then the vela round where the profile has one (RULES.md §4)."""

STREET_NAMES: Final[tuple[StreetName, ...]] = get_args(StreetName)
"""The streets in the order they are dealt, as the history names them (``*** 2nd STREET ***``)."""
ROUND_NAMES: Final[tuple[RoundName, ...]] = get_args(RoundName)
"""Betting round ``n`` (1 = 2nd street, 5 = the vela round) is ``ROUND_NAMES[n - 1]``: the streets,
then ``"vela"`` (the summary's "folded on the Vela")."""
_ROUND_OF: Final[dict[str, int]] = {name: k + 1 for k, name in enumerate(ROUND_NAMES)}


def round_of_street(street: str) -> int:
    """The betting round a street's line opens: ``"2nd"`` -> 1 .. ``"5th"`` -> 4 (``"vela"`` -> 5).

    (A dictionary, not ``ROUND_NAMES.index``: the replay asks once a street line.)
    """
    return _ROUND_OF[street]


def round_words(round_no: int) -> str:
    """A betting round as a sentence names it: "3rd street", "the vela round"."""
    return "the vela round" if round_no == 5 else f"{ROUND_NAMES[round_no - 1]} street"


class RulesError(ValueError):
    """A profile option that the profile does not allow (a wild rank in classic, …)."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule parameter of RULES.md, for one profile and its options."""

    name: str
    # §1 cards
    deck: Deck
    min_players: int
    max_players: int
    # §4 deal and betting rounds
    forced_bets: ForcedBets
    bring_in: bool  # round 1 opener must bring in or complete (classic)
    burns: bool  # one burn card before 3rd, 4th and 5th street
    vela: Vela
    vela_betting_round: bool  # a betting round after the vela is turned
    showing_tie: ShowingTie  # who opens when showing hands tie
    # §3 comparing hands
    tie_break: TieBreak
    sf_rule: SfRule
    # §5 betting
    cap_bets: int = 4  # one bet and three raises per round
    cap_heads_up: bool = False
    pair_showing_option: bool = True  # round 2 may be bet big with a pair showing
    big_bet_from_round: int = 3
    big_blind_is_bet: bool = False  # stellapoker: the big blind counts as the bet
    # §6 showdown
    showdown_order: ShowdownOrder = "last_aggressor_else_button_left"
    # italian variants
    variants_allowed: bool = False
    wild: int | None = None  # a rank whose four cards are wild
    exposure: Exposure = "standard"

    @property
    def has_vela(self) -> bool:
        return self.vela != "none"

    @property
    def betting_rounds(self) -> int:
        return 5 if self.vela_betting_round else 4

    def lowest_rank(self, players: int) -> int:
        """The lowest rank of the deck a hand with ``players`` dealt in is dealt from (RULES.md §1).

        A count outside the profile's range reads as the nearest one it
        allows, so a hand with too many players (a finding of its own,
        :meth:`check_players`) is still checked against a deck.
        """
        return lowest_rank(self.deck, min(max(players, self.min_players), self.max_players))

    def dealt_up(self, round_no: int) -> tuple[bool, ...]:
        """Which of the cards each player is dealt for betting round ``round_no`` (1 = 2nd street) lie face up, in dealing order.

        2nd street deals the hole card down and the door card up; each later
        street one card up.  Carte coperte deals every card down (the player
        exposes one a street); una coperta deals 5th street's card down.
        """
        if round_no == 1:
            return (False, self.exposure != "carte_coperte")
        return (self.exposure == "standard" or (self.exposure == "una_coperta" and round_no != 4),)

    @property
    def exposes(self) -> bool:
        """Whether players turn cards up themselves (RULES.md §4's exposure variants): a card dealt down, then one exposed a street."""
        return self.exposure != "standard"

    def up_before(self, round_no: int) -> int:
        """How many cards each player still in shows face up when betting round ``round_no`` (1 = 2nd street) begins (RULES.md §4).

        One a street: the door card in round 1, a card more each street,
        four in the vela round.  Dealt face up it holds by itself; under an
        exposure variant (:attr:`exposes`) the players turn them up, and the
        replay counts them.
        """
        return min(round_no, 4)

    @property
    def all_show(self) -> bool:
        """Whether everyone left shows at the showdown, nobody mucking (RULES.md §6: italian, in seat order)."""
        return self.showdown_order == "seat_order"

    @property
    def shows_clockwise(self) -> bool:
        """Whether the hands are shown clockwise from the first to show (RULES.md §6: classic, italian); stellapoker's callers show or muck in any order."""
        return self.showdown_order != "last_aggressor_else_opener"

    def with_options(
        self,
        *,
        vela: Vela | None = None,
        wild: int | None = None,
        exposure: Exposure | None = None,
    ) -> RuleSet:
        """The profile with the variant options of RULES.md §4 applied, checked."""
        changes: dict[str, object] = {}
        if vela is not None and vela != self.vela:
            if not self.variants_allowed or vela != "at_start":
                raise RulesError(f"the {self.name} profile does not allow the vela option {vela!r}")
            changes["vela"] = vela
        if wild is not None:
            if not self.variants_allowed:
                raise RulesError(f"the {self.name} profile has no wild cards (only italian does)")
            if not 2 <= wild <= ACE:
                raise RulesError(f"wild rank {wild} is not a rank")
            changes["wild"] = wild
        if exposure is not None and exposure != self.exposure:
            if not self.variants_allowed:
                raise RulesError(f"the {self.name} profile has no exposure variants (only italian does)")
            changes["exposure"] = exposure
        return replace(self, **changes) if changes else self  # type: ignore[arg-type]

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise RulesError(
                f"the {self.name} profile is for {self.min_players}-{self.max_players} players, not {players}"
            )
        if self.wild is not None and self.wild < self.lowest_rank(players):
            raise RulesError(f"wild rank {self.wild} is not in the deck for {players} players")


def builtin_text(name: str) -> str:
    """The text of a built-in profile's file (``hhtool/game/profiles/NAME.toml``): a room file with every parameter."""
    return resources.files("hhtool.game").joinpath(f"profiles/{name}.toml").read_text(encoding="utf-8")


def _builtin(name: str) -> RuleSet:
    """A built-in profile built from its file, the one source of its rules.

    The file is trusted (the tests read it through :mod:`hhtool.game.room`'s
    checks, which a user's room file passes); here it is only taken apart.
    """
    values: dict[str, Any] = dict(tomllib.loads(builtin_text(name))["rules"])
    wild = values.pop("wild")
    return RuleSet(name=name, wild=None if wild == "none" else parse_rank(str(wild)), **values)


CLASSIC = _builtin("classic")
STELLAPOKER = _builtin("stellapoker")
ITALIAN = _builtin("italian")

PROFILES: dict[str, RuleSet] = {r.name: r for r in (CLASSIC, STELLAPOKER, ITALIAN)}


def profile(name: str) -> RuleSet:
    """The named profile; a :class:`RulesError` listing the names otherwise."""
    try:
        return PROFILES[name.strip().lower()]
    except KeyError:
        raise RulesError(f"unknown rule profile {name!r}: expected one of {', '.join(PROFILE_NAMES)}") from None


picklable(RuleSet)
