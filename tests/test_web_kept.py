"""What the pages keep (a list's count, a player's figures): the same answer while no hand is added, a new one after."""

from __future__ import annotations

from hhtool.web.hands import Kept


def test_a_figure_is_kept_until_hands_are_added() -> None:
    version = [0]
    computed: list[str] = []

    def compute(value: int) -> int:
        computed.append(f"{version[0]}:{value}")
        return value * version[0] if version[0] else value

    kept = Kept(lambda: version[0])
    assert kept.get(("count", "a"), lambda: compute(7)) == 7
    assert kept.get(("count", "a"), lambda: compute(8)) == 7  # kept: the database holds the same hands
    assert kept.get(("count", "b"), lambda: compute(9)) == 9  # another key, its own figure
    version[0] = 3  # hands were added
    assert kept.get(("count", "a"), lambda: compute(7)) == 21
    assert kept.get(("count", "a"), lambda: compute(1)) == 21
    assert computed == ["0:7", "0:9", "3:7"]


def test_the_least_recently_asked_are_dropped() -> None:
    kept = Kept(lambda: None, most=2)
    calls: list[str] = []

    def value(name: str) -> str:
        calls.append(name)
        return name.upper()

    for name in ("a", "b", "a", "c", "a", "b"):  # "b" was dropped when "c" came: the least recently asked
        assert kept.get((name,), lambda: value(name)) == name.upper()
    assert calls == ["a", "b", "c", "b"]


def test_an_error_is_not_kept() -> None:
    kept = Kept(lambda: None)
    tries: list[int] = []

    def fails() -> int:
        tries.append(1)
        raise LookupError("no player")

    for _ in range(2):
        try:
            kept.get(("statistics", "x"), fails)
        except LookupError:
            pass
    assert len(tries) == 2
