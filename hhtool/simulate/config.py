"""What a simulation is asked for: profile, options, stakes, site, view, faults.

:class:`SimConfig` is the whole request as one frozen value, checked once
(:func:`make_config`) so that the table, the bots and the writer never
meet an impossible combination halfway through a million hands.
:class:`Stakes` and :class:`Site` are the choices the command line does
not expose: amounts per structure and how each room writes money.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hhtool.game.cards import parse_rank
from hhtool.history.money import MoneyStyle
from hhtool.game.rules import Exposure, RuleSet, RulesError, Structure, profile


class SimulationError(ValueError):
    """A request the simulator cannot honour (a usage error on the command line)."""


class DeckExhausted(Exception):
    """The deck cannot deal the next street (six stellapoker players on 5th street: 30 cards and 3 burns from 32).

    RULES.md gives such a hand no valid ending (the replay's ``deck_exhausted``),
    so the simulator plays the deal again with new cards (:func:`hhtool.simulate.session.session_hands`).  Defined here, in
    an interpreted module: in a module mypyc compiles (``hand.py``, which raises it), the class failed at import.
    """


@dataclass(frozen=True, slots=True)
class Site:
    """How a room writes its histories: its name, money style and time zone."""

    name: str
    money: MoneyStyle
    zone: str
    table: str  # table name stem

    @property
    def cash(self) -> bool:
        """Real money (a currency sign): the room takes a rake. Play chips are not raked."""
        return self.money.cents


SITES: dict[str, Site] = {
    "Vela": Site("Vela", MoneyStyle("€", True, True, False), "CET", "Vela"),
    "StellaPoker": Site("StellaPoker", MoneyStyle("$", True, True, False), "ET", "Roma"),
    "Tavolo": Site("Tavolo", MoneyStyle("", False, False, True), "+01:00", "Napoli"),
}
DEFAULT_SITE = {"classic": "Vela", "stellapoker": "StellaPoker", "italian": "Tavolo"}


@dataclass(frozen=True, slots=True)
class Stakes:
    """The amounts of one game, in minor units."""

    small_bet: int
    big_bet: int
    ante: int | None
    bring_in: int | None
    small_blind: int | None
    big_blind: int | None
    buy_in: int  # a new player's usual stack
    rake_cap: int  # most the room takes from one pot


def stakes_for(rules: RuleSet, structure: Structure, site: Site) -> Stakes:
    """Stakes that suit the structure: fixed limit smaller units and shallower stacks.

    Cents: fixed limit €0.50/€1.00, pot and no limit €1/€2; chips: 20/40
    and 200/400.  The ante is a fifth of the small bet, the bring-in twice
    the ante, the blinds half the small bet and the small bet (so the big
    blind is a full small bet, the round's bet in stellapoker).  Buy-ins:
    40 big bets in fixed limit (all-ins happen, but late), 100 small bets
    in pot and no limit.  The rake cap is one and a half big bets.
    """
    if site.cash:
        small = 50 if structure == "fixed" else 100
    else:
        small = 20 if structure == "fixed" else 200
    big = 2 * small
    ante = small // 5
    blinds = rules.forced_bets == "blinds"
    return Stakes(
        small_bet=small,
        big_bet=big,
        ante=None if blinds else ante,
        bring_in=2 * ante if rules.bring_in else None,
        small_blind=small // 2 if blinds else None,
        big_blind=small if blinds else None,
        buy_in=40 * big if structure == "fixed" else 100 * small,
        rake_cap=big + small // 2,
    )


@dataclass(frozen=True, slots=True)
class ItalianOptions:
    """The italian variants: vela at start, a wild rank, an exposure variant."""

    vela_at_start: bool = False
    wild: int | None = None
    exposure: Exposure = "standard"


def parse_italian_options(text: str | None) -> ItalianOptions:
    """``"vela-at-start,wild=7,carte-coperte"`` (any order; ``una-coperta`` for the other exposure).

    Words may use ``-``, ``_`` or spaces; ``wild=10`` and ``wild=T`` are the same rank.
    """
    if text is None or not text.strip():
        return ItalianOptions()
    vela = False
    wild: int | None = None
    exposure: Exposure = "standard"
    for raw in re.split(r"[,;]", text):
        token = re.sub(r"[\s_]+", "-", raw.strip().lower())
        if not token:
            continue
        if token in ("vela-at-start", "vela"):
            vela = True
        elif token.startswith("wild"):
            value = token[4:].lstrip("=-:")
            try:
                wild = parse_rank(value)
            except ValueError:
                raise SimulationError(f"italian option {raw.strip()!r}: expected wild=RANK, e.g. wild=7") from None
        elif token in ("carte-coperte", "una-coperta"):
            chosen: Exposure = "carte_coperte" if token == "carte-coperte" else "una_coperta"
            if exposure != "standard" and exposure != chosen:
                raise SimulationError("carte coperte and una coperta exclude each other")
            exposure = chosen
        else:
            raise SimulationError(
                f"unknown italian option {raw.strip()!r}: expected vela-at-start, wild=RANK, carte-coperte or una-coperta"
            )
    return ItalianOptions(vela, wild, exposure)


@dataclass(frozen=True, slots=True)
class SimConfig:
    """One simulation request, checked."""

    rules: RuleSet
    structure: Structure
    players: int
    options: ItalianOptions
    seed: int
    site: Site
    stakes: Stakes
    view: str | None  # None: the audit view (every hole card); else a player's own view
    fault_rate: float
    min_dealt: int  # the fewest players a hand may be dealt to (a wild rank must stay in the deck)


STRUCTURES: dict[str, Structure] = {"fixed": "fixed", "pot": "pot", "no": "no"}


def make_config(
    *,
    rules: str,
    structure: str = "fixed",
    players: int = 6,
    italian_options: str | None = None,
    seed: int = 0,
    view: str = "audit",
    site: str | None = None,
    faults: float = 0.0,
) -> SimConfig:
    """Check a request and fill in the defaults; :class:`SimulationError` says what is wrong."""
    try:
        base = profile(rules)
    except RulesError as e:
        raise SimulationError(str(e)) from None
    struct = STRUCTURES.get(structure.strip().lower())
    if struct is None:
        raise SimulationError(f"unknown structure {structure!r}: expected fixed, pot or no")
    options = parse_italian_options(italian_options)
    if options != ItalianOptions() and not base.variants_allowed:
        raise SimulationError(f"the {base.name} profile has no italian options")
    try:
        ruleset = base.with_options(
            vela="at_start" if options.vela_at_start else None, wild=options.wild, exposure=options.exposure
        )
    except RulesError as e:
        raise SimulationError(str(e)) from None
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise SimulationError(
            f"--players {players}: the {ruleset.name} profile is for {ruleset.min_players}-{ruleset.max_players} players"
        )
    min_dealt = ruleset.min_players
    if ruleset.wild is not None and ruleset.deck == "by_players":
        # the deck's lowest rank is 11 - players: the wild rank must be in it
        min_dealt = max(min_dealt, 11 - ruleset.wild)
        if players < min_dealt:
            raise SimulationError(
                f"wild rank {options.wild} is in the italian deck only with {min_dealt} or more players, not {players}"
            )
    if not 0.0 <= faults <= 1.0:
        raise SimulationError(f"--faults {faults}: a share between 0 and 1")
    site_name = site or DEFAULT_SITE[ruleset.name]
    if not re.fullmatch(r"[A-Za-z0-9]+", site_name):
        raise SimulationError(f"--site {site_name!r}: one word of letters and digits")
    chosen_site = SITES.get(site_name) or Site(site_name, MoneyStyle("€", True, True, False), "UTC", site_name)
    view_name = None if view == "audit" else view
    return SimConfig(
        rules=ruleset,
        structure=struct,
        players=players,
        options=options,
        seed=seed,
        site=chosen_site,
        stakes=stakes_for(ruleset, struct, chosen_site),
        view=view_name,
        fault_rate=faults,
        min_dealt=min_dealt,
    )
