"""The walk of a replay: a hand's events in order, through the betting machine.

:class:`Walk` feeds each event to its handler (:meth:`Walk.event`): the
forced bets, the streets and their betting rounds (who opens, RULES.md §4,
the machine's :meth:`~hhtool.game.betting.Betting.open_round`), every
action verified by :class:`~hhtool.game.betting.Betting` and then applied
anyway, so the money can still be followed; the card lines go to
the card checks (:mod:`.deal`), every event to the card facts the store
keeps (:mod:`.facts`), and at the end the settlement (:mod:`.settle`)
gives the verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hhtool.game.operations import IllegalAction, Player
from hhtool.game.room import Room
from hhtool.game.rules import RuleSet, round_of_street, round_words
from hhtool.history.events import (
    Bet,
    BettingCapped,
    BringIn,
    Call,
    Check,
    Collected,
    Complete,
    Deal,
    DoesNotShow,
    DoubleBetAllowed,
    Expose,
    Fold,
    Hand,
    Mucks,
    PostAnte,
    PostBlind,
    RaiseTo,
    ShowDown,
    Shows,
    Street,
    UncalledBet,
    Vela,
)
from hhtool.replay.result import Replay
from hhtool.replay.settle import Settlement


class Walk(Settlement):
    """One hand's replay: :meth:`run` walks it and returns the :class:`~hhtool.replay.result.Replay`."""

    def run(self, after: Callable[[Any, Walk], None] | None = None) -> Replay:
        self.setup()
        self.forced_bets()
        for e in self.hand.events:
            self.event(e)
            if after is not None:
                after(e, self)
        self.end_of_betting(self.hand.summary.line)
        self.check_vela_present()
        self.check_deck()
        return self.settle()

    def forced_bets(self) -> None:
        h = self.hand.header
        rules = self.rules
        posts = [e for e in self.hand.events if isinstance(e, (PostAnte, PostBlind))]
        first_line = self.hand.seats[-1].line if self.hand.seats else h.line
        if rules.forced_bets == "antes":
            posted = {e.player for e in posts if isinstance(e, PostAnte)}
            for e in posts:
                if isinstance(e, PostBlind):
                    self.add("forced_bet_kind", e.line, f"{e.player} posts a {e.blind} blind in the {rules.name} profile, which uses antes")
            for p in self.players:
                if p.name not in posted:
                    self.add("ante_missing", self._ante_line(p.seat, first_line), f"{p.name} was dealt in without posting the ante")
            return
        for e in posts:
            if isinstance(e, PostAnte):
                self.add("forced_bet_kind", e.line, f"{e.player} posts an ante in the {rules.name} profile, which uses blinds")
        if len(self.players) < 2:
            return
        sb, bb = self.players[0].name, self.players[1].name
        blinds: dict[str, PostBlind] = {e.blind: e for e in posts if isinstance(e, PostBlind)}
        for kind, who in (("small", sb), ("big", bb)):
            blind = blinds.get(kind)
            if blind is None:
                self.add("blind_missing", first_line, f"no {kind} blind was posted ({who} owes it)")
            elif blind.player != who:
                self.add("blind_player", blind.line, f"{blind.player} posts the {kind} blind, but {who} should: the small blind is the first player left of the button, the big blind the next")

    def _ante_line(self, seat: int, fallback: int) -> int:
        """Where a missing ante belongs: antes are posted in seat order, so before the next seat's, else after the last."""
        seat_of = {s.player: s.seat for s in self.hand.seats}
        after_last = fallback
        for k, e in enumerate(self.hand.events):
            if isinstance(e, PostAnte):
                if seat_of.get(e.player, 0) > seat:
                    return e.line
                after_last = self.hand.events[k + 1].line if k + 1 < len(self.hand.events) else self.hand.summary.line
        return after_last

    def event(self, e: object) -> None:
        """One event: its handler's checks, and what it shows of the cards (:class:`~hhtool.replay.facts.FactsWalk`).

        The handler by a chain of type tests, the commonest kinds first:
        compiled, a test is a comparison of type pointers and a handler a
        direct C call, where a table of handlers would call each through
        Python's calling convention (unpacking its arguments) once an event.
        The card lines come first (they failed the seven actions' tests
        before their own).  The actions and forced bets show no cards: they
        do not go to the card facts, whose own chain of eight tests would
        let them pass (half a replay's events).  Chatter and the other lines
        that change nothing pass by.
        """
        if isinstance(e, Deal):
            self.deal(e)
        elif isinstance(e, (Fold, Check, Call, Bet, RaiseTo, BringIn, Complete)):
            self.action(e)
            self.money_line(e.player, not isinstance(e, (Fold, Check)) and e.all_in)
            return  # nothing for the card facts (FactsWalk.see passes an action by)
        elif isinstance(e, PostAnte):
            self.post(e.player, e.amount, e.line, e.all_in, ante=True)
            self.money_line(e.player, e.all_in)
            return  # nor a forced bet
        elif isinstance(e, PostBlind):
            self.post(e.player, e.amount, e.line, e.all_in, ante=False)
            self.money_line(e.player, e.all_in)
            return
        elif isinstance(e, Street):
            rnd = round_of_street(e.name)
            self.new_street(rnd, e.line)
            self.streets.append((rnd, e.line))
            self.lines_round = rnd
        elif isinstance(e, UncalledBet):
            self.uncalled(e)
        elif isinstance(e, (Collected, DoesNotShow)):
            self.end_of_betting(e.line)
            self.vela_due(e.line)
        elif isinstance(e, Shows):
            self._on_shows(e)
        elif isinstance(e, Mucks):
            self._on_mucks(e)
        elif isinstance(e, ShowDown):
            self._on_showdown(e)
        elif isinstance(e, Vela):
            self.turn_vela(e)
            self.lines_round = 5
        elif isinstance(e, Expose):
            self.expose(e)
        elif isinstance(e, DoubleBetAllowed):
            self.double_bet_line = e.line
        elif isinstance(e, BettingCapped):
            self._on_capped(e)
        self.facts_walk.see(e)

    def _on_showdown(self, e: ShowDown) -> None:
        self.end_of_betting(e.line)
        self.vela_due(e.line)
        if len(self.betting.in_hand) < 2:
            self.add("showdown_unexpected", e.line, "a showdown with one player left")

    def _on_shows(self, e: Shows) -> None:
        self.end_of_betting(e.line)
        self.vela_due(e.line)
        self.show(e)

    def _on_mucks(self, e: Mucks) -> None:
        self.end_of_betting(e.line)
        self.vela_due(e.line)
        self.mucked.add(e.player)
        self.show_order.append(e.player)
        if self.rules.all_show:
            self.add("muck_not_allowed", e.line, f"{e.player} mucks, but in the {self.rules.name} profile everyone left shows")

    def _on_capped(self, e: BettingCapped) -> None:
        if not self.betting.capped():
            self.add("info_capped", e.line, "'Betting is capped' but the betting was not capped")

    def post(self, name: str, amount: int, line: int, all_in: bool, *, ante: bool) -> None:
        try:
            p = self.betting.player(name)
        except KeyError:
            return
        h = self.hand.header
        if amount > p.behind:
            self.add("stack_exceeded", line, f"{name} posts {self.fmt(amount)} with only {self.fmt(p.behind)} in chips")
            amount = p.behind
        if ante:
            if h.ante is not None and amount != h.ante and not (amount < h.ante and amount == p.behind):
                self.add("ante_amount", line, f"{name} posts an ante of {self.fmt(amount)}; the ante is {self.fmt(h.ante)}")
            p.behind -= amount
            p.total += amount
        else:
            p.behind -= amount
            p.total += amount
            p.this_round += amount
            e_blind = "small" if self.players and name == self.players[0].name else "big"
            want = h.small_blind if e_blind == "small" else h.big_blind
            if want is not None and amount != want and not (amount < want and amount == p.behind + amount):
                self.add("blind_amount", line, f"{name} posts {self.fmt(amount)}; the {e_blind} blind is {self.fmt(want)}")
        if p.behind == 0:
            p.all_in = True

    def new_street(self, round_no: int, line: int) -> None:
        if round_no > 1:
            self.end_of_betting(line)
        self.check_deals_complete(line)
        self.street_round = round_no
        self.round_started = False
        self.deals_this_street.clear()
        self.last_dealt = -1

    def check_deals_complete(self, line: int) -> None:
        if self.street_round == 0:
            return
        # due a card: every player but those who folded before this street (on 2nd street, everyone: nobody
        # folds before it); the names dealt looked for in the street's short list, not in two sets built a street
        dealt = self.deals_this_street
        street = self.street_round
        for p in self.players:
            if not (p.folded and p.folded_round < street) and p.name not in dealt:
                self.add("deal_missing", line, f"{p.name} was not dealt a card on {round_words(self.street_round)}")

    def turn_vela(self, e: Vela) -> None:
        self.end_of_betting(e.line)
        if not self.rules.has_vela:
            self.add("vela_unexpected", e.line, f"a vela in the {self.rules.name} profile, which has none")
        elif self.street_round < 4:
            self.add("vela_early", e.line, "the vela is turned before 5th street's betting")
        elif len(self.betting.in_hand) < 2:
            self.add("vela_early", e.line, "the vela is turned after the hand was won by a fold")
        self.vela = e.card
        self.vela_line = e.line
        self.note_card(e.card, e.line, "the vela")
        if self.rules.vela_betting_round:
            self.street_round = 5
            self.round_started = False

    def start_round(self, line: int) -> None:
        """The betting round of the street (or the vela's): opened by the machine, the exposures and the double bet's line checked."""
        b = self.betting
        rnd = self.street_round if self.street_round else 1
        if not b.open_round(rnd, [c.up for c in self.seat_cards], self.vela):
            self.round_started = True
            return
        if self.rules.exposes:
            self.check_exposures(rnd, line)
        if self.double_bet_line and not b.big_option:
            self.add("info_double_bet", self.double_bet_line, f"'a double bet is allowed', but no pair shows on {round_words(2)}")
        self.double_bet_line = 0
        self.round_started = True
        if not self.explain:
            return
        if b.next_index is None:
            self.rounds.append(f"{round_words(rnd)}: no betting (fewer than two players can act)")
        else:
            why = b.opener_reason
            self.rounds.append(f"{round_words(rnd)}: {b.opener} opens ({why if isinstance(why, str) else why.reason})")

    def action(self, e: BringIn | Complete | Bet | Call | RaiseTo | Check | Fold) -> None:
        b = self.betting
        if self.round_started and b.next_index is None and self.rules.vela_betting_round and self.vela_due(e.line):
            self.street_round = 5  # the vela round's betting, as if the vela had been turned (vela_missing says it was not)
            self.round_started = False
        if not self.round_started:
            self.start_round(e.line)
        name = e.player
        at = b.position(name)  # looked up once, handed to the machine's checks and actions
        if at < 0:
            self.add("action_not_in_hand", e.line, f"{name} acts but was not dealt into the hand")
            return
        p = b.players[at]
        try:
            self.verify(e, p, at)
        except IllegalAction as err:
            code, message = err.code, err.message
            if code == "wrong_opener" and isinstance(e, BringIn):
                code, message = "bring_in_player", message.replace(" opens the betting, but ", " brings in, but ", 1).replace("should open it", "should", 1)
            self.add(code, e.line, message)
            if err.code in ("action_after_fold", "action_not_in_hand"):
                return
        self.apply(e, p, at)
        if not isinstance(e, (Check, Fold)):
            all_in_flag = e.all_in
            if all_in_flag and p.behind > 0:
                self.add("all_in_flag", e.line, f"{name} is written all-in with {self.fmt(p.behind)} behind")
            elif not all_in_flag and p.behind == 0:
                self.add("all_in_flag", e.line, f"{name} has no chips left but the line does not say all-in")

    def _to(self, e: Bet | Complete | RaiseTo, p: Player) -> int:
        if isinstance(e, Complete):
            return e.to
        if isinstance(e, RaiseTo):
            return e.to
        return p.this_round + e.amount if self.betting.is_raise() else e.amount

    def verify(self, e: object, p: Player, at: int) -> None:
        """The machine's check of the action ``e`` by ``p``, at position ``at``: raises its refusal."""
        b = self.betting
        if isinstance(e, Check):
            b.verify_check(p.name, at=at)
        elif isinstance(e, Fold):
            b.verify_fold(p.name, at=at)
        elif isinstance(e, Call):
            b.verify_call(p.name, e.amount, at=at)
        elif isinstance(e, BringIn):
            b.verify_bring_in(p.name, e.amount, at=at)
        elif isinstance(e, RaiseTo):
            if e.by != e.to - b.current and b.current:
                self.add("raise_arithmetic", e.line, f"{p.name} raises {self.fmt(e.by)} to {self.fmt(e.to)} facing {self.fmt(b.current)}"
                         + (f": a raise to {self.fmt(e.to)} is by {self.fmt(e.to - b.current)}" if e.to > b.current else ""))
            b.verify_bet_to(p.name, e.to, as_raise=not b.is_completion(e.to), at=at)
        elif isinstance(e, Complete):
            if not b.is_completion(e.to):
                raise IllegalAction("complete_amount", f"{p.name} completes, but there is no bring-in to complete")
            b.verify_bet_to(p.name, e.to, as_raise=False, at=at)
        elif isinstance(e, Bet):
            b.verify_bet_to(p.name, self._to(e, p), at=at)  # a bet line facing a bet reads as the raise it is

    def apply(self, e: object, p: Player, at: int) -> None:
        """The action ``e`` by ``p``, at position ``at``, applied by the machine, allowed or not."""
        b = self.betting
        if p.folded or p.all_in:
            return
        b.follow_out_of_turn(p.name, at=at)
        # by position, no operation recorded: the replay reads none (Betting's ``x_at``)
        if isinstance(e, Check):
            b.check_at(at)
        elif isinstance(e, Fold):
            b.fold_at(at)
        elif isinstance(e, Call):
            b.call_at(at, min(e.amount, p.behind))
        elif isinstance(e, BringIn):
            b.bring_in_at(at, min(e.amount, p.behind))
        elif isinstance(e, (Bet, Complete, RaiseTo)):
            to = self._to(e, p)
            to = min(to, p.this_round + p.behind)
            b.bet_to_at(at, to)

    def uncalled(self, e: UncalledBet) -> None:
        due = self.betting.uncalled()
        if due is None:
            self.add("uncalled_wrong", e.line, f"{self.fmt(e.amount)} returned to {e.player}, but no bet was left uncalled")
            return
        who, amount = due
        if who != e.player or amount != e.amount:
            self.add("uncalled_wrong", e.line, f"{self.fmt(e.amount)} returned to {e.player}; the uncalled bet is {who}'s {self.fmt(amount)}")
        self.betting.return_uncalled(who, amount)

    def end_of_betting(self, line: int) -> None:
        """At a street change, the vela, the showdown or the summary: close the round."""
        b = self.betting
        if self.street_round and not self.round_started and b.in_hand and len(b.in_hand) >= 2:
            self.start_round(line)
        if self.street_round and self.round_started and b.next_index is not None:
            where = "in the vela round" if b.round_no == 5 else f"on {round_words(b.round_no)}"
            self.add("round_unfinished", line, f"the betting {where} is not finished: {b.next_player} has not acted")
            b.end_round()
        due = b.uncalled()
        if due is not None:
            who, amount = due
            self.add("uncalled_missing", line, f"{who}'s uncalled {self.fmt(amount)} was not returned")
            b.return_uncalled(who, amount)
        if self.explain and self.round_started and self.rounds and " pot " not in self.rounds[-1]:
            self.rounds[-1] += f"; pot {self.fmt(b.pot)} after {round_words(b.round_no)}"


def replay(hand: Hand, rules: RuleSet | None = None, *, explain: bool = True, room: Room | None = None) -> Replay:
    """Replay ``hand`` under its own rules, or under ``rules`` to ask "what if".

    ``room``: the room whose file governs the hand (:meth:`hhtool.game.room.Rooms.for_hand`):
    its rules (with the header's options) unless ``rules`` is given, and
    its rake, computed and held against the Rake line.
    ``explain=False`` skips the words nobody will read in a bulk import:
    ``rounds`` is empty and each pot's ``reason`` is ``""``.  The verdict,
    the findings (with their messages), the pots and the payouts are the
    same; the words were a twentieth of the replay's time.
    """
    return Walk(hand, rules, explain, room).run()


ReplayState = Walk
"""The replay's state between two events, as :func:`replay_walk` shows it to its observer: read it, never change it."""


def replay_walk(hand: Hand, after: Callable[[Any, ReplayState], None], rules: RuleSet | None = None, room: Room | None = None) -> Replay:
    """:func:`replay`, calling ``after(event, state)`` once each event is replayed.

    For a viewer that steps through the hand (:mod:`hhtool.replay.steps`):
    the table after each event is the replay's own (stacks, money in,
    folds, the cards as known so far), never a second reckoning of it.
    """
    return Walk(hand, rules, True, room).run(after)
