"""Colluding pairs (``--collude``): where each kind deviates from its bots' normal play, and the manifest of it.

The pair's bots play as every bot does (:func:`~hhtool.simulate.bots.decide`);
in the spots of its kind, and only there, the honest choice is replaced
by the colluding one with probability ``strength``.  The definitions
(``docs/simulate.md``, "Colluding pairs"):

- **soft play**: while the partner is in the hand, a bet, raise or
  completion that would go into the partner becomes a check, a call or
  the bring-in: heads-up with the partner (the pair checks it down), or
  facing a bet that would raise the partner's: the partner made the
  round's last bet, raise or completion, or opened its betting (its
  first bet or completion, or the bring-in or big blind);
- **chip dumping**: the dumper (``a``), facing a bet or raise the
  receiver (``b``) made, calls where it would fold, and folds where it
  would call or raise with a strong hand (:data:`STRONG`); heads-up with
  the receiver, it raises where it would fold, and bets a hopeless hand
  (:data:`HOPELESS`) where it would check; the receiver calls those
  dumping bets and raises where it would fold;
- **card sharing**: in every decision with a card still to come (2nd
  to 5th street), a player reads its hand knowing the partner's
  face-down cards (:func:`shared_read`): its outs among them
  (:func:`outs_and_dead`) cannot come, so the draw counts only its live
  share (:func:`shared_draw`), and the partner still in the hand is read
  by its whole hand, not only its face-up cards; where that read
  decides otherwise than the honest one (a fold or a check where the
  honest read calls or bets), that is the deviation.

Only the decision changes, never the rules: the betting machine still
says what is legal, so the hands audit ``ok``.  Each deviation is kept
(:class:`Deviation`) for the manifest, ``FILE.collusion.jsonl``, so a
detector's results can be scored against it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hhtool.game.cards import Card
from hhtool.game.operations import Player
from hhtool.history.events import Event, Hand
from hhtool.game.rules import ROUND_NAMES
from hhtool.game.evaluate import quick_category
from hhtool.simulate.bots import Move, Situation, quick_five, strength
from hhtool.simulate.config import Collusion
from hhtool.simulate.hand import HandState

STRONG = 0.6
"""A hand the dumper folds to the receiver's bet: the bots' strength at least this (two pair or better, or a high
pair with cards to come)."""

HOPELESS = 0.35
"""A hand the dumper bets into the receiver with: the bots' strength below this (no pair, or the lowest pairs)."""


@dataclass(frozen=True, slots=True)
class Partner:
    """A player's side of a pair dealt in together: the pair's number (1, 2, ... in the order asked), the partner, the pair."""

    pair: int
    partner: str
    collusion: Collusion


@dataclass(frozen=True, slots=True)
class Deviation:
    """A colluding decision: the line of the action written, who, in which betting round, what they did, what the bot would have done."""

    line: int
    player: str
    round_no: int
    did: str
    would: str


def partners(hand: HandState) -> dict[str, Partner]:
    """The players of the hand in a pair whose two players are both dealt in, each with their partner."""
    out: dict[str, Partner] = {}
    for k, c in enumerate(hand.cfg.collusion):
        if c.a in hand.by_name and c.b in hand.by_name:
            out[c.a] = Partner(k + 1, c.b, c)
            out[c.b] = Partner(k + 1, c.a, c)
    return out


def colluding_move(
    hand: HandState,
    p: Player,
    side: Partner,
    move: Move,
    s: float,
    sit: Situation,
    aggressor: str | None,
    opener: str | None,
    dump_bet: bool,
    may_raise_now: bool,
) -> Move | None:
    """The move soft play or chip dumping makes instead of the honest ``move`` in this spot, or None when the spot is not its own.

    ``s`` is the bot's strength, ``aggressor`` who made the bet ``p``
    faces this round (None: nobody, or only forced bets), ``opener`` who
    opened the round's betting (forced bets included), ``dump_bet``
    whether that bet was the dumper's dumping bet or raise,
    ``may_raise_now`` whether a bet or raise could be made now (a raise the
    machine would not take is no deviation).
    """
    kind = side.collusion.kind
    if kind == "soft-play":
        if move != "raise" or not may_raise_now:
            return None
        if _heads_up_with(hand, p, side.partner):
            if sit.must_bring_in:
                return "bring_in"
            return "call" if sit.owed > 0 else "check"
        if sit.owed > 0 and side.partner in (aggressor, opener) and not sit.must_bring_in:
            return "call"
        return None
    if kind == "chip-dumping":
        receiver = side.collusion.b
        if sit.must_bring_in:
            return None
        if p.name == receiver:  # the receiver takes what is offered: it calls a dumping bet it would fold to
            return "call" if sit.owed > 0 and dump_bet and move == "fold" else None
        heads_up = _heads_up_with(hand, p, receiver)
        if sit.owed > 0:
            if aggressor != receiver:
                return None
            if move == "fold":
                return "raise" if heads_up and may_raise_now else "call"
            if s >= STRONG and (move == "call" or (move == "raise" and may_raise_now)):
                return "fold"
            return None
        if move == "check" and s < HOPELESS and may_raise_now and heads_up:
            return "raise"
        return None
    return None  # card sharing changes the read, not the move: Bots.shared_decision


def _heads_up_with(hand: HandState, p: Player, partner: str) -> bool:
    """The partner is the only other player left in the hand."""
    others = [q for q in hand.players if q is not p and not q.folded]
    return len(others) == 1 and others[0].name == partner


def outs_and_dead(hand: HandState, name: str, partner: str) -> tuple[int, int]:
    """``name``'s outs, and how many of them lie among the partner's face-down cards (dead to a card-sharing pair).

    The *outs* are the cards that would improve the hand's category by
    the bots' quick read (:func:`~hhtool.game.evaluate.quick_category`:
    pairing a card held, making trips, two pair, a full house, fours, and
    wild cards), among the cards the player cannot see: the deck's, less
    its own and every card face up (folded players' too).  The partner's
    face-down cards are its hole card(s), also after it folded: the pair
    sees them all the same.
    """
    rules = hand.rules
    own = hand.holes[name].cards
    wild = rules.wild
    category = quick_category(own, wild)[0]
    seen: set[int] = set(own)
    for hole in hand.holes.values():
        seen.update(hole.up)
    if hand.vela is not None and hand.vela_turned:
        seen.add(hand.vela)
    ranks = {c >> 2 for c in own}
    if wild is not None:
        ranks.add(wild)
    mate = hand.holes[partner]
    face_down = {c for c in mate.cards if c not in mate.up}
    outs = dead = 0
    for r in ranks:
        if r < hand.low or quick_category([*own, Card(r * 4)], wild)[0] <= category:
            continue
        for suit in range(4):
            c = r * 4 + suit
            if c not in seen:
                outs += 1
                dead += c in face_down
    return outs, dead


def shared_draw(outs: int, dead: int) -> float:
    """The share of the draw a card-sharing player still counts: its live outs over all the outs the honest read counts."""
    return (outs - dead) / outs if outs else 1.0


def shared_read(hand: HandState, name: str, partner: str, category: int, top: int, beaten: bool, cards: int) -> float:
    """A card-sharing player's strength: the bots' read (``category``, ``top``, ``beaten``, ``cards``) with the partner's hole.

    Two things change, both only ever for the worse (the honest read
    already takes every out for live and reads an opponent by what it
    shows): the draw of the cards still to come counts only its live outs
    (:func:`outs_and_dead`, :func:`shared_draw`), and the partner, still
    in the hand, beats the player when its whole hand (face-down cards
    included) makes a better category, as an opponent's face-up cards do.
    """
    draw = 1.0
    if cards < 5:
        draw = shared_draw(*outs_and_dead(hand, name, partner))
    if not beaten and not hand.by_name[partner].folded:
        theirs = hand.holes[partner].cards
        wild = hand.rules.wild
        beaten = (quick_five(theirs, wild, hand.low) if len(theirs) >= 5 else quick_category(theirs, wild))[0] > category
    return strength(category, top, hand.low, beaten, cards, draw)


WORDS = {"fold": "fold", "check": "check", "call": "call", "raise": "bet or raise", "bring_in": "bring in"}
"""A move as the manifest names it (``did``, ``would``)."""


def hand_entries(
    played: Hand, written: Hand, collusion: tuple[Collusion, ...], deviations: list[Deviation], first: int
) -> list[dict[str, object]]:
    """The manifest entries of one hand: one per pair whose two players were both dealt in, with its deviations.

    ``played`` is the hand as played, ``written`` as written (a fault may
    have moved its lines: the entry then says ``"fault": true`` and each
    deviation's line follows its action); ``first`` is the hand's first
    line in the session (the file moves it on).
    """
    dealt = {s.player for s in played.seats}
    faulted = written is not played
    out: list[dict[str, object]] = []
    for k, c in enumerate(collusion):
        if c.a not in dealt or c.b not in dealt:
            continue
        mine = [d for d in deviations if d.player in (c.a, c.b)]
        entry: dict[str, object] = {
            "entry": "hand",
            "pair": k + 1,
            "kind": c.kind,
            "hand_id": played.hand_id,
            "line": first,
            "deviated": bool(mine),
            "deviations": [
                {
                    "line": first - 1 + (moved_line(played, written, d.line) if faulted else d.line),
                    "player": d.player,
                    "street": ROUND_NAMES[d.round_no - 1],
                    "did": WORDS[d.did],
                    "would": WORDS[d.would],
                }
                for d in mine
            ],
        }
        if faulted:
            entry["fault"] = True
        out.append(entry)
    return out


def pair_entries(collusion: tuple[Collusion, ...]) -> list[dict[str, object]]:
    """The manifest's first lines: each pair, its kind, its players (``a`` dumps to ``b`` in chip dumping) and strength."""
    return [
        {"entry": "pair", "pair": k + 1, "kind": c.kind, "a": c.a, "b": c.b, "strength": c.strength}
        for k, c in enumerate(collusion)
    ]


def moved_line(before: Hand, after: Hand, line: int) -> int:
    """Where the event on ``line`` of ``before`` stands in ``after`` (a fault inserted or removed lines), else ``line``.

    Events are matched by their content without the line, the n-th equal
    one to the n-th, so a fault elsewhere in the hand moves the line as it
    moved the event.
    """
    target: Event | None = None
    nth = 0
    for e in before.events:
        if e.line == line:
            target = e
            break
    if target is None:
        return line
    bare = replace(target, line=0)
    for e in before.events:
        if e.line == line:
            break
        if replace(e, line=0) == bare:
            nth += 1
    for e in after.events:
        if replace(e, line=0) == bare:
            if nth == 0:
                return e.line
            nth -= 1
    return line
