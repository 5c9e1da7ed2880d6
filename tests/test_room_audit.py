"""The audit under a room's file: the rake ruled rather than trusted, and the room's rules judging its hands.

Every hand here is a real history: the format example of
``sample_histories/000_format_example.txt`` (four players, classic, a
€11.40 pot that reaches the vela), edited line by line to make each case,
and replayed with :func:`hhtool.replay.replay` under a room file written to
disk and read by :func:`hhtool.game.room.load_room`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hhtool.game.room import Room, load_room, load_rooms
from hhtool.history.events import Hand
from hhtool.history.parse import parse_hand_text
from hhtool.replay import replay
from hhtool.replay.audit import AuditResult, audit_paths, to_json, to_text, verdict_text
from hhtool.replay.result import Replay

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "sample_histories" / "000_format_example.txt").read_text(encoding="utf-8").split("\n\n")[0].strip() + "\n"
TOTAL = 1140  # the example's total pot, in cents; its Rake line says €0.50 and bob collects €10.90


def room_file(tmp_path: Path, body: str, name: str = "vela.toml") -> Room:
    path = tmp_path / name
    path.write_text('[room]\nname = "Circolo Vela"\nsites = ["Vela"]\nbase = "classic"\n\n' + body, encoding="utf-8")
    return load_room(path)


def hand(text: str) -> Hand:
    return parse_hand_text(text.strip(), source="hand.txt")


def euros(cents: int) -> str:
    return f"€{cents // 100}.{cents % 100:02d}"


def raked(rake: int, collected: int, text: str = EXAMPLE) -> str:
    """The example with another Rake line and bob's collection (and seat line) changed to match ``collected``."""
    return text.replace("Rake €0.50", f"Rake {euros(rake)}").replace("€10.90", euros(collected))


def chips(text: str) -> str:
    """The example at a play-chip table: every amount in whole chips (€0.10 -> 10)."""
    return re.sub(r"€(\d+)\.(\d\d)", lambda m: str(int(m.group(1)) * 100 + int(m.group(2))), text)


def words(r: Replay) -> str:
    return verdict_text(AuditResult("hand.txt", r, None))


def codes(r: Replay) -> list[str]:
    return [f.code for f in r.findings]


# --- the floor manager's two cases -------------------------------------------------------------


def test_a_raised_rake_line_is_not_ruled_against_the_winner(tmp_path: Path) -> None:
    """History says €1.00, the room took €0.50 (the collections say so): the Rake line is wrong, not bob's money."""
    room = room_file(tmp_path, '[rake]\npercent = 5\ncap = "0.50"\ncurrencies = ["EUR", "USD"]\n')
    text = raked(100, 1090)
    with_room = replay(hand(text), room=room)
    assert codes(with_room) == ["rake_over"]
    assert with_room.payouts == {"bob": 1090} == with_room.claimed
    said = words(with_room)
    assert "as Circolo Vela's rules award it after the room's rake of €0.50" in said
    assert "the Rake line says the room took €1.00, €0.50 more than its rules allow (5 % of €11.40 is €0.57, over the cap of €0.50" in said
    finding = with_room.findings[0]
    assert finding.line == 52 and "vela.toml line 7 (percent = 5), line 8 (cap = \"0.50\")" in finding.message
    # without the room's file the audit must not take a side
    alone = replay(hand(text))
    said = words(alone)
    assert said.startswith("The Rake line (€1.00) and the collections (€10.90) disagree: together they make €11.90, €0.50 more than the total pot of €11.40.")
    assert "Either the rake or a collection is wrong" in said and "docs/rooms.md" in said
    assert "belongs" not in said and "short" not in said


def test_a_room_that_overcharged_is_named_with_who_was_short(tmp_path: Path) -> None:
    """The room took €1.00 where its rules take €0.50, and the collections follow its €1.00: bob was short €0.50."""
    room = room_file(tmp_path, '[rake]\npercent = 5\ncap = "0.50"\n')
    text = raked(100, 1040)
    r = replay(hand(text), room=room)
    assert r.verdict == "disputed" and codes(r) == ["rake_over"]
    assert r.payouts == {"bob": 1090} and r.claimed == {"bob": 1040}
    said = words(r)
    assert said.startswith("The room took €1.00 in rake, €0.50 more than its rules allow (5 % of €11.40 is €0.57, over the cap of €0.50")
    assert "bob was paid €10.40, short by €0.50. Under Circolo Vela's rules the pot belongs to bob (€10.90)." in said
    # the history agrees with itself: without the room's file there is nothing to rule on
    assert replay(hand(text)).verdict == "ok"


def test_a_rake_on_play_chips_where_the_room_takes_none(tmp_path: Path) -> None:
    room = room_file(tmp_path, '[rake]\npercent = 5\ncap = "1.00"\ncurrencies = ["EUR", "USD"]\n')
    r = replay(hand(chips(EXAMPLE)), room=room)  # Rake 50 chips, bob collects 1,090
    assert codes(r) == ["rake_over"] and r.payouts == {"bob": 1140}
    assert "the room takes no rake from play chips: it rakes EUR and USD only" in r.findings[0].message
    assert "currencies = [\"EUR\", \"USD\"]" in r.findings[0].message
    assert "short by 50 chips" in words(r)
    unraked = replay(hand(chips(raked(0, TOTAL))), room=room)
    assert unraked.verdict == "ok" and unraked.payouts == {"bob": 1140}


# --- each rake key: right, over and under --------------------------------------------------------

RAKES = [
    # (the [rake] table, the rake it takes from the example's €11.40, words the computation must hold)
    ("percent = 5", 57, "5 % of €11.40 is €0.57"),
    ("percent = 4.5", 51, "4.5 % of €11.40, rounded down to the cent, is €0.51"),
    ('percent = 5\nstep = "0.05"', 55, "5 % of €11.40, rounded down to a multiple of €0.05, is €0.55"),
    ('percent = 5\ncap = "0.40"', 40, "over the cap of €0.40: the rake is €0.40"),
    ('percent = 5\ncap = "1.00"', 57, "under the cap of €1.00"),
    ("percent = 10\ncap_big_bets = 1", 100, "over the cap of €1.00 (1 big bet of €1.00)"),
    ("percent = 10\ncap_big_bets = 0.5", 50, "over the cap of €0.50 (0.5 big bets of €1.00)"),
    (
        'percent = 10\ncap = "3.00"\n[[rake.caps]]\nbig_bet_max = "0.50"\ncap = "0.20"\n[[rake.caps]]\nbig_bet_max = "2.00"\nplayers_max = 3\ncap = "0.30"\n'
        '[[rake.caps]]\nbig_bet_max = "2.00"\nplayers_min = 4\ncap = "0.60"\n',
        60,
        "over the cap of €0.60 for stakes up to a big bet of €2.00, 4 players or more: the rake is €0.60",
    ),
    ('percent = 5\ncurrencies = ["USD"]', 0, "the room takes no rake from a table in EUR: it rakes USD only"),
    ('percent = 5\nfrom_street = "3rd"', 57, "5 % of €11.40 is €0.57"),
]


@pytest.mark.parametrize("table, due, computed", RAKES)
def test_each_rake_key_rules_the_rake_line(tmp_path: Path, table: str, due: int, computed: str) -> None:
    room = room_file(tmp_path, f"[rake]\n{table}\n")
    right = replay(hand(raked(due, TOTAL - due)), room=room)
    assert right.verdict == "ok", right.findings
    assert right.payouts == {"bob": TOTAL - due}
    assert right.rake_check is not None and right.rake_check.due == due and computed in right.rake_check.words
    for stated, code in ((due + 10, "rake_over"), (due - 10, "rake_under")):
        if stated < 0:
            continue
        r = replay(hand(raked(stated, TOTAL - stated)), room=room)
        assert codes(r) == [code], r.findings
        assert r.payouts == {"bob": TOTAL - due} and r.claimed == {"bob": TOTAL - stated}
        assert computed in r.findings[0].message and f"the room took {euros(stated)} in rake" in r.findings[0].message
        said = words(r)
        if code == "rake_over":
            assert "€0.10 more than its rules allow" in said and "short by €0.10" in said
        else:
            assert "€0.10 less than its rules allow" in said and "€0.10 more than the rules give" in said


ENDS_ON_2ND = """\
Vela Hand #C-2001: Telesina classic Fixed Limit (€0.50/€1.00) - ante €0.10, bring-in €0.20 - 2026/11/29 18:05:00 UTC
Table 'Vela 1' 6-max Seat #4 is the button
Seat 1: alice (€20.00 in chips)
Seat 2: bob (€20.00 in chips)
Seat 3: carol (€20.00 in chips)
alice: posts the ante €0.10
bob: posts the ante €0.10
carol: posts the ante €0.10
*** 2nd STREET ***
Dealt to alice [Qc Qs]
Dealt to bob [Js Jh]
Dealt to carol [7c 9s]
alice: brings in for €0.20
bob: completes it to €0.50
carol: folds
alice: folds
Uncalled bet (€0.30) returned to bob
bob collected €0.70 from pot
*** SUMMARY ***
Total pot €0.70 | Rake €0.00
Seat 1: alice folded on 2nd Street
Seat 2: bob collected (€0.70)
Seat 3: carol folded on 2nd Street
"""


def test_from_street_takes_nothing_from_a_hand_that_ends_on_2nd_street(tmp_path: Path) -> None:
    room = room_file(tmp_path, '[rake]\npercent = 10\nfrom_street = "3rd"\n')
    r = replay(hand(ENDS_ON_2ND), room=room)
    assert r.verdict == "ok" and r.payouts == {"bob": 70}
    raked_anyway = replay(hand(ENDS_ON_2ND.replace("Rake €0.00", "Rake €0.05").replace("€0.70 from pot", "€0.65 from pot").replace("collected (€0.70)", "collected (€0.65)")), room=room)
    assert codes(raked_anyway) == ["rake_over"]
    assert "the room takes no rake from a hand that ends before 3rd street" in raked_anyway.findings[0].message
    # the same room without from_street rakes it: 10 % of €0.70
    every = room_file(tmp_path, "[rake]\npercent = 10\n", "every.toml")
    assert codes(replay(hand(ENDS_ON_2ND), room=every)) == ["rake_under"]


# --- the room's rules judge its hands ---------------------------------------------------------------

# 5th street heads-up (carol and dave have folded): a bet and four raises, one more than classic's cap
HEADS_UP_RAISES = EXAMPLE.replace(
    "bob: bets €1.00\nalice: raises €1.00 to €2.00\nbob: calls €1.00\n",
    "bob: bets €1.00\nalice: raises €1.00 to €2.00\nbob: raises €1.00 to €3.00\nalice: raises €1.00 to €4.00\nbob: raises €1.00 to €5.00\nalice: calls €1.00\n",
).replace("€11.40", "€17.40").replace("€10.90", "€16.90")
# the same street with a bet and three raises: within classic's cap, over a room's cap of three
FOUR_BETS = EXAMPLE.replace(
    "bob: bets €1.00\nalice: raises €1.00 to €2.00\nbob: calls €1.00\n",
    "bob: bets €1.00\nalice: raises €1.00 to €2.00\nbob: raises €1.00 to €3.00\nalice: raises €1.00 to €4.00\nbob: calls €1.00\n",
).replace("€11.40", "€15.40").replace("€10.90", "€14.90")


def test_a_room_lifting_the_cap_heads_up(tmp_path: Path) -> None:
    textbook = replay(hand(HEADS_UP_RAISES))
    assert "raise_over_cap" in codes(textbook) and "RULES.md §5 cap" in textbook.findings[0].message
    room = room_file(tmp_path, "[rules]\ncap_heads_up = true\n")
    assert replay(hand(HEADS_UP_RAISES), room=room).verdict == "ok"


def test_a_fourth_bet_where_the_room_caps_at_three_cites_the_room(tmp_path: Path) -> None:
    assert replay(hand(FOUR_BETS)).verdict == "ok"
    room = room_file(tmp_path, "[rules]\ncap_bets = 3\n")
    r = replay(hand(FOUR_BETS), room=room)
    assert r.verdict == "invalid" and codes(r)[0] == "raise_over_cap"
    first = r.findings[0]
    assert first.line == FOUR_BETS.splitlines().index("alice: raises €1.00 to €4.00") + 1
    assert "Circolo Vela's rules" in first.message and "vela.toml line 7 (cap_bets = 3)" in first.message
    assert "RULES.md" not in first.message
    assert words(r).startswith("This hand could not have happened under Circolo Vela's rules")


def test_one_hand_pays_differently_under_two_rooms_tie_rules(tmp_path: Path) -> None:
    """The example's two pair tie on ranks: card order gives bob the pot; a room that splits pays both."""
    splits = room_file(tmp_path, '[rules]\ntie_break = "split"\n', "split.toml")
    suits = room_file(tmp_path, "[rules]\n", "suits.toml")
    by_suits = replay(hand(EXAMPLE), room=suits)
    split = replay(hand(EXAMPLE), room=splits)
    assert by_suits.verdict == "ok" and by_suits.payouts == {"bob": 1090}
    assert split.payouts == {"alice": 545, "bob": 545}
    assert codes(split) == ["wrong_winner"] and 'split.toml line 7 (tie_break = "split")' in split.findings[0].message
    assert 'split.toml line 7 (tie_break = "split")' in split.pots[0].reason


# --- the audit's report ---------------------------------------------------------------------------


def test_audit_picks_the_room_by_site_and_profile_and_reports_it(tmp_path: Path) -> None:
    rooms_dir = tmp_path / "rooms"
    rooms_dir.mkdir()
    (rooms_dir / "vela.toml").write_text('[room]\nname = "Circolo Vela"\nsites = ["vela"]\nbase = "classic"\n[rake]\npercent = 5\ncap = "0.50"\n', encoding="utf-8")
    (rooms_dir / "other.toml").write_text('[room]\nname = "Altrove"\nsites = ["Vela"]\nbase = "italian"\n', encoding="utf-8")
    rooms = load_rooms(rooms_dir, required=True)
    histories = tmp_path / "h.txt"
    histories.write_text(raked(100, 1040), encoding="utf-8")
    (result,) = list(audit_paths([histories], rooms=rooms, equity=False))
    assert result.replay is not None and result.replay.room is not None and result.replay.room.name == "Circolo Vela"
    text = to_text(result)
    assert "rules: Circolo Vela (" in text and "rake by the room's rules: €0.50" in text
    data = to_json(result)
    assert data["room"]["name"] == "Circolo Vela" and data["rake"]["due"] == 50 and data["rake"]["stated"] == 100
    assert data["findings"][0]["code"] == "rake_over"
    # another site, or the same site under another profile: the textbook rules
    (plain,) = list(audit_paths([histories], equity=False))
    assert plain.replay is not None and plain.replay.room is None and to_json(plain)["room"] is None


def test_a_room_rebuilt_from_its_record_replays_as_the_file(tmp_path: Path) -> None:
    """The database keeps a room's canonical rules (``rooms.rules``): rebuilt from them, the room rules every hand as its file did."""
    from hhtool.game.room import room_from_record

    room = room_file(
        tmp_path,
        '[rules]\ncap_bets = 3\ntie_break = "split"\n[rake]\npercent = 4.5\nstep = "0.05"\ncap_big_bets = 0.75\ncurrencies = ["EUR"]\n'
        'from_street = "3rd"\n[[rake.caps]]\nbig_bet_max = "2.00"\nplayers_max = 3\ncap = "0.30"\n',
    )
    back = room_from_record(room.name, room.base, room.sites, room.source, room.canonical())
    assert back.rules == room.rules and back.rake == room.rake and back.changed == room.changed and back.digest == room.digest
    for text in (EXAMPLE, raked(100, 1040), FOUR_BETS):
        a, b = replay(hand(text), room=room), replay(hand(text), room=back)
        assert (a.verdict, a.payouts, codes(a)) == (b.verdict, b.payouts, codes(b))
    # the record keeps the keys' values, not their lines: the finding cites the file and the value
    cited = replay(hand(FOUR_BETS), room=back).findings[0].message
    assert cited.endswith("vela.toml: cap_bets = 3)") and "line " not in cited.rpartition("(")[2]


def test_the_python_api_takes_a_room(tmp_path: Path) -> None:
    from hhtool import api as hhtool  # what ``import hhtool`` gives

    path = tmp_path / "rooms"
    path.mkdir()
    (path / "vela.toml").write_text('[room]\nname = "Circolo Vela"\nsites = ["Vela"]\nbase = "classic"\n[rake]\npercent = 5\ncap = "0.50"\n', encoding="utf-8")
    r = hhtool.replay_hand(hand(raked(100, 1040)), room=path / "vela.toml")
    assert codes(r) == ["rake_over"] and r.room is not None and r.room.name == "Circolo Vela"
    assert hhtool.load_room(path / "vela.toml").digest == r.room.digest
    histories = tmp_path / "h.txt"
    histories.write_text(raked(100, 1040), encoding="utf-8")
    (result,) = list(hhtool.audit_paths([histories], equity=False, rooms=path))
    assert result.verdict == "disputed" and hhtool.load_rooms(path).for_hand("Vela", "classic") is not None
