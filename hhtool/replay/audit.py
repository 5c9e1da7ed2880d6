"""``hhtool audit``: replay hand-history files and report, for a floor manager.

The library behind the command: :func:`audit_paths` yields one
:class:`AuditResult` per hand (replayed, or unparsed with its error);
:func:`to_text` and :func:`to_json` render one.  The what-if questions a
floor manager asks are :func:`what_if`: the hand's showdown settled under
another profile's comparison with the betting as it was
(:func:`showdown_rules`), or the whole hand replayed under another
profile; either way the payouts that change, player by player.  The text is for a
terminal, so every line of it is made safe (:func:`hhtool.textsafe.term`:
names, the site and file names may hold escape sequences); ``raw=True``
leaves the strings as they were.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from hhtool.game.cards import card_str
from hhtool.history.currency import currency_of
from hhtool.history.errors import ErrorRecord
from hhtool.history.money import format_amount
from hhtool.history.events import Collected, Hand
from hhtool.history.inputs import InputReport, read_inputs
from hhtool.history.reader import Cp1252Warning, Skipped
from hhtool.replay import PotResult, Replay, replay
from hhtool.replay.equities import StreetEquity, street_equities
from hhtool.replay.explain import rule_words
from hhtool.replay.result import RakeCheck
from hhtool.replay.settle import payouts_equal
from hhtool.game.room import NO_ROOMS, Room, Rooms
from hhtool.game.rules import RuleSet
from hhtool.textsafe import term

WhatIfKind = Literal["showdown", "rules"]

AUDIT_SAMPLES = 2_000
"""Runouts drawn for a street too large to count (an early street with several players): a standard error of
about one point of equity, a hundredth of a second a street, so a file of hands audits in minutes, not hours."""

AUDIT_WILD_SAMPLES = 250
"""The same with wild cards: each runout's hands are valued by trying the wild cards' substitutes (about fifty
times the work), so fewer draws (a standard error of about three points) keep one hand's audit near a second."""


@dataclass(frozen=True, slots=True)
class WhatIf:
    """A hand settled two ways: ``base`` under its own rules, ``other`` under the question's.

    ``kind`` is ``"showdown"`` (the hand's own rules with another
    profile's comparison of hands: the betting is replayed as it was) or
    ``"rules"`` (everything replayed under another profile).
    """

    kind: WhatIfKind
    profile: str  # the other profile's name
    base: Replay
    other: Replay

    @property
    def changes(self) -> list[tuple[str, int, int]]:
        """(player, under the hand's rules, under the question's) for each payout that changes, in seat order."""
        a, b = self.base.payouts, self.other.payouts
        seats = [s.player for s in self.base.hand.seats]
        return [(n, a.get(n, 0), b.get(n, 0)) for n in seats if a.get(n, 0) != b.get(n, 0)]

    @property
    def question(self) -> str:
        r = self.other.rules
        if self.kind == "showdown":
            return (
                f"the showdown under {self.profile}'s comparison (tie-break {r.tie_break.replace('_', ' ')}; "
                f"straight flushes {r.sf_rule.replace('_', ' ')}), the betting as it was"
            )
        return f"the whole hand under the {self.profile} rules"

    def changes_text(self) -> str:
        """``bob: €10.90 → €5.45; alice: €0.00 → €5.45``, or that nothing changes."""
        fmt = self.base.fmt
        parts = [f"{n}: {fmt(a)} → {fmt(b)}" for n, a, b in self.changes]
        return "; ".join(parts) if parts else "no payout changes"


def showdown_rules(own: RuleSet, other: RuleSet) -> RuleSet:
    """``own`` with ``other``'s comparison of hands at the showdown (RULES.md §3: tie-break and straight-flush rule).

    Everything else (deck, forced bets, openers, betting, showdown order)
    stays the hand's own, so a replay under it follows the betting as it
    was and only the pots' winners can change.
    """
    return replace(own, tie_break=other.tie_break, sf_rule=other.sf_rule)


def what_if(hand: Hand, other: RuleSet | Room, kind: WhatIfKind = "showdown", base: Replay | None = None) -> WhatIf:
    """The hand under its own rules and under ``other`` (only the showdown's comparison, or the whole replay).

    ``other`` a room: its rules, and for the whole replay its rake too.
    """
    own = base if base is not None else replay(hand)
    if isinstance(other, Room):
        if kind == "showdown":
            return WhatIf(kind, other.name, own, replay(hand, showdown_rules(own.rules, other.rules), room=own.room))
        return WhatIf(kind, other.name, own, replay(hand, room=other))
    rules = showdown_rules(own.rules, other) if kind == "showdown" else other
    return WhatIf(kind, other.name, own, replay(hand, rules, room=own.room if kind == "showdown" else None))


@dataclass(frozen=True, slots=True)
class AuditResult:
    """One hand's audit: a replay, or the parse error that stopped it; and the what-if, if one was asked."""

    source: str
    replay: Replay | None
    error: ErrorRecord | None
    what_if: WhatIf | None = None
    equities: tuple[StreetEquity, ...] = ()  # each contender's equity after each street's deal, where the cards are known

    @property
    def verdict(self) -> str:
        return self.replay.verdict if self.replay is not None else "unparsed"

    @property
    def hand_id(self) -> str | None:
        if self.replay is not None:
            return self.replay.hand.hand_id
        return self.error.hand_id if self.error is not None else None


def audit_paths(
    paths: Sequence[str | Path],
    *,
    hand_id: str | None = None,
    rules: RuleSet | Room | None = None,
    notes: list[str] | None = None,
    report: InputReport | None = None,
    showdown: RuleSet | Room | None = None,
    equity: bool = True,
    rooms: Rooms = NO_ROOMS,
) -> Iterator[AuditResult]:
    """Replay every hand of every input (only ``hand_id`` if given).

    Inputs are what ``hhtool import`` takes: files, folders, globs, ``.zip``
    and ``.gz`` (:func:`hhtool.history.inputs.read_inputs`); ``report`` learns
    which held no hand or could not be read.
    ``rooms``: the room files; a hand whose site and profile a room governs
    is replayed under the room's rules and its rake checked against them
    (:meth:`hhtool.game.room.Rooms.for_hand`).
    ``rules``: replay under that profile (or room) instead of the hand's own, with the
    payouts that change from the hand's own rules (``what_if``).
    ``showdown``: replay under the hand's own rules, and settle the showdown
    once more under that profile's (or room's) comparison of hands (``what_if``).
    ``equity``: each contender's equity after every street's deal where the
    cards are known (:func:`hhtool.replay.equities.street_equities`, with
    :data:`AUDIT_SAMPLES` samples where a street is too large to count).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Cp1252Warning)
        for source, record in read_inputs(paths, notes=notes, report=report):
            if isinstance(record, Skipped):
                continue
            if isinstance(record, ErrorRecord):
                if hand_id is None or record.hand_id == hand_id:
                    yield AuditResult(source, None, record)
                continue
            if hand_id is not None and record.hand_id != hand_id:
                continue
            try:
                room = rooms.for_hand(record.header.site, record.header.profile)
                own = replay(record, room=room)
                asked: WhatIf | None = None
                result = own
                if rules is not None:
                    asked = what_if(record, rules, "rules", own)
                    result = asked.other
                elif showdown is not None:
                    asked = what_if(record, showdown, "showdown", own)
                streets = tuple(street_equities(result, samples=AUDIT_WILD_SAMPLES if result.rules.wild is not None else AUDIT_SAMPLES)) if equity else ()
            except Exception as e:  # a bug of ours must not stop the other hands
                err = ErrorRecord(
                    kind="internal",
                    message=f"the replay failed ({type(e).__name__}: {e}); please report this hand",
                    source=source,
                    line=record.first_line,
                    column=None,
                    hand_id=record.hand_id,
                    line_text=None,
                    expected=(),
                    raw="",
                )
                yield AuditResult(source, None, err)
                continue
            yield AuditResult(source, result, None, asked, streets)


def to_json(result: AuditResult) -> dict[str, Any]:
    """The JSON object of one hand, as ``hhtool audit --json`` prints it."""
    if result.replay is None:
        err = result.error
        assert err is not None
        return {
            "hand_id": err.hand_id,
            "source": result.source,
            "verdict": "unparsed",
            "verdict_text": verdict_text(result),
            "error": {
                "kind": err.kind,
                "message": err.message,
                "line": err.line,
                "column": err.column,
                "expected": list(err.expected),
            },
        }
    r = result.replay
    money = r.hand.money
    cur = currency_of(money.symbol, "cent" if money.cents else "chip")
    return {
        "hand_id": r.hand.hand_id,
        "site": r.hand.header.site,
        "source": result.source,
        "profile": r.rules.name,
        "room": None if r.room is None else {"name": r.room.name, "source": r.room.source, "digest": r.room.digest},
        # every amount below is an integer in this unit: cents of the currency, or chips
        "currency": cur.code,
        "unit": "cent" if money.cents else "chip",
        "decimals": cur.decimals,
        "verdict": r.verdict,
        "findings": [f.to_json() for f in r.findings],
        "payouts": r.payouts,
        "claimed": r.claimed,
        "pots": _pots_json(r),
        **({"rake": _rake_json(r)} if r.rake_check is not None else {}),
        "showdown_order": list(r.showdown_order),
        "equities": [_street_json(s) for s in result.equities],
        "verdict_text": verdict_text(result),
        **({"what_if": _what_if_json(result.what_if)} if result.what_if is not None else {}),
    }


def _rake_json(r: Replay) -> dict[str, Any]:
    """The rake in question: the Rake line's, the room's (``null`` without one) and how the room's is computed."""
    c = r.rake_check
    assert c is not None
    return {"stated": c.stated, "due": c.due if c.ruled else None, "words": c.words, "collected": c.collected, "total": c.total, "collections_match": c.matches}


def _pots_json(r: Replay) -> list[dict[str, Any]]:
    return [
        {"name": p.name, "amount": p.amount, "rake": p.rake, "eligible": list(p.eligible), "winners": p.winners}
        for p in r.pots
    ]


def _street_json(s: StreetEquity) -> dict[str, Any]:
    """One street's equities: figures as floats, ``stderr`` when sampled (as ``hhtool equity --json``)."""
    return {
        "street": s.street,
        "line": s.line,
        "exact": s.exact,
        "runouts": s.runouts,
        **({} if s.exact else {"samples": s.samples}),
        "dead": [card_str(c) for c in s.dead],
        "contenders": [
            {
                "player": c.player,
                "cards": [card_str(x) for x in c.cards],
                "equity": c.equity,
                "win": c.win,
                "tie": c.tie,
                **({} if c.stderr is None else {"stderr": c.stderr}),
            }
            for c in s.contenders
        ],
    }


def _what_if_json(w: WhatIf) -> dict[str, Any]:
    return {
        "kind": w.kind,
        "profile": w.profile,
        "question": w.question,
        "verdict": w.other.verdict,
        "payouts": w.other.payouts,
        "pots": _pots_json(w.other),
        "changes": [{"player": n, "from": a, "to": b} for n, a, b in w.changes],
    }


def to_text(result: AuditResult, *, raw: bool = False, width: int | None = None) -> str:
    """A readable report of one hand, each line terminal-safe unless ``raw``.

    ``width``: lines longer than that many columns are broken at spaces, each
    continuation indented four columns past its line's own indent (``hhtool
    audit`` on a terminal passes its width); None keeps one line per fact, for
    a file or a program reading it.
    """
    if result.replay is None:
        assert result.error is not None
        return _joined([f"== {result.error.describe(raw=raw)}", "verdict: unparsed"], width)
    r = result.replay
    h = r.hand.header
    money = r.hand.money

    fmt = r.fmt
    stakes = f"{format_amount(h.small_bet, money)}/{format_amount(h.big_bet, money)}" + ("" if money.cents else " chips")
    structure = {"fixed": "Fixed Limit", "pot": "Pot Limit", "no": "No Limit"}[h.structure]
    lines = [
        f"== {h.site} hand {h.hand_id} ({r.rules.name}, {structure} {stakes}) "
        f"- {result.source}:{h.line}",
        f"verdict: {r.verdict}",
        verdict_text(result),
    ]
    if r.room is not None:
        changed = f"; it changes {', '.join(r.room.changed)}" if r.room.changed else ""
        lines.append(f"rules: {r.room.name} ({r.room.source}), base {r.room.base}{changed}")
        if r.rake_check is not None and r.rake_check.ruled:
            lines.append(f"rake by the room's rules: {fmt(r.rake_check.due)} ({r.rake_check.words}); the Rake line: {fmt(r.rake_check.stated)}")
    if r.rounds:
        lines.append("betting:")
        lines += [f"  {x}" for x in r.rounds]
    if result.equities:
        lines.append("equity after each street's deal (each contender's share of the pot):")
        lines += [f"  {_street_line(s)}" for s in result.equities]
    if r.showdown_order:
        lines.append(f"showdown, in the order shown: {', '.join(r.showdown_order)}")
    lines.append("pots:")
    lines += _pot_lines(r, "  ")
    players = sorted(set(r.payouts) | set(r.claimed))
    if players:
        lines.append("payouts (rules / history):")
        for n in players:
            mark = "" if r.payouts.get(n, 0) == r.claimed.get(n, 0) else "   <- differs"
            lines.append(f"  {n}: {fmt(r.payouts.get(n, 0))} / {fmt(r.claimed.get(n, 0))}{mark}")
    if r.findings:
        grouped = any(f.caused_by is not None for f in r.findings)
        lines.append("findings (what follows from a finding is indented under it):" if grouped else "findings:")
        for f in r.findings:
            indent = "      " if f.caused_by is not None else "  "
            lines.append(f"{indent}line {f.line}: {f.severity} {f.code}: {f.message}")
    else:
        lines.append("findings: none")
    w = result.what_if
    if w is not None:
        lines.append(f"what if: {w.question}")
        if w.kind == "rules":
            lines.append(f"  verdict: {w.other.verdict}")
        if w.kind == "showdown":
            lines += _pot_lines(w.other, "  ")
        lines.append(f"  payouts that change: {w.changes_text()}")
    return _joined(lines if raw else [term(x) for x in lines], width)


def _joined(lines: list[str], width: int | None) -> str:
    """The report's lines as one text, each broken to ``width`` columns when given."""
    if width is not None:
        lines = [part for x in lines for part in _wrapped(x, width)]
    return "\n".join(lines) + "\n"


def _wrapped(line: str, width: int) -> list[str]:
    """``line`` broken to ``width`` columns (at least 40), its continuations four columns past its own indent."""
    from hhtool.textsafe import wrap

    indent = line[: len(line) - len(line.lstrip(" "))]
    return wrap(line, max(width, 40), indent + "    ")


def _street_line(s: StreetEquity) -> str:
    """``4th street: alice 43.4%, bob 23.6%, dave 33.1% (exact, 93,024 runouts)``; who it is decided for, when it is."""
    players = ", ".join(f"{c.player} {100 * c.equity:.1f}%" for c in s.contenders)
    how = f"exact, {s.runouts:,} runouts" if s.exact else f"sampled, {s.samples:,} of {s.runouts:,} runouts"
    won = next((c.player for c in s.contenders if c.win == 1.0), None)
    return f"{s.street} street: {players} ({how})" + (f"; decided for {won}" if won is not None else "")


def _pot_lines(r: Replay, indent: str) -> list[str]:
    """Each pot: its amount, rake and winners, then why they win it."""
    out = []
    for p in r.pots:
        out.append(f"{indent}{pot_line(r, p)}")
        out.append(f"{indent}  {p.reason}")
    return out


def pot_line(r: Replay, p: PotResult) -> str:
    """One pot settled: ``main pot €11.40, rake €0.50: bob €10.90`` (the audit's words; the replayer's too)."""
    fmt = r.fmt
    rake = f", rake {fmt(p.rake)}" if p.rake else ""
    won = ", ".join(f"{n} {fmt(a)}" for n, a in p.winners.items()) or "nobody"
    check = "" if p.verified else " (unverified: cards unknown)"
    return f"{p.name} {fmt(p.amount)}{rake}: {won}{check}"


def _names(money: dict[str, int], fmt: Any) -> str:
    paid = [f"{n} ({fmt(a)})" for n, a in money.items() if a > 0]
    if not paid:
        return "nobody"
    return paid[0] if len(paid) == 1 else f"{', '.join(paid[:-1])} and {paid[-1]}"


def _history_pays(r: Replay, hand: Hand) -> dict[str, int]:
    """What the history pays each player, in the order its collection lines come."""
    out: dict[str, int] = {}
    for e in hand.events:
        if isinstance(e, Collected):
            out[e.player] = out.get(e.player, 0) + e.amount
    return out or dict(r.claimed)


def _because(why: str) -> str:
    """The reason after the verdict's money: after a colon, or a semicolon when it has its own colon (one colon a sentence)."""
    if not why:
        return "."
    return f"; {why}." if ":" in why else f": {why}."


def verdict_text(result: AuditResult) -> str:
    """The verdict in one plain paragraph, as a floor manager says it: who was paid, who the rules pay, and why.

    "The pot was paid to alice (€10.90); under the classic rules it belongs
    to bob (€10.90): bob's Q♥ beats alice's Q♣: …"; for an invalid hand
    the first cause and where it is; for an unparsed one what stopped it.
    """
    if result.replay is None:
        err = result.error
        return f"This hand could not be read: {err.message if err is not None else 'unknown error'}."
    r = result.replay
    fmt = r.fmt
    rules_words = r.rules_words
    paid = _history_pays(r, r.hand)
    single = len(r.pots) == 1
    differ = {n for n in set(paid) | set(r.payouts) if paid.get(n, 0) != r.payouts.get(n, 0)}
    # with several pots, a dispute explains the pots of the players whose money differs
    pots = [p for p in r.pots if not differ or single or differ & set(p.winners)]
    why = "; ".join((p.reason if single else f"{p.name}: {p.reason}") for p in pots if p.reason)
    why = why[:-1] if why.endswith(".") else why
    unknown = [p for p in r.pots if not p.verified]
    rake = r.rake_check
    if unknown:
        money = f"The history pays {_names(paid, fmt)}; the rules cannot check it, as a contender's cards are unknown."
    elif rake is not None and rake.in_question and (not rake.ruled or rake.matches != "neither"):
        money = _rake_verdict(r, rake, paid, single)
    elif payouts_equal(r.payouts, paid):
        what = "The pot went" if single else "The pots went"
        money = f"{what} to {_names(paid, fmt)}, as {rules_words} award {'it' if single else 'them'}" + _because(why)
    else:
        what = "The pot was paid" if single else "The pots were paid"
        money = f"{what} to {_names(paid, fmt)}; under {rules_words} {'it belongs' if single else 'they belong'} to {_names(r.payouts, fmt)}" + _because(why)
        if rake is not None and rake.in_question:  # the room's rake is not what the Rake line says, and the collections match neither
            side = "more" if rake.stated > rake.due else "less"
            money += f" The Rake line says {fmt(rake.stated)}, {fmt(abs(rake.stated - rake.due))} {side} than the room's rules allow ({rake.words})."
    if r.verdict == "ok":
        return money
    first = next(f for f in r.findings if f.caused_by is None and f.severity == "error")
    if r.verdict == "disputed":  # the money: already said when the payouts differ or by the rake, else the finding says what
        return money if not payouts_equal(r.payouts, paid) or (rake is not None and rake.in_question) else f"{money} Yet line {first.line}: {first.message}."
    more = len(r.findings) - 1
    tail = f" ({more} more finding{'s' if more != 1 else ''} below.)" if more else ""
    if first.code == "rake_exceeds_pot":  # its words say where the money went
        money = ""
    else:
        money = f" As replayed: {money[0].lower()}{money[1:]}"
    return f"This hand could not have happened under {rules_words}: line {first.line}: {first.message}.{money}{tail}"


def _rake_verdict(r: Replay, rake: RakeCheck, paid: dict[str, int], single: bool) -> str:
    """The verdict where the rake is in question: who was short and by how much, or that the history disagrees with itself.

    Without a room file that states the rake, the Rake line and the
    collections are two claims and neither is named wrong; the room's
    file settles it (docs/rooms.md).
    """
    fmt = r.fmt
    if not rake.ruled:
        both = rake.stated + rake.collected
        off = both - rake.total
        return (
            f"The Rake line ({fmt(rake.stated)}) and the collections ({fmt(rake.collected)}) disagree: together they make {fmt(both)}, "
            f"{fmt(abs(off))} {'more' if off > 0 else 'less'} than the total pot of {fmt(rake.total)}. "
            "Either the rake or a collection is wrong; the room's rake schedule, in a room file, settles which (docs/rooms.md)."
        )
    over = rake.stated > rake.due
    gap = fmt(abs(rake.stated - rake.due))
    allowed = f"{gap} {'more' if over else 'less'} than its rules allow ({rake.words})"
    if rake.matches == "room":
        what = "The pot went" if single else "The pots went"
        return (
            f"{what} to {_names(paid, fmt)}, as {r.rules_words} award {'it' if single else 'them'} after the room's rake of {fmt(rake.due)}; "
            f"but the Rake line says the room took {fmt(rake.stated)}, {allowed}."
        )
    differ = [n for n in sorted(set(paid) | set(r.payouts)) if paid.get(n, 0) != r.payouts.get(n, 0)]
    if over:
        who = "; ".join(f"{n} was paid {fmt(paid.get(n, 0))}, short by {fmt(r.payouts.get(n, 0) - paid.get(n, 0))}" for n in differ)
    else:
        who = "; ".join(f"{n} was paid {fmt(paid.get(n, 0))}, {fmt(paid.get(n, 0) - r.payouts.get(n, 0))} more than the rules give" for n in differ)
    return (
        f"The room took {fmt(rake.stated)} in rake, {allowed}: {who}. "
        f"Under {r.rules_words} {'the pot belongs' if single else 'the pots belong'} to {_names(r.payouts, fmt)}."
    )
