"""``hhtool rank``: rank players' hands under a profile, as a library.

Everything the command does is here; :mod:`hhtool.cli` only parses the
options and maps :class:`RankInputError` to exit code 2.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import IO, Any

from hhtool.game.cards import Card, CardError, card_str, parse_card, parse_rank
from hhtool.game.evaluate import HandValue, evaluate
from hhtool.game.rules import RuleSet, RulesError, profile
from hhtool.game.showdown import Reason, choose, compare, cycle_reason, explain, shares, winners

OWN_CARDS = 5
UNSEEN = "??"  # a card that exists but nobody has seen (hhtool equity)


class RankInputError(ValueError):
    """Bad input to ``rank``: the message names the offending hand and card."""


@dataclass(frozen=True, slots=True)
class RankedHand:
    """One input hand with its value and its share of a pot contested by all the hands."""

    index: int  # position in the input, from 0
    cards: tuple[Card, ...]
    value: HandValue
    share: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": [card_str(c) for c in self.cards],
            "best": [card_str(c) for c in self.value.five],
            "category": self.value.category_name,
            "description": self.value.description,
            "share": float(self.share),
        }


@dataclass(frozen=True, slots=True)
class RankTable:
    """The hands in input order, and why the winners win."""

    rules: RuleSet
    vela: Card | None
    players: int
    hands: tuple[RankedHand, ...]
    reason: Reason | None  # None with a single hand

    def best_first(self) -> list[RankedHand]:
        return sorted(self.hands, key=lambda h: (-h.share, -h.value.key, h.index))


def ruleset_for(name: str, wild: str | None = None) -> RuleSet:
    """The profile named, with the ``--wild`` option applied and checked."""
    rules = profile(name)
    if wild is not None:
        try:
            rank = parse_rank(wild)
        except CardError as e:
            raise RulesError(f"--wild: {e}") from None
        rules = rules.with_options(wild=rank)
    return rules


def parse_labelled(parts: Sequence[object], where: str, *, unseen: bool = False) -> list[Card | None]:
    """Parse card strings, naming ``where`` they came from in every error.

    With ``unseen``, :data:`UNSEEN` (``??``) is accepted and gives ``None``:
    a card that exists but nobody has seen (``hhtool equity``).
    """
    cards: list[Card | None] = []
    for p in parts:
        if not isinstance(p, str):
            raise RankInputError(f"{where}: {p!r} is not a card")
        if unseen and p.strip() == UNSEEN:
            cards.append(None)
            continue
        try:
            cards.append(parse_card(p))
        except CardError as e:
            raise RankInputError(f"{where}: {e}") from None
    return cards


def _parse_hand(text: str | Sequence[str], number: int) -> tuple[Card, ...]:
    parts = text.split() if isinstance(text, str) else list(text)
    cards = [c for c in parse_labelled(parts, f"hand {number}") if c is not None]
    if len(cards) != OWN_CARDS:
        raise RankInputError(
            f"hand {number} has {len(cards)} cards ({' '.join(parts) or 'none'}); "
            f"a player's own cards are {OWN_CARDS}"
        )
    return tuple(cards)


def vela_rules(rules: RuleSet, vela: str) -> RuleSet:
    """The profile a given ``--vela`` implies: italian turns on its ``at_start`` vela; stellapoker has none."""
    if rules.has_vela:
        return rules
    if not rules.variants_allowed:
        raise RankInputError(f"--vela {vela}: the {rules.name} profile has no vela")
    return rules.with_options(vela="at_start")


def table_players(rules: RuleSet, hands: int, players: int | None) -> int:
    """The players dealt in: ``players``, or the number of hands (at least the profile's smallest table), checked."""
    n_players = players if players is not None else max(hands, rules.min_players)
    try:
        rules.check_players(n_players)
    except RulesError as e:
        raise RankInputError(str(e)) from None
    if hands > n_players:
        raise RankInputError(f"{hands} hands but only {n_players} players")
    return n_players


def check_cards(rules: RuleSet, players: int, labelled: Sequence[tuple[str, Card]]) -> int:
    """Every ``(where, card)`` in the deck for ``players`` and no card twice; returns the deck's lowest rank."""
    low = rules.lowest_rank(players)
    seen: dict[int, str] = {}
    for where, c in labelled:
        if c >> 2 < low:
            raise RankInputError(
                f"{where}: card {card_str(c)} is not in the {rules.name} deck "
                f"for {players} players (lowest rank {card_str(low * 4)[0]})"
            )
        if c in seen:
            raise RankInputError(f"{where}: card {card_str(c)} appears twice (also in {seen[c]})")
        seen[c] = where
    return low


def rank_hands(
    rules: RuleSet,
    hands: Sequence[str | Sequence[str]],
    *,
    vela: str | None = None,
    players: int | None = None,
) -> RankTable:
    """Evaluate ``hands`` (one player's own five cards each) and share one pot between them.

    ``players`` sizes the ``by_players`` deck; it defaults to the number of
    hands, and never less than the profile's smallest table.
    """
    if not hands:
        raise RankInputError("no hands to rank")
    parsed = [_parse_hand(h, i + 1) for i, h in enumerate(hands)]
    vela_card: Card | None = None
    if vela is not None:
        rules = vela_rules(rules, vela)
        try:
            vela_card = parse_card(vela)
        except CardError as e:
            raise RankInputError(f"vela: {e}") from None
    n_players = table_players(rules, len(parsed), players)
    everything = [(f"hand {i + 1}", c) for i, h in enumerate(parsed) for c in h]
    if vela_card is not None:
        everything.append(("the vela", vela_card))
    low = check_cards(rules, n_players, everything)
    extra = [vela_card] if vela_card is not None else []
    values = [evaluate([*h, *extra], rules, low) for h in parsed]
    split = shares(values, rules)
    ranked = tuple(RankedHand(i, h, v, s) for i, (h, v, s) in enumerate(zip(parsed, values, split)))
    return RankTable(rules, vela_card, n_players, ranked, _reason(values, rules))


def _reason(values: list[HandValue], rules: RuleSet) -> Reason | None:
    if len(values) < 2:
        return None
    win = winners(values, rules)
    values = choose(values, rules.sf_rule)  # explain the straight flushes actually played
    n = len(values)
    if len(win) > 1:
        a, b = values[win[0]], values[win[1]]
        if compare(a, b, rules.sf_rule, n) != 0:
            return cycle_reason()
        return explain(a, b, rules, n)
    best = win[0]
    losers = [i for i in range(n) if i != best]
    # explain against the strongest loser: the one closest to winning
    runner_up = max(losers, key=lambda i: values[i].key)
    return explain(values[best], values[runner_up], rules, n)


def to_json(table: RankTable) -> str:
    return json.dumps([h.to_json() for h in table.hands], ensure_ascii=False)


def to_text(table: RankTable) -> str:
    """A readable table, best first, and the reason the winner wins."""
    rules = table.rules
    head = f"rules: {rules.name}"
    if table.vela is not None:
        head += f"   vela: {card_str(table.vela)}"
    head += f"   deck: {card_str(rules.lowest_rank(table.players) * 4)[0]}-A ({table.players} players)"
    if rules.wild is not None:
        head += f"   wild: {card_str(rules.wild * 4)[0]}"
    lines = [head, f"{'#':>2}  {'hand':<15} {'best five':<15} {'share':>6}  description"]
    for h in table.best_first():
        share = f"{float(h.share):.3g}" if h.share else "-"
        lines.append(
            f"{h.index + 1:>2}  {' '.join(card_str(c) for c in h.cards):<15} "
            f"{' '.join(card_str(c) for c in h.value.five):<15} {share:>6}  {h.value.description}"
        )
    if table.reason is not None:
        win = [h.index + 1 for h in table.hands if h.share]
        who = f"hand {win[0]} wins" if len(win) == 1 else "hands " + ", ".join(map(str, win)) + " split the pot"
        lines.append(f"{who}: {table.reason.text} ({table.reason.rule})")
    return "\n".join(lines)


def run_batch(rules: RuleSet, source: IO[str], out: IO[str], err: IO[str], name: str = "-") -> int:
    """Rank every JSON line of ``source``; one JSON array per line to ``out``.

    Every line of ``out`` is such an array, in input order.  A bad line is
    reported on ``err`` as ``NAME:N: message`` (N its line number) and
    writes nothing to ``out``; the batch goes on.  Blank lines are skipped.
    Returns the number of bad lines.
    """
    from hhtool.textsafe import term

    bad = 0
    for number, line in enumerate(source, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if not isinstance(item, dict) or not isinstance(item.get("hands"), list):
                raise RankInputError('expected an object {"hands": [...], "vela": ..., "players": ...}')
            vela = item.get("vela")
            players = item.get("players")
            if vela is not None and not isinstance(vela, str):
                raise RankInputError(f"vela must be a card or null, not {vela!r}")
            if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
                raise RankInputError(f"players must be a whole number or null, not {players!r}")
            table = rank_hands(rules, item["hands"], vela=vela, players=players)
        except (json.JSONDecodeError, RankInputError, RulesError, CardError) as e:
            bad += 1
            message = f"{name}:{number}: {e}"
            err.write(term(message) + "\n")  # the message may quote the line's strings
            continue
        out.write(to_json(table) + "\n")
    return bad
