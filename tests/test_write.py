"""The writer: parse(write(hand)) == hand, for samples and generated hands."""

from __future__ import annotations

import random
import re
import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from hhtool.history.events import Hand
from hhtool.history.parse import parse_text
from hhtool.history.reader import hands, read_file
from hhtool.history.write import write_hand, write_hands
from tests.handgen import generate_hand
from tests.sample_paths import GOOD


def _sample_hands() -> list[Hand]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [h for path in GOOD for h in hands(read_file(path))]


def test_samples_round_trip() -> None:
    for hand in _sample_hands():
        text = write_hand(hand)
        again = parse_text(text)
        assert again == hand, hand.hand_id
        assert write_hand(again) == text


def test_canonical_samples_are_written_back_verbatim() -> None:
    for path in GOOD:
        if path.name.startswith("08"):
            continue  # BOM, CRLF and Windows-1252 copies are not canonical bytes
        text = path.read_text(encoding="utf-8")
        written = write_hands(hands(read_file(path)))
        expected = [h.strip() for h in re.split(r"\n\s*\n", text) if h.strip()]
        assert [h.strip() for h in written.split("\n\n")] == expected, path.name


_NAME_CHARS = st.characters(
    codec="utf-8",
    exclude_categories=("Cc", "Cs", "Zl", "Zp"),
    exclude_characters="\x1f\x85\u2028\u2029",
)
_NAMES = st.lists(
    st.text(_NAME_CHARS, min_size=1, max_size=12).map(str.strip).filter(
        lambda n: bool(n) and not n.isspace() and "\n" not in n
    ),
    min_size=2,
    max_size=6,
    unique=True,
)


def _unambiguous(names: list[str]) -> bool:
    """Names that no seated-name reading can confuse (see docs/format-notes.md)."""
    for a in names:
        for b in names:
            if a != b and b.startswith(a) and b[len(a) : len(a) + 1] in (":", " ", "]", "[", "("):
                if any(b[len(a):].startswith(s) for s in (": ", " collected", " said", " is ", " has ", " joins", " leaves", " (")):
                    return False
    return True


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), names=_NAMES)
def test_generated_hands_round_trip(seed: int, names: list[str]) -> None:
    if not _unambiguous(names):
        return
    text = generate_hand(random.Random(seed), seed % 10_000, names)
    hand = parse_text(text)
    assert write_hand(hand) == text
    assert parse_text(write_hand(hand)) == hand
    assert [s.player for s in hand.seats] == [s.player for s in hand.seats if s.player in names]


def test_many_generated_hands_round_trip() -> None:
    rng = random.Random(11)
    for k in range(300):
        text = generate_hand(rng, k)
        assert write_hand(parse_text(text)) == text
