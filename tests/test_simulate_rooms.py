"""``hhtool simulate --rules FILE``: hands dealt, bet and raked under a room file; the simulator's own rake as a rake rule.

The simulator's own rake (:data:`hhtool.simulate.config.HOUSE_RAKE`) is
computed by :meth:`hhtool.game.rake.RakeRule.due`, the audit's
computation, and gives what the simulator always took (the same bytes for
every existing seed: checked by hand against files written before, and
here amount by amount against the old formula).  Under a room file the
hands replay ``ok`` under that room, with its rake on every Rake line;
replayed under the base profile alone, they break it where the room
differs.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from hhtool.game.room import Room, builtin_room, load_room, rooms_of
from hhtool.game.rules import round_of_street
from hhtool.history.events import BettingCapped, Hand, Street, Vela
from hhtool.history.money import display_amount
from hhtool.history.reader import read_text
from hhtool.replay import replay
from hhtool.simulate import make_config, simulate_text, write_simulation
from hhtool.simulate.config import HOUSE_CAP, HOUSE_RAKE, SITES, SimulationError, Site
from hhtool.simulate.mutate import FAULTS_BY_NAME
from hhtool.simulate.settle import rake_for
from tests.inprocess import hhtool

ROOM = """\
[room]
name = "Circolo Vela"
sites = ["Circolo", "Vela"]
base = "classic"

[rules]
cap_heads_up = true
cap_bets = 3
tie_break = "split"

[rake]
percent = 4
cap = "0.75"
currencies = ["EUR"]
from_street = "3rd"
"""


def room_file(tmp_path: Path, text: str = ROOM, name: str = "circolo.toml") -> Room:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_room(path)


def hands_of(text: str) -> list[Hand]:
    records = list(read_text(text))
    hands = [r for r in records if isinstance(r, Hand)]
    assert len(hands) == len(records), [r for r in records if not isinstance(r, Hand)][:1]
    return hands


def reached_round(hand: Hand) -> int:
    """The last betting round whose cards were dealt, read from the history (1 = 2nd street)."""
    for e in reversed(hand.events):
        if isinstance(e, Vela):
            return 5  # classic: the vela has its round
        if isinstance(e, Street):
            return round_of_street(e.name)
    return 1


def old_rake(total: int, site: Site, small: int, big: int, saw_third: bool) -> int:
    """The simulator's rake as it was written before it became a rake rule."""
    if not site.cash or not saw_third:
        return 0
    return min(total * 5 // 100 // 5 * 5, big + small // 2)


# --- the simulator's own rake, as a rule -----------------------------------------------------


def test_the_house_cap_is_the_old_big_bet_and_half_a_small_bet() -> None:
    """1.25 big bets, rounded down, is ``big + small // 2`` at any stakes whose big bet is two small bets."""
    for small in range(1, 2001):
        assert HOUSE_CAP.units(True, 2 * small) == 2 * small + small // 2
        assert HOUSE_CAP.units(False, 2 * small) == 2 * small + small // 2


@pytest.mark.parametrize("site", ["Vela", "StellaPoker", "Tavolo", "Casino"])
@pytest.mark.parametrize("structure", ["fixed", "pot", "no"])
@pytest.mark.parametrize("rules", ["classic", "stellapoker", "italian"])
def test_the_house_rake_is_the_old_formula(rules: str, structure: str, site: str) -> None:
    config = make_config(rules=rules, structure=structure, site=site)
    assert config.rake == HOUSE_RAKE and config.room is None
    st = config.stakes
    assert st.rake_cap == st.big_bet + st.small_bet // 2
    for total in [*range(0, 400), *range(400, 12000, 37)]:
        for reached in (1, 2, 4, 5):
            want = old_rake(total, config.site, st.small_bet, st.big_bet, reached > 1)
            assert rake_for(total, config, 6, reached) == want, (total, reached)


def test_the_house_rake_is_what_docs_simulate_says_a_room_file_would_write(tmp_path: Path) -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "simulate.md").read_text(encoding="utf-8")
    block = doc.split("```toml\n[rake]\n", 1)[1].split("```", 1)[0]
    room = room_file(tmp_path, '[room]\nname = "House"\nbase = "classic"\n\n[rake]\n' + block)
    assert room.rake == HOUSE_RAKE


def test_the_house_rake_in_words_is_the_audits() -> None:
    style = SITES["Vela"].money
    due = HOUSE_RAKE.due(1234, currency="EUR", cents=True, big_bet=200, players=6, reached_round=2, fmt=lambda a: display_amount(a, style))
    assert due.amount == 60
    assert due.words == "5 % of €12.34, rounded down to a multiple of €0.05, is €0.60, under the cap of €2.50 (1.25 big bets of €2.00)"


# --- a room's rules and rake -----------------------------------------------------------------


def test_a_room_file_deals_bets_and_rakes_by_the_room(tmp_path: Path) -> None:
    room = room_file(tmp_path)
    config = make_config(rules=room, structure="fixed", players=4, seed=11)
    assert config.room == room and config.rake == room.rake and config.rules == room.rules
    assert config.site.name == "Circolo"  # the room's first site: an audit with the room's folder picks it
    hands = hands_of(simulate_text(config, 600)[0])
    rooms = rooms_of([room])
    assert room.rake is not None
    rakes: Counter[str] = Counter()
    for h in hands:
        assert (h.header.site, h.header.profile) == ("Circolo", "classic")
        assert rooms.for_hand(h.header.site, h.header.profile) is room
        r = replay(h, room=room)
        assert r.verdict == "ok" and r.findings == (), (h.hand_id, r.findings)
        due = room.rake.due(
            h.summary.total, currency="EUR", cents=True, big_bet=h.header.big_bet, players=len(h.seats),
            reached_round=reached_round(h), fmt=str,
        )
        assert h.summary.rake == due.amount, h.hand_id
        rakes["cap" if due.amount == 75 else "none" if due.amount == 0 else "percent"] += 1
        if due.amount not in (0, 75):
            assert due.amount == h.summary.total * 4 // 100
    assert min(rakes.values()) >= 5, rakes  # the cap, 4 % to the cent, and nothing (hands over on 2nd street)
    # not the simulator's own rake: 4 % to the cent, capped at €0.75
    assert any(h.summary.rake != old_rake(h.summary.total, config.site, 50, 100, True) for h in hands if reached_round(h) > 1)


def test_the_rooms_hands_break_the_base_profile_where_the_room_differs(tmp_path: Path) -> None:
    """The room caps at three bets and lifts the cap heads-up: classic (four, capped heads-up too) objects to the raises heads-up."""
    room = room_file(tmp_path)
    hands = [h for players in (2, 5) for h in hands_of(simulate_text(make_config(rules=room, structure="fixed", players=players, seed=11), 300)[0])]
    found: Counter[str] = Counter()
    for h in hands:
        assert replay(h, room=room).verdict == "ok"
        r = replay(h)  # classic alone: the Rake line is taken as stated
        codes = {f.code for f in r.findings}
        found.update(codes)
        assert codes <= {"raise_over_cap", "info_capped", "wrong_winner", "wrong_amount"}, (h.hand_id, r.findings)
        if "raise_over_cap" in codes:
            assert r.verdict == "invalid"
            line = next(f.line for f in r.findings if f.code == "raise_over_cap")
            assert line > h.header.line
        # a round the room capped at three bets breaks no rule of classic's: its 'Betting is capped' line is only a warning
        if codes == {"info_capped"}:
            assert r.verdict == "ok" and any(isinstance(e, BettingCapped) for e in h.events)
    assert found["raise_over_cap"] >= 5 and found["info_capped"] >= 5, found  # and the tie-break: wrong_winner, at times


@pytest.mark.parametrize("site", ["Tavolo", "StellaPoker"])
def test_tables_in_money_the_room_does_not_rake_take_none(tmp_path: Path, site: str) -> None:
    room = room_file(tmp_path)
    config = make_config(rules=room, structure="pot", players=5, seed=4, site=site)
    assert config.site.name == site  # --site wins over the room's
    hands = hands_of(simulate_text(config, 200)[0])
    assert any(reached_round(h) > 1 and h.summary.total > 100 for h in hands)
    for h in hands:
        assert h.summary.rake == 0
        r = replay(h, room=room)
        assert r.verdict == "ok" and r.findings == (), (h.hand_id, r.findings)


def test_a_room_without_a_rake_keeps_the_simulators(tmp_path: Path) -> None:
    room = room_file(tmp_path, ROOM.split("[rake]")[0])
    assert room.rake is None
    config = make_config(rules=room, structure="pot", players=6, seed=2)
    assert config.rake == HOUSE_RAKE and config.room == room
    for h in hands_of(simulate_text(config, 200)[0]):
        assert h.summary.rake == old_rake(h.summary.total, config.site, 100, 200, reached_round(h) > 1)
        assert replay(h, room=room).verdict == "ok"


def test_italian_options_on_a_room_that_allows_them(tmp_path: Path) -> None:
    text = '[room]\nname = "Tavola"\nsites = ["Tavola"]\nbase = "italian"\n\n[rules]\ntie_break = "split"\n\n[rake]\npercent = 3\ncap_big_bets = 1\n'
    room = room_file(tmp_path, text)
    config = make_config(rules=room, structure="fixed", players=6, seed=3, italian_options="vela-at-start,wild=T")
    assert config.rules.wild == 10 and config.rules.vela == "at_start"
    hands = hands_of(simulate_text(config, 150)[0])
    assert any(h.summary.rake > 0 for h in hands)  # Tavola, a site the simulator does not know, writes euros; the room rakes every money
    for h in hands:
        assert h.header.wild == 10 and h.header.vela_at_start
        r = replay(h, room=room)
        assert r.verdict == "ok" and r.findings == (), (h.hand_id, r.findings)
    classic_room = room_file(tmp_path, ROOM, "other.toml")
    with pytest.raises(SimulationError, match="no italian options"):
        make_config(rules=classic_room, italian_options="wild=9")


def test_requests_a_room_cannot_honour(tmp_path: Path) -> None:
    room = room_file(tmp_path)
    with pytest.raises(SimulationError, match="Circolo Vela.*for 2-6 players"):
        make_config(rules=room, players=7)
    odd = room_file(tmp_path, ROOM.replace('sites = ["Circolo", "Vela"]', 'sites = ["Circolo-Vela"]'), "odd.toml")
    with pytest.raises(SimulationError, match="first site 'Circolo-Vela'"):
        make_config(rules=odd)
    assert make_config(rules=odd, site="Vela").site.name == "Vela"
    # every parameter and no base: the headers would have no profile to name
    text = "\n".join(line for line in _builtin_classic().splitlines() if not line.startswith("name"))
    whole = room_file(tmp_path, text.replace("[room]", '[room]\nname = "Whole"'), "whole.toml")
    assert whole.base == ""
    with pytest.raises(SimulationError, match="no base profile"):
        make_config(rules=whole)


def _builtin_classic() -> str:
    from hhtool.game.rules import builtin_text

    return builtin_text("classic")


def test_a_built_in_profile_read_as_a_room_is_the_profile() -> None:
    for name in ("classic", "stellapoker", "italian"):
        by_room = make_config(rules=builtin_room(name), seed=3, faults=0.3)
        by_name = make_config(rules=name, seed=3, faults=0.3)
        assert by_room == by_name and by_room.room is None
        assert simulate_text(by_room, 40) == simulate_text(by_name, 40)


# --- faults under a room ---------------------------------------------------------------------


def test_faults_under_a_room_are_caught_by_the_room(tmp_path: Path) -> None:
    room = room_file(tmp_path)
    seen: Counter[str] = Counter()
    for structure in ("fixed", "pot"):
        text, manifest = simulate_text(make_config(rules=room, structure=structure, players=4, seed=8, faults=0.4), 200)
        by_id = {str(m["hand_id"]): m for m in manifest}
        assert len(by_id) == len(manifest) > 40
        for h in hands_of(text):
            r = replay(h, room=room)
            entry = by_id.get(h.hand_id)
            if entry is None:
                assert r.verdict == "ok" and r.findings == (), (h.hand_id, r.findings)
                continue
            assert entry["room"] == "Circolo Vela"
            seen[f"{entry['fault']}:{entry['code']}"] += 1
            first = r.findings[0]
            assert (first.code, first.line, r.verdict) == (entry["code"], entry["fault_line"], entry["verdict"]), (entry, r.findings)
            assert all(f.caused_by == 0 for f in r.findings[1:]), (entry, r.findings)
    assert seen["rake_wrong:rake_over"] > 0 and not any(k.startswith("rake_wrong:wrong_amount") for k in seen), seen
    # the room lifts the cap heads-up: four raises between two players break no rule of it
    assert not any(k.startswith("raise_over_cap") for k in seen), seen
    assert len(seen) >= 12, seen


def test_the_rake_fault_follows_the_room(tmp_path: Path) -> None:
    room = room_file(tmp_path)
    rake_wrong = FAULTS_BY_NAME["rake_wrong"]
    h = next(h for h in hands_of(simulate_text(make_config(rules=room, seed=5), 50)[0]) if h.summary.rake > 0)
    raised = rake_wrong.alter(h, random.Random(0), room)
    assert raised is not None and raised[1] == "rake_over"
    assert raised[0].hand.summary.rake > h.summary.rake
    assert replay(raised[0].hand, room=room).findings[0].code == "rake_over"
    plain = rake_wrong.alter(h, random.Random(0))
    assert plain is not None and plain[1] == "wrong_amount"
    no_rake = room_file(tmp_path, ROOM.split("[rake]")[0], "norake.toml")
    assert rake_wrong.alter(h, random.Random(0), no_rake) == plain  # a Rake line no room rules: as the profile
    # lowered (the class lowers a rake too close to the pot to raise): under
    high = replace(h, summary=replace(h.summary, rake=h.summary.total - 1))
    lowered = rake_wrong.alter(high, random.Random(0), room)
    assert lowered is not None and lowered[0].hand.summary.rake < high.summary.rake and lowered[1] == "rake_under"


def test_raise_over_cap_uses_the_rooms_cap(tmp_path: Path) -> None:
    """A room that keeps the cap heads-up but caps at three: the fourth bet, a raise earlier than classic's, is the fault's line."""
    capped = room_file(tmp_path, ROOM.replace("cap_heads_up = true\n", ""), "capped.toml")
    fault = FAULTS_BY_NAME["raise_over_cap"]
    hands = hands_of(simulate_text(make_config(rules=capped, structure="fixed", players=3, seed=6), 300)[0])
    applied = 0
    for h in hands:
        done = fault.alter(h, random.Random(0), capped)
        if done is None:
            continue
        altered, code = done
        by_profile = fault.alter(h, random.Random(0))
        assert by_profile is not None and by_profile[0].line == altered.line + 1  # classic's cap is one bet more
        r = replay(altered.hand, room=capped)
        assert (r.findings[0].code, r.findings[0].line, r.verdict) == (code, altered.line, "invalid"), r.findings
        applied += 1
    assert applied >= 3


def test_the_manifest_names_the_room(tmp_path: Path) -> None:
    room = room_file(tmp_path)
    out = tmp_path / "sim.txt"
    result = write_simulation(make_config(rules=room, seed=1, faults=0.25), 60, out)
    assert result.manifest is not None
    entries = [json.loads(line) for line in result.manifest.read_text(encoding="utf-8").splitlines()]
    assert entries and all(e["room"] == "Circolo Vela" for e in entries)
    assert set(entries[0]) == {"hand_id", "line", "fault", "code", "verdict", "change", "fault_line", "room"}


# --- the command line ------------------------------------------------------------------------


def test_simulate_rules_file_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "circolo.toml"
    path.write_text(ROOM, encoding="utf-8")
    out = tmp_path / "sim.txt"
    r = hhtool("simulate", "--hands", "30", "--rules", str(path), "--seed", "4", "--out", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("Circolo Hand #4-0-1: Telesina classic Fixed Limit (€0.50/€1.00)")
    assert text == simulate_text(make_config(rules=load_room(path), seed=4), 30)[0]
    bad = tmp_path / "bad.toml"
    bad.write_text(ROOM.replace("cap_bets = 3", "cap_bet = 3"), encoding="utf-8")
    r = hhtool("simulate", "--rules", str(bad), "--out", str(tmp_path / "x.txt"))
    assert r.returncode == 2 and "cap_bet" in r.stderr and "cap_bets" in r.stderr
    r = hhtool("simulate", "--rules", "Classic", "--hands", "10", "--seed", "4", "--out", str(tmp_path / "c.txt"))
    assert r.returncode == 0
    assert (tmp_path / "c.txt").read_text(encoding="utf-8") == simulate_text(make_config(rules="classic", seed=4), 10)[0]
