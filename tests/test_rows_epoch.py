"""The row builder's own arithmetic: a hand's start in epoch microseconds, and its text's hash without its line end.

:func:`hhtool.store.rows.epoch_us` reads a datetime's fields rather than
subtracting datetimes; :func:`hhtool.store.rows.hand_hash` hashes a text and
the line end it is stored with, without making that string.  Both must give
what the plain expressions give.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from hhtool.store.rows import epoch_us, hand_hash, text_hash

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _instants() -> list[datetime]:
    rng = random.Random(44)
    zones = [timezone.utc, timezone(timedelta(hours=1)), timezone(timedelta(hours=-5, minutes=-30)),
             timezone(timedelta(hours=13, minutes=45)), ZoneInfo("Europe/Rome"), ZoneInfo("America/New_York")]
    out = [datetime(1970, 1, 1, tzinfo=timezone.utc), datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc),
           datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=2))), datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc)]
    for _ in range(2_000):
        naive = datetime(1900, 1, 1) + timedelta(microseconds=rng.randrange(200 * 365 * 86_400 * 10**6))
        out.append(naive.replace(tzinfo=rng.choice(zones), fold=rng.randrange(2)))
    return out


def test_epoch_microseconds_are_the_subtractions() -> None:
    for t in _instants():
        assert epoch_us(t) == (t - EPOCH) // timedelta(microseconds=1), t


def test_a_naive_start_raises_as_the_subtraction_does() -> None:
    with pytest.raises(TypeError):
        epoch_us(datetime(2026, 12, 7, 12, 0))


@pytest.mark.parametrize("text", ["", "PokerStars Hand #1: Telesina", "caf\u00e9 \u00e0 10", "\u20ac5 pot", "\U0001F0A1 ace", "a\nb\r\nc"])
def test_a_hands_hash_is_its_stored_texts(text: str) -> None:
    assert hand_hash(text) == text_hash(text + "\n")
