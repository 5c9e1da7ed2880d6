"""Colluding pairs and the population mode of ``hhtool simulate``: the ground truth an integrity screen is scored against.

The effects are measured from the hands alone (as a screen sees them),
each colluding run against the same seed with the pair at strength 0
(the same players, seated the same way, never deviating).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import pytest

from hhtool.game.cards import Card
from hhtool.history.events import Bet, BringIn, Call, Check, Complete, Deal, Fold, Hand, Joins, Leaves, RaiseTo, Street, Vela
from hhtool.history.reader import read_text
from hhtool.replay import replay
from hhtool.simulate import make_config, simulate_run, write_simulation
from hhtool.simulate import session as session_mod
from hhtool.game.evaluate import quick_category
from hhtool.simulate.config import SimConfig, SimulationError, parse_collusion
from hhtool.simulate.names import pool_names
from hhtool.simulate.session import session_hands, sessions
from tests.inprocess import hhtool


def _hands(config: SimConfig, count: int) -> Iterator[Hand]:
    """The hands as played (no text round trip: the measurements need only the events)."""
    for k, n in sessions(count):
        yield from session_hands(config, k, n)


def _dealt(h: Hand) -> set[str]:
    return {e.player for e in h.events if isinstance(e, Deal) and e.new is None}


AGGRESSIVE = (Bet, RaiseTo, Complete)


def _heads_up_aggression(hands: list[Hand], a: str, b: str) -> tuple[float, float, int]:
    """Share of a's and b's actions that bet or raise when the one other player left is the partner, and when it is someone else."""
    partner = [0, 0]
    other = [0, 0]
    for h in hands:
        live = _dealt(h)
        for e in h.events:
            if isinstance(e, Fold):
                live.discard(e.player)
            if isinstance(e, (*AGGRESSIVE, Check, Call, Fold)) and e.player in (a, b) and len(live | {e.player}) == 2:
                rest = (live - {e.player}).pop()
                tally = partner if rest == ({a, b} - {e.player}).pop() else other
                tally[0] += isinstance(e, AGGRESSIVE)
                tally[1] += 1
    return partner[0] / max(partner[1], 1), other[0] / max(other[1], 1), partner[1]


def _nets(hands: list[Hand], a: str, b: str) -> tuple[int, int]:
    """What a and b won (lost) in the hands both were dealt in, by the replay's stacks."""
    net = Counter[str]()
    for h in hands:
        seated = {s.player: s.stack for s in h.seats}
        if a in seated and b in seated:
            after = replay(h, explain=False).stacks
            for p in (a, b):
                net[p] += after[p] - seated[p]
    return net[a], net[b]


def _raises_into_partner(hands: list[Hand], a: str, b: str) -> tuple[int, int]:
    """(bets or raises, actions) of a and b facing a bet, three or more players in, the partner the round's last aggressor or
    its opener (its last bet, raise or completion; its first, or the bring-in: classic has no blinds)."""
    raises = spots = 0
    for h in hands:
        live = _dealt(h)
        if not {a, b} <= live:
            continue
        last: str | None = None
        opener: str | None = None
        for e in h.events:
            if isinstance(e, (Street, Vela)):  # a betting round begins
                last = opener = None
            elif isinstance(e, Fold):
                live.discard(e.player)
            if isinstance(e, (*AGGRESSIVE, Call, Fold)) and e.player in (a, b) and len(live | {e.player}) > 2:
                if ({a, b} - {e.player}).pop() in (last, opener):
                    spots += 1
                    raises += isinstance(e, AGGRESSIVE)
            if isinstance(e, (*AGGRESSIVE, BringIn)):
                last = e.player
                opener = opener or e.player
    return raises, spots


def _outs(own: list[Card], seen: set[Card]) -> set[Card]:
    """The unseen cards that would improve the quick read of ``own`` (classic: no wild card)."""
    category = quick_category(own, None)[0]
    ranks = {c >> 2 for c in own}
    return {
        Card(r * 4 + suit)
        for r in ranks
        if quick_category([*own, Card(r * 4)], None)[0] > category
        for suit in range(4)
        if Card(r * 4 + suit) not in seen
    }


def _folds_by_shared_cards(hands: list[Hand], a: str, b: str) -> dict[str, list[int]]:
    """[folds, folds + calls] of a and b facing a bet on 2nd to 4th street, by what the partner's hole card says: ``dead``,
    it is one of their outs; ``beaten``, the partner still in makes a better hand with it (by the face-up cards alone, not);
    ``neither`` (classic: one hole card, the first dealt)."""
    out = {"dead": [0, 0], "beaten": [0, 0], "neither": [0, 0]}
    for h in hands:
        live = _dealt(h)
        if not {a, b} <= live:
            continue
        cards: dict[str, list[Card]] = {}
        up: set[Card] = set()
        street = ""
        for e in h.events:
            if isinstance(e, Street):
                street = e.name
            elif isinstance(e, Deal):
                known = list(e.known or ())
                cards[e.player] = known + list(e.new or ())
                up.update(e.new or known[1:2])
            elif isinstance(e, (Fold, Call)) and e.player in (a, b) and street in ("2nd", "3rd", "4th"):
                own = cards[e.player]
                mate = ({a, b} - {e.player}).pop()
                hole = cards[mate][0]
                mine = quick_category(own, None)[0]
                kind = "neither"
                if hole in _outs(own, set(own) | up):
                    kind = "dead"
                elif mate in live and quick_category(cards[mate], None)[0] > mine >= quick_category(cards[mate][1:], None)[0]:
                    kind = "beaten"
                out[kind][0] += isinstance(e, Fold)
                out[kind][1] += 1
            if isinstance(e, Fold):
                live.discard(e.player)
    return out


def _deviations(entries: list[dict[str, object]]) -> list[dict[str, str]]:
    return [d for e in entries if e["entry"] == "hand" for d in e["deviations"]]  # type: ignore[attr-defined]


def test_soft_play_pair_never_bets_into_each_other_heads_up_nor_raises_the_partner() -> None:
    honest = list(_hands(make_config(rules="classic", seed=11, collude=["soft-play:alice,bob:0"]), 3000))
    soft = list(_hands(make_config(rules="classic", seed=11, collude=["soft-play:alice,bob:1"]), 3000))
    h_partner, h_other, _ = _heads_up_aggression(honest, "alice", "bob")
    s_partner, s_other, spots = _heads_up_aggression(soft, "alice", "bob")
    assert spots > 300
    assert s_partner == 0.0  # strength 1: never
    assert s_other > 0.2 and h_partner > 0.15  # against others they bet as before; honestly, into each other too
    assert abs(s_other - h_other) < 0.08
    h_raises, h_spots = _raises_into_partner(honest, "alice", "bob")
    s_raises, s_spots = _raises_into_partner(soft, "alice", "bob")
    assert h_spots > 150 and s_spots > 150
    assert s_raises == 0 and h_raises / h_spots > 0.05  # three or more in: the partner's bet is never raised


def test_chip_dumping_moves_money_from_dumper_to_receiver() -> None:
    honest = list(_hands(make_config(rules="classic", seed=13, collude=["chip-dumping:alice,bob:0"]), 3000))
    dumped = list(_hands(make_config(rules="classic", seed=13, collude=["chip-dumping:alice,bob:1"]), 3000))
    h_a, h_b = _nets(honest, "alice", "bob")
    d_a, d_b = _nets(dumped, "alice", "bob")
    big_bet = make_config(rules="classic").stakes.big_bet
    assert d_b - d_a > 100 * big_bet  # the receiver far ahead of the dumper in their hands together
    assert d_a < h_a - 50 * big_bet and d_b > h_b + 50 * big_bet
    assert abs(h_b - h_a) < (d_b - d_a) / 3


def test_card_sharing_reads_the_partners_hole_card_as_dead_in_every_decision() -> None:
    honest = list(_hands(make_config(rules="classic", seed=11, collude=["card-sharing:alice,bob:0"]), 3000))
    run = simulate_run(make_config(rules="classic", seed=11, collude=["card-sharing:alice,bob:1"]), 3000)
    shared = [h for h in read_text(run.text) if isinstance(h, Hand)]
    honestly = _folds_by_shared_cards(honest, "alice", "bob")
    sharing = _folds_by_shared_cards(shared, "alice", "bob")
    h_rate = {k: f / n for k, (f, n) in honestly.items()}
    s_rate = {k: f / n for k, (f, n) in sharing.items()}
    assert min(n for _, n in [*honestly.values(), *sharing.values()]) > 150
    # an out in the partner's hole, or the partner's better hand: the pair folds more; neither: as honestly
    assert s_rate["dead"] > h_rate["dead"] + 0.05 and s_rate["beaten"] > h_rate["beaten"] + 0.1
    assert abs(s_rate["neither"] - h_rate["neither"]) < 0.03, (h_rate, s_rate)
    deviations = _deviations(run.collusion)
    moves = Counter((d["would"], d["did"]) for d in deviations)
    # every kind of decision with cards to come: calls become folds, bets and completions checks, calls, the bring-in
    assert moves[("call", "fold")] > 80 and moves[("bet or raise", "check")] + moves[("bet or raise", "bring in")] > 20
    assert set(moves) <= {("call", "fold"), ("bet or raise", "check"), ("bet or raise", "call"), ("bet or raise", "bring in")}
    assert {d["street"] for d in deviations} <= {"2nd", "3rd", "4th", "5th"}  # never once the vela is turned
    half = simulate_run(make_config(rules="classic", seed=11, collude=["card-sharing:alice,bob:0.5"]), 3000)
    assert 0.3 < len(_deviations(half.collusion)) / len(deviations) < 0.7  # STRENGTH: the share of the spots taken


@pytest.mark.parametrize(
    ("kind", "rules", "structure", "options", "pool"),
    [
        ("soft-play", "italian", "no", "carte-coperte", 0),
        ("chip-dumping", "stellapoker", "pot", None, 8),
        ("card-sharing", "classic", "fixed", None, 0),
    ],
)
def test_colluding_hands_audit_ok(kind: str, rules: str, structure: str, options: str | None, pool: int) -> None:
    """The collusion changes decisions, never rules: every hand replays ok with no finding."""
    config = make_config(
        rules=rules, structure=structure, italian_options=options, seed=5, pool=pool, tables=1 if pool else 0, collude=[f"{kind}:1"]
    )
    run = simulate_run(config, 2000)
    hands = list(read_text(run.text))
    assert len(hands) == 2000
    for h in hands:
        assert isinstance(h, Hand)
        r = replay(h, explain=False)
        assert r.verdict == "ok" and r.findings == (), (h.hand_id, r.findings)
    deviated = [e for e in run.collusion if e["entry"] == "hand" and e["deviated"]]
    assert len(deviated) > 20, kind


def test_the_manifest_names_the_pairs_and_every_hand_they_played(tmp_path: Path) -> None:
    config = make_config(
        rules="classic",
        seed=3,
        pool=16,
        tables=2,
        faults=0.1,
        collude=["soft-play:Luca,ciro:napoli:0.7", "chip-dumping:1", "card-sharing"],
    )
    result = write_simulation(config, 1500, tmp_path / "room.txt", jobs=1)
    assert result.collusion == tmp_path / "room.txt.collusion.jsonl"
    entries = [json.loads(line) for line in result.collusion.read_text(encoding="utf-8").splitlines()]
    pairs = [e for e in entries if e["entry"] == "pair"]
    assert [(p["pair"], p["kind"]) for p in pairs] == [(1, "soft-play"), (2, "chip-dumping"), (3, "card-sharing")]
    assert (pairs[0]["a"], pairs[0]["b"], pairs[0]["strength"]) == ("Luca", "ciro:napoli", 0.7)
    assert pairs[2]["strength"] == 0.5
    names = {p["pair"]: {p["a"], p["b"]} for p in pairs}
    assert len(set.union(*names.values())) == 6 and set.union(*names.values()) <= set(pool_names(16))
    lines = (tmp_path / "room.txt").read_text(encoding="utf-8").split("\n")
    hands = {h.hand_id: h for h in read_text("\n".join(lines)) if isinstance(h, Hand)}
    listed = Counter[tuple[int, str]]()
    for e in entries[3:]:
        assert e["entry"] == "hand"
        listed[(e["pair"], e["hand_id"])] += 1
        assert e["hand_id"] in lines[e["line"] - 1]  # the hand's first line
        assert names[e["pair"]] <= {s.player for s in hands[e["hand_id"]].seats}
        assert e["deviated"] == bool(e["deviations"])
        for d in e["deviations"]:
            assert d["player"] in names[e["pair"]]
            assert lines[d["line"] - 1].startswith(f"{d['player']}: "), (d, lines[d["line"] - 1])
            assert d["did"] != d["would"]
    assert max(listed.values()) == 1
    for pair, who in names.items():  # every hand both were dealt in is listed, and only those
        both = {h.hand_id for h in hands.values() if who <= {s.player for s in h.seats}}
        assert both == {hid for p, hid in listed if p == pair}
    assert sum(e["deviated"] for e in entries[3:]) == result.deviations > 10


def test_pool_same_bytes_whatever_the_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_mod, "SESSION_HANDS", 120)
    config = make_config(rules="classic", structure="no", seed=9, pool=14, tables=2, faults=0.1, collude=["soft-play:1", "chip-dumping", "card-sharing:0.8"])
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    write_simulation(config, 700, one, jobs=1)
    write_simulation(config, 700, two, jobs=2)
    assert one.read_bytes() == two.read_bytes()
    for suffix in (".faults.jsonl", ".collusion.jsonl"):
        assert (tmp_path / f"one.txt{suffix}").read_bytes() == (tmp_path / f"two.txt{suffix}").read_bytes()
    assert simulate_run(config, 700).text == one.read_text(encoding="utf-8")


def test_pool_players_join_and_leave_tables_and_pairs_meet_as_strangers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_mod, "SESSION_HANDS", 1000)
    config = make_config(rules="classic", seed=21, pool=24, collude=["soft-play"])
    assert config.tables == 2  # about two thirds of the pool seated, 6 a table
    hands = list(_hands(config, 8000))
    assert {h.table.name for h in hands} == {f"Vela {k}" for k in range(1, 9)}
    tables_of = Counter[str]()
    for name in {s.player for h in hands for s in h.seats}:
        tables_of[name] = len({h.table.name for h in hands if name in {s.player for s in h.seats}})
    assert set(tables_of) == set(pool_names(24))
    assert min(tables_of.values()) >= 2  # everyone moves between tables
    assert any(isinstance(e, Joins) for h in hands for e in h.events)
    assert any(isinstance(e, Leaves) for h in hands for e in h.events)
    # the same day for the two tables of a block: they run at once
    assert hands[0].header.started.date() == hands[1000].header.started.date()
    together = Counter[frozenset[str]]()
    for h in hands:
        for pair in combinations(sorted(s.player for s in h.seats), 2):
            together[frozenset(pair)] += 1
    c = config.collusion[0]
    counts = sorted(together[frozenset(p)] for p in combinations(pool_names(24), 2))
    mean = sum(counts) / len(counts)
    # within the strangers' spread (the middle 95%: this pair meets seldom by chance, about as often as the 5th percentile)
    assert counts[len(counts) // 40] < together[frozenset((c.a, c.b))] < counts[-len(counts) // 40]
    assert 0.5 * mean < counts[len(counts) // 2] < 1.5 * mean  # and that spread is one of chance, not of cliques


def test_collude_option_reads_kind_names_and_strength() -> None:
    assert parse_collusion("soft-play:alice,bob:0.8") == parse_collusion("Soft_Play:alice,bob:.8")
    r = parse_collusion("chip-dumping:ciro:napoli,Luca")
    assert (r.kind, r.names, r.strength) == ("chip-dumping", ("ciro:napoli", "Luca"), 0.5)
    r = parse_collusion("card-sharing:1")
    assert (r.names, r.strength) == (None, 1.0)
    for bad in ("collusion:alice,bob", "soft-play:alice", "soft-play:alice,alice", "soft-play:alice,bob:1.5", "soft-play:a,b,c"):
        with pytest.raises(SimulationError):
            parse_collusion(bad)
    picked = make_config(rules="classic", seed=4, pool=20, collude=["soft-play", "card-sharing:0.3"]).collusion
    assert picked == make_config(rules="classic", seed=4, pool=20, collude=["soft-play", "card-sharing:0.3"]).collusion
    assert len({picked[0].a, picked[0].b, picked[1].a, picked[1].b}) == 4


@pytest.mark.parametrize(
    "kwargs",
    [
        {"collude": ["soft-play:alice,zed"]},  # not at the table
        {"collude": ["soft-play:alice,bob", "card-sharing:bob,carol"]},  # bob in two pairs
        {"players": 2, "collude": ["soft-play", "chip-dumping"]},  # no two players left to pick
        {"pool": 12, "view": "alice"},
        {"pool": 4},  # fewer than a table
        {"pool": 12, "tables": 3},  # 18 seats, 12 players
        {"tables": 2},  # only with a pool
    ],
)
def test_bad_collusion_and_pool_requests_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(SimulationError):
        make_config(rules="classic", **kwargs)  # type: ignore[arg-type]


def test_cli_writes_the_collusion_manifest_and_refuses_bad_pairs(tmp_path: Path) -> None:
    out = tmp_path / "pool.txt"
    r = hhtool("simulate", "--hands", "300", "--pool", "12", "--collude", "chip-dumping:Luca,Sofia:1", "--collude", "soft-play", "--out", str(out), "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert "collusion.jsonl" in r.stderr
    first = json.loads((tmp_path / "pool.txt.collusion.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first == {"entry": "pair", "pair": 1, "kind": "chip-dumping", "a": "Luca", "b": "Sofia", "strength": 1.0}
    assert not (tmp_path / "pool.txt.faults.jsonl").exists()
    for args in (("--collude", "soft-play:Luca,nobody"), ("--collude", "bribery"), ("--pool", "3"), ("--tables", "2")):
        r = hhtool("simulate", "--hands", "5", *args, "--out", str(out))
        assert r.returncode == 2, (args, r.stderr)


@pytest.mark.parametrize(
    ("kwargs", "digest"),
    [
        ({"rules": "classic", "seed": 3}, "20e2950645ed3e30c0460c80a1308270f17e0171f92c8cce8849c208e3c11bd2"),
        (
            {"rules": "italian", "structure": "no", "italian_options": "carte-coperte", "seed": 7},
            "151dedaf059df785719e10d4fc43fc11a2eaa7586db17257f91231f7906d58e7",
        ),
        ({"rules": "classic", "seed": 9, "pool": 14, "tables": 2, "faults": 0.1}, "b52f4bc33df0b394c9f888b38adebb85f27cfacf6bfde48d21fc198c82417d8b"),
    ],
)
def test_runs_without_collude_keep_their_bytes(kwargs: dict[str, object], digest: str) -> None:
    """The pairs' reads are the pairs' own: a run without ``--collude`` is the file it was before them (these digests are
    of the simulator before card sharing read every decision; a deliberate change of the honest bots changes them)."""
    text = simulate_run(make_config(**kwargs), 400).text  # type: ignore[arg-type]
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == digest
