"""Replay a parsed hand under its rules: every check of RULES.md, and who should win what.

:func:`replay` walks the hand's events in order, feeding the betting state
machine (:mod:`.betting`) and keeping track of the cards, then settles the
pots (:mod:`.pots`) and compares the result with what the history says.
Everything it notices becomes a :class:`~.findings.Finding`; nothing is
raised, nothing is repaired silently, and the replay always reaches a
verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from hhtool.game.cards import RANK_NAMES, Card, card_symbol, cards_str
from hhtool.game.evaluate import CATEGORY_LABELS, HandValue, evaluate
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
from hhtool.history.money import display_amount
from hhtool.game.rules import RuleSet, RulesError
from hhtool.game.showdown import choose, divide, explain, winners
from hhtool._native.frozen import written_init
from hhtool.game.showing import Opener, first_round_opener, later_round_opener
from hhtool.replay.betting import Betting, IllegalAction, Player, deal_order
from hhtool.replay.findings import CODES, Finding, finding, grouped
from hhtool.replay.pots import Pot, pots_from

Verdict = Literal["ok", "disputed", "invalid"]
ROUND_OF_STREET: Final = {"2nd": 1, "3rd": 2, "4th": 3, "5th": 4}
STREET_OF_ROUND: Final = {1: "2nd street", 2: "3rd street", 3: "4th street", 4: "5th street", 5: "the vela round"}


@dataclass(frozen=True, slots=True, init=False)
class PotResult:
    """One pot as the rules settle it (its written ``__init__``: see :mod:`hhtool._native.frozen`)."""

    name: str  # "main pot", "side pot-1", ...
    amount: int
    rake: int
    eligible: tuple[str, ...]
    winners: dict[str, int]
    reason: str  # why the winners win it, in words ("" when replayed with ``explain=False``)
    verified: bool  # False when a contender's cards are unknown

    def __init__(
        self, name: str, amount: int, rake: int, eligible: tuple[str, ...], winners: dict[str, int], reason: str, verified: bool
    ) -> None:
        self.name = name  # type: ignore[misc]
        self.amount = amount  # type: ignore[misc]
        self.rake = rake  # type: ignore[misc]
        self.eligible = eligible  # type: ignore[misc]
        self.winners = winners  # type: ignore[misc]
        self.reason = reason  # type: ignore[misc]
        self.verified = verified  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Replay:
    """The result of replaying one hand (its written ``__init__``: see :mod:`hhtool._native.frozen`)."""

    hand: Hand
    rules: RuleSet
    verdict: Verdict
    findings: tuple[Finding, ...]
    payouts: dict[str, int]
    claimed: dict[str, int]
    pots: tuple[PotResult, ...]
    showdown_order: tuple[str, ...]
    rounds: tuple[str, ...]  # the pot built round by round, who opened and why (empty with ``explain=False``)
    stacks: dict[str, int]  # each player's stack after the hand, by the rules
    categories: dict[str, str]  # each player who showed five cards: what they make with the vela (``CATEGORY_LABELS``)

    def __init__(
        self,
        hand: Hand,
        rules: RuleSet,
        verdict: Verdict,
        findings: tuple[Finding, ...],
        payouts: dict[str, int],
        claimed: dict[str, int],
        pots: tuple[PotResult, ...],
        showdown_order: tuple[str, ...],
        rounds: tuple[str, ...],
        stacks: dict[str, int],
        categories: dict[str, str],
    ) -> None:
        self.hand = hand  # type: ignore[misc]
        self.rules = rules  # type: ignore[misc]
        self.verdict = verdict  # type: ignore[misc]
        self.findings = findings  # type: ignore[misc]
        self.payouts = payouts  # type: ignore[misc]
        self.claimed = claimed  # type: ignore[misc]
        self.pots = pots  # type: ignore[misc]
        self.showdown_order = showdown_order  # type: ignore[misc]
        self.rounds = rounds  # type: ignore[misc]
        self.stacks = stacks  # type: ignore[misc]
        self.categories = categories  # type: ignore[misc]

    def fmt(self, amount: int) -> str:
        """An amount as a person reads it (:func:`hhtool.history.money.display_amount`)."""
        return display_amount(amount, self.hand.money)


written_init(PotResult, Replay)


class _Cards:
    """What is known of one player's cards, in the order dealt (a plain class: compiled, its ``__init__`` is C)."""

    def __init__(self) -> None:
        self.cards: list[Card | None] = []
        self.up: list[Card] = []

    @property
    def known(self) -> list[Card]:
        return [c for c in self.cards if c is not None]


class _Replayer:
    def __init__(self, hand: Hand, rules: RuleSet | None, explain: bool = True) -> None:
        self.hand = hand
        self.explain = explain
        self.findings: list[Finding] = []
        header = hand.header
        if rules is None:
            try:
                rules = header.ruleset()
            except RulesError as err:
                self.add("rules_option", header.line, str(err))
                from hhtool.game.rules import profile

                rules = profile(header.profile)
        self.rules = rules
        self.money = hand.money
        self.rounds: list[str] = []
        self.seen_cards: dict[Card, int] = {}
        self.cards: dict[str, _Cards] = {}
        self.vela: Card | None = None
        self.vela_line = 0
        self.shown: dict[str, tuple[Card, ...]] = {}
        self.mucked: set[str] = set()
        self.show_order: list[str] = []
        self.last_round_opener: str | None = None
        self.round_started = False
        self.street_round = 0
        self.deals_this_street: list[str] = []
        self.double_bet_line = 0
        self.vela_missing_said = False
        self._values: dict[tuple[Card, ...], HandValue] = {}

    def add(self, code: str, line: int, message: str) -> None:
        self.findings.append(finding(code, line, message))

    def fmt(self, amount: int) -> str:
        return display_amount(amount, self.money)

    # ------------------------------------------------------------ setup

    def setup(self) -> None:
        hand = self.hand
        events = hand.events
        dealt: set[str] = set()
        street = 0
        for e in events:
            if isinstance(e, Street):
                street = ROUND_OF_STREET[e.name]
            if isinstance(e, (PostAnte, PostBlind)) or (isinstance(e, Deal) and street <= 1):
                dealt.add(e.player)
        seats = [(s.seat, s.player) for s in hand.seats if s.player in dealt]
        order = deal_order(seats, hand.table.button)
        stacks = {s.player: s.stack for s in hand.seats}
        self.players = [Player(name, seat, stacks[name], stacks[name]) for seat, name in order]
        n = len(self.players)
        try:
            self.rules.check_players(n)
        except RulesError as err:  # not ``e``: compiled, a name keeps its first type (the loop's event above)
            self.add("players", hand.header.line, str(err))
        self.low = self.rules.lowest_rank(max(n, self.rules.min_players)) if self.rules.deck == "by_players" else 7
        if self.rules.deck == "by_players" and n > self.rules.max_players:
            self.low = self.rules.lowest_rank(self.rules.max_players)
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
        self.betting.money = self.money
        for p in self.players:
            self.cards[p.name] = _Cards()

    # ------------------------------------------------------------ the walk

    def run(self) -> Replay:
        self.setup()
        self.forced_bets()
        for e in self.hand.events:
            self.event(e)
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
        handler = _HANDLERS.get(type(e))
        if handler is not None:
            handler(self, e)

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
        if self.rules.showdown_order == "seat_order":
            self.add("muck_not_allowed", e.line, f"{e.player} mucks, but in the {self.rules.name} profile everyone left shows")

    def _on_capped(self, e: BettingCapped) -> None:
        if not self.betting.capped():
            self.add("info_capped", e.line, "'Betting is capped' but the betting was not capped")

    def _on_double_bet(self, e: DoubleBetAllowed) -> None:
        self.double_bet_line = e.line

    def _on_end_of_betting(self, e: DoesNotShow | Collected) -> None:
        self.end_of_betting(e.line)
        self.vela_due(e.line)

    def _on_ante(self, e: PostAnte) -> None:
        self.post(e.player, e.amount, e.line, e.all_in, ante=True)

    def _on_blind(self, e: PostBlind) -> None:
        self.post(e.player, e.amount, e.line, e.all_in, ante=False)

    def _on_street(self, e: Street) -> None:
        self.new_street(ROUND_OF_STREET[e.name], e.line)

    # ------------------------------------------------------------ money in

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

    # ------------------------------------------------------------ streets and cards

    def new_street(self, round_no: int, line: int) -> None:
        if round_no > 1:
            self.end_of_betting(line)
        self.check_deals_complete(line)
        self.street_round = round_no
        self.round_started = False
        self.deals_this_street = []

    def check_deals_complete(self, line: int) -> None:
        if self.street_round == 0:
            return
        dealt = set(self.deals_this_street)
        due = {p.name for p in self.players if not p.folded or (p.folded and p.folded_round >= self.street_round)}
        if self.street_round == 1:
            due = {p.name for p in self.players}
        for p in self.players:
            if p.name in due and p.name not in dealt and not (p.folded and p.folded_round < self.street_round):
                self.add("deal_missing", line, f"{p.name} was not dealt a card on {STREET_OF_ROUND[self.street_round]}")

    def note_card(self, card: Card, line: int, where: str) -> None:
        if card >> 2 < self.low:
            self.add("card_not_in_deck", line, f"{card_symbol(card)} ({where}) is not in the {self.rules.name} deck for {len(self.players)} players, which runs from {RANK_NAMES.get(self.low, self.low)} to Ace")
        prev = self.seen_cards.get(card)
        if prev is not None:
            self.add("card_twice", line, f"{card_symbol(card)} ({where}) was already dealt on line {prev}")
        else:
            self.seen_cards[card] = line

    def deal(self, e: Deal) -> None:
        name = e.player
        rnd = self.street_round
        if name not in self.cards:
            self.add("deal_to_folded", e.line, f"a card is dealt to {name}, who is not in the hand")
            return
        p = self.betting.player(name)
        if p.folded:
            self.add("deal_to_folded", e.line, f"a card is dealt to {name}, who folded")
        position = self.betting.index_of(name)
        if self.deals_this_street and position <= self.betting.index_of(self.deals_this_street[-1]):
            self.add("deal_order", e.line, f"{name} is dealt out of order (dealing goes clockwise from the button's left)")
        self.deals_this_street.append(name)
        mine = self.cards[name]
        exposure = self.rules.exposure
        if rnd == 1:
            known = list(e.known or ())
            if e.new:
                self.add("deal_count", e.line, f"2nd street deals one card down and one up; {name}'s line has a second bracket")
            if len(known) == 2:
                mine.cards = [known[0], known[1]]
            elif len(known) == 1:
                mine.cards = [None, known[0]]
            elif e.known is None and exposure == "carte_coperte":
                # another player's two down cards in an own view: a bare "Dealt to bob" (the grammar's
                # carte coperte form); the card turned by the "exposes" line fills in later
                mine.cards = [None, None]
            else:
                self.add("deal_count", e.line, f"2nd street deals two cards; {name}'s line shows {len(known)}")
                padded: list[Card | None] = [*known[:2]]
                mine.cards = padded + [None] * max(0, 2 - len(known))
            for c in mine.known:
                self.note_card(c, e.line, f"dealt to {name}")
            door_card = mine.cards[1] if len(mine.cards) > 1 else None
            if exposure in ("standard", "una_coperta") and door_card is not None:
                mine.up = [door_card]
            return
        known = list(e.known or ())
        new = list(e.new or ())
        prior_known = mine.known
        prior_up = mine.up
        if known and known != prior_known and known != prior_up and not self._is_view_of(known, mine):
            self.add("deal_changed", e.line, f"{name}'s cards are shown as [{cards_str(known)}], but were [{cards_str(prior_known)}]")
        if len(new) > 1:
            self.add("deal_count", e.line, f"one card per street; {name}'s line deals {len(new)}")
        card = new[0] if new else None
        down = exposure == "carte_coperte" or (exposure == "una_coperta" and rnd == 4)
        if card is not None:
            self.note_card(card, e.line, f"dealt to {name}")
        # fill in a hole card first learned on a later street
        if mine.cards and mine.cards[0] is None and len(known) > len(prior_up) and known and known[0] not in mine.up:
            mine.cards[0] = known[0]
            self.note_card(known[0], e.line, f"{name}'s hole card")
        mine.cards.append(card)
        if card is not None and not down:
            mine.up.append(card)

    def _is_view_of(self, known: list[Card], mine: _Cards) -> bool:
        """A repeat that shows the viewer's or the audit's view of the same cards."""
        return set(mine.up) <= set(known) and all(c in mine.known or c not in self.seen_cards for c in known)

    def expose(self, e: Expose) -> None:
        if self.rules.exposure == "standard":
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
                self.note_card(c, e.line, f"exposed by {e.player}")
            if c not in mine.up:
                mine.up.append(c)

    def check_exposures(self, rnd: int, line: int) -> None:
        """Carte coperte and una coperta: before betting round n, n cards face up (RULES.md §4)."""
        want = min(rnd, 4)
        for p in self.players:
            if p.folded:
                continue
            up = len(self.cards[p.name].up)
            if up != want:
                self.add(
                    "exposure_missing",
                    line,
                    f"{p.name} has {up} card(s) face up before the {STREET_OF_ROUND[rnd]} betting; "
                    f"{self.rules.exposure.replace('_', ' ')} leaves {want} up",
                )

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
            self.add("deck_exhausted", self.hand.summary.line, f"{_count(n_cards, 'card')} dealt, {burns} burnt{' and the vela' if vela else ''}: more than the {size}-card deck holds")

    # ------------------------------------------------------------ betting

    def start_round(self, line: int) -> None:
        b = self.betting
        rnd = self.street_round if self.street_round else 1
        actors = [p for p in self.players if p.can_act]
        if not actors or len(b.in_hand) < 2:
            self.round_started = True
            return
        if self.rules.exposure != "standard":
            self.check_exposures(rnd, line)
        if rnd == 1:
            doors: list[Card | None] = []
            for p in self.players:
                up = self.cards[p.name].up
                doors.append(up[0] if p.can_act and up else None)
            why: str | Opener
            if all(d is None for d in doors):
                opener = actors[0].name
                why = "no door card is known"
            else:
                why = first_round_opener(doors)
                opener = self.players[why.index].name
            big_option = False
        else:
            vela = self.vela if (rnd == 5 and self.vela is not None) else None
            ups: list[Sequence[Card] | None] = [self.cards[p.name].up if p.can_act else None for p in self.players]
            why = later_round_opener(ups, self.rules, self.low, vela=vela)
            opener = self.players[why.index].name
            big_option = rnd == 2 and self.rules.pair_showing_option and self._pair_showing()
        if self.double_bet_line and not big_option:
            self.add("info_double_bet", self.double_bet_line, f"'a double bet is allowed', but no pair shows on {STREET_OF_ROUND[2]}")
        self.double_bet_line = 0
        b.opener_reason = why
        b.start_round(rnd, opener, big_option)
        self.last_round_opener = opener
        self.round_started = True
        if not self.explain:
            return
        if b.next_index is None:
            self.rounds.append(f"{STREET_OF_ROUND[rnd]}: no betting (fewer than two players can act)")
        else:
            self.rounds.append(f"{STREET_OF_ROUND[rnd]}: {opener} opens ({why if isinstance(why, str) else why.reason})")

    def _pair_showing(self) -> bool:
        for p in self.players:
            if p.folded:
                continue
            ranks = [c >> 2 for c in self.cards[p.name].up]
            if len(ranks) != len(set(ranks)):
                return True
        return False

    def action(self, e: BringIn | Complete | Bet | Call | RaiseTo | Check | Fold) -> None:
        b = self.betting
        if self.round_started and b.next_index is None and self.rules.vela_betting_round and self.vela_due(e.line):
            self.street_round = 5  # the vela round's betting, as if the vela had been turned (vela_missing says it was not)
            self.round_started = False
        if not self.round_started:
            self.start_round(e.line)
        name = e.player
        try:
            p = b.player(name)
        except KeyError:
            self.add("action_not_in_hand", e.line, f"{name} acts but was not dealt into the hand")
            return
        try:
            self.verify(e, p)
        except IllegalAction as err:
            code, message = err.code, err.message
            if code == "wrong_opener" and isinstance(e, BringIn):
                code, message = "bring_in_player", message.replace(" opens the betting, but ", " brings in, but ", 1).replace("should open it", "should", 1)
            self.add(code, e.line, message)
            if err.code in ("action_after_fold", "action_not_in_hand"):
                return
        self.apply(e, p)
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
        return e.amount if self.betting.current == 0 or self.betting.is_completion(e.amount) else p.this_round + e.amount

    def verify(self, e: object, p: Player) -> None:
        b = self.betting
        if isinstance(e, Check):
            b.verify_check(p.name)
        elif isinstance(e, Fold):
            b.verify_fold(p.name)
        elif isinstance(e, Call):
            b.verify_call(p.name, e.amount)
        elif isinstance(e, BringIn):
            b.verify_bring_in(p.name, e.amount)
        elif isinstance(e, RaiseTo):
            if e.by != e.to - b.current and b.current:
                self.add("raise_arithmetic", e.line, f"{p.name} raises {self.fmt(e.by)} to {self.fmt(e.to)} facing {self.fmt(b.current)}"
                         + (f": a raise to {self.fmt(e.to)} is by {self.fmt(e.to - b.current)}" if e.to > b.current else ""))
            b.verify_bet_to(p.name, e.to, as_raise=not b.is_completion(e.to))
        elif isinstance(e, Complete):
            if not b.is_completion(e.to):
                raise IllegalAction("complete_amount", f"{p.name} completes, but there is no bring-in to complete")
            b.verify_bet_to(p.name, e.to, as_raise=False)
        elif isinstance(e, Bet):
            to = self._to(e, p)
            b.verify_bet_to(p.name, to, as_raise=not b.is_completion(to) and b.current > 0)

    def apply(self, e: object, p: Player) -> None:
        b = self.betting
        if p.folded or p.all_in:
            return
        if b.next_index is not None and b.players[b.next_index] is not p:
            b.next_index = b.players.index(p)  # follow the history after an out-of-turn action
        if isinstance(e, Check):
            b.check(p.name)
        elif isinstance(e, Fold):
            b.fold(p.name)
        elif isinstance(e, Call):
            b.call(p.name, min(e.amount, p.behind))
        elif isinstance(e, BringIn):
            b.bring_in(p.name, min(e.amount, p.behind))
        elif isinstance(e, (Bet, Complete, RaiseTo)):
            to = self._to(e, p)
            to = min(to, p.this_round + p.behind)
            b.bet_to(p.name, to)

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
            where = "in the vela round" if b.round_no == 5 else f"on {STREET_OF_ROUND[b.round_no]}"
            self.add("round_unfinished", line, f"the betting {where} is not finished: {b.next_player} has not acted")
            b.next_index = None
        due = b.uncalled()
        if due is not None:
            who, amount = due
            self.add("uncalled_missing", line, f"{who}'s uncalled {self.fmt(amount)} was not returned")
            b.return_uncalled(who, amount)
        if self.explain and self.round_started and self.rounds and " pot " not in self.rounds[-1]:
            self.rounds[-1] += f"; pot {self.fmt(b.pot)} after {STREET_OF_ROUND[b.round_no]}"

    # ------------------------------------------------------------ showdown

    def show(self, e: Shows) -> None:
        name = e.player
        self.show_order.append(name)
        mine = self.cards.get(name)
        if mine is None:
            return
        shown = list(e.cards)
        known = mine.known
        for c in shown:
            if c not in known:
                if None in mine.cards:
                    mine.cards[mine.cards.index(None)] = c
                    self.note_card(c, e.line, f"shown by {name}")
                else:
                    self.add("shown_cards", e.line, f"{name} shows {card_symbol(c)}, which {name} was not dealt")
        if len(shown) != 5 or any(c not in shown for c in mine.known):
            missing = [c for c in mine.known if c not in shown]
            if missing:
                self.add("shown_cards", e.line, f"{name} shows [{cards_str(shown)}] but was dealt [{cards_str(mine.known)}]")
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
            if name in self.cards and len(set(self.cards[name].known) | set(shown)) == 5:
                value = self.value_of(name)
                if value is not None:
                    out[name] = CATEGORY_LABELS[value.category]
        return out

    def value_of(self, name: str) -> HandValue | None:
        own = self.cards[name].known
        if len(own) < 5:
            return None
        extra = [self.vela] if self.vela is not None else []
        cards = (*own[:5], *extra)
        cached = self._values.get(cards)
        if cached is None:
            cached = self._values[cards] = evaluate(cards, self.rules, self.low)
        return cached

    def expected_first_to_show(self) -> str | None:
        b = self.betting
        left = [p.name for p in self.players if not p.folded]
        if len(left) < 2:
            return None
        order = self.rules.showdown_order
        last_round = [h for h in b.history if h[0] == b.round_no]
        aggressor = None
        for _, who, kind, _ in last_round:
            if kind in ("bet", "raise", "complete"):
                aggressor = who
        if order == "seat_order":
            return left[0]
        if aggressor is not None and aggressor in left:
            return aggressor
        if order == "last_aggressor_else_opener" and self.last_round_opener in left:
            return self.last_round_opener
        return left[0]

    # ------------------------------------------------------------ settle

    def settle(self) -> Replay:
        hand = self.hand
        summary = hand.summary
        contributions = {p.name: p.total for p in self.players}
        folded = {p.name for p in self.players if p.folded}
        pots = pots_from(contributions, folded)
        total = sum(contributions.values())
        total_line = summary.line + 1  # 'Total pot … | Rake …' comes first in the summary
        if summary.total != total:
            self.add("total_pot", total_line, f"the total pot is {self.fmt(total)} by the bets, not {self.fmt(summary.total)}")
        if summary.rake > summary.total:
            claimed_by = self.claimed_words()
            self.add(
                "rake_exceeds_pot",
                total_line,
                f"the rake {self.fmt(summary.rake)} exceeds the total pot {self.fmt(summary.total)}: nothing would be left to award"
                + (f", yet the history pays {claimed_by}" if claimed_by else ""),
            )
        if summary.side_pots:
            written = [summary.main_pot or 0, *summary.side_pots]
            actual = [p.amount for p in pots]
            if written != actual:
                self.add("side_pots", total_line + 1, f"the pots are {', '.join(self.fmt(a) for a in actual)} by the contributions, not {', '.join(self.fmt(a) for a in written)}")
        elif len(pots) > 1:
            self.add("side_pots", total_line, f"the contributions make {_count(len(pots) - 1, 'side pot')}, which the summary does not list")
        # who competes
        left = [p.name for p in self.players if not p.folded]
        first = self.expected_first_to_show()
        if first is not None and first in self.mucked and self.rules.showdown_order != "seat_order":
            line = next((e.line for e in hand.events if isinstance(e, Mucks) and e.player == first), summary.line)
            self.add("muck_not_allowed", line, f"{first} mucks, but must show first ({self._show_rule()})")
        if first is not None and self.show_order and self.show_order[0] != first:
            line = next((e.line for e in hand.events if isinstance(e, (Shows, Mucks)) and e.player == self.show_order[0]), summary.line)
            self.add("show_order", line, f"{self.show_order[0]} shows first, but {first} should ({self._show_rule()})")
        elif first is not None and self.rules.showdown_order != "last_aggressor_else_opener":
            # classic: then clockwise; italian: everyone in seat order from the button's left
            k = left.index(first)
            clockwise = left[k:] + left[:k]
            expected = [n for n in clockwise if n in self.show_order]
            if self.show_order != expected:
                self.add("show_order", summary.line, f"the hands were shown in the order {', '.join(self.show_order)}; clockwise from {first} it is {', '.join(expected)}")
            if self.rules.showdown_order == "seat_order":
                silent = [n for n in left if n not in self.show_order]
                if silent:
                    self.add("show_order", summary.line, f"{_and(silent)} did not show; in the {self.rules.name} profile everyone left shows")
        contenders = [n for n in left if n not in self.mucked] or left
        values = {n: v for n in contenders if (v := self.value_of(n)) is not None}
        rake_left = min(summary.rake, total)
        results: list[PotResult] = []
        payouts: dict[str, int] = {}
        for i, pot in enumerate(pots):
            name = "main pot" if i == 0 else f"side pot-{i}"
            rake = min(rake_left, pot.amount)
            rake_left -= rake
            amount = pot.amount - rake
            eligible = [n for n in pot.eligible if n in contenders] or list(pot.eligible)
            verified = True
            reason = ""
            if len(eligible) == 1:
                win = {eligible[0]: amount}
                if self.explain:
                    mucked = [n for n in pot.eligible if n in self.mucked]
                    reason = f"{_and(mucked)} mucked, so {eligible[0]} is the only player left contesting it" if mucked else f"{eligible[0]} is the only player left in it"
            else:
                known = [n for n in eligible if n in values]
                if len(known) < len(eligible):
                    unknown = [n for n in eligible if n not in values]
                    self.add("cards_unknown", summary.line, f"the cards of {_and(unknown)} are unknown: the {name} cannot be checked")
                    verified = False
                    eligible_vals = known
                else:
                    eligible_vals = eligible
                if not eligible_vals:
                    win = {}
                    if self.explain:
                        reason = "no hand is known"
                else:
                    vals = [values[n] for n in eligible_vals]
                    idx = winners(vals, self.rules)
                    won = [eligible_vals[j] for j in idx]
                    in_order = [p.name for p in self.players if p.name in won]
                    win = divide(amount, in_order)
                    if self.explain:
                        reason = self._reason(eligible_vals, vals, won)
            if amount <= 0 and self.explain:
                reason = "the rake takes all of it"
            for n, a in win.items():
                payouts[n] = payouts.get(n, 0) + a
            results.append(PotResult(name, pot.amount, rake, tuple(pot.eligible), win, reason, verified))
        claimed: dict[str, int] = {}
        for e in hand.events:
            if isinstance(e, Collected):
                claimed[e.player] = claimed.get(e.player, 0) + e.amount
                if e.pot == "side" and e.side >= len(pots):
                    self.add("pot_label", e.line, f"{e.player} collects from side pot-{e.side}, but there {'is' if len(pots) == 2 else 'are'} {_count(len(pots) - 1, 'side pot')}")
        if len(left) == 1 and not claimed:
            for o in summary.outcomes:
                if o.outcome == "collected" and o.amount is not None:
                    claimed[o.player] = claimed.get(o.player, 0) + o.amount
        all_verified = all(r.verified for r in results)
        if all_verified and summary.rake <= summary.total:  # a rake over the pot: rake_exceeds_pot says it all
            self.compare_payouts(results, payouts, claimed)
        self.check_summary(payouts, claimed)
        stacks = {p.name: p.behind + payouts.get(p.name, 0) for p in self.players}
        findings = grouped(self.findings)
        effects = {CODES[f.code].effect for f in findings}
        verdict: Verdict = "invalid" if "invalid" in effects else "disputed" if "disputed" in effects else "ok"
        return Replay(
            hand=hand,
            rules=self.rules,
            verdict=verdict,
            findings=findings,
            payouts=payouts,
            claimed=claimed,
            pots=tuple(results),
            showdown_order=tuple(self.show_order),
            rounds=tuple(self.rounds),
            stacks=stacks,
            categories=self.shown_categories(),
        )

    def _show_rule(self) -> str:
        return {
            "last_aggressor_else_button_left": "the last bettor or raiser shows first; with no bet, the first player left of the button",
            "last_aggressor_else_opener": "the last bettor or raiser shows first; if all checked, the player who opened the final round",
            "seat_order": "everyone shows in seat order from the button's left",
        }[self.rules.showdown_order]

    def _reason(self, names: list[str], values: list[HandValue], won: list[str]) -> str:
        n = len(names)
        values = choose(values, self.rules.sf_rule)  # explain the straight flushes actually played
        if len(won) > 1:
            a, b = values[names.index(won[0])], values[names.index(won[1])]
            r = explain(a, b, self.rules, n)
            return f"{_and(won)} split: {r.text} ({rule_words(r.rule)})"
        w = won[0]
        wv = values[names.index(w)]
        others = [(nm, v) for nm, v in zip(names, values) if nm != w]
        if not others:  # the other contenders' cards are unknown (a cards_unknown finding says so)
            return f"{w}'s {hand_noun(wv.description)} is the only hand known in it: nothing to compare it with"
        best_other = max(others, key=lambda t: t[1].key)
        r = explain(wv, best_other[1], self.rules, n)
        if r.decided_by is not None and wv.category == best_other[1].category and "ranks first" not in r.rule:
            # the deciding cards or ranks, named after their players: "bob's Q♥ beats alice's Q♣"
            mine, theirs = r.decided_by
            cat = CATEGORY_LABELS[wv.category]
            held = wv.description if wv.description == best_other[1].description else cat
            how = r.context[len(f"both {cat}") :].removeprefix(" with ").removeprefix("; ").replace("; ", ", so ")
            return f"both hold {held}, and {w}'s {mine} beats {best_other[0]}'s {theirs} ({how}; {rule_words(r.rule)})"
        return f"{w}'s {hand_noun(wv.description)} beats {best_other[0]}'s {hand_noun(best_other[1].description)}: {r.text} ({rule_words(r.rule)})"

    def claimed_words(self) -> str:
        """What the history pays, in words: "bob €10.90" (collection lines, else the summary's)."""
        paid: dict[str, int] = {}
        for e in self.hand.events:
            if isinstance(e, Collected):
                paid[e.player] = paid.get(e.player, 0) + e.amount
        if not paid:
            for o in self.hand.summary.outcomes:
                if o.outcome == "collected" and o.amount is not None:
                    paid[o.player] = paid.get(o.player, 0) + o.amount
        return _and([f"{n} {self.fmt(a)}" for n, a in paid.items() if a > 0])

    def compare_payouts(self, results: list[PotResult], payouts: dict[str, int], claimed: dict[str, int]) -> None:
        """The money as the rules settle it against the history's, reported on the line that is wrong.

        Per player first: if everyone got what the rules give, only the pot
        labels can be wrong (``pot_label``).  Otherwise, when the history is
        consistent with itself (each winner's collection line and seat line
        say the same) but its rake does not leave what was collected, the
        rake line is the odd one out; else each pot is compared with the
        collections that name it, so a dispute names its pot and its line.
        """
        if payouts_equal(payouts, claimed):
            if len(results) < 2:
                return  # the common case, at no cost: one pot, paid as the rules pay it
            by_pot = self._collections_by_pot([e for e in self.hand.events if isinstance(e, Collected)], len(results))
            if by_pot is not None:
                for r, cols in zip(results, by_pot):
                    for c in cols:
                        if r.winners.get(c.player, 0) <= 0 and len(results) > 1:
                            won = _and([q.name for q in results if q.winners.get(c.player, 0) > 0])
                            self.add("pot_label", c.line, f"{c.player} collects from {_pot_words(r.name)}, but the rules give {c.player} {_pot_words(won)}")
            return
        if self._rake_line_wrong(payouts, claimed):
            return
        collections = [e for e in self.hand.events if isinstance(e, Collected)]
        by_pot = self._collections_by_pot(collections, len(results))
        if by_pot is None or not collections:
            self._compare_players(payouts, claimed, collections)
            return
        for r, cols in zip(results, by_pot):
            self._compare_pot(r, cols, len(results) == 1)

    def _collections_by_pot(self, collections: list[Collected], n: int) -> list[list[Collected]] | None:
        """The collection lines of each pot, or None when a line names no pot of the rules' ("from pot" with side pots)."""
        out: list[list[Collected]] = [[] for _ in range(n)]
        for c in collections:
            k = c.side if c.pot == "side" else 0 if c.pot == "main" or n == 1 else -1
            if not 0 <= k < n:
                return None
            out[k].append(c)
        return out

    def _rake_line_wrong(self, payouts: dict[str, int], claimed: dict[str, int]) -> bool:
        """The rake is the odd one out: the bets make the total, collections and seat lines agree, the same winners."""
        s = self.hand.summary
        got = sum(claimed.values())
        if not claimed or got + s.rake == s.total or s.total != sum(p.total for p in self.players):
            return False
        if {n for n, a in payouts.items() if a > 0} != {n for n, a in claimed.items() if a > 0}:
            return False
        said = {o.player: o.amount for o in s.outcomes if o.outcome in ("won", "collected") and o.amount is not None}
        if any(said.get(n, a) != a for n, a in claimed.items()):
            return False
        differ = [f"{n} {self.fmt(payouts.get(n, 0))}, not {self.fmt(a)}" for n, a in claimed.items() if payouts.get(n, 0) != a]
        self.add(
            "wrong_amount",
            s.line + 1,
            f"the rake {self.fmt(s.rake)} and the {self.fmt(got)} collected add up to {self.fmt(got + s.rake)}, "
            f"not the total pot {self.fmt(s.total)}: the rake or the collections are wrong "
            f"(after this rake the rules give {_and(differ)})",
        )
        return True

    def _compare_pot(self, r: PotResult, cols: list[Collected], single: bool) -> None:
        """One pot against the collection lines that name it."""
        rules_won = [n for n, a in r.winners.items() if a > 0]
        paid: dict[str, int] = {}
        for c in cols:
            paid[c.player] = paid.get(c.player, 0) + c.amount
        paid_to = [n for n, a in paid.items() if a > 0]
        if set(rules_won) != set(paid_to):
            wrong = next((c for c in cols if c.player not in rules_won), cols[0] if cols else None)
            line = wrong.line if wrong is not None else self.hand.summary.line + (2 if self.hand.summary.side_pots else 1)
            history = _and(sorted(paid_to)) or "nobody"
            if not rules_won:
                self.add("wrong_winner", line, f"{r.name}: the rake takes all of it; the history pays {history}")
            elif single:
                self.add("wrong_winner", line, f"the rules award the pot to {_and(sorted(rules_won))}; the history pays {history}")
            else:
                self.add("wrong_winner", line, f"{r.name}: the rules award it to {_and(sorted(rules_won))}; the history pays {history}")
            return
        where = "the pot" if single else _pot_words(r.name)
        for n in paid_to:
            if paid[n] != r.winners[n]:
                line = next(c.line for c in cols if c.player == n)
                self.add("wrong_amount", line, f"{n} collected {self.fmt(paid[n])} from {where}; the rules give {self.fmt(r.winners[n])}")

    def _compare_players(self, payouts: dict[str, int], claimed: dict[str, int], collections: list[Collected]) -> None:
        """Each player's money against the history's, where the collection lines do not say which pot."""
        lines: dict[str, int] = {}
        for c in collections:
            lines.setdefault(c.player, c.line)
        for o in self.hand.summary.outcomes:
            lines.setdefault(o.player, o.line)
        total_line = self.hand.summary.line + 1
        winners_rules = {n for n, a in payouts.items() if a > 0}
        winners_claimed = {n for n, a in claimed.items() if a > 0}
        if winners_rules != winners_claimed:
            wrong = sorted(winners_claimed - winners_rules, key=lambda n: lines.get(n, total_line))
            line = lines.get(wrong[0], total_line) if wrong else min((lines.get(n, total_line) for n in winners_claimed), default=total_line)
            self.add(
                "wrong_winner",
                line,
                f"the rules award the pot to {_and(sorted(winners_rules)) or 'nobody'}; the history pays {_and(sorted(winners_claimed)) or 'nobody'}",
            )
            return
        for n in sorted(winners_rules):
            if payouts.get(n, 0) != claimed.get(n, 0):
                self.add("wrong_amount", lines.get(n, total_line), f"{n} collected {self.fmt(claimed.get(n, 0))}; the rules give {self.fmt(payouts.get(n, 0))}")

    def check_summary(self, payouts: dict[str, int], claimed: dict[str, int]) -> None:
        summary = self.hand.summary
        if summary.vela is not None and self.vela is not None and summary.vela != self.vela:
            self.add("summary_vela", summary.line, f"the summary's vela {card_symbol(summary.vela)} is not the {card_symbol(self.vela)} turned")
        streets = {1: "2nd", 2: "3rd", 3: "4th", 4: "5th", 5: "vela"}
        for o in summary.outcomes:
            try:
                p = self.betting.player(o.player)
            except KeyError:
                continue
            if o.outcome == "folded":
                if not p.folded:
                    self.add("summary_outcome", o.line, f"the summary says {o.player} folded, but {o.player} did not fold")
                elif o.street is not None and streets.get(p.folded_round) != o.street:
                    self.add("summary_outcome", o.line, f"the summary says {o.player} folded {_street_words(o.street)}, but {o.player} folded {_street_words(streets.get(p.folded_round))}")
            elif o.outcome in ("won", "collected"):
                if o.amount is not None and claimed.get(o.player, 0) != o.amount:
                    self.add("summary_outcome", o.line, f"the summary says {o.player} won {self.fmt(o.amount)}, but {o.player} collected {self.fmt(claimed.get(o.player, 0))}")
            elif o.outcome == "lost" and claimed.get(o.player, 0) > 0:
                self.add("summary_outcome", o.line, f"the summary says {o.player} lost, but {o.player} collected {self.fmt(claimed[o.player])}")
            if o.cards is not None and o.player in self.shown and tuple(o.cards) != self.shown[o.player]:
                self.add("summary_outcome", o.line, f"{o.player}'s cards in the summary differ from those shown")


_HANDLERS: Final[dict[type, Callable[[_Replayer, Any], None]]] = {
    PostAnte: _Replayer._on_ante,
    PostBlind: _Replayer._on_blind,
    Street: _Replayer._on_street,
    Deal: _Replayer.deal,
    Expose: _Replayer.expose,
    Vela: _Replayer.turn_vela,
    BringIn: _Replayer.action,
    Complete: _Replayer.action,
    Bet: _Replayer.action,
    Call: _Replayer.action,
    RaiseTo: _Replayer.action,
    Check: _Replayer.action,
    Fold: _Replayer.action,
    UncalledBet: _Replayer.uncalled,
    DoubleBetAllowed: _Replayer._on_double_bet,
    BettingCapped: _Replayer._on_capped,
    ShowDown: _Replayer._on_showdown,
    Shows: _Replayer._on_shows,
    Mucks: _Replayer._on_mucks,
    DoesNotShow: _Replayer._on_end_of_betting,
    Collected: _Replayer._on_end_of_betting,
}


def payouts_equal(a: dict[str, int], b: dict[str, int]) -> bool:
    """The same money to the same players (a player paid nothing counts as absent)."""
    return a == b or {n: v for n, v in a.items() if v} == {n: v for n, v in b.items() if v}


def hand_noun(description: str) -> str:
    """A description as a noun after a name: "a flush, Diamonds" -> "flush (Diamonds)", so "Sofia's flush (Diamonds)"."""
    text = description[2:] if description.startswith("a ") else description[3:] if description.startswith("an ") else description
    head, sep, rest = text.partition(", ")
    return f"{head} ({rest})" if sep else text


def rule_words(rule: str) -> str:
    """A showdown rule's citation as one reads it: "RULES.md §3, tie-break card order"."""
    out = rule.replace(" (ranks first)", ", ranks first").replace(" tie_break ", ", tie-break ").replace(" sf_rule ", ", straight-flush rule ")
    return out.replace("_", " ")


def _and(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: names as one says them."""
    items = list(names)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _street_words(street: str | None) -> str:
    """Where a player folded, as the summary says it: "on 3rd street", "on the vela"."""
    return "on the vela" if street == "vela" else f"on {street} street" if street else "before the deal"


def _pot_words(name: str) -> str:
    """A pot's name after "from": "the main pot", "side pot-1" (as the history writes it)."""
    return name.replace("main pot", "the main pot")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def replay(hand: Hand, rules: RuleSet | None = None, *, explain: bool = True) -> Replay:
    """Replay ``hand`` under its own rules, or under ``rules`` to ask "what if".

    ``explain=False`` skips the words nobody will read in a bulk import:
    ``rounds`` is empty and each pot's ``reason`` is ``""``.  The verdict,
    the findings (with their messages), the pots and the payouts are the
    same; the words were a twentieth of the replay's time.
    """
    return _Replayer(hand, rules, explain).run()


__all__ = ["Pot", "PotResult", "Replay", "replay"]
