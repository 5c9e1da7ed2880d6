"""One stored hand, read back and replayed: its events, the audit's verdict and findings, the replayer's steps.

The hand is parsed from its stored text (``hands.raw_text``) with its
file's line numbers (``hands.first_line``), so each finding's line is the
line ``hhtool audit`` names, and stepped through by the replayer
(:func:`hhtool.replay.steps.hand_steps`, whose replay is the one the
import ran, under the hand's rules, with the words the audit prints).
Without equity: its cost (up to seconds a hand with wild cards) has no
place in a page that answers in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hhtool.replay.audit import AuditResult, to_json, verdict_text
from hhtool.history.errors import HandHistoryError
from hhtool.history.events import Hand
from hhtool.history.jsonify import event_dict
from hhtool.history.money import display_amount
from hhtool.history.parse import parse_hand
from hhtool.replay import Replay
from hhtool.replay.steps import HandSteps, hand_steps

if TYPE_CHECKING:
    from hhtool.game.room import Room


@dataclass(frozen=True, slots=True)
class HandDetail:
    """A stored hand: its row, the parsed hand and its steps (None when the stored text no longer parses), its lines."""

    row: dict[str, Any]
    hand: Hand | None
    steps: HandSteps | None
    error: str | None
    lines: list[tuple[int, str]]  # (file line, text)

    @property
    def replay(self) -> Replay | None:
        return None if self.steps is None else self.steps.replay

    def replayer(self) -> str | None:
        """The replayer's HTML fragment (:func:`hhtool.replayer.html.replayer_html`), built escaped; its script and
        style are the page's files (``/static/replayer.js``), not inline: the server's pages run no inline script."""
        from hhtool.replayer.html import replayer_html

        return None if self.steps is None else replayer_html(self.steps, assets=False)

    def audit(self) -> AuditResult | None:
        return None if self.replay is None else AuditResult(str(self.row["file"]), self.replay, None)

    def amount(self, value: int) -> str:
        """An amount of the hand as a person reads it, grouped by thousands: ``€1,187.15``, ``1,500 chips``
        (:func:`hhtool.history.money.display_amount`, the replay's and the replayer's text), also when the hand no longer replays."""
        if self.hand is None:
            return f"{value:,}"
        return display_amount(value, self.hand.money)

    def rules_words(self) -> str:
        """Whose rules the page's replay follows: ``Circolo Vela's rules (rooms/vela.toml), base classic``, or the profile's."""
        r = self.replay
        if r is None or r.room is None:
            return f"the {self.row.get('profile')} profile of RULES.md"
        room = r.room
        changed = f"; it changes {', '.join(room.changed)}" if room.changed else ""
        return f"{room.name}'s rules ({room.source}), base {room.base}{changed}"

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
            "replay": self.steps.to_json() if self.steps is not None else None,
            "error": self.error,
        }


def read_hand(row: dict[str, Any], room: Room | None = None) -> HandDetail:
    """Parse and replay the hand of a ``hands`` row (it must hold ``raw_text``, ``first_line`` and ``file``).

    ``room``: the room the import replayed it under (:func:`hhtool.web.hands.stored_room`), so the page says what the import said.
    """
    text = str(row["raw_text"])
    body = text[:-1] if text.endswith("\n") else text
    first = int(row["first_line"] or 1)
    lines = [(first + i, line) for i, line in enumerate(body.split("\n"))]
    try:
        hand = parse_hand([t for _, t in lines], first_line=first, source=str(row["file"]))
    except HandHistoryError as e:
        return HandDetail(row, None, None, str(e), lines)
    try:
        steps = hand_steps(hand, text, source=str(row["file"]), room=room)
    except Exception as e:  # a bug of the replay must not lose the page: the text and the stored findings still show
        return HandDetail(row, hand, None, f"the replay failed ({type(e).__name__}: {e})", lines)
    return HandDetail(row, hand, steps, None, lines)
