"""What a simulation is asked for: profile or room, options, stakes, site, view, faults.

:class:`SimConfig` is the whole request as one frozen value, checked once
(:func:`make_config`) so that the table, the bots and the writer never
meet an impossible combination halfway through a million hands.
:class:`Stakes` and :class:`Site` are the choices the command line does
not expose: amounts per structure and how each room writes money.
:data:`HOUSE_RAKE` is the simulator's own rake, taken unless a room file
states one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from hhtool.game.cards import parse_rank
from hhtool.game.rake import Cap, RakeRule
from hhtool.game.room import Room, builtin_room
from hhtool.history.currency import currency_of
from hhtool.history.money import MoneyStyle, display_amount
from hhtool.game.rules import PROFILES, Exposure, RuleSet, RulesError, Structure, profile


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
        """Real money (a currency sign), as opposed to play chips."""
        return self.money.cents

    @property
    def currency(self) -> str:
        """The ISO code of the table's money (``EUR``, ``USD``), ``chips`` for play chips: what a rake's ``currencies`` name."""
        return currency_of(self.money.symbol, "cent" if self.money.cents else "chip").code

    def fmt(self, amount: int) -> str:
        """An amount as the audit writes it for this table (``€1.25``, ``40 chips``)."""
        return display_amount(amount, self.money)


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
    rake_cap: int  # most the simulator's own rake (HOUSE_RAKE) takes from one pot at these stakes


HOUSE_CAP = Cap(big_bets=Fraction(5, 4))
"""The cap of :data:`HOUSE_RAKE`: a big bet and a quarter."""

HOUSE_RAKE = RakeRule(
    percent=Fraction(5),
    # The cap of 1.25 big bets is the simulator's historical "big + small // 2" exactly, at every stakes
    # stakes_for() makes: big = 2 * small, so floor(5/4 * big) = floor(5 * small / 2) = 2 * small + small // 2
    # for any whole small bet (Cap.units rounds down too).  One rule for every stakes, as a room file would
    # write it (cap_big_bets = 1.25); tests/test_simulate_rooms.py holds it against the old formula.
    cap=HOUSE_CAP,
    step=Decimal("0.05"),  # rounded down to 5 minor units (the raked tables all count cents)
    currencies=("EUR", "USD"),  # the real-money sites; play chips (and any other money) take none
    from_street="3rd",  # "no third street, no drop": nothing when the hand ends during the 2nd-street round
)
"""The simulator's own rake, as a room file's ``[rake]`` would state it: 5 % of the pot, rounded down to
5 minor units, capped at 1.25 big bets (€1.25 at €0.50/€1.00, €2.50 at €1/€2), on euro and dollar tables,
from 3rd street.  Taken at a table whose room states none; computed by :meth:`RakeRule.due`, the audit's
own computation of a room's rake."""


def stakes_for(rules: RuleSet, structure: Structure, site: Site) -> Stakes:
    """Stakes that suit the structure: fixed limit smaller units and shallower stacks.

    Cents: fixed limit €0.50/€1.00, pot and no limit €1/€2; chips: 20/40
    and 200/400.  The ante is a fifth of the small bet, the bring-in twice
    the ante, the blinds half the small bet and the small bet (so the big
    blind is a full small bet, the round's bet in stellapoker).  Buy-ins:
    40 big bets in fixed limit (all-ins happen, but late), 100 small bets
    in pot and no limit.  The rake cap (:data:`HOUSE_RAKE`'s) is a big bet and a quarter.
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
        rake_cap=HOUSE_CAP.units(site.cash, big),  # big + small // 2
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
    """One simulation request, checked.

    ``room``: the room file the hands are dealt under (None: a built-in
    profile); ``rules`` are then its rules (with the italian options), and
    ``rake`` its ``[rake]``, else :data:`HOUSE_RAKE`.
    """

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
    rake: RakeRule = HOUSE_RAKE  # what the table takes from each pot
    room: Room | None = None
    pool: int = 0  # population mode: players in the pool (0: one table per session, as before)
    tables: int = 1  # population mode: tables running at once
    collusion: tuple[Collusion, ...] = ()  # the colluding pairs, in the order asked (pair 1, 2, ...)

    @property
    def colluders(self) -> frozenset[str]:
        """Every player in a colluding pair."""
        return frozenset(n for c in self.collusion for n in (c.a, c.b))


STRUCTURES: dict[str, Structure] = {"fixed": "fixed", "pot": "pot", "no": "no"}

COLLUSION_KINDS = ("soft-play", "chip-dumping", "card-sharing")
"""The kinds of ``--collude`` (``docs/simulate.md``, "Colluding pairs", defines each)."""

DEFAULT_STRENGTH = 0.5
"""How often a pair deviates, by default, where its kind's spot arises."""


@dataclass(frozen=True, slots=True)
class Collusion:
    """One colluding pair: its kind, its two players and its strength (0..1: how often it deviates in its spots).

    ``a`` and ``b`` are ordered for chip dumping only: ``a`` dumps, ``b``
    receives; soft play and card sharing are symmetric.
    """

    kind: str
    a: str
    b: str
    strength: float


@dataclass(frozen=True, slots=True)
class CollusionRequest:
    """A ``--collude`` option read: the kind, the two names (None: the seed picks them), the strength."""

    kind: str
    names: tuple[str, str] | None
    strength: float


def parse_collusion(text: str) -> CollusionRequest:
    """``KIND[:A,B][:STRENGTH]``: ``soft-play:alice,bob:0.8``, ``chip-dumping:0.5``, ``card-sharing``.

    Names may hold colons (``ciro:napoli``): the last ``:`` part is the
    strength when it reads as a number, the first is the kind, the rest is
    the two names split at their one comma.
    """
    kind, _, rest = text.strip().partition(":")
    kind = re.sub(r"[\s_]+", "-", kind.strip().lower())
    if kind not in COLLUSION_KINDS:
        raise SimulationError(f"--collude {text!r}: unknown kind {kind!r}, expected {', '.join(COLLUSION_KINDS)}")
    strength = DEFAULT_STRENGTH
    names_part = rest
    head, sep, last = rest.rpartition(":")
    number = last if sep else rest
    if re.fullmatch(r"\s*(?:\d+(?:\.\d*)?|\.\d+)\s*", number):
        strength = float(number)
        names_part = head if sep else ""
        if not 0.0 <= strength <= 1.0:
            raise SimulationError(f"--collude {text!r}: strength {number.strip()} is not between 0 and 1")
    if not names_part:
        return CollusionRequest(kind, None, strength)
    names = names_part.split(",")
    if len(names) != 2 or not all(n for n in names):
        raise SimulationError(f"--collude {text!r}: expected two names A,B (e.g. {kind}:alice,bob:0.5)")
    a, b = names
    if a == b:
        raise SimulationError(f"--collude {text!r}: a pair needs two players")
    return CollusionRequest(kind, (a, b), strength)


def resolve_collusion(
    requests: Sequence[CollusionRequest], available: Sequence[str], seed: int
) -> tuple[Collusion, ...]:
    """The pairs, named: those given on the command line, then those the seed picks among the players left.

    A player belongs to one pair at most (a partner is then one name).
    Picks come from ``random.Random("<seed>:collude")`` in the order the
    options were given, among ``available`` (the pool, or the first
    players of a single table) not already in a pair.
    """
    taken: set[str] = set()
    for r in requests:
        if r.names is None:
            continue
        for n in r.names:
            if n not in available:
                where = "in the pool" if len(available) > 8 else f"at the table ({', '.join(available)})"
                raise SimulationError(f"--collude {r.kind}: {n!r} is not a player {where}")
            if n in taken:
                raise SimulationError(f"--collude: {n!r} is in two pairs; a player colludes with one partner")
            taken.add(n)
    rng = random.Random(f"{seed}:collude")
    pairs: list[Collusion] = []
    for r in requests:
        if r.names is not None:
            a, b = r.names
        else:
            free = [n for n in available if n not in taken]
            if len(free) < 2:
                raise SimulationError(f"--collude {r.kind}: fewer than two players left to pick a pair from")
            a, b = rng.sample(free, 2)
            taken.update((a, b))
        pairs.append(Collusion(r.kind, a, b, r.strength))
    return tuple(pairs)


def make_config(
    *,
    rules: str | Room,
    structure: str = "fixed",
    players: int = 6,
    italian_options: str | None = None,
    seed: int = 0,
    view: str = "audit",
    site: str | None = None,
    faults: float = 0.0,
    pool: int = 0,
    tables: int = 0,
    collude: Sequence[str | CollusionRequest] = (),
) -> SimConfig:
    """Check a request and fill in the defaults; :class:`SimulationError` says what is wrong.

    ``rules``: a profile's name, or a room (:func:`hhtool.game.room.load_room`;
    a built-in profile read as a room is that profile).  Under a room the
    hands are dealt and bet by its rules, the table takes its rake (the
    simulator's own, :data:`HOUSE_RAKE`, when it states none), the headers
    name its base profile, and the site is the room's first unless ``site``
    is given, so that ``hhtool audit --rooms`` picks the room again.

    ``pool``: population mode, ``pool`` players joining and leaving
    ``tables`` tables at once (0: derived, about two thirds of the pool
    seated), ``players`` seated at each.  ``collude``: ``--collude`` texts
    (:func:`parse_collusion`) or requests, the pairs named among the pool
    or the table's first players.
    """
    room = _room_file(rules)
    if room is not None:
        base = room.rules
        whose = f"the room {room.name!r}'s rules ({room.source})"
    else:
        try:
            base = profile(rules.base if isinstance(rules, Room) else rules)
        except RulesError as e:
            raise SimulationError(str(e)) from None
        whose = f"the {base.name} profile"
    struct = STRUCTURES.get(structure.strip().lower())
    if struct is None:
        raise SimulationError(f"unknown structure {structure!r}: expected fixed, pot or no")
    options = parse_italian_options(italian_options)
    if options != ItalianOptions() and not base.variants_allowed:
        raise SimulationError(f"{whose} {'have' if room is not None else 'has'} no italian options")
    try:
        ruleset = base.with_options(
            vela="at_start" if options.vela_at_start else None, wild=options.wild, exposure=options.exposure
        )
    except RulesError as e:
        raise SimulationError(str(e)) from None
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise SimulationError(
            f"--players {players}: {whose} {'are' if room is not None else 'is'} for {ruleset.min_players}-{ruleset.max_players} players"
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
    if site is None and room is not None and room.sites:
        site_name = room.sites[0]
        if not re.fullmatch(r"[A-Za-z0-9]+", site_name):
            raise SimulationError(
                f"the room {room.name!r}'s first site {site_name!r} ({room.source}) is not one word of letters and digits, "
                "as the simulator writes a site: give one with --site"
            )
    else:
        site_name = site or DEFAULT_SITE[ruleset.name]
        if not re.fullmatch(r"[A-Za-z0-9]+", site_name):
            raise SimulationError(f"--site {site_name!r}: one word of letters and digits")
    chosen_site = SITES.get(site_name) or Site(site_name, MoneyStyle("€", True, True, False), "UTC", site_name)
    view_name = None if view == "audit" else view
    if pool < 0 or tables < 0:
        raise SimulationError("--pool and --tables: not negative")
    if pool:
        from hhtool.simulate.names import pool_names

        if view_name is not None:
            raise SimulationError("--view NAME with --pool: an own view follows one player at one table; use --view audit")
        if pool < players:
            raise SimulationError(f"--pool {pool}: fewer players than the {players} seated at a table")
        tables = tables or max(1, 2 * pool // (3 * players))
        if tables * players > pool:
            raise SimulationError(f"--tables {tables}: {tables} tables of {players} need {tables * players} players, the pool has {pool}")
        available: tuple[str, ...] = pool_names(pool)
    else:
        if tables > 1:
            raise SimulationError("--tables: only with --pool (without it, each session is one table)")
        tables = 1
        from hhtool.simulate.names import FIRST_NAMES

        available = FIRST_NAMES[:players]
    requests = [parse_collusion(c) if isinstance(c, str) else c for c in collude]
    pairs = resolve_collusion(requests, available, seed)
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
        rake=room.rake if room is not None and room.rake is not None else HOUSE_RAKE,
        room=room,
        pool=pool,
        tables=tables,
        collusion=pairs,
    )


def _room_file(rules: str | Room) -> Room | None:
    """The room file a request names, or None for a built-in profile (by name, or read as a room: ``--rules classic``).

    A room file's hands are written under its base profile's name (the
    header's), so a room needs one.
    """
    if not isinstance(rules, Room):
        return None
    if rules.base in PROFILES and rules == builtin_room(rules.base):
        return None
    if rules.base not in PROFILES or rules.rules.name != rules.base:
        raise SimulationError(
            f"the room {rules.name!r} ({rules.source}) has no base profile: the simulator writes the base's name "
            "in each header (base = \"classic\", \"stellapoker\" or \"italian\" under [room])"
        )
    return rules
