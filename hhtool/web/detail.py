"""One stored hand, read back and replayed: its events, the audit's verdict and findings, its lines.

The hand is parsed from its stored text (``hands.raw_text``) with its
file's line numbers (``hands.first_line``), so each finding's line is the
line ``hhtool audit`` names, and replayed under its rules: the same
replay the import ran, the same words the audit prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hhtool.replay.audit import AuditResult, to_json, verdict_text
from hhtool.history.errors import HandHistoryError
from hhtool.history.events import Hand
from hhtool.history.jsonify import event_dict
from hhtool.history.parse import parse_hand
from hhtool.replay import Replay, replay


@dataclass(frozen=True)
class HandDetail:
    """A stored hand: its row, the parsed hand and its replay (None when the stored text no longer parses), its lines."""

    row: dict[str, Any]
    hand: Hand | None
    replay: Replay | None
    error: str | None
    lines: list[tuple[int, str]]  # (file line, text)

    def audit(self) -> AuditResult | None:
        return None if self.replay is None else AuditResult(str(self.row["file"]), self.replay, None)

    def verdict_text(self) -> str:
        result = self.audit()
        return verdict_text(result) if result is not None else f"This hand could not be read again: {self.error}."

    def finding_lines(self) -> set[int]:
        return set() if self.replay is None else {f.line for f in self.replay.findings}

    def to_json(self) -> dict[str, Any]:
        """The API's hand: the audit's JSON (verdict, findings, payouts, pots), the events, the raw text."""
        result = self.audit()
        return {
            "audit": to_json(result) if result is not None else None,
            "events": [event_dict(e) for e in self.hand.events] if self.hand is not None else [],
            "error": self.error,
        }


def read_hand(row: dict[str, Any]) -> HandDetail:
    """Parse and replay the hand of a ``hands`` row (it must hold ``raw_text``, ``first_line`` and ``file``)."""
    text = str(row["raw_text"])
    body = text[:-1] if text.endswith("\n") else text
    first = int(row["first_line"] or 1)
    lines = [(first + i, line) for i, line in enumerate(body.split("\n"))]
    try:
        hand = parse_hand([t for _, t in lines], first_line=first, source=str(row["file"]))
    except HandHistoryError as e:
        return HandDetail(row, None, None, str(e), lines)
    try:
        result = replay(hand)
    except Exception as e:  # a bug of the replay must not lose the page: the text and the stored findings still show
        return HandDetail(row, hand, None, f"the replay failed ({type(e).__name__}: {e})", lines)
    return HandDetail(row, hand, result, None, lines)
