"""One hand, dealt and played: the betting state machine of the replay engine drives it.

:func:`play_hand` deals a shuffled deck under the profile (burns, the
vela, the exposure variants), lets the bots act whenever the shared
:class:`~hhtool.replay.betting.Betting` machine says it is someone's turn,
checks every bet size with the machine's own ``verify_bet_to`` before
making it, and settles the pots with the same functions as the auditor
(:func:`~hhtool.replay.pots.pots_from`, :func:`~hhtool.game.showdown.winners`).
Who opens each round comes from :mod:`hhtool.game.showing`.  Sharing these
pieces is the point: the simulator and the auditor read the rules once.

The result is the audit view (every hole card); :mod:`.view` derives a
player's own view from it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from hhtool.game.cards import Card, deck_cards
from hhtool.game.evaluate import HandValue, evaluate
from hhtool.history.events import (
    Bet,
    BettingCapped,
    BringIn,
    Call,
    Check,
    Collected,
    Complete,
    Deal,
    DoubleBetAllowed,
    Event,
    Expose,
    Fold,
    Hand,
    Header,
    Joins,
    Leaves,
    Mucks,
    PostAnte,
    PostBlind,
    RaiseTo,
    Said,
    Seat,
    SeatOutcome,
    ShowDown,
    Shows,
    Street,
    Summary,
    Table,
    UncalledBet,
    Vela,
)
from hhtool.replay.betting import Betting, Player, deal_order
from hhtool.replay.pots import Pot, pots_from, share_pots
from hhtool.game.showdown import compare
from hhtool.game.showing import first_round_opener, later_round_opener, pair_showing
from hhtool.simulate.bots import Situation, Style, decide, quick_category, quick_five, raise_fraction, strength
from hhtool.simulate.config import DeckExhausted, SimConfig
from hhtool.game.rules import ROUND_NAMES, STREET_NAMES

RAKE_PERCENT = 5


@dataclass
class _Hole:
    """One player's cards: in the order dealt, and the ones face up in the order they turned up."""

    cards: list[Card] = field(default_factory=list)
    up: list[Card] = field(default_factory=list)


def rake_for(total: int, config: SimConfig, saw_third_street: bool) -> int:
    """The rake: 5% of the pot, rounded down to 5 minor units, capped; none on play chips.

    No rake when the hand ended during the 2nd-street round ("no third
    street, no drop", as stud rooms do), nor at play-chip tables.
    """
    if not config.site.cash or not saw_third_street:
        return 0
    rake = total * RAKE_PERCENT // 100 // 5 * 5
    return min(rake, config.stakes.rake_cap)


class HandPlay:
    """One hand: :meth:`run` plays it (the table then settles), :meth:`build` writes it up."""

    def __init__(
        self,
        config: SimConfig,
        rng: random.Random,
        hand_id: str,
        table_name: str,
        max_seats: int,
        seats: tuple[tuple[int, str, int, Style], ...],
        button: int,
        started: datetime,
    ) -> None:
        self.cfg = config
        self.rules = config.rules
        self.rng = rng
        self.hand_id = hand_id
        self.table_name = table_name
        self.max_seats = max_seats
        self.seat_list = seats
        self.button = button
        self.started = started
        self.style = {name: style for _, name, _, style in seats}
        order = deal_order([(s, n) for s, n, _, _ in seats], button)
        stacks = {n: st for _, n, st, _ in seats}
        self.players = [Player(n, s, stacks[n], stacks[n]) for s, n in order]
        self.by_name = {p.name: p for p in self.players}
        n = len(self.players)
        rules = self.rules
        self.low = rules.deck_low(n)
        stakes = config.stakes
        self.betting = Betting(
            rules=rules,
            structure=config.structure,
            small_bet=stakes.small_bet,
            big_bet=stakes.big_bet,
            bring_in_amount=stakes.bring_in,
            big_blind=stakes.big_blind,
            players=self.players,
        )
        self.holes = {p.name: _Hole() for p in self.players}
        self.events: list[Event] = []
        self.line = 3 + n  # header, table, seats
        self.vela: Card | None = None
        self.vela_turned = False
        self.values: dict[str, HandValue] = {}
        self.strength_cache: dict[str, float] = {}
        self.showing_cache: dict[str, int] = {}
        self.round_no = 0
        self.result: tuple[int, int, list[Pot], list[str], set[str], dict[str, int]] = (0, 0, [], [], set(), {})

    # ------------------------------------------------------------ helpers

    def ln(self) -> int:
        self.line += 1
        return self.line - 1

    def emit(self, event: Event) -> None:
        self.events.append(event)

    # ------------------------------------------------------------ the hand

    def run(self) -> dict[str, int]:
        """Play the hand through the collections; each player's stack after it."""
        rules = self.rules
        deck = deck_cards(self.low)
        self.rng.shuffle(deck)
        self.deck = deck
        if rules.vela == "at_start":
            self.vela = deck.pop()
        self.forced_bets()
        saw_third = False
        for rnd in range(1, 5):
            if len(self.betting.in_hand) < 2:
                break
            live = sum(1 for p in self.players if not p.folded)
            need = live * (2 if rnd == 1 else 1) + (1 if rnd > 1 and rules.burns else 0)
            if need > len(deck):
                raise DeckExhausted(f"{need} cards needed on street {rnd}, {len(deck)} left")
            if rnd > 1:
                saw_third = True
                if rules.burns:
                    deck.pop()
            self.emit(Street(self.ln(), STREET_NAMES[rnd - 1]))
            self.deal_street(rnd)
            self.betting_round(rnd)
        if len(self.betting.in_hand) >= 2 and rules.has_vela:
            if self.vela is None:
                self.vela = deck.pop()
            self.vela_turned = True
            self.emit(Vela(self.ln(), self.vela))
            if rules.vela_betting_round:
                self.betting_round(5)
        return self.finish(saw_third)

    def forced_bets(self) -> None:
        stakes = self.cfg.stakes
        if self.rules.forced_bets == "antes":
            ante = stakes.ante or 0
            for p in sorted(self.players, key=lambda q: q.seat):
                amount = min(ante, p.behind)
                p.behind -= amount
                p.total += amount
                if p.behind == 0:
                    p.all_in = True
                self.emit(PostAnte(self.ln(), p.name, amount, p.all_in))
            return
        for p, kind, want in ((self.players[0], "small", stakes.small_blind), (self.players[1], "big", stakes.big_blind)):
            amount = min(want or 0, p.behind)
            p.behind -= amount
            p.total += amount
            p.this_round += amount
            if p.behind == 0:
                p.all_in = True
            self.emit(PostBlind(self.ln(), p.name, kind, amount, p.all_in))  # type: ignore[arg-type]

    def deal_street(self, rnd: int) -> None:
        deck = self.deck
        live = [p for p in self.players if not p.folded]
        up = self.rules.dealt_up(rnd)
        for p in live:
            hole = self.holes[p.name]
            if rnd == 1:
                first, door = deck.pop(), deck.pop()
                hole.cards = [first, door]
                if up[1]:
                    hole.up.append(door)
                self.emit(Deal(self.ln(), p.name, (first, door), None))
            else:
                card = deck.pop()
                known = tuple(hole.cards)
                hole.cards.append(card)
                if up[0]:
                    hole.up.append(card)
                self.emit(Deal(self.ln(), p.name, known, (card,)))
        if not up[-1]:  # a card dealt down this street: each player exposes one
            for p in live:
                hole = self.holes[p.name]
                hidden = [c for c in hole.cards if c not in hole.up]
                card = self.rng.choice(hidden)
                hole.up.append(card)
                self.emit(Expose(self.ln(), p.name, (card,)))
        self.strength_cache.clear()
        self.showing_cache.clear()

    # ------------------------------------------------------------ betting

    def betting_round(self, rnd: int) -> None:
        b = self.betting
        actors = [p for p in self.players if p.can_act]
        if not actors or len(b.in_hand) < 2:
            return
        if rnd == 1:
            doors = [self.holes[p.name].up[0] if p.can_act and self.holes[p.name].up else None for p in self.players]
            if all(d is None for d in doors):
                opener = actors[0].name
            else:
                opener = self.players[first_round_opener(doors).index].name
            big_option = False
        else:
            vela = self.vela if rnd == 5 else None
            ups = [self.holes[p.name].up if p.can_act else None for p in self.players]
            opener = self.players[later_round_opener(ups, self.rules, self.low, vela=vela).index].name
            big_option = rnd == 2 and self.rules.pair_showing_option and pair_showing(self.holes[p.name].up for p in self.players if not p.folded)
            if big_option and self.cfg.structure == "fixed":
                self.emit(DoubleBetAllowed(self.ln()))
        self.round_no = rnd
        if rnd == 5:
            self.strength_cache.clear()
            self.showing_cache.clear()
        b.start_round(rnd, opener, big_option)
        while b.next_index is not None:
            self.act(b.players[b.next_index])
        due = b.uncalled()
        if due is not None:
            who, amount = due
            self.emit(UncalledBet(self.ln(), who, amount))
            b.return_uncalled(who, amount)

    def strength_of(self, name: str) -> float:
        """The bot's read of its hand this street: a full evaluation from five cards, ranks before."""
        cached = self.strength_cache.get(name)
        if cached is not None:
            return cached
        extra = [self.vela] if self.vela is not None and self.round_no == 5 else []
        cards = [*self.holes[name].cards, *extra]
        wild = self.rules.wild
        if len(cards) >= 5:
            category, top = quick_five(cards, wild, self.low)
        else:
            category, top = quick_category(cards, wild)
        beaten = False
        showing = self.showing_cache
        for p in self.players:
            if p.name != name and not p.folded:
                theirs = showing.get(p.name)
                if theirs is None:
                    theirs = showing[p.name] = quick_category([*self.holes[p.name].up, *extra], wild)[0]
                if theirs > category:
                    beaten = True
                    break
        s = strength(category, top, self.low, beaten, len(cards))
        self.strength_cache[name] = s
        return s

    def act(self, p: Player) -> None:
        b = self.betting
        name = p.name
        owed = b.current - p.this_round
        bring_in = min(self.cfg.stakes.bring_in or 0, p.behind)
        must_bring_in = self.rules.bring_in and b.can_bring_in(name, bring_in)
        # the machine says whether a bet of some size is open (the size, checked by the machine, comes only if
        # the bot wants it); the table adds the rooms' rule that nobody raises with no one left to answer it
        may_raise = b.can_bet(name) and any(q.can_act for q in self.players if q is not p)
        sit = Situation(
            owed=owed,
            pot=b.pot,
            behind=p.behind,
            may_check=b.can_check(name),
            may_raise=may_raise,
            must_bring_in=must_bring_in,
            round_no=b.round_no,
        )
        s = self.strength_of(name)
        move = decide(self.style[name], s, sit, self.rng)
        if move == "raise":
            to = self.raise_target(p, raise_fraction(self.style[name], s, self.rng))
            if to is None:
                move = "call" if owed > 0 else ("bring_in" if must_bring_in else "check")
            else:
                self.make_bet(p, to)
                return
        if move == "bring_in" or must_bring_in:
            b.bring_in(name, bring_in)
            self.emit(BringIn(self.ln(), name, bring_in, p.behind == 0))
        elif move == "fold" and owed > 0:
            b.fold(name)
            self.emit(Fold(self.ln(), name))
        elif owed > 0:
            amount = min(owed, p.behind)
            b.call(name, amount)
            self.emit(Call(self.ln(), name, amount, p.behind == 0))
        else:
            b.check(name)
            self.emit(Check(self.ln(), name))

    def raise_target(self, p: Player, fraction: float) -> int | None:
        """A legal total for a bet, raise or completion now, or None when none is allowed.

        Fixed limit: the one size (the bigger under the pair-showing option
        when the bot asks for more than half the pot).  Pot and no limit:
        ``fraction`` of the pot after the call on top of the call, between
        the minimum and the maximum.  Short stacks go all-in.  The machine's
        ``verify_bet_to`` has the last word.
        """
        b = self.betting
        stakes = self.cfg.stakes
        all_in_to = p.this_round + p.behind
        if all_in_to <= b.current:
            return None
        if not any(q.can_act for q in self.players if q is not p):
            return None  # nobody left who could answer a raise: rooms offer only call or fold
        completion = b.is_completion(0)
        if self.cfg.structure == "fixed":
            if completion:
                to = stakes.small_bet
            else:
                to = b.full_level + b.bet_unit()
                if b.big_option and not b.big_made and fraction > 0.5:
                    to = b.full_level + stakes.big_bet
        else:
            owed = b.current - p.this_round
            if completion and b.current == 0:
                minimum = maximum = stakes.small_bet
            elif completion:
                minimum = stakes.small_bet
                maximum = b.current + b.pot + owed
            else:
                minimum = b.current + max(b.last_increment, stakes.small_bet) if b.current else stakes.small_bet
                maximum = b.current + b.pot + owed
            if self.cfg.structure == "no":
                maximum = all_in_to
            want = b.current + int((b.pot + owed) * fraction)
            unit = max(stakes.small_bet // 10, 1)
            want = want // unit * unit
            to = min(max(want, minimum), maximum)
            if self.cfg.structure == "no" and fraction > 1.05:
                to = all_in_to
        to = min(to, all_in_to)
        return to if b.can_bet_to(p.name, to, as_raise=not b.is_completion(to) and b.current > 0) else None

    def make_bet(self, p: Player, to: int) -> None:
        b = self.betting
        name = p.name
        op = b.bet_to(name, to)
        all_in = p.behind == 0
        if op.completes:
            self.emit(Complete(self.ln(), name, to, all_in))
        elif op.facing == 0:
            self.emit(Bet(self.ln(), name, to, all_in))
        else:
            self.emit(RaiseTo(self.ln(), name, op.by, to, all_in))
        if b.capped():
            self.emit(BettingCapped(self.ln()))

    # ------------------------------------------------------------ showdown and pots

    def value(self, name: str) -> HandValue:
        v = self.values.get(name)
        if v is None:
            extra = [self.vela] if self.vela_turned and self.vela is not None else []
            v = evaluate([*self.holes[name].cards, *extra], self.rules, self.low)
            self.values[name] = v
        return v

    def finish(self, saw_third: bool) -> dict[str, int]:
        rules = self.rules
        left = [p.name for p in self.players if not p.folded]
        contributions = {p.name: p.total for p in self.players}
        folded = {p.name for p in self.players if p.folded}
        pots = pots_from(contributions, folded)
        total = sum(contributions.values())
        rake = rake_for(total, self.cfg, saw_third)
        mucked: set[str] = set()
        shown: list[str] = []
        if len(left) >= 2:
            self.emit(ShowDown(self.ln()))
            first = self.betting.first_to_show() or left[0]
            k = left.index(first)
            for name in left[k:] + left[:k]:
                if shown and rules.showdown_order != "seat_order" and self._may_muck(name, shown, pots):
                    mucked.add(name)
                    self.emit(Mucks(self.ln(), name))
                else:
                    shown.append(name)
                    v = self.value(name)
                    self.emit(Shows(self.ln(), name, tuple(self.holes[name].cards), v.description))
        contenders = [n for n in left if n not in mucked] or left
        collected: dict[str, int] = {}
        single = len(pots) == 1
        order = [p.name for p in self.players]
        for i, pot_share in enumerate(share_pots(pots, rake, contenders, order, self.value, rules)):
            for name, share in pot_share.win.items():
                if share <= 0:
                    continue
                collected[name] = collected.get(name, 0) + share
                if len(left) < 2 or single:
                    self.emit(Collected(self.ln(), name, share, "pot"))
                elif i == 0:
                    self.emit(Collected(self.ln(), name, share, "main"))
                else:
                    self.emit(Collected(self.ln(), name, share, "side", i))
        self.result = (total, rake, pots if len(pots) > 1 and len(left) >= 2 else [], left, mucked, collected)
        return {p.name: p.behind + collected.get(p.name, 0) for p in self.players}

    def build(self, arrivals: list[tuple[str, int]], departures: list[str]) -> Hand:
        """The hand as a history: chatter about who leaves and who sits down, then the summary."""
        if self.rng.random() < 0.02 and len(self.players) > 1:
            talker = self.rng.choice(self.players).name
            self.emit(Said(self.ln(), talker, self.rng.choice(("gl", "nh", "ty", "wp"))))
        for name in departures:
            self.emit(Leaves(self.ln(), name))
        for name, seat in arrivals:
            self.emit(Joins(self.ln(), name, seat))
        summary = self.summary(*self.result)
        return Hand(
            header=self.header(),
            table=Table(2, self.table_name, self.max_seats, self.button),
            seats=tuple(Seat(3 + k, s, n, st) for k, (s, n, st, _) in enumerate(self.seat_list)),
            events=tuple(self.events),
            summary=summary,
            money=self.cfg.site.money,
        )

    def _may_muck(self, name: str, shown: list[str], pots: list[Pot]) -> bool:
        """A player may muck a hand beaten, in every pot it can win, by a hand already shown.

        Straight flushes are always shown: under the special rules who
        beats whom depends on who else contests the pot.
        """
        mine = self.value(name)
        if mine.category >= 8:
            return False
        for pot in pots:
            if name not in pot.eligible:
                continue
            beaten = False
            for other in shown:
                if other in pot.eligible:
                    theirs = self.value(other)
                    if theirs.category < 8 and compare(theirs, mine, self.rules.sf_rule, 2) > 0:
                        beaten = True
                        break
            if not beaten:
                return False
        style = self.style[name]
        return self.rng.random() > style.looseness * 0.4

    def summary(
        self,
        total: int,
        rake: int,
        pots: list[Pot],
        left: list[str],
        mucked: set[str],
        collected: dict[str, int],
    ) -> Summary:
        line = self.ln()
        extra = 1
        main_pot: int | None = None
        sides: tuple[int, ...] = ()
        if pots:
            amounts = [p.amount for p in pots]
            main_pot, sides = amounts[0], tuple(amounts[1:])
            extra += 1
        vela = self.vela if self.vela_turned else None
        if vela is not None:
            extra += 1
        outcomes = []
        sb = self.players[0].name if self.rules.forced_bets == "blinds" else None
        bb = self.players[1].name if self.rules.forced_bets == "blinds" else None
        for k, (seat, name, _, _) in enumerate(self.seat_list):
            p = self.by_name[name]
            blind = "small" if name == sb else "big" if name == bb else None
            o_line = line + extra + 1 + k
            button = seat == self.button
            if p.folded:
                o = SeatOutcome(o_line, seat, name, button, blind, "folded", ROUND_NAMES[p.folded_round - 1])  # type: ignore[arg-type]
            elif len(left) < 2:
                o = SeatOutcome(o_line, seat, name, button, blind, "collected", amount=collected.get(name, 0))  # type: ignore[arg-type]
            elif name in mucked:
                o = SeatOutcome(o_line, seat, name, button, blind, "mucked")  # type: ignore[arg-type]
            else:
                v = self.value(name)
                won = collected.get(name, 0)
                cards = tuple(self.holes[name].cards)
                if won > 0:
                    o = SeatOutcome(o_line, seat, name, button, blind, "won", None, cards, won, v.description)  # type: ignore[arg-type]
                else:
                    o = SeatOutcome(o_line, seat, name, button, blind, "lost", None, cards, None, v.description)  # type: ignore[arg-type]
            outcomes.append(o)
        self.line = line + extra + 1 + len(outcomes)
        return Summary(line, total, rake, main_pot, sides, vela, tuple(outcomes))

    def header(self) -> Header:
        cfg = self.cfg
        st = cfg.stakes
        return Header(
            1,
            cfg.site.name,
            self.hand_id,
            self.rules.name,
            cfg.options.vela_at_start,
            cfg.options.wild,
            cfg.options.exposure,
            cfg.structure,
            st.small_bet,
            st.big_bet,
            st.ante,
            st.bring_in,
            st.small_blind,
            st.big_blind,
            self.started,
            cfg.site.zone,
        )


