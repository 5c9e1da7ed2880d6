"""What a hand's lines show of its cards, read once: the facts the store keeps about them.

Who was seen with which card, on which street, face up or down; each
player's starting pair (the hole card and the door card); the streets a
card was dealt on; who reached the showdown; the vela.  :class:`CardFacts`
holds them, :class:`FactsWalk` reads them from the events in order, and
there is one reading for every hand:

* the replay feeds its walk each event as it walks the hand
  (:meth:`hhtool.replay.walk.Walk.event`), and :class:`~hhtool.replay.result.Replay`
  carries the facts (``Replay.facts``);
* :func:`card_facts` feeds a walk the events alone, for a hand whose
  replay raised (the import stores it as a ``replay_error`` hand, with
  the same card rows it would have had).

The facts are the history's cards as its lines lay them out, whatever
the replay finds wrong with them: face up or down as the rule set the
header names deals them (:meth:`~hhtool.game.rules.RuleSet.dealt_up`,
the rules of :func:`own_rules`), whatever rules a replay asks about; a
card seen again for the same holder keeps the street and face it was
first seen with, unless it is exposed.  (The deal's checks judge the deal
by the same rule; this reads what the lines show, a repeated bracket or a
second bracket where none belongs included.)  Who was dealt in is
:func:`dealt_in`, which the replay's deal reads before the walk begins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from hhtool.game.cards import Card
from hhtool.game.rules import STREET_NAMES, RuleSet, RulesError, profile, round_of_street
from hhtool.game.room import Room
from hhtool.history.events import Deal, DoesNotShow, Expose, Hand, Header, Mucks, PostAnte, PostBlind, ShowDown, Shows, Street, Vela

REACHED_BIT: Final[dict[str, int]] = {name: 1 << k for k, name in enumerate(STREET_NAMES[1:])}  # 3rd, 4th, 5th
"""The bit of :attr:`CardFacts.reached` for a card dealt on a street (2nd street's cards are every hand's)."""


@dataclass(init=False)
class SeenCard:
    """One card as first seen: whose (None: the vela), on which street, and whether it ever lay face up.

    ``street`` is the street of the line that showed it first (``"2nd"`` ..
    ``"5th"``, ``"vela"``, or ``"showdown"`` for a hole card first seen
    shown down).  ``up``: dealt face up, or exposed later.
    """

    holder: Final[str | None]
    card: Final[Card]
    street: Final[str]
    up: Final[bool]

    def __init__(self, holder: str | None, card: Card, street: str, up: bool) -> None:
        self.holder = holder
        self.card = card
        self.street = street
        self.up = up


@dataclass(init=False)
class CardFacts:
    """A hand's cards as its lines show them (see the module's docstring).

    ``cards``: every card seen, once each per holder, in the order first
    seen.  ``starting``: player -> (hole, door), for a player whose two
    2nd-street cards are both known and one of them was the only one up
    (in carte coperte, the door is the one exposed on 2nd street).
    ``reached``: the :data:`REACHED_BIT` of each street a card was dealt
    on.  ``showdown``: who showed, mucked or did not show at the showdown;
    ``has_showdown``: the hand had a showdown (one of those lines, or
    ``*** SHOW DOWN ***``).  ``vela``: the vela's line, else the summary's.
    """

    cards: Final[tuple[SeenCard, ...]]
    starting: Final[dict[str, tuple[Card, Card]]]
    reached: Final[int]
    showdown: Final[frozenset[str]]
    has_showdown: Final[bool]
    vela: Final[Card | None]

    def __init__(
        self,
        cards: tuple[SeenCard, ...],
        starting: dict[str, tuple[Card, Card]],
        reached: int,
        showdown: frozenset[str],
        has_showdown: bool,
        vela: Card | None,
    ) -> None:
        self.cards = cards
        self.starting = starting
        self.reached = reached
        self.showdown = showdown
        self.has_showdown = has_showdown
        self.vela = vela


class _Seen:
    """The cards seen of one holder, a bit a card (``1 << card``): compiled, a native attribute, never boxed."""

    def __init__(self) -> None:
        self.bits = 0


class Faces:
    """Which cards a rule set deals face up (:meth:`~hhtool.game.rules.RuleSet.dealt_up`), read once a rule set (:func:`faces`).

    ``new_up``: per betting round, how a card in a line's new bracket lies (as
    the round's last card is dealt); ``door_up``: 2nd street's door card;
    ``later_up``, ``fifth_up``: 3rd street's card (and 4th's), 5th street's;
    ``repeat_up``: every later street's card (a later line that only repeats
    the cards).  Never changed once made: shared by every hand of the rule set.
    """

    def __init__(self, rules: RuleSet) -> None:
        d = [rules.dealt_up(r) for r in range(1, 6)]
        self.rules = rules
        self.new_up = [up[-1] for up in d]
        self.door_up = d[0][1]
        self.later_up = d[1][0]
        self.fifth_up = d[3][0]
        self.repeat_up = d[1][0] and d[2][0] and d[3][0]


_FACES: Final[dict[int, Faces]] = {}
""":func:`faces` by the rule set's identity; each entry holds its rule set, so that no other takes its ``id`` meanwhile."""


def faces(rules: RuleSet) -> Faces:
    """The :class:`Faces` of ``rules``: the same for every hand of a rule set, where each hand asked ``dealt_up`` eight times."""
    kept = _FACES.get(id(rules))
    if kept is None or kept.rules is not rules:
        if len(_FACES) >= 256:
            _FACES.clear()
        kept = _FACES[id(rules)] = Faces(rules)
    return kept


class FactsWalk:
    """The card facts gathered while a hand's events pass by, in order (:meth:`see`, then :meth:`facts`).

    ``rules``: the rule set the hand's header names (:func:`own_rules`);
    which cards lie face up comes from its :meth:`~hhtool.game.rules.RuleSet.dealt_up`.
    """

    def __init__(self, rules: RuleSet) -> None:
        f = faces(rules)
        self.new_up = f.new_up  # per betting round: a card in a line's new bracket lies as the round's last card is dealt
        self.door_up = f.door_up  # 2nd street's door card
        self.repeat_up = f.repeat_up  # every later street's card: a later line that only repeats the cards
        self.street = "2nd"
        self.round = 1
        # holder -> the cards seen of theirs, a bit a card (``1 << card``) in an object a holder, looked up
        # once a line: not a dictionary of cards a holder built, grown and freed every hand
        self.seen: dict[str | None, _Seen] = {}
        self.cards: list[SeenCard] = []  # in the order first seen
        self.starting: dict[str, tuple[Card, Card]] = {}
        self.face_down: dict[str, tuple[Card, ...]] = {}  # carte coperte: 2nd-street cards, until one is exposed on 2nd street
        self.reached = 0
        self.showdown: set[str] = set()
        self.has_showdown = False
        self.vela: Card | None = None

    def _holder(self, holder: str | None) -> _Seen:
        """The cards seen so far of ``holder``."""
        seen = self.seen.get(holder)
        if seen is None:
            seen = self.seen[holder] = _Seen()
        return seen

    def _first(self, seen: _Seen, holder: str | None, card: Card, street: str, up: bool) -> None:
        """A card seen for the first time here; a card seen before keeps its first street and face."""
        bit = 1 << card
        if not seen.bits & bit:
            seen.bits |= bit
            self.cards.append(SeenCard(holder, card, street, up))

    def see(self, e: object) -> None:
        """One event of the hand, in order; every kind of event may pass (those without cards change nothing)."""
        if isinstance(e, Deal):
            self._deal(e)
        elif isinstance(e, Street):
            self.street = e.name
            self.round = round_of_street(e.name)
        elif isinstance(e, Vela):
            self.street = "vela"
            self.round = 5
            self.vela = e.card
            self._first(self._holder(None), None, e.card, "vela", True)
        elif isinstance(e, Expose):
            self._expose(e)
        elif isinstance(e, Shows):
            self.has_showdown = True
            self.showdown.add(e.player)
            seen = self._holder(e.player)
            for c in e.cards:
                self._first(seen, e.player, c, "showdown", False)
        elif isinstance(e, (Mucks, DoesNotShow)):
            self.has_showdown = True
            self.showdown.add(e.player)
        elif isinstance(e, ShowDown):
            self.has_showdown = True

    def _deal(self, e: Deal) -> None:
        owner = e.player
        street = self.street
        seen = self._holder(owner)
        if street == "2nd":
            if e.new is None and e.known is not None and len(e.known) == 2:
                if not self.door_up:
                    self.face_down[owner] = e.known  # the door card is the one exposed on 2nd street
                else:
                    self.starting[owner] = (e.known[0], e.known[1])
        else:
            self.reached |= REACHED_BIT.get(street, 0)
        if e.new is None:
            known = e.known or ()
            if street == "2nd":  # the hole card down, the door card (the last) up as the rules deal it
                last = len(known) - 1
                door_up = self.door_up
                for i, c in enumerate(known):
                    self._first(seen, owner, c, street, i == last and door_up)
            else:  # a later street's line that repeats the cards: up where the rules deal every street's card up
                for c in known:
                    self._first(seen, owner, c, street, self.repeat_up)
            return
        for c in e.known or ():  # the cards dealt before, as the line repeats them: up where the door card is
            self._first(seen, owner, c, street, self.door_up)
        up = self.new_up[self.round - 1]
        for c in e.new:
            self._first(seen, owner, c, street, up)

    def _expose(self, e: Expose) -> None:
        if self.street == "2nd":
            down = self.face_down.pop(e.player, None)
            if down is not None and len(e.cards) == 1 and e.cards[0] in down:
                self.starting[e.player] = (down[1] if e.cards[0] == down[0] else down[0], e.cards[0])
            elif e.player in self.starting and self.starting[e.player][0] in e.cards:
                del self.starting[e.player]  # the hole card up too: none is a hole card
        owner = e.player
        seen = self._holder(owner)
        for c in e.cards:
            if not seen.bits & 1 << c:
                self._first(seen, owner, c, self.street, True)
                continue
            k = self._place(owner, c)
            was = self.cards[k]
            if not was.up:
                self.cards[k] = SeenCard(was.holder, was.card, was.street, True)

    def _place(self, holder: str | None, card: Card) -> int:
        """Where ``holder``'s ``card`` (seen before) is in :attr:`cards`: looked for, an exposure being rare."""
        for k, seen in enumerate(self.cards):
            if seen.card == card and seen.holder == holder:
                return k
        raise AssertionError("a card seen is in the cards seen")

    def facts(self, summary_vela: Card | None) -> CardFacts:
        """The facts once every event has passed; ``summary_vela``: the summary's vela, for a hand with no vela line."""
        vela = self.vela
        if vela is None and summary_vela is not None:
            vela = summary_vela
            self._first(self._holder(None), None, vela, "vela", True)
        return CardFacts(tuple(self.cards), self.starting, self.reached, frozenset(self.showdown), self.has_showdown, vela)


def own_rules(header: Header, room: Room | None = None) -> tuple[RuleSet, RulesError | None]:
    """The rule set ``header`` names (or the ``room``'s that governs it), and the error of options it refuses (then the rules as they stand).

    The replay (under its own rules) and the card facts read a hand by it;
    a parsed hand's header always names one (the reader refuses the others).
    Without a room, the rule set is kept by the header's four fields that
    make it (:meth:`~hhtool.history.events.Header.ruleset`): the same for
    every hand of a profile and its options, where the profile's name was
    normalised and the options applied (a new rule set each italian hand
    with options) at every hand.
    """
    if room is not None:
        try:
            return room.ruleset_for(header.vela_at_start, header.wild, header.exposure), None
        except RulesError as err:
            return room.rules, err
    key = (header.profile, header.vela_at_start, header.wild, header.exposure)
    rules = _OWN_RULES.get(key)
    if rules is not None:
        return rules, None
    try:
        rules = header.ruleset()
    except RulesError as err:
        return profile(header.profile), err
    if len(_OWN_RULES) < 1024:  # a few profiles and options in practice; never grown without bound
        _OWN_RULES[key] = rules
    return rules, None


_OWN_RULES: Final[dict[tuple[str, bool, int | None, str], RuleSet]] = {}
""":func:`own_rules` without a room, by the header's profile, vela option, wild rank and exposure."""


def card_facts(hand: Hand) -> CardFacts:
    """The card facts of ``hand`` from its events alone: what ``replay(hand).facts`` holds, without a replay."""
    walk = FactsWalk(own_rules(hand.header)[0])
    for e in hand.events:
        walk.see(e)
    return walk.facts(hand.summary.vela)


def dealt_in(hand: Hand) -> set[str]:
    """The players dealt into ``hand``: those who post a forced bet or are dealt 2nd-street cards.

    A deal counts before the first street line and on 2nd street; the
    replay's deal (:meth:`hhtool.replay.deal.CardChecks.setup`) seats these
    players, and the store counts them for a hand whose replay raised.
    """
    dealt: set[str] = set()
    street = 0
    for e in hand.events:  # the card lines tested first: they are most of a hand's lines that are none of the actions
        if isinstance(e, Deal):
            if street <= 1:
                dealt.add(e.player)
        elif isinstance(e, Street):
            street = round_of_street(e.name)
        elif isinstance(e, (PostAnte, PostBlind)):
            dealt.add(e.player)
    return dealt
