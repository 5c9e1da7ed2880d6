"""The betting rounds of a simulated hand, and each bot's choice in them (RULES.md §4-§5).

Who opens a round comes from :mod:`hhtool.game.showing`; every action
goes through the replay's own betting machine
(:class:`~hhtool.replay.betting.Betting`): a bot is offered only what the
machine's ``can_…`` answers allow, picks with its style
(:func:`~hhtool.simulate.bots.decide`), and a bet's size is asked of
``can_bet_to`` before it is made.  The auditor checks a history with the
same machine, so what the simulator writes audits ``ok``.
"""

from __future__ import annotations

from hhtool.game.showing import first_round_opener, later_round_opener, pair_showing
from hhtool.history.events import Bet, BettingCapped, BringIn, Call, Check, Complete, DoubleBetAllowed, Fold, RaiseTo, UncalledBet
from hhtool.replay.betting import Player
from hhtool.simulate.bots import Situation, decide, quick_category, quick_five, raise_fraction, strength
from hhtool.simulate.hand import HandState


class Bots:
    """The bots at one hand's table: they play its betting rounds.

    A bot's read of its hand (:meth:`strength_of`) and of the others'
    face-up cards is kept for the round: the cards do not change while
    the round is bet.
    """

    def __init__(self, hand: HandState) -> None:
        self.hand = hand
        self.round_no = 0
        self.strength_cache: dict[str, float] = {}
        self.showing_cache: dict[str, int] = {}

    def betting_round(self, rnd: int) -> None:
        """Betting round ``rnd`` (1 = 2nd street, 5 = the vela round): the opener, every action, the uncalled bet."""
        hand = self.hand
        b = hand.betting
        players = hand.players
        holes = hand.holes
        actors = [p for p in players if p.can_act]
        if not actors or len(b.in_hand) < 2:
            return
        if rnd == 1:
            doors = [holes[p.name].up[0] if p.can_act and holes[p.name].up else None for p in players]
            if all(d is None for d in doors):
                opener = actors[0].name
            else:
                opener = players[first_round_opener(doors).index].name
            big_option = False
        else:
            vela = hand.vela if rnd == 5 else None
            ups = [holes[p.name].up if p.can_act else None for p in players]
            opener = players[later_round_opener(ups, hand.rules, hand.low, vela=vela).index].name
            big_option = rnd == 2 and hand.rules.pair_showing_option and pair_showing(holes[p.name].up for p in players if not p.folded)
            if big_option and hand.cfg.structure == "fixed":
                hand.emit(DoubleBetAllowed(hand.ln()))
        self.round_no = rnd
        self.strength_cache.clear()
        self.showing_cache.clear()
        b.start_round(rnd, opener, big_option)
        while b.next_index is not None:
            self.act(b.players[b.next_index])
        due = b.uncalled()
        if due is not None:
            who, amount = due
            hand.emit(UncalledBet(hand.ln(), who, amount))
            b.return_uncalled(who, amount)

    def strength_of(self, name: str) -> float:
        """The bot's read of its hand this street: a full evaluation from five cards, ranks before."""
        cached = self.strength_cache.get(name)
        if cached is not None:
            return cached
        hand = self.hand
        extra = [hand.vela] if hand.vela is not None and self.round_no == 5 else []
        cards = [*hand.holes[name].cards, *extra]
        wild = hand.rules.wild
        if len(cards) >= 5:
            category, top = quick_five(cards, wild, hand.low)
        else:
            category, top = quick_category(cards, wild)
        beaten = False
        showing = self.showing_cache
        for p in hand.players:
            if p.name != name and not p.folded:
                theirs = showing.get(p.name)
                if theirs is None:
                    theirs = showing[p.name] = quick_category([*hand.holes[p.name].up, *extra], wild)[0]
                if theirs > category:
                    beaten = True
                    break
        s = strength(category, top, hand.low, beaten, len(cards))
        self.strength_cache[name] = s
        return s

    def act(self, p: Player) -> None:
        """``p``'s turn: the machine says what is open, the bot's style picks, the machine records it."""
        hand = self.hand
        b = hand.betting
        name = p.name
        owed = b.current - p.this_round
        bring_in = min(hand.cfg.stakes.bring_in or 0, p.behind)
        must_bring_in = hand.rules.bring_in and b.can_bring_in(name, bring_in)
        # the machine says whether a bet of some size is open (the size, checked by the machine, comes only if
        # the bot wants it); the table adds the rooms' rule that nobody raises with no one left to answer it
        may_raise = b.can_bet(name) and any(q.can_act for q in hand.players if q is not p)
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
        style = hand.style[name]
        move = decide(style, s, sit, hand.rng)
        if move == "raise":
            to = self.raise_target(p, raise_fraction(style, s, hand.rng))
            if to is None:
                move = "call" if owed > 0 else ("bring_in" if must_bring_in else "check")
            else:
                self.make_bet(p, to)
                return
        if move == "bring_in" or must_bring_in:
            b.bring_in(name, bring_in)
            hand.emit(BringIn(hand.ln(), name, bring_in, p.behind == 0))
        elif move == "fold" and owed > 0:
            b.fold(name)
            hand.emit(Fold(hand.ln(), name))
        elif owed > 0:
            amount = min(owed, p.behind)
            b.call(name, amount)
            hand.emit(Call(hand.ln(), name, amount, p.behind == 0))
        else:
            b.check(name)
            hand.emit(Check(hand.ln(), name))

    def raise_target(self, p: Player, fraction: float) -> int | None:
        """A legal total for a bet, raise or completion now, or None when none is allowed.

        Fixed limit: the one size (the bigger under the pair-showing option
        when the bot asks for more than half the pot).  Pot and no limit:
        ``fraction`` of the pot after the call on top of the call, between
        the minimum and the maximum.  Short stacks go all-in.  The machine's
        ``verify_bet_to`` has the last word.
        """
        hand = self.hand
        b = hand.betting
        stakes = hand.cfg.stakes
        structure = hand.cfg.structure
        all_in_to = p.this_round + p.behind
        if all_in_to <= b.current:
            return None
        if not any(q.can_act for q in hand.players if q is not p):
            return None  # nobody left who could answer a raise: rooms offer only call or fold
        completion = b.is_completion(0)
        if structure == "fixed":
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
            if structure == "no":
                maximum = all_in_to
            want = b.current + int((b.pot + owed) * fraction)
            unit = max(stakes.small_bet // 10, 1)
            want = want // unit * unit
            to = min(max(want, minimum), maximum)
            if structure == "no" and fraction > 1.05:
                to = all_in_to
        to = min(to, all_in_to)
        return to if b.can_bet_to(p.name, to, as_raise=not b.is_completion(to) and b.current > 0) else None

    def make_bet(self, p: Player, to: int) -> None:
        """The bet, raise or completion to ``to``, written as the operation the machine recorded."""
        hand = self.hand
        b = hand.betting
        name = p.name
        op = b.bet_to(name, to)
        all_in = p.behind == 0
        if op.completes:
            hand.emit(Complete(hand.ln(), name, to, all_in))
        elif op.facing == 0:
            hand.emit(Bet(hand.ln(), name, to, all_in))
        else:
            hand.emit(RaiseTo(hand.ln(), name, op.by, to, all_in))
        if b.capped():
            hand.emit(BettingCapped(hand.ln()))
