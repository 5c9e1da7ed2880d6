"""Equity in a replayed hand (``hhtool.replay.equities``): street by street, on the sample histories."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction

from hhtool.game.cards import parse_cards
from hhtool.game.equity import equity
from hhtool.history.events import Hand
from hhtool.history.reader import read_file
from hhtool.replay import Replay, replay
from hhtool.replay.equities import shares, street_equities
from tests.inprocess import hhtool
from tests.sample_paths import SAMPLES


def _replays(name: str) -> list[Replay]:
    return [replay(h) for h in read_file(SAMPLES / name) if isinstance(h, Hand)]


def test_audit_view_every_street_with_the_folded_up_cards_dead() -> None:
    (r,) = _replays("000_format_example.txt")
    streets = street_equities(r)
    assert [s.street for s in streets] == ["2nd", "3rd", "4th", "5th"]
    by = {s.street: s for s in streets}
    assert [c.player for c in by["2nd"].contenders] == ["alice", "bob", "carol", "dave"]
    assert by["2nd"].dead == ()
    # carol folded on 2nd street: her door card is dead from 3rd street on; dave's up cards after his fold on 4th
    assert [c.player for c in by["3rd"].contenders] == ["alice", "bob", "dave"]
    assert by["3rd"].dead == tuple(parse_cards("9s"))
    assert [c.player for c in by["5th"].contenders] == ["alice", "bob"]
    assert sorted(by["5th"].dead) == sorted([*parse_cards("9s"), *parse_cards("Th 7d 8s")])
    # 4th street three-way and 5th street heads up are counted exactly, as hhtool.game.equity counts them
    for name in ("4th", "5th"):
        s = by[name]
        assert s.exact and s.samples == 0
        direct = equity(r.rules, [c.cards for c in s.contenders], dead=s.dead, players=4)
        assert [c.exact_equity for c in s.contenders] == [h.exact_equity for h in direct.hands]
        assert sum((c.exact_equity or Fraction(0)) for c in s.contenders) == 1
    # the vela decides 5th street: bob's queens up make two pair with the king vela that wins
    five = by["5th"]
    assert five.runouts == 18 and [c.cards for c in five.contenders] == [tuple(parse_cards("Qc Qs 9c Jc Jd")), tuple(parse_cards("Js Jh 8d Qh Qd"))]
    assert not five.decided
    for s in streets:
        assert abs(sum(c.equity for c in s.contenders) - 1) < 1e-9
        assert s.line > 0


def test_own_view_gives_only_the_streets_whose_cards_are_known() -> None:
    # alice's own history: bob's and carol's hole cards never shown (carol mucks), so no street is known
    for r in _replays("010_classic_own_view_three_hands.txt"):
        assert street_equities(r) == []


def test_no_street_without_a_card_to_come() -> None:
    # italian without a vela: 5th street deals the last card, and the showdown decides; 4th street is exact
    (r,) = _replays("030_italian_no_limit_side_pots.txt")
    streets = street_equities(r)
    assert [s.street for s in streets] == ["2nd", "3rd", "4th"]
    four = streets[-1]
    assert four.exact and [c.player for c in four.contenders] == ["Luca", "Sofia", "Matteo", "Chiara"]
    assert four.dead == tuple(parse_cards("6h"))  # Davide folded on 2nd street with 6h up


def test_carte_coperte_cards_known_in_the_audit_view() -> None:
    (r,) = _replays("050_italian_carte_coperte.txt")
    by = {s.street: s for s in street_equities(r)}
    assert set(by) == {"2nd", "3rd", "4th"}
    # Nico folds on 3rd street: the cards he had exposed (Kh, Ts) are dead on 4th street
    assert sorted(by["4th"].dead) == sorted(parse_cards("Kh Ts"))
    assert [c.player for c in by["4th"].contenders] == ["Ada", "Ugo"]


def test_shares_largest_remainder_sums_exactly() -> None:
    assert shares(100, [Fraction(1, 3)] * 3) == [34, 33, 33]
    assert shares(10, [Fraction(1, 4), Fraction(3, 4)]) == [3, 7]  # 2.5 and 7.5: the tie to the first
    assert shares(7, [Fraction(0), Fraction(1)]) == [0, 7]
    assert sum(shares(999, [Fraction(2, 7), Fraction(3, 7), Fraction(2, 7)])) == 999


def _audit(*args: str) -> subprocess.CompletedProcess[str]:
    """``hhtool audit *args`` in this process (:mod:`tests.inprocess`): the equities' words are the point."""
    return hhtool("audit", *args)


def test_audit_text_and_json_give_each_streets_equity() -> None:
    example = str(SAMPLES / "000_format_example.txt")
    text = _audit(example)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    at = lines.index("equity after each street's deal (each contender's share of the pot):")
    assert lines[at + 3] == "  4th street: alice 43.4%, bob 23.5%, dave 33.0% (exact, 93,024 runouts)"
    assert lines[at + 4] == "  5th street: alice 27.8%, bob 72.2% (exact, 18 runouts)"
    assert lines[at + 1].startswith("  2nd street: alice ") and "(sampled, 2,000 of 11,993,472,691,200 runouts)" in lines[at + 1]
    (obj,) = [json.loads(line) for line in _audit("--json", example).stdout.splitlines()]
    streets = obj["equities"]
    assert [s["street"] for s in streets] == ["2nd", "3rd", "4th", "5th"]
    five = streets[-1]
    assert five["exact"] and five["runouts"] == 18 and five["dead"] == ["9s", "Th", "7d", "8s"]
    assert [(c["player"], c["cards"]) for c in five["contenders"]] == [
        ("alice", ["Qc", "Qs", "9c", "Jc", "Jd"]), ("bob", ["Js", "Jh", "8d", "Qh", "Qd"])
    ]
    assert abs(five["contenders"][1]["equity"] - 13 / 18) < 1e-12 and "stderr" not in five["contenders"][1]
    assert "stderr" in streets[0]["contenders"][0] and streets[0]["samples"] == 2000
    quiet = _audit("--no-equity", example)
    assert quiet.returncode == 0 and "equity after" not in quiet.stdout
    (obj,) = [json.loads(line) for line in _audit("--json", "--no-equity", example).stdout.splitlines()]
    assert obj["equities"] == []


def test_audit_of_an_own_view_gives_no_equity_where_cards_are_unknown() -> None:
    r = _audit(str(SAMPLES / "010_classic_own_view_three_hands.txt"))
    assert r.returncode == 0 and "equity after" not in r.stdout


def test_the_library_entry_point_replays_the_hand_itself() -> None:
    from hhtool import api

    assert "street_equities" in api.__all__
    (hand,) = [h for h in read_file(SAMPLES / "000_format_example.txt") if isinstance(h, Hand)]
    got = api.street_equities(hand)
    assert [s.street for s in got] == ["2nd", "3rd", "4th", "5th"]
    assert got[2:] == street_equities(replay(hand))[2:]  # the exact streets; the sampled ones by the same seed too
    assert got == street_equities(replay(hand))


def test_shares_in_integers_equal_the_fractions_largest_remainder() -> None:
    """The integer split equals the largest remainder computed with fractions, on random weights: exact equities
    (fractions of the runouts), sampled ones (floats, read exactly), amounts large and small, ties included."""
    import random

    def by_fractions(amount: int, weights: list[Fraction]) -> list[int]:
        exact = [amount * w for w in weights]
        base = [q.numerator // q.denominator for q in exact]
        order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - base[i]), i))
        for i in order[: max(0, amount - sum(base))]:
            base[i] += 1
        return base

    rng = random.Random(44)
    for _ in range(3000):
        n = rng.randint(1, 6)
        raw = [Fraction(rng.random()) if rng.random() < 0.5 else Fraction(rng.randint(0, 12), rng.randint(1, 12)) for _ in range(n)]
        total = sum(raw, Fraction(0))
        if not total:
            continue
        weights = [w / total for w in raw]
        amount = rng.choice([0, 1, 7, 100, rng.randint(0, 10**9)])
        assert shares(amount, weights) == by_fractions(amount, weights)
