"""The betting state machine of one hand (RULES.md §4-§6), in the manner of pokerkit.

Every action has a triplet: ``verify_x()`` raises :class:`IllegalAction`
with a finding code and the reason, ``can_x()`` answers yes or no (both
from one check that returns the refusal as a value), and ``x()`` applies
it and returns the operation it recorded (:mod:`hhtool.game.operations`),
which :attr:`Betting.operations` keeps in order; ``x_at()`` applies it
alone, by the player's position, recording nothing (the replay's way:
it reads no operation).  It answers every other
betting question too, so that nobody works a rule out again: who opens a
round and whether the double bet applies, the sizes a bet may go to, who
shows first and who may muck.

The replay (:mod:`hhtool.replay.walk`) verifies each action the history
records, turns a refusal into a finding, and then *applies the action
anyway* (:meth:`Betting.follow_out_of_turn`, :meth:`Betting.end_round`):
a history is never repaired silently, and never abandoned either.  The
simulator's bots ask ``can_x()`` and the sizes what they may do.  Amounts
are minor units; ``this_round`` is what a player has put in during the
current betting round (blinds count in round 1; antes never do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hhtool.game.cards import Card
from hhtool.game.operations import BetTo, BroughtIn, Called, Checked, Folded, IllegalAction, Operation, Player, refuse
from hhtool.game.rules import RuleSet, Structure
from hhtool.game.showing import Opener, first_round_opener, later_round_opener, pair_showing


@dataclass(init=False)
class Betting:
    """One hand's betting: players in dealing order (from the button's left).

    A written ``__init__`` with the starting values, for the reason given at :class:`Player`.
    """

    rules: RuleSet
    structure: Structure
    small_bet: int
    big_bet: int
    bring_in_amount: int | None
    big_blind: int | None
    players: list[Player]
    round_no: int
    current: int  # the bet to match this round
    full_level: int  # the level of the last full bet or raise (or the bring-in)
    last_increment: int
    bets: int  # full bets and raises this round, for the cap
    aggressor: str | None  # last bettor or raiser this round
    opener: str | None
    next_index: int | None
    brought_in: bool
    completed: bool
    big_option: bool  # round 2 with a pair showing: bets may be big
    big_made: bool
    operations: list[Operation]  # every action applied, in order
    opener_reason: str | Opener  # why the opener opens, for the finding of a wrong opener (words only when asked)
    low: int  # the deck's lowest rank, for the showing hands that decide who opens

    def __init__(
        self,
        rules: RuleSet,
        structure: Structure,
        small_bet: int,
        big_bet: int,
        bring_in_amount: int | None,
        big_blind: int | None,
        players: list[Player],
    ) -> None:
        self.rules = rules
        self.structure = structure
        self.small_bet = small_bet
        self.big_bet = big_bet
        self.bring_in_amount = bring_in_amount
        self.big_blind = big_blind
        self.players = players
        self.round_no = 0
        self.current = 0
        self.full_level = 0
        self.last_increment = 0
        self.bets = 0
        self.aggressor = None
        self.opener = None
        self.next_index = None
        self.brought_in = False
        self.completed = False
        self.big_option = False
        self.big_made = False
        self.operations = []
        self.opener_reason = ""
        self.low = rules.lowest_rank(len(players))
        # a player's position in dealing order by name: one dictionary, the player itself read from the list.
        # The replay looks a name up once an action and hands the position on (each method's ``at``):
        # compiled, a lookup by a string key is a hundred instructions or more, four an action before
        self._index_of = {p.name: i for i, p in enumerate(players)}
        self._bettors: dict[int, str] = {}  # round number -> its last bettor or raiser (what first_to_show reads of the operations)
        # amounts in a refusal's words as the hand writes money (the replay's formatter; minor units if None):
        # a function given, so that the game needs nothing of the history's text
        self.words: Callable[[int], str] | None = None

    def _m(self, amount: int) -> str:
        """An amount in a refusal's words, as the hand writes money."""
        words = self.words
        return str(amount) if words is None else words(amount)

    # ------------------------------------------------------------ lookups

    def player(self, name: str) -> Player:
        return self.players[self._index_of[name]]

    def position(self, name: str) -> int:
        """A player's position in dealing order (:meth:`index_of`), -1 for a name not dealt in."""
        i = self._index_of.get(name)
        return -1 if i is None else i

    @property
    def in_hand(self) -> list[Player]:
        return [p for p in self.players if not p.folded]

    @property
    def pot(self) -> int:
        return sum(p.total for p in self.players)

    def bet_unit(self) -> int:
        """The fixed-limit size of a bet or raise now."""
        if self.round_no >= self.rules.big_bet_from_round or self.big_made:
            return self.big_bet
        return self.small_bet

    # ------------------------------------------------------------ rounds

    def open_round(self, round_no: int, ups: Sequence[Sequence[Card]], vela: Card | None = None) -> bool:
        """Begin betting round ``round_no`` (1 = 2nd street, 5 = the vela round) with the player the rules have open it.

        RULES.md §4: the highest door card opens round 1 (the first player
        who can act when no door card is known: an own view of carte
        coperte); later rounds the best showing hand (:mod:`hhtool.game.showing`),
        the ``vela`` counted in the vela round.  RULES.md §5's double bet:
        round 2 may be bet big where the profile has the option and a pair
        shows among those still in.  ``ups`` is each player's face-up cards,
        in dealing order.  :attr:`opener`, :attr:`opener_reason` and
        :attr:`big_option` say what was decided.

        False, and nothing changed, when no round is bet: fewer than two
        players left, or none who can act.  The replay and the simulator
        both open their rounds here, so they agree on who opens by
        construction.
        """
        players = self.players
        first_actor = -1
        in_hand = 0
        for i, p in enumerate(players):
            if not p.folded:
                in_hand += 1
                if first_actor < 0 and not p.all_in:
                    first_actor = i
        if first_actor < 0 or in_hand < 2:
            return False
        why: str | Opener
        # the cards by position in a list (the replay and the simulator give one): compiled, zip() over a
        # Sequence goes through Python's iterator protocol, a generator through a call for each player
        shown: list[Sequence[Card]] = ups if isinstance(ups, list) else list(ups)
        n = len(players) if len(players) < len(shown) else len(shown)
        if round_no == 1:
            doors: list[Card | None] = []
            for i in range(n):
                up = shown[i]
                doors.append(up[0] if players[i].can_act and len(up) > 0 else None)
            if all(d is None for d in doors):
                index = first_actor
                why = "no door card is known"
            else:
                why = first_round_opener(doors)
                index = why.index
            big_option = False
        else:
            showing: list[Sequence[Card] | None] = [shown[i] if players[i].can_act else None for i in range(n)]
            why = later_round_opener(showing, self.rules, self.low, vela=vela if round_no == 5 else None)
            index = why.index
            big_option = round_no == 2 and self.rules.pair_showing_option and pair_showing([shown[i] for i in range(n) if not players[i].folded])
        self.opener_reason = why
        self.start_round(round_no, players[index].name, big_option)
        return True

    def start_round(self, round_no: int, opener: str, big_option: bool = False) -> None:
        """Begin betting round ``round_no`` (1 = 2nd street) with ``opener`` first to act (:meth:`open_round` decides who)."""
        self.round_no = round_no
        if round_no > 1:
            for p in self.players:
                p.this_round = 0
        for p in self.players:
            p.acted = False
            p.may_raise = True
        self.current = _most_in(self.players, 0)
        self.aggressor = None
        self.brought_in = False
        self.completed = False
        self.big_option = big_option
        self.big_made = False
        blind_is_bet = round_no == 1 and self.rules.big_blind_is_bet and self.current > 0
        self.bets = 1 if blind_is_bet else 0
        self.full_level = self.current
        self.last_increment = self.current if blind_is_bet else 0
        self.opener = opener
        idx = self.index_of(opener)
        self.next_index = idx if self.players[idx].can_act else self._next_after(idx)
        if not self.needs_action():
            self.next_index = None

    def index_of(self, name: str) -> int:
        """A player's position in dealing order."""
        return self._index_of[name]

    def _owes_action(self, p: Player) -> bool:
        return p.can_act and (not p.acted or p.this_round < self.current)

    def needs_action(self) -> bool:
        """Whether anyone must still act this round."""
        in_hand = 0
        actors = 0
        actor: Player | None = None
        owes = False
        current = self.current
        for p in self.players:
            if p.folded:
                continue
            in_hand += 1
            if not p.all_in:
                actors += 1
                actor = p
                if not p.acted or p.this_round < current:
                    owes = True
        if in_hand < 2 or actors == 0:
            return False
        if actors == 1 and actor is not None and actor.this_round >= current:
            return False  # nobody left to bet against
        return owes

    def _next_after(self, idx: int) -> int | None:
        n = len(self.players)
        for step in range(1, n + 1):
            j = (idx + step) % n
            if self._owes_action(self.players[j]):
                return j
        return None

    @property
    def next_player(self) -> str | None:
        return None if self.next_index is None else self.players[self.next_index].name

    @property
    def round_over(self) -> bool:
        return self.next_index is None

    def heads_up(self) -> bool:
        return len(self.in_hand) == 2

    def capped(self) -> bool:
        if self.structure != "fixed":
            return False
        if self.rules.cap_heads_up and self.heads_up():
            return False
        return self.bets >= self.rules.cap_bets

    def uncalled(self) -> tuple[str, int] | None:
        """The bet no one called this round, if any: (bettor, excess).

        The bettor is the first player in dealing order with the most in
        this round; the excess is over the next largest amount (anyone
        else's).  No sort: the replay asks at the end of every round.
        """
        players = self.players
        if len(players) < 2:
            return None
        top = players[0]
        for p in players:
            if p.this_round > top.this_round:
                top = p
        second = 0
        seen = False
        for p in players:
            if p is not top and (not seen or p.this_round > second):
                second = p.this_round
                seen = True
        if top.this_round <= second or top.folded:
            return None
        return top.name, top.this_round - second

    def end_round(self) -> None:
        """End the round though someone still owes an action: the history moved on (the replay's ``round_unfinished``)."""
        self.next_index = None

    def follow_out_of_turn(self, name: str, *, at: int = -1) -> None:
        """Make it ``name``'s turn: the history has ``name`` act out of turn (the replay's finding), and the betting goes on from there.

        The replay applies every action it refused, to follow the money; an
        action out of turn moves the turn to its player, so that who acts
        next is counted from them, as the history goes on.  Nothing changes
        once the round is over.
        """
        idx = self.next_index
        if idx is not None and self.players[idx].name != name:
            self.next_index = self._index_of[name] if at < 0 else at

    def return_uncalled(self, name: str, amount: int) -> None:
        p = self.player(name)
        p.this_round -= amount
        p.total -= amount
        p.behind += amount
        if p.behind > 0:
            p.all_in = False
        self.current = _most_in(self.players, 0)

    # ------------------------------------------------------------ checks
    #
    # One check an action, ``_x_refusal``: it returns the refusal (an IllegalAction, not raised) or None;
    # ``verify_x`` raises it and ``can_x`` asks whether there is one, so that asking costs no exception.

    def _turn(self, name: str, at: int) -> Player | IllegalAction:
        """The player whose turn it is, or why ``name`` may not act now; ``at``: ``name``'s position, -1 to look it up."""
        if at < 0:
            found = self._index_of.get(name)
            if found is None:
                return IllegalAction("action_not_in_hand", f"{name} was not dealt into the hand")
            at = found
        p = self.players[at]
        if p.folded:
            return IllegalAction("action_after_fold", f"{name} acts after folding")
        if p.all_in:
            return IllegalAction("action_after_all_in", f"{name} acts after going all-in")
        if self.next_index is None:
            return IllegalAction("action_after_round", f"{name} acts after the betting round was over")
        expected = self.players[self.next_index].name
        if expected != name:
            if self.aggressor is None and not any(q.acted for q in self.players):
                return IllegalAction(
                    "wrong_opener", f"{name} opens the betting, but {expected} should open it: {_words(self.opener_reason)}"
                )
            return IllegalAction("out_of_turn", f"{name} acts out of turn: it is {expected}'s turn")
        return p

    def _amount_refusal(self, p: Player, put_in: int) -> IllegalAction | None:
        if put_in > p.behind:
            return IllegalAction(
                "stack_exceeded", f"{p.name} puts in {self._m(put_in)} with only {self._m(p.behind)} behind"
            )
        return None

    def _check_refusal(self, name: str, at: int = -1) -> IllegalAction | None:
        p = self._turn(name, at)
        if isinstance(p, IllegalAction):
            return p
        if p.this_round < self.current:
            return IllegalAction("check_facing_bet", f"{name} checks facing a bet of {self._m(self.current)}: facing a bet, a player calls, raises or folds")
        if self.rules.bring_in and self.round_no == 1 and not self.brought_in and not self.completed:
            return IllegalAction("bring_in_unexpected", f"{name} checks, but must bring in or complete")
        return None

    def _fold_refusal(self, name: str, at: int = -1) -> IllegalAction | None:
        p = self._turn(name, at)
        return p if isinstance(p, IllegalAction) else None

    def _call_refusal(self, name: str, amount: int, at: int = -1) -> IllegalAction | None:
        p = self._turn(name, at)
        if isinstance(p, IllegalAction):
            return p
        owed = self.current - p.this_round
        if owed <= 0:
            return IllegalAction("call_without_bet", f"{name} calls with nothing to call")
        refusal = self._amount_refusal(p, amount)
        if refusal is not None:
            return refusal
        if amount != owed and not (amount < owed and amount == p.behind):
            return IllegalAction("call_amount", f"{name} calls {self._m(amount)}, but the call is {self._m(owed)}")
        return None

    def _bring_in_refusal(self, name: str, amount: int, at: int = -1) -> IllegalAction | None:
        p = self._turn(name, at)
        if isinstance(p, IllegalAction):
            return p
        if not self.rules.bring_in or self.round_no != 1 or self.brought_in or self.completed or self.current > 0:
            return IllegalAction("bring_in_unexpected", f"{name} brings in where no bring-in is due")
        refusal = self._amount_refusal(p, amount)
        if refusal is not None:
            return refusal
        if amount != self.bring_in_amount and not (amount < (self.bring_in_amount or 0) and amount == p.behind):
            return IllegalAction("bring_in_amount", f"{name} brings in for {self._m(amount)}; the bring-in is {self._m(self.bring_in_amount or 0)}")
        return None

    def is_completion(self, to: int) -> bool:
        """A bet or raise that completes the bring-in (RULES.md §4: it is the round's bet)."""
        return self.rules.bring_in and self.round_no == 1 and not self.completed and self.bets == 0

    def is_raise(self) -> bool:
        """Whether a bet made now raises: a bet stands and this one does not complete the bring-in (the completion is the round's bet)."""
        return self.current > 0 and not self.is_completion(0)

    def _bet_to_refusal(self, name: str, to: int, as_raise: bool | None, at: int = -1) -> IllegalAction | None:
        p = self._turn(name, at)
        if isinstance(p, IllegalAction):
            return p
        put_in = to - p.this_round
        all_in = put_in == p.behind
        refusal = self._size_refusal(p, to, all_in, self.is_raise() if as_raise is None else as_raise)
        return refusal if refusal is not None else self._amount_refusal(p, put_in)

    def _bet_refusal(self, name: str) -> IllegalAction | None:
        p = self._turn(name, -1)
        if isinstance(p, IllegalAction):
            return p
        if p.behind <= self.current - p.this_round:
            return IllegalAction("stack_exceeded", f"{name} has no chips beyond the call of {self._m(self.current - p.this_round)}")
        return self._open_refusal(p)

    def _open_refusal(self, p: Player) -> IllegalAction | None:
        name = p.name
        if not p.may_raise and self.is_raise():
            return IllegalAction(
                "raise_not_reopened", f"{name} raises, but the short all-in before did not reopen the betting to {name}"
            )
        if self.capped():
            cap = self.rules.cap_bets
            return IllegalAction("raise_over_cap", f"{name} raises after the betting was capped: a round allows a bet and {cap - 1} raises")
        return None

    def _size_refusal(self, p: Player, to: int, all_in: bool, as_raise: bool) -> IllegalAction | None:
        name = p.name
        refusal = self._open_refusal(p)
        if refusal is not None:
            return refusal
        if self.is_completion(to):
            if self.structure == "fixed" or not as_raise and self.current == 0:
                if to != self.small_bet and not (to < self.small_bet and all_in):
                    return IllegalAction("complete_amount", f"{name} completes to {self._m(to)}; the completion is to {self._m(self.small_bet)}")
                return None
            if to < self.small_bet and not all_in:
                return IllegalAction("complete_amount", f"{name} completes to {self._m(to)}; the completion is to at least {self._m(self.small_bet)}")
            return self._pot_limit_refusal(p, to)
        if self.current == 0 and as_raise:
            return IllegalAction("raise_without_bet", f"{name} raises with no bet to raise")
        if self.current > 0 and not as_raise:
            return IllegalAction("bet_facing_bet", f"{name} bets facing a bet of {self._m(self.current)}: that is a raise")
        kind = "raise_size" if self.current > 0 else "bet_size"
        if self.structure == "fixed":
            small = self._fixed_to(False)
            big = self._fixed_to(True)
            if to != small and to != big and not (to < max(small, big) and all_in and to > self.current):
                want = " or ".join(self._m(o) for o in sorted({small, big}))
                return IllegalAction(kind, f"{name} {'raises' if self.current else 'bets'} to {self._m(to)}; fixed limit allows {want}")
            return None
        minimum = self._least_to()
        if to < minimum and not all_in:
            return IllegalAction(kind, f"{name} {'raises' if self.current else 'bets'} to {self._m(to)}; the minimum is {self._m(minimum)}")
        if to <= self.current:
            return IllegalAction(kind, f"{name} raises to {self._m(to)}, not above the bet of {self._m(self.current)}")
        return self._pot_limit_refusal(p, to)

    def _pot_limit_refusal(self, p: Player, to: int) -> IllegalAction | None:
        if self.structure != "pot":
            return None
        maximum = self._pot_limit_to(p)
        if to > maximum:
            kind = "raise_size" if self.current else "bet_size"
            return IllegalAction(kind, f"{p.name} goes to {self._m(to)}; pot limit allows at most {self._m(maximum)}")
        return None

    # ------------------------------------------------------------ sizes
    #
    # The structure's sizes (RULES.md §5), read by the checks above and by the answers below: one reckoning of each.

    def _fixed_to(self, big: bool) -> int:
        """Fixed limit: the total a full bet or raise goes to now; ``big``: the big bet's, while the double bet is open."""
        if big and self.big_option and not self.big_made:
            return self.full_level + self.big_bet
        return self.full_level + self.bet_unit()

    def _least_to(self) -> int:
        """Pot and no limit: the least total of a full bet (the small bet) or raise (the bet and the last increment, at least the small bet)."""
        return self.current + max(self.last_increment, self.small_bet) if self.current else self.small_bet

    def _pot_limit_to(self, p: Player) -> int:
        """Pot limit: the most ``p`` may go to, the bet and the pot after ``p``'s call."""
        return self.current + self.pot + max(self.current - p.this_round, 0)

    def min_bet_to(self, name: str) -> int:
        """The least total a bet, raise or completion by ``name`` may go to now, or all-in for less (RULES.md §4-§5).

        The completion: the small bet; fixed limit: the one size (the small
        one while the double bet is open); pot and no limit: the small bet,
        or the bet and the last full increment.  Never more than ``name``
        has: a short stack goes all-in for less.  Sizes only: whether a bet
        is open to ``name`` at all (the turn, the cap, a short all-in) is
        :meth:`can_bet`'s, and :meth:`can_bet_to` has the last word.
        """
        p = self.player(name)
        if self.is_completion(0):
            least = self.small_bet
        elif self.structure == "fixed":
            least = self._fixed_to(False)
        else:
            least = self._least_to()
        return min(least, p.this_round + p.behind)

    def max_bet_to(self, name: str) -> int:
        """The most a bet, raise or completion by ``name`` may go to now (RULES.md §4-§5), never more than ``name`` has.

        Completing a bring-in with no bet beyond it: the small bet; fixed
        limit: the one size, or the big bet's while the double bet is open;
        pot limit: the bet and the pot after the call; no limit: all-in.
        Sizes only, as for :meth:`min_bet_to`.
        """
        p = self.player(name)
        all_in_to = p.this_round + p.behind
        if self.is_completion(0) and (self.structure == "fixed" or self.current == 0):
            most = self.small_bet
        elif self.structure == "fixed":
            most = self._fixed_to(True)
        elif self.structure == "pot":
            most = self._pot_limit_to(p)
        else:
            most = all_in_to
        return min(most, all_in_to)

    # ------------------------------------------------------------ verify: raise the refusal

    def verify_check(self, name: str, *, at: int = -1) -> None:
        """Raise the refusal of a check by ``name``, if any; ``at``: ``name``'s position if known (:meth:`position`), as in every method with one."""
        refuse(self._check_refusal(name, at))

    def verify_fold(self, name: str, *, at: int = -1) -> None:
        refuse(self._fold_refusal(name, at))

    def verify_call(self, name: str, amount: int, *, at: int = -1) -> None:
        refuse(self._call_refusal(name, amount, at))

    def verify_bring_in(self, name: str, amount: int, *, at: int = -1) -> None:
        refuse(self._bring_in_refusal(name, amount, at))

    def verify_bet_to(self, name: str, to: int, *, as_raise: bool | None = None, at: int = -1) -> None:
        """A bet (no bet yet) or raise to ``to`` this round; completions included.

        ``as_raise``: whether the history calls it a raise (a bet line
        facing a bet, or a raise line with none to raise, is refused); None
        (a bot's bet): as the machine reads it, :meth:`is_raise`.
        """
        refuse(self._bet_to_refusal(name, to, as_raise, at))

    def verify_bet(self, name: str) -> None:
        """Some bet, raise or completion is open to ``name`` now: the turn, chips beyond the call, the betting open to them, no cap."""
        refuse(self._bet_refusal(name))

    # ------------------------------------------------------------ answers: is there a refusal

    def can_check(self, name: str) -> bool:
        """Whether :meth:`verify_check` allows it (the same for each ``can_x``)."""
        return self._check_refusal(name) is None

    def can_fold(self, name: str) -> bool:
        return self._fold_refusal(name) is None

    def can_call(self, name: str, amount: int) -> bool:
        return self._call_refusal(name, amount) is None

    def can_bring_in(self, name: str, amount: int) -> bool:
        return self._bring_in_refusal(name, amount) is None

    def can_bet(self, name: str) -> bool:
        """Whether a bet, raise or completion of some size is open to ``name``."""
        return self._bet_refusal(name) is None

    def can_bet_to(self, name: str, to: int, *, as_raise: bool | None = None) -> bool:
        return self._bet_to_refusal(name, to, as_raise) is None

    # ------------------------------------------------------------ actions

    def _advance(self, idx: int) -> None:
        self.next_index = self._next_after(idx) if self.needs_action() else None

    def _put(self, p: Player, amount: int) -> None:
        p.behind -= amount
        p.total += amount
        p.this_round += amount
        if p.behind <= 0:
            p.behind = max(p.behind, 0)
            p.all_in = True

    # Each action twice: ``x(name)`` applies it and records its operation (kept in :attr:`operations` and
    # returned), for the simulator and the tests; ``x_at(at)`` applies it alone, by the player's position
    # (:meth:`position`), for the replay, which reads no operation (:meth:`first_to_show` reads the round's
    # last bettor from ``_bettors``): compiled, an operation built, kept and freed is about 300 instructions.

    def check(self, name: str, *, at: int = -1) -> Checked:
        """Apply a check by ``name``; ``at``: ``name``'s position if known (:meth:`position`), as for every action."""
        op = Checked(self.round_no, name)
        self.check_at(self._index_of[name] if at < 0 else at)
        self.operations.append(op)
        return op

    def fold(self, name: str, *, at: int = -1) -> Folded:
        op = Folded(self.round_no, name)
        self.fold_at(self._index_of[name] if at < 0 else at)
        self.operations.append(op)
        return op

    def call(self, name: str, amount: int, *, at: int = -1) -> Called:
        op = Called(self.round_no, name, amount)
        self.call_at(self._index_of[name] if at < 0 else at, amount)
        self.operations.append(op)
        return op

    def bring_in(self, name: str, amount: int, *, at: int = -1) -> BroughtIn:
        op = BroughtIn(self.round_no, name, amount)
        self.bring_in_at(self._index_of[name] if at < 0 else at, amount)
        self.operations.append(op)
        return op

    def bet_to(self, name: str, to: int, *, at: int = -1) -> BetTo:
        """Apply a bet, raise or completion to ``to`` for the round."""
        op = BetTo(self.round_no, name, to, self.current, self.is_completion(to))
        self.bet_to_at(self._index_of[name] if at < 0 else at, to)
        self.operations.append(op)
        return op

    def check_at(self, at: int) -> None:
        """:meth:`check` by the player at position ``at``, no operation recorded (the same for each ``x_at``)."""
        self.players[at].acted = True
        self._advance(at)

    def fold_at(self, at: int) -> None:
        p = self.players[at]
        p.folded = True
        p.folded_round = self.round_no
        p.acted = True
        self._advance(at)

    def call_at(self, at: int, amount: int) -> None:
        p = self.players[at]
        self._put(p, amount)
        p.acted = True
        self._advance(at)

    def bring_in_at(self, at: int, amount: int) -> None:
        p = self.players[at]
        self._put(p, amount)
        p.acted = True
        self.brought_in = True
        self.current = max(self.current, p.this_round)
        self.full_level = self.current
        self._advance(at)

    def bet_to_at(self, at: int, to: int) -> None:
        p = self.players[at]
        before = self.current
        completion = self.is_completion(to)
        step = to - self.full_level
        self._put(p, to - p.this_round)
        p.acted = True
        full = completion or to - before >= self._full_increment()
        self.current = max(self.current, to)
        if full:
            self.bets += 1
            self.last_increment = self.small_bet if completion else to - before
            if self.structure == "fixed" and self.big_option and step >= self.big_bet:
                self.big_made = True
            self.full_level = to
            for q in self.players:
                if q is not p:
                    q.acted = False
                    q.may_raise = True
        else:
            # a short all-in: those who already acted may call or fold, not raise
            for q in self.players:
                if q is not p and q.acted:
                    q.may_raise = False
        if completion:
            self.completed = True
        self.aggressor = p.name
        self._bettors[self.round_no] = p.name  # the round's last bettor or raiser, for first_to_show
        self._advance(at)

    def _full_increment(self) -> int:
        if self.structure == "fixed":
            return self.bet_unit()
        if self.current == 0:
            return self.small_bet
        return max(self.last_increment, self.small_bet)


    # ------------------------------------------------------------ showdown

    def first_to_show(self) -> str | None:
        """Who must show first at the showdown (RULES.md §6), None with fewer than two players left.

        The last bettor or raiser of the final round if still in; else, by
        the rule set's ``showdown_order``, the player who opened that round
        or the first player left of the button (who also starts a showdown
        in seat order).
        """
        left = [p.name for p in self.players if not p.folded]
        if len(left) < 2:
            return None
        if self.rules.all_show:
            return left[0]
        order = self.rules.showdown_order
        aggressor = self._bettors.get(self.round_no)  # the last BetTo of this round number, as the operations say
        if aggressor is not None and aggressor in left:
            return aggressor
        if order == "last_aggressor_else_opener" and self.opener in left:
            return self.opener
        return left[0]

    def show_order(self) -> list[str]:
        """The players left in the order they show (RULES.md §6): clockwise from :meth:`first_to_show`.

        Classic and italian show in this order; stellapoker's callers may
        show in any order after the first (``RuleSet.shows_clockwise``).
        """
        left = [p.name for p in self.players if not p.folded]
        first = self.first_to_show()
        if first is None:
            return left
        k = left.index(first)
        return left[k:] + left[:k]

    def may_muck(self, name: str) -> bool:
        """Whether the rules let ``name`` muck rather than show (RULES.md §6).

        Not where everyone left shows (``RuleSet.all_show``), and never the
        player who must show first; anyone else may (classic: a hand that
        cannot beat the best one shown; stellapoker: callers).  Whether a
        player *would* muck is the player's own choice.
        """
        return not self.rules.all_show and name != self.first_to_show()


def _words(why: str | Opener) -> str:
    return why if isinstance(why, str) else why.reason


def _most_in(players: list[Player], empty: int) -> int:
    """The most any of ``players`` has put in this round, ``empty`` when there are none.

    A loop, where ``max()`` of a generator costs, compiled, a generator
    object and a call through Python's convention: 3,600 instructions at
    every round's start, most of the betting machine's.
    """
    if not players:
        return empty
    most = players[0].this_round
    for p in players:
        if p.this_round > most:
            most = p.this_round
    return most
