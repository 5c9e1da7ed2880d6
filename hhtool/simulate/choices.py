"""The betting rounds of a simulated hand, and each bot's choice in them (RULES.md §4-§5).

Every betting question goes to the game's betting machine, the one the
replay checks a history with (:class:`~hhtool.game.betting.Betting`): who
opens a round and whether the double bet applies (``open_round``), what a
bot may do (the ``can_…`` answers), between what sizes it may bet
(``min_bet_to``, ``max_bet_to``) and, before it is made, whether the size
it picked is legal (``can_bet_to``).  What is the simulator's own is the
bots' choices (:func:`~hhtool.simulate.bots.decide`), so what it writes
audits ``ok``.  A colluding pair's players (``--collude``) decide as
every bot, then :mod:`.collusion` may replace the choice in their kind's
spots (card sharing: the choice of a read that knows the partner's
face-down cards): a different choice among the legal ones, never another
rule.
"""

from __future__ import annotations

from hhtool.game.operations import Player
from hhtool.history.events import Bet, BettingCapped, BringIn, Call, Check, Complete, DoubleBetAllowed, Fold, RaiseTo, UncalledBet
from hhtool.game.evaluate import quick_category
from hhtool.simulate.bots import Move, Situation, Style, decide, quick_five, raise_fraction, strength
from hhtool.simulate.collusion import Deviation, Partner, colluding_move, partners, shared_read
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
        self.read_cache: dict[str, tuple[int, int, bool, int]] = {}  # the read behind the strength (card sharing reads it again)
        self.partners: dict[str, Partner] = partners(hand) if hand.cfg.collusion else {}
        self.aggressor: str | None = None  # who made the bet now faced this round (bets, raises, completions)
        self.opener: str | None = None  # who opened this round's betting: its first bet or completion, or the bring-in, big blind
        self.dump_bet = False  # that bet was a chip dumper's dumping bet or raise
        self.dumping = False  # the bet about to be made is one
        self.deviations: list[Deviation] = []  # the colluding decisions of the hand, for the manifest

    def betting_round(self, rnd: int) -> None:
        """Betting round ``rnd`` (1 = 2nd street, 5 = the vela round): the opener, every action, the uncalled bet."""
        hand = self.hand
        b = hand.betting
        holes = hand.holes
        if not b.open_round(rnd, [holes[p.name].up for p in hand.players], hand.vela):
            return
        if b.big_option and b.structure == "fixed":
            hand.emit(DoubleBetAllowed(hand.ln()))
        self.round_no = rnd
        self.aggressor = None
        self.opener = hand.players[1].name if rnd == 1 and hand.rules.forced_bets == "blinds" and len(hand.players) > 1 else None
        self.dump_bet = False
        self.strength_cache.clear()
        self.showing_cache.clear()
        self.read_cache.clear()
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
        if self.partners:
            self.read_cache[name] = (category, top, beaten, len(cards))
        return s

    def situation(self, p: Player) -> tuple[Situation, int]:
        """What ``p`` sees at its turn, and the bring-in it would put in (the machine says what is open)."""
        hand = self.hand
        b = hand.betting
        name = p.name
        bring_in = min(hand.cfg.stakes.bring_in or 0, p.behind)
        # the machine says whether a bet of some size is open (the size, checked by the machine, comes only if
        # the bot wants it); the table adds the rooms' rule that nobody raises with no one left to answer it
        may_raise = b.can_bet(name) and any(q.can_act for q in hand.players if q is not p)
        sit = Situation(
            owed=b.current - p.this_round,
            pot=b.pot,
            behind=p.behind,
            may_check=b.can_check(name),
            may_raise=may_raise,
            must_bring_in=hand.rules.bring_in and b.can_bring_in(name, bring_in),
            round_no=b.round_no,
        )
        return sit, bring_in

    def act(self, p: Player) -> None:
        """``p``'s turn: the machine says what is open, the bot's style picks, the machine records it."""
        hand = self.hand
        b = hand.betting
        name = p.name
        sit, bring_in = self.situation(p)
        owed, must_bring_in = sit.owed, sit.must_bring_in
        s = self.strength_of(name)
        style = hand.style[name]
        self.dumping = False
        side = self.partners.get(name) if self.partners else None
        if side is not None and side.collusion.kind == "card-sharing":
            move = self.shared_decision(p, side, style, s, sit)
        else:
            move = decide(style, s, sit, hand.rng)
            if side is not None:
                move = self.collude(p, side, move, s, sit)
        if move == "raise":
            to = self.raise_target(p, raise_fraction(style, s, hand.rng))
            if to is None:
                move = "call" if owed > 0 else ("bring_in" if must_bring_in else "check")
            else:
                self.make_bet(p, to)
                return
        if move == "bring_in" or must_bring_in:
            b.bring_in(name, bring_in)
            if self.opener is None:
                self.opener = name
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

    def collude(self, p: Player, side: Partner, move: Move, s: float, sit: Situation) -> Move:
        """A pair's player: the colluding move where its kind's spot arises, with the pair's strength as probability.

        The deviation is kept with the line its action is about to be
        written on (the next line: one action, one line).
        """
        hand = self.hand
        may_raise_now = sit.may_raise and self.raise_target(p, 0.0) is not None
        other = colluding_move(hand, p, side, move, s, sit, self.aggressor, self.opener, self.dump_bet, may_raise_now)
        if other is None or other == move:
            return move
        strength = side.collusion.strength
        if strength < 1.0 and not hand.rng.random() < strength:
            return move
        self.deviations.append(Deviation(hand.line, p.name, self.round_no, other, move))
        self.dumping = other == "raise" and side.collusion.kind == "chip-dumping"
        return other

    def shared_decision(self, p: Player, side: Partner, style: Style, s: float, sit: Situation) -> Move:
        """A card-sharing player's move: with a card to come, the choice of a read that knows the partner's face-down cards.

        The informed read (:func:`~hhtool.simulate.collusion.shared_read`)
        counts the partner's face-down outs dead and reads the partner by
        its whole hand.  Both reads decide from the same random draws (the
        noise, the bluff): only the strength differs, so a different choice
        is the shared cards' doing.  The honest choice's draws are the ones
        the hand goes on with; the informed choice replaces it with the
        pair's strength as probability, as in the other kinds.
        """
        hand = self.hand
        rng = hand.rng
        if self.round_no > 4:  # the vela turned: no card to come
            return decide(style, s, sit, rng)
        category, top, beaten, cards = self.read_cache[p.name]
        informed = shared_read(hand, p.name, side.partner, category, top, beaten, cards)
        if informed >= s:
            return decide(style, s, sit, rng)
        before = rng.getstate()
        move = decide(style, s, sit, rng)
        after = rng.getstate()
        rng.setstate(before)
        other = decide(style, informed, sit, rng)
        rng.setstate(after)
        if other == move:
            return move
        would = move
        if move == "raise" and not (sit.may_raise and self.raise_target(p, 0.0) is not None):
            would = "call" if sit.owed > 0 else ("bring_in" if sit.must_bring_in else "check")  # as act() makes it
            if other == would:
                return move
        if side.collusion.strength < 1.0 and not rng.random() < side.collusion.strength:
            return move
        self.deviations.append(Deviation(hand.line, p.name, self.round_no, other, would))
        return other

    def raise_target(self, p: Player, fraction: float) -> int | None:
        """A legal total for a bet, raise or completion now, or None when none is allowed.

        The sizes are the machine's (``min_bet_to``, ``max_bet_to``: all-in
        where the stack is short); the bot picks among them.  Fixed limit:
        the one size (the bigger under the pair-showing option when the bot
        asks for more than half the pot).  Pot and no limit: ``fraction``
        of the pot after the call on top of the call, between the minimum
        and the maximum; in no limit, above the pot, all-in.  The
        machine's ``can_bet_to`` has the last word.
        """
        hand = self.hand
        b = hand.betting
        name = p.name
        all_in_to = p.this_round + p.behind
        if all_in_to <= b.current:
            return None
        if not any(q.can_act for q in hand.players if q is not p):
            return None  # nobody left who could answer a raise: rooms offer only call or fold
        structure = b.structure
        if structure == "fixed":
            to = b.max_bet_to(name) if fraction > 0.5 else b.min_bet_to(name)
        else:
            pot_after_call = b.pot + b.current - p.this_round
            want = b.current + int(pot_after_call * fraction)
            unit = max(b.small_bet // 10, 1)
            want = want // unit * unit
            to = min(max(want, b.min_bet_to(name)), b.max_bet_to(name))
            if structure == "no" and fraction > 1.05:
                to = all_in_to
        return to if b.can_bet_to(name, to) else None

    def make_bet(self, p: Player, to: int) -> None:
        """The bet, raise or completion to ``to``, written as the operation the machine recorded."""
        hand = self.hand
        b = hand.betting
        name = p.name
        op = b.bet_to(name, to)
        self.aggressor = name
        if self.opener is None:
            self.opener = name
        self.dump_bet = self.dumping
        self.dumping = False
        all_in = p.behind == 0
        if op.completes:
            hand.emit(Complete(hand.ln(), name, to, all_in))
        elif op.facing == 0:
            hand.emit(Bet(hand.ln(), name, to, all_in))
        else:
            hand.emit(RaiseTo(hand.ln(), name, op.by, to, all_in))
        if b.capped():
            hand.emit(BettingCapped(hand.ln()))
