"""Time zones as rooms write them in a header: ``UTC``, ``CET``, ``ET``, ``+01:00``.

Abbreviations that name one offset map to that fixed offset.  The generic
North-American names (``ET``, ``CT``, ``MT``, ``PT``), which rooms use
all year round, follow the IANA zone, so ``ET`` is -05:00 in winter and
-04:00 in summer; without a time-zone database they fall back to the
standard offset.  The table is in ``docs/format-notes.md``.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta, timezone, tzinfo

FIXED_OFFSETS: dict[str, float] = {
    "UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1, "BST": 1, "IST": 1,
    "CET": 1, "CEST": 2, "MET": 1, "MEST": 2, "EET": 2, "EEST": 3, "MSK": 3,
    "AST": -4, "ADT": -3, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5,
    "MST": -7, "MDT": -6, "PST": -8, "PDT": -7, "AKST": -9, "AKDT": -8,
    "HST": -10, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
}
"""Abbreviation -> hours east of UTC."""

GENERIC_ZONES: dict[str, tuple[str, float]] = {
    "ET": ("America/New_York", -5),
    "CT": ("America/Chicago", -6),
    "MT": ("America/Denver", -7),
    "PT": ("America/Los_Angeles", -8),
}
"""Generic abbreviation -> (IANA zone, standard offset used without a database)."""

_OFFSET = re.compile(r"([+-])([0-9]{2}):([0-9]{2})")


class ZoneError(ValueError):
    """A zone the table does not know."""


@functools.cache
def zone_info(zone: str) -> tzinfo:
    """The tzinfo for a zone as written in a header."""
    m = _OFFSET.fullmatch(zone)
    if m:
        sign, hh, mm = m.groups()
        hours, minutes = int(hh), int(mm)
        if hours > 23 or minutes > 59:
            raise ZoneError(f"offset {zone} is out of range")
        delta = timedelta(hours=hours, minutes=minutes)
        return timezone(-delta if sign == "-" else delta)
    if zone in FIXED_OFFSETS:
        return timezone(timedelta(hours=FIXED_OFFSETS[zone]), zone)
    if zone in GENERIC_ZONES:
        name, standard = GENERIC_ZONES[zone]
        try:
            from zoneinfo import ZoneInfo

            return ZoneInfo(name)
        except Exception:  # no tz database: the standard offset
            return timezone(timedelta(hours=standard), zone)
    known = ", ".join(sorted([*FIXED_OFFSETS, *GENERIC_ZONES]))
    raise ZoneError(f"unknown time zone {zone!r}: expected an offset like +01:00 or one of {known}")


def parse_time(date: str, time: str, zone: str) -> datetime:
    """``2026/11/29``, ``18:00:00``, ``UTC`` -> an aware datetime (the grammar guarantees the shapes)."""
    try:
        return datetime(
            int(date[:4]), int(date[5:7]), int(date[8:10]), int(time[:2]), int(time[3:5]), int(time[6:8]),
            tzinfo=zone_info(zone),
        )
    except ValueError as e:
        if isinstance(e, ZoneError):
            raise
        raise ZoneError(f"{date} {time} is not a valid date and time: {e}") from None
