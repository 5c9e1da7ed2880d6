"""Hands and error records as JSON-ready dicts (``hhtool parse --json``).

Money stays in integer minor units, with the hand's ``money`` style beside
it; cards are written as in the format (``"Qs"``); times in ISO 8601.
Every event becomes ``{"event": <class name>, "line": n, ...fields}``.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from hhtool.game.cards import card_str
from hhtool.history.errors import ErrorRecord
from hhtool.history.events import Deal, Expose, Hand, SeatOutcome, Shows, Summary, Vela

_CARD_FIELDS = {(Vela, "card"), (Deal, "known"), (Deal, "new"), (Expose, "cards"), (Shows, "cards"), (SeatOutcome, "cards"), (Summary, "vela")}
"""The fields that hold cards, written as cards, not ints (``tests/test_lines.py``: every field events.py types with ``Card``).

Listed, not read from the classes' annotations: compiled by mypyc, a field's
type at run time is ``type`` for ``tuple[Card, ...] | None``.
"""


def _value(obj: object, name: str, value: Any) -> Any:
    if (type(obj), name) in _CARD_FIELDS and value is not None:
        return card_str(value) if isinstance(value, int) else [card_str(c) for c in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return _plain(value)


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(obj):
            out[f.name] = _value(obj, f.name, getattr(obj, f.name))
        return out
    return obj


def event_dict(event: object) -> dict[str, Any]:
    """One event (or seat, outcome) as a dict with its kind first."""
    return {"event": type(event).__name__, **_plain(event)}


def hand_dict(hand: Hand) -> dict[str, Any]:
    """A whole hand."""
    return {
        "source": hand.source,
        "line": hand.first_line,
        "hand_id": hand.hand_id,
        "header": _plain(hand.header),
        "money": _plain(hand.money),
        "table": _plain(hand.table),
        "seats": [_plain(s) for s in hand.seats],
        "events": [event_dict(e) for e in hand.events],
        "summary": _plain(hand.summary),
    }


def error_dict(record: ErrorRecord) -> dict[str, Any]:
    """A failed hand."""
    return {"error": record.kind, **{f.name: getattr(record, f.name) for f in dataclasses.fields(record)}}
