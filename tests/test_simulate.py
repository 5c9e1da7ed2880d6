"""``hhtool simulate``: every hand simulated without faults audits ok with no finding at all.

Several hundred hands per profile and structure, every italian option,
own views, the same bytes from the same seed, stacks carried over, the
fault manifest scored against the audit.  The CLI's exit codes are in
``test_simulate_cli.py``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from hhtool.history.events import Bet, Call, Collected, Complete, Deal, Hand, Joins, RaiseTo, Street
from hhtool.history.reader import read_text
from hhtool.replay import replay
from hhtool.simulate import make_config, simulate_text, write_simulation
from hhtool.simulate import session as session_mod
from hhtool.simulate.config import SimConfig, SimulationError
from hhtool.simulate.view import own_view

PROFILES = ("classic", "stellapoker", "italian")
STRUCTURES = ("fixed", "pot", "no")
ITALIAN_OPTIONS = (
    "vela-at-start",
    "wild=9",
    "carte-coperte",
    "una-coperta",
    "vela-at-start,wild=T,carte-coperte",
    "wild=7,una-coperta",
)


def _hands(text: str) -> list[Hand]:
    records = list(read_text(text))
    hands = [r for r in records if isinstance(r, Hand)]
    assert len(hands) == len(records), [r for r in records if not isinstance(r, Hand)][:1]
    return hands


def _assert_all_ok(config: SimConfig, count: int) -> list[Hand]:
    text, manifest = simulate_text(config, count)
    assert manifest == []
    hands = _hands(text)
    assert len(hands) == count
    for hand in hands:
        r = replay(hand)
        assert r.findings == () and r.verdict == "ok", (hand.hand_id, r.findings)
    return hands


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("rules", PROFILES)
def test_every_simulated_hand_audits_ok(rules: str, structure: str) -> None:
    players = 8 if rules == "italian" else 6
    hands = _assert_all_ok(make_config(rules=rules, structure=structure, players=players, seed=7), 300)
    # the hands are not trivial: showdowns and folds both happen
    assert any(any(isinstance(e, Street) and e.name == "5th" for e in h.events) for h in hands)
    assert any(h.summary.outcomes[0].outcome == "folded" for h in hands)


@pytest.mark.parametrize("options", ITALIAN_OPTIONS)
def test_italian_options_audit_ok(options: str) -> None:
    for structure in STRUCTURES:
        _assert_all_ok(make_config(rules="italian", structure=structure, players=5, italian_options=options, seed=3), 50)


@pytest.mark.parametrize("players", (2, 3, 4))
def test_small_tables_audit_ok(players: int) -> None:
    for rules in PROFILES:
        _assert_all_ok(make_config(rules=rules, structure="no", players=players, seed=players), 60)


@pytest.mark.parametrize(
    "rules,options",
    [("classic", None), ("stellapoker", None), ("italian", None), ("italian", "carte-coperte"), ("italian", "una-coperta,vela-at-start")],
)
def test_own_view_hides_hole_cards_and_audits_ok(rules: str, options: str | None) -> None:
    for structure in ("fixed", "no"):
        # the command's own view: bob's history, every hand of it audits ok
        _assert_all_ok(make_config(rules=rules, structure=structure, players=4, italian_options=options, seed=5, view="bob"), 60)
        # the view of an audit history: only other players' deal lines change, and they show less
        full = _hands(simulate_text(make_config(rules=rules, structure=structure, players=4, italian_options=options, seed=5), 60)[0])
        for hand in full:
            if "bob" not in hand.players:
                continue
            mine = own_view(hand, "bob")
            r = replay(mine)
            assert r.findings == (), (hand.hand_id, r.findings)
            assert mine.summary == hand.summary
            for e, f in zip(mine.events, hand.events):
                if e != f:
                    assert isinstance(e, Deal) and isinstance(f, Deal) and e.player != "bob"
                    assert set(e.known or ()) | set(e.new or ()) < set(f.known or ()) | set(f.new or ())
            for d in [e for e in mine.events if isinstance(e, Deal)][: len(mine.seats)]:
                shown = 2 if d.player == "bob" else (0 if options and "carte" in options else 1)
                assert len(d.known or ()) == shown


def test_same_seed_same_bytes_and_another_seed_differs() -> None:
    config = make_config(rules="classic", structure="pot", players=5, seed=42)
    a, _ = simulate_text(config, 150)
    b, _ = simulate_text(config, 150)
    c, _ = simulate_text(make_config(rules="classic", structure="pot", players=5, seed=43), 150)
    assert a == b
    assert a != c


def test_processes_do_not_change_the_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_mod, "SESSION_HANDS", 40)
    config = make_config(rules="italian", structure="no", players=6, seed=9, faults=0.2)
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    write_simulation(config, 130, one, jobs=1)
    write_simulation(config, 130, two, jobs=2)
    assert one.read_bytes() == two.read_bytes()
    assert (tmp_path / "one.txt.faults.jsonl").read_bytes() == (tmp_path / "two.txt.faults.jsonl").read_bytes()
    text, _ = simulate_text(config, 130)
    assert one.read_text(encoding="utf-8") == text


def test_hand_ids_unique_stacks_carry_over_button_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_mod, "SESSION_HANDS", 250)
    hands = _hands(simulate_text(make_config(rules="stellapoker", structure="no", players=6, seed=1), 500)[0])
    assert len({h.hand_id for h in hands}) == len(hands)
    carried = moved = 0
    for prev, nxt in zip(hands, hands[1:]):
        if prev.table.name != nxt.table.name:
            continue  # a new session, a new table
        after = replay(prev).stacks
        for seat in nxt.seats:
            if seat.player in after and seat.stack == after[seat.player]:
                carried += 1
        moved += prev.table.button != nxt.table.button
    assert carried > 0.9 * sum(len(h.seats) for h in hands[1:]) * 0.8
    assert moved > 0.9 * (len(hands) - 2)
    # players sit out (fewer seats some hands) and newcomers join
    assert len({len(h.seats) for h in hands}) > 1
    assert any(isinstance(e, Joins) for h in hands for e in h.events)


def test_side_pots_split_pots_and_rake() -> None:
    nl = _hands(simulate_text(make_config(rules="classic", structure="no", players=6, seed=2), 400)[0])
    assert sum(bool(h.summary.side_pots) for h in nl) >= 2
    chips = _hands(simulate_text(make_config(rules="italian", structure="no", players=6, seed=2), 100)[0])
    assert all(h.summary.rake == 0 for h in chips)  # play chips at the default italian site
    # stellapoker splits equal hands (ties on ranks are rare in 32 cards: seed 2 has one by hand 579)
    split = _hands(simulate_text(make_config(rules="stellapoker", structure="fixed", players=6, seed=2), 600)[0])
    assert any(
        len({c.player for c in h.collections if c.pot in ("pot", "main")}) > 1 for h in split
    ), "no split pot in 600 stellapoker hands"
    cash = _hands(simulate_text(make_config(rules="classic", structure="pot", players=6, seed=2), 300)[0])
    cap = make_config(rules="classic", structure="pot").stakes.rake_cap
    assert any(h.summary.rake == cap for h in cash)
    for h in cash:
        assert h.summary.rake <= min(cap, h.summary.total * 5 // 100)
        if not any(isinstance(e, Street) and e.name == "3rd" for e in h.events):
            assert h.summary.rake == 0  # no third street, no drop


def test_bot_styles_make_players_differ() -> None:
    """VPIP (put money in voluntarily on 2nd street) spreads widely across the table."""
    hands = _hands(simulate_text(make_config(rules="italian", structure="fixed", players=6, seed=4), 600)[0])
    dealt: Counter[str] = Counter()
    played: Counter[str] = Counter()
    for h in hands:
        in_round_1: set[str] = set()
        street = ""
        for e in h.events:
            if isinstance(e, Street):
                street = e.name
            elif street == "2nd" and isinstance(e, (Call, Bet, RaiseTo, Complete)):
                in_round_1.add(e.player)
        for s in h.seats:
            dealt[s.player] += 1
            played[s.player] += s.player in in_round_1
    rates = [played[n] / dealt[n] for n in dealt if dealt[n] >= 100]
    assert len(rates) >= 3
    assert max(rates) - min(rates) > 0.2, rates


def test_faults_manifest_is_caught_by_the_audit() -> None:
    seen: Counter[str] = Counter()
    for rules, options, view in (
        ("classic", None, "audit"),
        ("stellapoker", None, "carol"),
        ("italian", None, "audit"),
        ("italian", "carte-coperte,wild=T", "alice"),
    ):
        for structure in STRUCTURES:
            config = make_config(rules=rules, structure=structure, players=4, italian_options=options, view=view, seed=8, faults=0.4)
            text, manifest = simulate_text(config, 60)
            lines = text.split("\n")
            by_id = {str(m["hand_id"]): m for m in manifest}
            assert len(by_id) == len(manifest) > 10
            for m in manifest:
                assert lines[int(str(m["line"])) - 1].split(" Hand #")[1].startswith(f"{m['hand_id']}:")
            for hand in _hands(text):
                r = replay(hand)
                entry = by_id.get(hand.hand_id)
                if entry is None:
                    assert r.verdict == "ok" and r.findings == ()
                    continue
                seen[str(entry["fault"])] += 1
                assert entry["code"] in {f.code for f in r.findings}, (entry, r.findings)
                assert r.verdict == entry["verdict"], (entry, r.verdict)
                # the first finding is the cause, on the line the fault changed; the rest follow from it
                first = r.findings[0]
                assert (first.code, first.line) == (entry["code"], entry["fault_line"]), (entry, r.findings)
                assert all(f.caused_by == 0 for f in r.findings[1:]), (entry, r.findings)
    assert len(seen) >= 12, seen


def test_manifest_file_beside_output(tmp_path: Path) -> None:
    out = tmp_path / "sim.txt"
    result = write_simulation(make_config(rules="classic", seed=1, faults=0.25), 60, out)
    assert result.manifest == tmp_path / "sim.txt.faults.jsonl"
    entries = [json.loads(line) for line in result.manifest.read_text(encoding="utf-8").splitlines()]
    assert len(entries) == result.faults > 0
    assert set(entries[0]) == {"hand_id", "line", "fault", "code", "verdict", "change", "fault_line"}
    lines = out.read_text(encoding="utf-8").split("\n")
    for entry in entries:  # the line changed is inside its hand: after the header, before the next hand's
        assert entry["line"] < entry["fault_line"] and lines[entry["fault_line"] - 1].strip()
    plain = tmp_path / "plain.txt"
    assert write_simulation(make_config(rules="classic", seed=1), 10, plain).manifest is None
    assert not (tmp_path / "plain.txt.faults.jsonl").exists()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rules": "poker"},
        {"rules": "classic", "players": 7},
        {"rules": "italian", "players": 9},
        {"rules": "italian", "players": 1},
        {"rules": "classic", "structure": "spread"},
        {"rules": "classic", "italian_options": "wild=7"},
        {"rules": "italian", "italian_options": "wild=7", "players": 3},
        {"rules": "italian", "italian_options": "carte-coperte,una-coperta"},
        {"rules": "italian", "italian_options": "jokers"},
        {"rules": "classic", "faults": 1.5},
        {"rules": "classic", "site": "two words"},
    ],
)
def test_bad_requests_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(SimulationError):
        make_config(**kwargs)  # type: ignore[arg-type]


def test_unknown_viewer_is_refused() -> None:
    with pytest.raises(SimulationError):
        simulate_text(make_config(rules="classic", players=3, view="dave"), 1)


def test_collections_name_pots_and_sum_to_pot_less_rake() -> None:
    for hand in _hands(simulate_text(make_config(rules="italian", structure="pot", players=7, seed=6), 200)[0]):
        paid = sum(c.amount for c in hand.events if isinstance(c, Collected))
        assert paid == hand.summary.total - hand.summary.rake


def test_a_deal_that_runs_out_of_cards_is_dealt_again() -> None:
    """Six stellapoker players on 5th street need 30 cards and 3 burns from 32, a hand RULES.md cannot end.

    Seed 1001's session 10 (pot limit, six players) comes to that at its
    1,743rd hand, where the simulator used to stop on an empty deck; now it
    plays the deal again with new cards, so the hand written is valid.  The
    session reports each deal it plays again, so the test knows the re-deal
    happened, and where.
    """
    import itertools

    redealt: list[str] = []
    config = make_config(rules="stellapoker", structure="pot", players=6, seed=1001)
    hands = list(itertools.islice(session_mod.session_hands(config, 10, 2000, on_redeal=redealt.append), 1745))
    assert redealt == ["1001-10-1743"]  # the one deal that ran out of cards, dealt again
    assert len(hands) == 1745
    for hand in hands[1730:]:
        result = replay(hand)
        assert (result.verdict, result.findings) == ("ok", ()), hand.hand_id
