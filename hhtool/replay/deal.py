"""The deal and the card checks of a replay: who is dealt in, each player's cards, the deck, the showdown's cards.

:class:`CardChecks` holds the state of one hand's replay (the settlement
and the walk build on it: :mod:`.settle`, :mod:`.walk`) and checks every
card line against RULES.md: the deck the profile deals for so many
players, one card per street in dealing order, which cards lie face up
(:meth:`~hhtool.game.rules.RuleSet.dealt_up`), a card dealt twice, the
exposures of carte coperte and una coperta, the vela, and the cards shown
against those dealt.
"""

from __future__ import annotations

from typing import Final, cast

from hhtool.game.betting import Betting
from hhtool.game.operations import Player, deal_order
from hhtool.game.cards import RANK_NAMES, Card, card_symbol, cards_str
from hhtool.game.evaluate import CATEGORY_LABELS, HandValue, evaluate
from hhtool.game.room import Room
from hhtool.game.rules import RuleSet, RulesError, round_words
from hhtool.history.events import Deal, Expose, Hand, Shows
from hhtool.history.money import MoneyStyle, display_amount
from hhtool.replay.explain import count_words
from hhtool.replay.facts import FactsWalk, dealt_in, faces, own_rules
from hhtool.replay.findings import RULE_PARAMS, Finding, finding
from hhtool.replay.holdings import Holding, Holdings

CARD_CODES: Final = 64
"""How many codes a card can have: ``rank << 2 | suit``, ranks 2 to 14 (:mod:`hhtool.game.cards`), so under 64."""


class _Words:
    """Amounts in a hand's money, for the betting machine's refusals (:attr:`hhtool.game.betting.Betting.words`).

    An object of its own, not the replay's bound ``fmt``: that would tie the
    machine back to the replay in a cycle, and every replay would then wait
    for the garbage collector to be freed rather than go when it returns.
    """

    def __init__(self, money: MoneyStyle) -> None:
        self.money = money

    def __call__(self, amount: int) -> str:
        return display_amount(amount, self.money)


class _Cards:
    """What is known of one player's cards, in the order dealt (a plain class: compiled, its ``__init__`` is C).

    ``rounds``: the betting round each card was dealt for (1: both 2nd-street cards).
    """

    def __init__(self) -> None:
        self.cards: list[Card | None] = []
        self.rounds: list[int] = []
        self.up: list[Card] = []

    @property
    def known(self) -> list[Card]:
        return [c for c in self.cards if c is not None]


class CardChecks:
    """One hand's replay state, and its checks of the deal and the cards."""

    def __init__(self, hand: Hand, rules: RuleSet | None, explain: bool = True, room: Room | None = None) -> None:
        self.hand = hand
        self.explain = explain
        self.room = room  # the room whose file governs the hand (its rules, its rake), or None: the profile's
        self.findings: list[Finding] = []
        header = hand.header
        own, refused = own_rules(header, room)
        if rules is None:
            if refused is not None:
                self.add("rules_option", header.line, str(refused))
            rules = own
        self.rules = rules
        # which cards lie face up, read once a rule set (facts.faces): 2nd street's door card, 5th
        # street's card (una coperta deals it down), every other later street's
        up = faces(rules)
        self.door_up = up.door_up
        self.fifth_up = up.fifth_up
        self.later_up = up.later_up
        self.money = hand.money
        self.rounds: list[str] = []
        # the cards seen so far, a bit a card's code (``1 << card``), and the line each was first seen on, by
        # the card's code: a list of the 64 codes a card can have, not a dictionary grown (and resized) card
        # by card.  The lines are kept from the header's (``card_base``): a line of a large file is an int
        # allocated when a list holds it, a hand's own line offsets (under 257) are Python's cached ints
        self.cards_seen = 0
        self.card_base = hand.header.line
        self.card_lines: list[int] = [0] * CARD_CODES
        self.cards: dict[str, _Cards] = {}
        self.seat_cards: list[_Cards] = []
        self.vela: Card | None = None
        self.vela_line = 0
        self.shown: dict[str, tuple[Card, ...]] = {}
        self.mucked: set[str] = set()
        self.show_order: list[str] = []
        self.round_started = False
        self.street_round = 0
        self.deals_this_street: list[str] = []
        self.last_dealt = -1  # the dealing position of the last card line this street (-1: none yet)
        self.double_bet_line = 0
        self.vela_missing_said = False
        self._values: dict[tuple[Card, ...], HandValue] = {}
        self.facts_walk = FactsWalk(own)  # what the lines show of the cards, for the store (Replay.facts)
        self.streets: list[tuple[int, int]] = []  # (round, line) of each street line, for the equities (Replay.holdings)
        self.lines_round = 0  # the round as the lines stand: the last street line's, 5 from the vela's (0: before 2nd street)
        self.money_round = 0  # ``lines_round`` at the last forced bet or action
        self.said_all_in: set[str] = set()  # who a line says is all-in

    def add(self, code: str, line: int, message: str) -> None:
        """A finding, citing RULES.md; or the room file's lines where the room sets the rule it enforces differently."""
        room = self.room
        if room is not None and room.changed:
            keys = [f"rules.{p}" for p in RULE_PARAMS.get(code, ()) if p in room.changed]
            if keys:
                self.findings.append(finding(code, line, message, room.cites(keys)))
                return
        self.findings.append(finding(code, line, message))

    def fmt(self, amount: int) -> str:
        return display_amount(amount, self.money)

    def setup(self) -> None:
        hand = self.hand
        dealt = dealt_in(hand)
        seats = [(s.seat, s.player) for s in hand.seats if s.player in dealt]
        order = deal_order(seats, hand.table.button)
        stacks = {s.player: s.stack for s in hand.seats}
        players: list[Player] = []
        for seat, name in order:
            stack = stacks[name]
            players.append(Player(name, seat, stack, stack))
        self.players = players
        n = len(self.players)
        try:
            self.rules.check_players(n)
        except RulesError as err:
            self.add("players", hand.header.line, str(err))
        self.low = self.rules.lowest_rank(n)
        h = hand.header
        self.betting = Betting(
            rules=self.rules,
            structure=h.structure,
            small_bet=h.small_bet,
            big_bet=h.big_bet,
            bring_in_amount=h.bring_in,
            big_blind=h.big_blind,
            players=self.players,
        )
        self.betting.words = _Words(self.money)
        cards = self.cards
        for p in self.players:
            cards[p.name] = _Cards()
        # the same records in dealing order, for what reads every player's cards (each round's opener)
        self.seat_cards = [cards[p.name] for p in self.players]

    def note_card(self, card: Card, line: int, where: str, who: str = "") -> None:
        """A card come into play on ``line``: in the deck, and not seen before.

        ``where`` says how, with ``{}`` for ``who`` (a player): the words are
        made only for a finding, not for each of the ten cards of every hand.
        """
        if card >> 2 < self.low:
            self.add("card_not_in_deck", line, f"{card_symbol(card)} ({where.format(who)}) is not in the {self.rules.name} deck for {len(self.players)} players, which runs from {RANK_NAMES.get(self.low, self.low)} to Ace")
        bit = 1 << card
        if self.cards_seen & bit:
            prev = self.card_lines[card] + self.card_base
            self.add("card_twice", line, f"{card_symbol(card)} ({where.format(who)}) was already dealt on line {prev}")
        else:
            self.cards_seen |= bit
            self.card_lines[card] = line - self.card_base

    def deal(self, e: Deal) -> None:
        name = e.player
        rnd = self.street_round
        b = self.betting
        position = b.position(name)  # one lookup: the player and the cards (self.cards[name]) read at the position
        if position < 0:
            self.add("deal_to_folded", e.line, f"a card is dealt to {name}, who is not in the hand")
            return
        mine = self.seat_cards[position]
        if b.players[position].folded:
            self.add("deal_to_folded", e.line, f"a card is dealt to {name}, who folded")
        if position <= self.last_dealt:  # the last card line's position, kept: not looked up again by name
            self.add("deal_order", e.line, f"{name} is dealt out of order (dealing goes clockwise from the button's left)")
        self.last_dealt = position
        self.deals_this_street.append(name)
        if rnd == 1:
            known = e.known or ()
            if e.new:
                self.add("deal_count", e.line, f"2nd street deals one card down and one up; {name}'s line has a second bracket")
            # the two cards (None: not seen) into the player's lists as they are, not new lists in their place
            hole: Card | None = None
            door_card: Card | None = None
            if len(known) == 2:
                hole, door_card = known[0], known[1]
            elif len(known) == 1:
                door_card = known[0]
            elif e.known is None and not self.door_up:
                # another player's two down cards in an own view: a bare "Dealt to bob" (the grammar's
                # carte coperte form); the card turned by the "exposes" line fills in later
                pass
            else:
                self.add("deal_count", e.line, f"2nd street deals two cards; {name}'s line shows {len(known)}")
                if len(known) > 0:
                    hole = known[0]
                if len(known) > 1:
                    door_card = known[1]
            cards = mine.cards
            if cards:
                cards.clear()
            cards.append(hole)
            cards.append(door_card)
            for c in known[:2]:  # mine.known: the cards just set, without the list it builds
                self.note_card(c, e.line, "dealt to {}", name)
            rounds = mine.rounds
            if rounds:
                rounds.clear()
            rounds.append(1)
            rounds.append(1)
            if self.door_up and door_card is not None:
                up = mine.up
                if up:
                    up.clear()
                up.append(door_card)
            return
        # the line's tuples read as they are: no list copied, and the cards known before compared in place
        known = e.known or ()
        new = e.new or ()
        prior_up = mine.up
        if known and not _same_known(known, mine.cards) and list(known) != prior_up and not self._is_view_of(list(known), mine):
            self.add("deal_changed", e.line, f"{name}'s cards are shown as [{cards_str(known)}], but were [{cards_str(mine.known)}]")
        if len(new) > 1:
            self.add("deal_count", e.line, f"one card per street; {name}'s line deals {len(new)}")
        card = new[0] if new else None
        down = not (self.fifth_up if rnd == 4 else self.later_up)  # RuleSet.dealt_up(rnd)[0] for any round but the first
        if card is not None:
            self.note_card(card, e.line, "dealt to {}", name)
        # fill in a hole card first learned on a later street
        if mine.cards and mine.cards[0] is None and len(known) > len(prior_up) and known and known[0] not in mine.up:
            mine.cards[0] = known[0]
            self.note_card(known[0], e.line, "{}'s hole card", name)
        mine.cards.append(card)
        mine.rounds.append(rnd)
        if card is not None and not down:
            mine.up.append(card)

    def money_line(self, player: str, all_in: bool) -> None:
        """A forced bet or an action: the last money so far, in the lines' round (where the equities say betting ended); ``all_in``: the line says so."""
        self.money_round = self.lines_round
        if all_in:
            self.said_all_in.add(player)

    def holdings(self) -> Holdings:
        """What the replay read of the cards, for the equities (:mod:`.holdings`): each player dealt a card, the streets, where betting ended."""
        held: dict[str, Holding] = {}
        seat_cards = self.seat_cards
        for i, p in enumerate(self.players):
            mine = seat_cards[i]  # self.cards[p.name], by position
            if mine.cards:
                folded = max(p.folded_round, 1) if p.folded else 0
                held[p.name] = Holding(tuple(mine.cards), tuple(mine.rounds), tuple(mine.up), folded)
        return Holdings(held, tuple(self.streets), self.money_round, frozenset(self.said_all_in))

    def _is_view_of(self, known: list[Card], mine: _Cards) -> bool:
        """A repeat that shows the viewer's or the audit's view of the same cards."""
        seen = self.cards_seen
        return set(mine.up) <= set(known) and all(c in mine.known or not seen >> c & 1 for c in known)

    def expose(self, e: Expose) -> None:
        if not self.rules.exposes:
            self.add("exposure", e.line, f"{e.player} exposes a card, but the {self.rules.name} hand deals cards face up")
            return
        mine = self.cards.get(e.player)
        if mine is None:
            return
        for c in e.cards:
            if c not in mine.known:
                # own view: an opponent's down card becomes known as it is turned
                if None in mine.cards:
                    idx = len(mine.cards) - 1 - mine.cards[::-1].index(None)
                    mine.cards[idx] = c
                self.note_card(c, e.line, "exposed by {}", e.player)
            if c not in mine.up:
                mine.up.append(c)

    def check_exposures(self, rnd: int, line: int) -> None:
        """Carte coperte and una coperta: the cards face up before a betting round, as the rules count them (RULES.md §4)."""
        want = self.rules.up_before(rnd)
        for p in self.players:
            if p.folded:
                continue
            up = len(self.cards[p.name].up)
            if up != want:
                self.add(
                    "exposure_missing",
                    line,
                    f"{p.name} has {up} card(s) face up before the {round_words(rnd)} betting; "
                    f"{self.rules.exposure.replace('_', ' ')} leaves {want} up",
                )

    def vela_due(self, line: int) -> bool:
        """At the first line after 5th street's betting, with two or more players left: the vela, if missing, was due here."""
        if self.vela_missing_said or not self.rules.has_vela or self.vela is not None:
            return False
        if len(self.betting.in_hand) < 2 or self.street_round != 4:
            return False
        self.vela_missing_said = True
        self.add("vela_missing", line, f"the {self.rules.name} profile turns a vela after 5th street's betting; this hand has none")
        return True

    def check_vela_present(self) -> None:
        self.vela_due(self.hand.summary.line)

    def check_deck(self) -> None:
        n_cards = sum(len(c.cards) for c in self.cards.values())
        burns = 0
        if self.rules.burns:
            burns = max(0, min(self.street_round, 4) - 1)
        vela = 1 if self.vela is not None else 0
        size = (15 - self.low) * 4
        if n_cards + burns + vela > size:
            self.add("deck_exhausted", self.hand.summary.line, f"{count_words(n_cards, 'card')} dealt, {burns} burnt{' and the vela' if vela else ''}: more than the {size}-card deck holds")

    def show(self, e: Shows) -> None:
        name = e.player
        self.show_order.append(name)
        mine = self.cards.get(name)
        if mine is None:
            return
        shown = list(e.cards)
        known = mine.known
        filled = False
        for c in shown:
            if c not in known:
                if None in mine.cards:
                    mine.cards[mine.cards.index(None)] = c
                    self.note_card(c, e.line, "shown by {}", name)
                    filled = True
                else:
                    self.add("shown_cards", e.line, f"{name} shows {card_symbol(c)}, which {name} was not dealt")
        if filled:
            known = mine.known
        for c in known:  # a card dealt and not shown (a loop: no generator, no list unless one is missing)
            if c not in shown:
                self.add("shown_cards", e.line, f"{name} shows [{cards_str(shown)}] but was dealt [{cards_str(known)}]")
                break
        self.shown[name] = tuple(shown)
        value = self.value_of(name)
        if value is not None and value.description != e.description:
            self.add("description", e.line, f"{name}'s hand is written as {e.description}, but the cards make {value.description}")

    def shown_categories(self) -> dict[str, str]:
        """What each player who showed makes, under the hand's rules (the statistics' showdown categories).

        Only when the cards are beyond doubt: the player's known cards and
        the shown ones are the same five (a hand that shows other cards
        than were dealt has no category).
        """
        out: dict[str, str] = {}
        for name, shown in self.shown.items():
            mine = self.cards.get(name)
            if mine is not None and _distinct(mine.cards, shown) == 5:
                value = self.value_of(name)
                if value is not None:
                    out[name] = CATEGORY_LABELS[value.category]
        return out

    def value_of(self, name: str) -> HandValue | None:
        dealt = self.cards[name].cards
        whole = len(dealt) == 5  # five cards, every one known (the common case): read in place, no list of the known
        if whole:
            for c in dealt:
                if c is None:
                    whole = False
                    break
        own: list[Card] = cast(list[Card], dealt) if whole else self.cards[name].known
        if len(own) < 5:
            return None
        vela = self.vela  # the key a tuple of known length, built at once (not unpacked from slices)
        cards: tuple[Card, ...] = (own[0], own[1], own[2], own[3], own[4]) if vela is None else (own[0], own[1], own[2], own[3], own[4], vela)
        cached = self._values.get(cards)
        if cached is None:
            cached = self._values[cards] = evaluate(cards, self.rules, self.low)
        return cached


def _same_known(known: tuple[Card, ...], cards: list[Card | None]) -> bool:
    """``list(known) == [c for c in cards if c is not None]``, without building either list."""
    n = len(known)
    i = 0
    for c in cards:
        if c is not None:
            if i >= n or known[i] != c:
                return False
            i += 1
    return i == n


def _distinct(a: list[Card | None], b: tuple[Card, ...]) -> int:
    """How many different cards ``a`` (its None, a card not seen, left out) and ``b`` hold together (a bit a card, not two sets and their union)."""
    bits = 0
    for c in a:
        if c is not None:
            bits |= 1 << c
    for c in b:
        bits |= 1 << c
    n = 0
    while bits:
        bits &= bits - 1
        n += 1
    return n
