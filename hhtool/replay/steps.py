"""A hand as a viewer steps through it: the table after every event that changes what it shows.

:func:`hand_steps` replays a parsed hand once, through the engine's own walk
(:func:`hhtool.replay.walk.replay_walk`), and after each event copies the
table as the engine holds it: per seat the stack, the money in front this
street and in the hand, folded or all-in, the cards as the history's viewer
saw them (a down card the viewer did not see is a back, ``None``), the vela
and the pots.  Nothing here reckons the money or the cards a second time;
the sentences, the pots' reasons and the verdict are the audit's words
(:mod:`hhtool.replay.audit`).  The pots are the money gathered from the
rounds already played (:meth:`_Walk._pots`): a bet still in front of a
player is in no pot yet, so a side pot shows only once an all-in player's
money is gathered, capping what that player can win (RULES.md §5, §7).
The collection lines move the history's money; the last two steps are the
settlement by the rules (each pot's winners and why, the pots as
``Replay.pots``) and the verdict.

Every finding of the replay is placed at one step: the step of its line,
else the nearest step before it (a finding on the summary's lines belongs
to the settlement).  :meth:`HandSteps.to_json` gives plain dicts for the
web page and the report (``docs/replayer.md``).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from typing import Any, Literal

from hhtool.replay.audit import AuditResult, pot_line, verdict_text
from hhtool.game.cards import Card, card_str, card_symbol, suit_of
from hhtool.history.currency import Currency, currency_of
from hhtool.history.events import (
    Bet,
    BringIn,
    Call,
    Check,
    Collected,
    Complete,
    Deal,
    DoesNotShow,
    Event,
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
from hhtool.history.visit import EventVisitor
from hhtool.game.room import Room
from hhtool.game.rules import round_words
from hhtool.replay.engine import PotResult, Replay, ReplayState, replay_walk
from hhtool.replay.equities import STREET_SAMPLES, StreetEquity, street_equities
from hhtool.replay.findings import Finding, citation
from hhtool.game.pots import pots_from
from hhtool.game.rules import RuleSet

StepKind = Literal[
    "start", "post", "street", "deal", "action", "uncalled", "expose", "vela", "showdown", "show", "collect", "result", "verdict"
]

@dataclass(frozen=True, slots=True)
class SeenCard:
    """One of a player's cards as the viewer sees it: ``card`` None is a card face down the viewer never saw."""

    card: Card | None
    up: bool


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat after a step; ``dealt`` False for a player seated but not dealt in."""

    seat: int
    name: str
    stack: int
    in_front: int  # put in this street (the blinds count on 2nd street, antes never)
    total: int  # put in this hand, less uncalled bets returned
    folded: bool
    all_in: bool
    dealt: bool
    cards: tuple[SeenCard, ...]


@dataclass(frozen=True, slots=True)
class PotState:
    """A pot as it stands: ``main pot``, ``side pot-1``, …; the money gathered from the rounds played, not the bets in front."""

    name: str
    amount: int
    eligible: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Step:
    """What the viewer sees after one event (or the settlement, or the verdict)."""

    index: int
    kind: StepKind
    street: str  # "start", "2nd".."5th", "vela", "showdown", "result"
    line: int
    text: str  # the source line
    sentence: str
    seats: tuple[SeatState, ...]
    vela: Card | None
    pot: int  # everything in the hand: the pots and the bets in front (less what the collection lines took)
    pots: tuple[PotState, ...]  # the gathered pots (:meth:`_Walk._pots`); at ``result`` and ``verdict`` the rules' (``Replay.pots``)
    findings: tuple[Finding, ...] = ()
    note: str = ""  # who opens the round and why, at its first action (the audit's "betting:" lines)
    actor: str | None = None  # the player the event is about (who acts, is dealt, shows, collects)
    equity: int | None = None  # index in :attr:`HandSteps.equities`: from the street's last deal to its end


@dataclass(frozen=True, slots=True)
class HandSteps:
    """Every step of one hand, its replay, and its text's lines (``first_line`` is the header's)."""

    hand: Hand
    replay: Replay
    steps: tuple[Step, ...]
    lines: tuple[str, ...]
    first_line: int
    verdict_text: str
    equities: tuple[StreetEquity, ...] = ()  # each contender's equity after each street's deal (when asked)

    @property
    def currency(self) -> Currency:
        money = self.hand.money
        return currency_of(money.symbol, "cent" if money.cents else "chip")

    def streets(self) -> list[tuple[str, int]]:
        """(street, index of its first step), in order: where "jump to a street" lands."""
        out: list[tuple[str, int]] = []
        for s in self.steps:
            if not out or out[-1][0] != s.street:
                out.append((s.street, s.index))
        return out

    def to_json(self, *, packed: bool = False) -> dict[str, Any]:
        """Plain dicts and lists: money as ``{"amount": minor units, "currency": code, "text": display}``.

        ``packed``: each distinct seat state once, in ``"seat_table"``, and
        each step's ``"seats"`` the indices into it (a seat is the same from
        one step to the next but for the player who acted: half the
        size or less, for a page that embeds many hands).
        """
        h = self.hand.header
        cur = self.currency
        table: dict[SeatState, int] = {}

        def money(amount: int) -> dict[str, Any]:
            return {"amount": amount, "currency": cur.code, "text": display_amount(amount, self.hand.money)}

        def card(c: Card | None) -> dict[str, Any] | None:
            return None if c is None else {"card": card_str(c), "symbol": card_symbol(c), "suit": "scdh"[suit_of(c)]}

        def seat(p: SeatState) -> dict[str, Any]:
            return {
                "seat": p.seat,
                "name": p.name,
                "stack": money(p.stack),
                "in_front": money(p.in_front),
                "total": money(p.total),
                "folded": p.folded,
                "all_in": p.all_in,
                "dealt": p.dealt,
                "cards": [{"card": card(c.card), "up": c.up} for c in p.cards],
            }

        def step(s: Step) -> dict[str, Any]:
            out: dict[str, Any] = {
                "index": s.index,
                "kind": s.kind,
                "street": s.street,
                "line": s.line,
                "text": s.text,
                "sentence": s.sentence,
                "note": s.note,
                "actor": s.actor,
                "seats": [table.setdefault(p, len(table)) for p in s.seats] if packed else [seat(p) for p in s.seats],
                "vela": card(s.vela),
                "pot": money(s.pot),
                "in_front": money(sum(p.in_front for p in s.seats)),
                "pots": [{"name": p.name, "amount": money(p.amount), "eligible": list(p.eligible)} for p in s.pots],
                "findings": [{**f.to_json(), "rule": citation(f.rule)} for f in s.findings],
            }
            if s.kind == "result":
                out["result"] = [_pot_json(r, money) for r in self.replay.pots]
            if s.kind == "verdict":
                out["verdict"] = self.replay.verdict
            out["equity"] = s.equity
            return out

        def priced(e: StreetEquity) -> dict[str, Any]:
            return {
                "street": e.street,
                "line": e.line,
                "exact": e.exact,
                "runouts": e.runouts,
                "samples": e.samples,
                "dead": [card(c) for c in e.dead],
                "contenders": [
                    {"player": c.player, "cards": [card(x) for x in c.cards], "equity": c.equity, "win": c.win, "tie": c.tie, "stderr": c.stderr}
                    for c in e.contenders
                ],
            }

        out: dict[str, Any] = {
            "site": h.site,
            "hand_id": h.hand_id,
            "profile": self.replay.rules.name,
            "table": self.hand.table.name,
            "max_seats": self.hand.table.max_seats,
            "button": self.hand.table.button,
            "started": h.started.isoformat(),
            "currency": {"code": cur.code, "decimals": cur.decimals, "unit": "cent" if self.hand.money.cents else "chip"},
            "verdict": self.replay.verdict,
            "verdict_text": self.verdict_text,
            "first_line": self.first_line,
            "lines": list(self.lines),
            "streets": [{"street": name, "step": i} for name, i in self.streets()],
            "steps": [step(s) for s in self.steps],
            "equities": [priced(e) for e in self.equities],
        }
        if packed:
            out["seat_table"] = [seat(p) for p in table]
        return out


def _pot_json(r: PotResult, money: Any) -> dict[str, Any]:
    return {
        "name": r.name,
        "amount": money(r.amount),
        "rake": money(r.rake),
        "winners": [{"player": n, "amount": money(a)} for n, a in r.winners.items()],
        "reason": r.reason,
        "verified": r.verified,
    }


def hand_steps(
    hand: Hand,
    text: str,
    rules: RuleSet | None = None,
    *,
    source: str = "",
    equity: bool = False,
    samples: int = STREET_SAMPLES,
    room: Room | None = None,
) -> HandSteps:
    """The steps of ``hand``, whose text (``raw_text``, its first line the header's) is ``text``.

    ``rules``: replay under another profile, as ``hhtool audit --rules``.
    ``room``: the room whose file governs the hand (its rules and rake), as the import replayed it.
    ``source`` names the file in the verdict's words, as the audit does.
    ``equity``: each contender's equity after every street's deal where
    their cards are known (:func:`hhtool.replay.equities.street_equities`,
    ``samples`` when sampled); off by default, as it costs from
    milliseconds to seconds a hand (wild cards the most).
    """
    walk = _Walk(hand, text)
    result = replay_walk(hand, walk.after, rules, room)
    words = verdict_text(AuditResult(source, result, None))
    walk.finish(result, words)
    steps = _place(walk.steps, result.findings)
    priced = tuple(street_equities(result, samples=samples)) if equity else ()
    return HandSteps(hand, result, _priced(steps, priced), walk.lines, hand.first_line, words, priced)


Shown = tuple[StepKind, str] | None
"""What an event is to the viewer: the step's kind and sentence, or None for an event that changes nothing the table shows."""


class _Walk(EventVisitor[Shown]):
    """The observer of the engine's walk: one :class:`Step` per event that changes what the table shows.

    A visitor of the events (:class:`~hhtool.history.visit.EventVisitor`):
    each ``visit_`` method is what its kind is to the viewer, the step's
    kind and sentence as the audit words them (money by
    :func:`hhtool.history.money.display_amount`), and what the viewer keeps
    of it (the street, what the collection lines took); chatter and the
    informational lines make no step (:meth:`visit_other`).
    """

    def __init__(self, hand: Hand, text: str) -> None:
        self.hand = hand
        self.lines = tuple(text.removesuffix("\n").split("\n"))
        self.street = "start"
        self.collected: dict[str, int] = {}
        self.taken: dict[int, int] = {}  # per pot index, what the collection lines took out of it
        self.round_no = 0
        self.over = False  # the betting is over (a showdown, a show or muck, a collection): every bet is gathered
        self.last: ReplayState | None = None
        self.state: ReplayState | None = None  # the engine's, after the event being visited
        self.known: dict[str, int] = {}  # cards each player had at the step before
        self.opened: list[tuple[int, int]] = []  # (step, betting round) where a round's first action is
        self.steps: list[Step] = []
        seats = tuple(
            SeatState(s.seat, s.player, s.stack, 0, 0, False, False, False, ()) for s in hand.seats
        )
        t = hand.table
        sentence = f"{len(hand.seats)} players at {t.name}, {t.max_seats}-max; the button is seat {t.button}"
        self.steps.append(self._step("start", hand.first_line, sentence, seats, None, 0, ()))

    def fmt(self, amount: int) -> str:
        return display_amount(amount, self.hand.money)

    def text_of(self, line: int) -> str:
        k = line - self.hand.first_line
        return self.lines[k] if 0 <= k < len(self.lines) else ""

    def _step(
        self, kind: StepKind, line: int, sentence: str, seats: tuple[SeatState, ...], vela: Card | None, pot: int, pots: tuple[PotState, ...], note: str = ""
    ) -> Step:
        return Step(len(self.steps), kind, self.street, line, self.text_of(line), sentence, seats, vela, pot, pots, (), note)

    # ------------------------------------------------------------ each event

    def after(self, e: Event, st: ReplayState) -> None:
        self.state = st
        shown = self.visit(e)
        if shown is None:
            return
        self.last = st
        kind, sentence = shown
        b = st.betting
        if b.round_no != self.round_no and st.round_started:
            self.round_no = b.round_no
            self.opened.append((len(self.steps), b.round_no))
        seats = self._seats(st)
        pots = self._pots(st, seats)
        pot = sum(p.amount for p in pots) + sum(p.in_front for p in seats)
        self.steps.append(replace(self._step(kind, e.line, sentence, seats, st.vela, pot, pots), actor=getattr(e, "player", None)))

    def visit_other(self, e: Event) -> Shown:
        return None

    def visit_post_ante(self, e: PostAnte) -> Shown:
        return "post", f"{e.player} posts the ante {self.fmt(e.amount)}{_all_in(e.all_in)}"

    def visit_post_blind(self, e: PostBlind) -> Shown:
        return "post", f"{e.player} posts the {e.blind} blind {self.fmt(e.amount)}{_all_in(e.all_in)}"

    def visit_street(self, e: Street) -> Shown:
        self.street = e.name
        return "street", f"{e.name} street"

    def visit_vela(self, e: Vela) -> Shown:
        self.street = "vela"
        return "vela", f"the vela is turned: {card_symbol(e.card)}"

    def visit_show_down(self, e: ShowDown) -> Shown:
        self.street = "showdown"
        self.over = True
        return "showdown", "the showdown"

    def visit_deal(self, e: Deal) -> Shown:
        assert self.state is not None
        return "deal", self._dealt(e, self.state)

    def visit_bring_in(self, e: BringIn) -> Shown:
        return "action", f"{e.player} brings in for {self.fmt(e.amount)}{_all_in(e.all_in)}"

    def visit_complete(self, e: Complete) -> Shown:
        return "action", f"{e.player} completes to {self.fmt(e.to)}{_all_in(e.all_in)}"

    def visit_bet(self, e: Bet) -> Shown:
        return "action", f"{e.player} bets {self.fmt(e.amount)}{_all_in(e.all_in)}"

    def visit_call(self, e: Call) -> Shown:
        return "action", f"{e.player} calls {self.fmt(e.amount)}{_all_in(e.all_in)}"

    def visit_raise_to(self, e: RaiseTo) -> Shown:
        return "action", f"{e.player} raises {self.fmt(e.by)} to {self.fmt(e.to)}{_all_in(e.all_in)}"

    def visit_check(self, e: Check) -> Shown:
        return "action", f"{e.player} checks"

    def visit_fold(self, e: Fold) -> Shown:
        return "action", f"{e.player} folds"

    def visit_uncalled_bet(self, e: UncalledBet) -> Shown:
        return "uncalled", f"the uncalled {self.fmt(e.amount)} is returned to {e.player}"

    def visit_expose(self, e: Expose) -> Shown:
        return "expose", f"{e.player} turns up {' '.join(card_symbol(c) for c in e.cards)}"

    def visit_shows(self, e: Shows) -> Shown:
        self.street = "showdown"
        self.over = True
        return "show", f"{e.player} shows {' '.join(card_symbol(c) for c in e.cards)} ({e.description})"

    def visit_mucks(self, e: Mucks) -> Shown:
        self.street = "showdown"
        self.over = True
        return "show", f"{e.player} mucks"

    def visit_does_not_show(self, e: DoesNotShow) -> Shown:
        self.over = True
        return "show", f"{e.player} does not show"

    def visit_collected(self, e: Collected) -> Shown:
        self.over = True  # a hand won by a fold: its last bets are pushed to the winner with the rest
        self.collected[e.player] = self.collected.get(e.player, 0) + e.amount
        k = e.side if e.pot == "side" else 0
        self.taken[k] = self.taken.get(k, 0) + e.amount
        where = "the pot" if e.pot == "pot" else "the main pot" if e.pot == "main" else f"side pot-{e.side}"
        return "collect", f"{e.player} collects {self.fmt(e.amount)} from {where}"

    def _seats(self, st: ReplayState) -> tuple[SeatState, ...]:
        by_name = {p.name: p for p in st.players}
        b = st.betting
        gathered = self.over or self.street in ("showdown", "result")
        shown_round = b.round_no in (0, st.street_round)
        out = []
        for s in self.hand.seats:
            p = by_name.get(s.player)
            if p is None:
                out.append(SeatState(s.seat, s.player, s.stack, 0, 0, False, False, False, ()))
                continue
            mine = st.cards[p.name]
            cards = tuple(SeenCard(c, c is not None and c in mine.up) for c in mine.cards)
            in_front = p.this_round if shown_round and not gathered else 0
            stack = p.behind + self.collected.get(p.name, 0)
            out.append(SeatState(s.seat, p.name, stack, in_front, p.total, p.folded, p.all_in, True, cards))
        return tuple(out)

    def _pots(self, st: ReplayState, seats: tuple[SeatState, ...]) -> tuple[PotState, ...]:
        """The pots of the money gathered so far: what each player put in, less what is still in front of them.

        The rules' pots (:func:`hhtool.game.pots.pots_from`) of the rounds
        already played: a bet in front this round is in no pot yet (it
        would read as a side pot that nobody's all-in made), and a side pot
        forms when the round that holds an all-in player's last chips is
        gathered.  Once the betting is over nothing is in front and these
        are the settlement's pots, less what the collection lines took.
        """
        front = {p.name: p.in_front for p in seats}
        contributions = {p.name: p.total - front.get(p.name, 0) for p in st.players}
        folded = {p.name for p in st.players if p.folded}
        pots = pots_from(contributions, folded)
        out = []
        for i, p in enumerate(pots):
            left = max(p.amount - self.taken.get(i, 0), 0)
            out.append(PotState("main pot" if i == 0 else f"side pot-{i}", left, p.eligible))
        return tuple(out)

    def _dealt(self, e: Deal, st: ReplayState) -> str:
        mine = st.cards.get(e.player)
        if mine is None:
            return f"a card is dealt to {e.player}, who is not in the hand"
        before = self.known.get(e.player, 0)
        self.known[e.player] = len(mine.cards)
        new = mine.cards[before:]
        words = [
            "a card face down" if c is None else f"{card_symbol(c)} {'up' if c in mine.up else 'down'}" for c in new
        ]
        return f"{e.player} is dealt {', '.join(words) if words else 'no card'}"

    # ------------------------------------------------------------ the end

    def finish(self, r: Replay, verdict: str) -> None:
        """The replay's words for who opened each round at its first action, then the settlement by the rules and the verdict."""
        for i, round_no in self.opened:
            where = (round_words(round_no) if 1 <= round_no <= 5 else "") + ":"
            told = next((x for x in r.rounds if x.startswith(where)), "").partition("; pot ")[0]  # the pot after it: not yet
            self.steps[i] = _with(self.steps[i], note=told)
        line = self.hand.summary.line
        self.street = "result"
        st = self.last
        if st is not None:  # at the start, before the engine's setup, who is dealt in was not yet known
            dealt = {p.name for p in st.players}
            start = self.steps[0]
            self.steps[0] = _with(start, seats=tuple(replace(p, dealt=p.name in dealt) for p in start.seats))
        seats = tuple(
            SeatState(p.seat, p.name, r.stacks.get(p.name, p.stack), 0, p.total, p.folded, p.all_in, p.dealt, p.cards)
            for p in (self._seats(st) if st is not None else self.steps[-1].seats)
        )
        vela = st.vela if st is not None else r.hand.vela
        settled = "; ".join(pot_line(r, p) for p in r.pots)
        pots = tuple(PotState(p.name, p.amount, p.eligible) for p in r.pots)  # as the rules settled them, before their rake
        pot = sum(p.amount for p in pots)
        self.steps.append(self._step("result", line, f"by the {r.rules.name} rules: {settled}" if settled else "no pot", seats, vela, pot, pots))
        self.steps.append(self._step("verdict", line, f"verdict: {r.verdict}. {verdict}", seats, vela, pot, pots))


def _all_in(flag: bool) -> str:
    return " and is all-in" if flag else ""


def _with(s: Step, **changes: Any) -> Step:
    return replace(s, **changes)


def _place(steps: list[Step], findings: tuple[Finding, ...]) -> tuple[Step, ...]:
    """Each finding at the first step of its line, else of the nearest line before it (the start step for the header's)."""
    lines = [s.line for s in steps]
    order = sorted(range(len(steps)), key=lambda i: (lines[i], i))
    sorted_lines = [lines[i] for i in order]
    placed: dict[int, list[Finding]] = {}
    for f in findings:
        k = bisect_right(sorted_lines, f.line) - 1
        if k < 0:
            target = 0
        else:
            first_of_line = sorted_lines.index(sorted_lines[k])
            target = order[first_of_line]
        placed.setdefault(target, []).append(f)
    return tuple(_with(s, findings=tuple(placed[i])) if i in placed else s for i, s in enumerate(steps))


def _priced(steps: tuple[Step, ...], equities: tuple[StreetEquity, ...]) -> tuple[Step, ...]:
    """Each street's equity on its steps from the street's last deal (the cards it prices are out) to the street's end."""
    out = list(steps)
    for k, e in enumerate(equities):
        of_street = [s for s in steps if s.street == e.street]
        deals = [s.index for s in of_street if s.kind in ("street", "deal")]
        start = deals[-1] if deals else of_street[0].index if of_street else len(steps)
        for s in of_street:
            if s.index >= start:
                out[s.index] = _with(s, equity=k)
    return tuple(out)


def steps_from_text(
    text: str,
    *,
    first_line: int = 1,
    source: str = "",
    rules: RuleSet | None = None,
    equity: bool = False,
    samples: int = STREET_SAMPLES,
    room: Room | None = None,
) -> HandSteps:
    """Parse one hand's text and step through it (raises :class:`hhtool.history.errors.HandParseError` if it does not parse)."""
    from hhtool.history.parse import parse_hand_text

    hand = parse_hand_text(text.removesuffix("\n"), first_line=first_line, source=source)  # raw_text ends with a line end
    return hand_steps(hand, text, rules, source=source, equity=equity, samples=samples, room=room)


__all__ = ["HandSteps", "PotState", "SeatState", "SeenCard", "Step", "hand_steps", "steps_from_text"]
