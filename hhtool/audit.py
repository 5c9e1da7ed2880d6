"""``hhtool audit``: replay hand-history files and report, for a floor manager.

The library behind the command: :func:`audit_paths` yields one
:class:`AuditResult` per hand (replayed, or unparsed with its error);
:func:`to_text` and :func:`to_json` render one.  The text is for a
terminal, so every line of it is made safe (:func:`hhtool.textsafe.term`:
names, the site and file names may hold escape sequences); ``raw=True``
leaves the strings as they were.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .currency import currency_of
from .errors import ErrorRecord
from .money import format_amount
from .inputs import InputReport, read_inputs
from .reader import Cp1252Warning, Skipped
from .replay import Replay, replay
from .rules import RuleSet
from .textsafe import term


@dataclass(frozen=True, slots=True)
class AuditResult:
    """One hand's audit: a replay, or the parse error that stopped it."""

    source: str
    replay: Replay | None
    error: ErrorRecord | None

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
    rules: RuleSet | None = None,
    notes: list[str] | None = None,
    report: InputReport | None = None,
) -> Iterator[AuditResult]:
    """Replay every hand of every input (only ``hand_id`` if given).

    Inputs are what ``hhtool import`` takes: files, folders, globs, ``.zip``
    and ``.gz`` (:func:`hhtool.inputs.read_inputs`); ``report`` learns
    which held no hand or could not be read.
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
                result = replay(record, rules)
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
            yield AuditResult(source, result, None)


def to_json(result: AuditResult) -> dict[str, Any]:
    """The JSON object of one hand, as ``hhtool audit --json`` prints it."""
    if result.replay is None:
        err = result.error
        assert err is not None
        return {
            "hand_id": err.hand_id,
            "source": result.source,
            "verdict": "unparsed",
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
        # every amount below is an integer in this unit: cents of the currency, or chips
        "currency": cur.code,
        "unit": "cent" if money.cents else "chip",
        "decimals": cur.decimals,
        "verdict": r.verdict,
        "findings": [f.to_json() for f in r.findings],
        "payouts": r.payouts,
        "claimed": r.claimed,
        "pots": [
            {"name": p.name, "amount": p.amount, "rake": p.rake, "eligible": list(p.eligible), "winners": p.winners}
            for p in r.pots
        ],
        "showdown_order": list(r.showdown_order),
    }


def to_text(result: AuditResult, *, raw: bool = False) -> str:
    """A readable report of one hand, each line terminal-safe unless ``raw``."""
    if result.replay is None:
        assert result.error is not None
        return f"== {result.error.describe(raw=raw)}\nverdict: unparsed\n"
    r = result.replay
    h = r.hand.header
    money = r.hand.money

    def fmt(a: int) -> str:
        return format_amount(a, money)

    structure = {"fixed": "Fixed Limit", "pot": "Pot Limit", "no": "No Limit"}[h.structure]
    lines = [
        f"== {h.site} hand {h.hand_id} ({r.rules.name}, {structure} {fmt(h.small_bet)}/{fmt(h.big_bet)}) "
        f"- {result.source}:{h.line}",
        f"verdict: {r.verdict}",
    ]
    if r.rounds:
        lines.append("betting:")
        lines += [f"  {x}" for x in r.rounds]
    if r.showdown_order:
        lines.append(f"showdown, in the order shown: {', '.join(r.showdown_order)}")
    lines.append("pots:")
    for p in r.pots:
        rake = f", rake {fmt(p.rake)}" if p.rake else ""
        won = ", ".join(f"{n} {fmt(a)}" for n, a in p.winners.items()) or "nobody"
        check = "" if p.verified else " (unverified: cards unknown)"
        lines.append(f"  {p.name} {fmt(p.amount)}{rake}: {won}{check}")
        lines.append(f"    {p.reason}")
    players = sorted(set(r.payouts) | set(r.claimed))
    if players:
        lines.append("payouts (rules / history):")
        for n in players:
            mark = "" if r.payouts.get(n, 0) == r.claimed.get(n, 0) else "   <- differs"
            lines.append(f"  {n}: {fmt(r.payouts.get(n, 0))} / {fmt(r.claimed.get(n, 0))}{mark}")
    if r.findings:
        lines.append("findings:")
        for f in r.findings:
            lines.append(f"  line {f.line}: {f.severity} {f.code}: {f.message}")
    else:
        lines.append("findings: none")
    return "\n".join(lines if raw else map(term, lines)) + "\n"
