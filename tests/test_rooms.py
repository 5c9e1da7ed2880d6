"""A room's own rules as a file (docs/rooms.md): the built-in profiles as room files, ``hhtool rules show|check``, every
problem ``check`` finds (with its line), ``--rules FILE``, the rake a room's schedule takes, and the rules' digest.

Real files in ``tmp_path``, read by the library and by the command in this process (:mod:`tests.inprocess`).
"""

from __future__ import annotations

import re
from contextlib import chdir
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from hhtool.game.rake import Cap, CapRow, RakeDue, RakeRule
from hhtool.game.room import Room, RoomError, builtin_room, describe_changes, load_room, load_rooms, parse_room
from hhtool.game.rules import PROFILES, RuleSet, builtin_text
from tests.inprocess import hhtool

# --- the built-in profiles ------------------------------------------------------------------

# Today's profiles, every field written out (the constructors of hhtool/game/rules.py before the
# profiles became files, with RuleSet's defaults for the fields they left out).
TODAY = {
    "classic": RuleSet(
        name="classic",
        deck="fixed32",
        min_players=2,
        max_players=6,
        forced_bets="antes",
        bring_in=True,
        burns=False,
        vela="after_fifth",
        vela_betting_round=True,
        showing_tie="position",
        tie_break="card_order",
        sf_rule="heads_up_low_beats_royal",
        cap_bets=4,
        cap_heads_up=False,
        pair_showing_option=True,
        big_bet_from_round=3,
        big_blind_is_bet=False,
        showdown_order="last_aggressor_else_button_left",
        variants_allowed=False,
        wild=None,
        exposure="standard",
    ),
    "stellapoker": RuleSet(
        name="stellapoker",
        deck="fixed32",
        min_players=2,
        max_players=6,
        forced_bets="blinds",
        bring_in=False,
        burns=True,
        vela="none",
        vela_betting_round=False,
        showing_tie="position",
        tie_break="split",
        sf_rule="standard",
        cap_bets=4,
        cap_heads_up=False,
        pair_showing_option=True,
        big_bet_from_round=3,
        big_blind_is_bet=True,
        showdown_order="last_aggressor_else_opener",
        variants_allowed=False,
        wild=None,
        exposure="standard",
    ),
    "italian": RuleSet(
        name="italian",
        deck="by_players",
        min_players=2,
        max_players=8,
        forced_bets="antes",
        bring_in=False,
        burns=False,
        vela="none",
        vela_betting_round=False,
        showing_tie="suits",
        tie_break="ranks_then_suits",
        sf_rule="italian_cycle",
        cap_bets=4,
        cap_heads_up=False,
        pair_showing_option=True,
        big_bet_from_round=3,
        big_blind_is_bet=False,
        showdown_order="seat_order",
        variants_allowed=True,
        wild=None,
        exposure="standard",
    ),
}


@pytest.mark.parametrize("name", sorted(TODAY))
def test_the_builtin_profiles_read_as_room_files_are_todays_rules(name: str) -> None:
    room = builtin_room(name)
    assert room.rules == TODAY[name] == PROFILES[name]
    assert parse_room(builtin_text(name), f"{name}.toml", builtin=True).rules == TODAY[name]
    assert (room.name, room.base, room.sites, room.rake, room.changed) == (name, name, (), None, ())


@pytest.mark.parametrize("name", sorted(TODAY))
def test_rules_show_prints_the_profile_file_in_80_columns(name: str) -> None:
    r = hhtool("rules", "show", name)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == builtin_text(name)
    assert max(len(line) for line in r.stdout.splitlines()) <= 80


def test_rules_show_an_unknown_profile_lists_the_names() -> None:
    r = hhtool("rules", "show", "texas")
    assert r.returncode == 2 and r.stdout == ""
    assert "unknown rule profile 'texas': expected one of classic, stellapoker, italian" in r.stderr


@pytest.mark.parametrize("name", sorted(TODAY))
def test_a_room_file_started_from_rules_show_loads_back(name: str, tmp_path: Path) -> None:
    """``rules show NAME > room.toml``, then the floor manager names the room, its sites and its base: the same rules, nothing changed."""
    text = hhtool("rules", "show", name).stdout
    edited = text.replace(f'name = "{name}"', 'name = "Circolo Vela"')
    edited = edited.replace('# sites = ["Vela"]', 'sites = ["Vela", "VelaClub"]').replace(f'# base = "{name}"', f'base = "{name}"')
    assert edited.count("Circolo Vela") == 1 and 'sites = ["Vela", "VelaClub"]' in edited and f'\nbase = "{name}"' in edited
    path = tmp_path / "vela.toml"
    path.write_text(edited, encoding="utf-8")
    room = load_room(path)
    assert (room.name, room.sites, room.base) == ("Circolo Vela", ("Vela", "VelaClub"), name)
    assert room.rules == TODAY[name] and room.changed == () and room.rake is None
    assert room.lines["rules.tie_break"] == text.splitlines().index(f'tie_break = "{TODAY[name].tie_break}"'.ljust(27) + " # split | card_order | ranks_then_suits") + 1
    r = hhtool("rules", "check", str(path))
    assert r.returncode == 0, r.stderr
    assert f"  rules    as {name}" in r.stdout


def test_a_room_file_started_from_rules_show_without_its_base_is_told_it_governs_no_hands(tmp_path: Path) -> None:
    """Every parameter set but no base: the rules are complete (``--rules FILE`` uses them), but no hand header names them."""
    path = tmp_path / "vela.toml"
    path.write_text(builtin_text("classic").replace('name = "classic"', 'name = "Vela"').replace('# sites = ["Vela"]', 'sites = ["Vela"]'), encoding="utf-8")
    room = load_room(path)
    assert room.rules == replace(TODAY["classic"], name="Vela")
    assert room.base == "" and len(room.warnings) == 1
    assert room.warnings[0].startswith(f"{path}:9: no base profile: the room governs no hand of a history")
    r = hhtool("rules", "check", str(path))
    assert r.returncode == 0
    assert "base     none: every parameter is set in the file" in r.stdout and "warning  " in r.stdout


# --- rules check: every problem, with its line ------------------------------------------------

HEAD = '[room]\nname = "Circolo Vela"\nsites = ["Vela"]\nbase = "classic"\n'
"""A room's first four lines: its [rules] start on line 5 (a table header), its keys on line 6."""


def check(tmp_path: Path, text: str | bytes, name: str = "room.toml") -> tuple[list[str], str]:
    """Write ``text`` to a file and run ``hhtool rules check`` on it: its problems (each unwrapped to one line) and the last line."""
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with chdir(tmp_path):  # the file by a short name, as a floor manager checks one: every line fits 80 columns
        r = hhtool("rules", "check", name)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ""  # nothing of the file is shown as if it could be used
    assert max(len(line) for line in r.stderr.splitlines()) <= 80
    *problems, last = _unwrap(r.stderr)
    assert last == f"hhtool: {name}: the room file cannot be used"
    assert load_problems(path) == [f"{path}:{p[len(name) + 1 :]}" if p.startswith(f"{name}:") else p for p in problems]
    prefix = f"{name}:"
    assert all(p.startswith(prefix) for p in problems), problems
    return [p[len(prefix) :] for p in problems], last


def load_problems(path: Path) -> list[str]:
    """The problems :func:`load_room` raises: what ``check`` prints."""
    with pytest.raises(RoomError) as e:
        load_room(path)
    return e.value.problems


def _unwrap(stderr: str) -> list[str]:
    """The lines of ``stderr`` with the 4-space continuation lines of a wrapped problem joined back to it."""
    out: list[str] = []
    for line in stderr.splitlines():
        if line.startswith("    ") and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def one(tmp_path: Path, text: str | bytes) -> str:
    """The one problem of a room file: ``LINE: message``."""
    problems, _ = check(tmp_path, text)
    assert len(problems) == 1, problems
    return problems[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (HEAD + "[rulez]\ncap_bets = 3\n", "5: unknown table 'rulez'; did you mean 'rules'?"),
        (HEAD + "[house]\n", "5: unknown table 'house'; the known ones are room, rules, rake"),
        ('[room]\nname = "x"\nbase = "classic"\nsite = ["Vela"]\n', "4: unknown key in [room] 'site'; did you mean 'sites'?"),
        (HEAD + "[rules]\ncap_heads_upp = true\n", "6: unknown rule parameter 'cap_heads_upp'; did you mean 'cap_heads_up'?"),
        (HEAD + "[rules]\ntiebreak = 'split'\n", "6: unknown rule parameter 'tiebreak'; did you mean 'tie_break'?"),
        (HEAD + "[rake]\npercent = 5\ncapp = '1.00'\n", "7: unknown key in [rake] 'capp'; did you mean 'cap'?"),
        (HEAD + "[rake]\npercent = 5\n\n[[rake.caps]]\ncap = '1.00'\nplayers_mx = 2\n", "10: unknown key in [[rake.caps]] 'players_mx'; did you mean 'players_max'?"),
    ],
)
def test_an_unknown_table_or_key_names_its_line_and_the_nearest_known_name(tmp_path: Path, text: str, expected: str) -> None:
    assert one(tmp_path, text) == expected


@pytest.mark.parametrize(
    ("key", "allowed"),
    [
        ("deck", "fixed32, by_players"),
        ("forced_bets", "antes, blinds"),
        ("vela", "none, after_fifth, at_start"),
        ("showing_tie", "position, suits"),
        ("tie_break", "split, card_order, ranks_then_suits"),
        ("sf_rule", "standard, heads_up_low_beats_royal, italian_cycle"),
        ("showdown_order", "last_aggressor_else_button_left, last_aggressor_else_opener, seat_order"),
        ("exposure", "standard, carte_coperte, una_coperta"),
    ],
)
def test_a_wrong_word_lists_the_values_allowed(tmp_path: Path, key: str, allowed: str) -> None:
    assert one(tmp_path, HEAD + f'[rules]\n{key} = "Split"\n') == f'6: {key} = "Split": expected one of {allowed}'


@pytest.mark.parametrize("key", ["bring_in", "burns", "vela_betting_round", "cap_heads_up", "pair_showing_option", "big_blind_is_bet", "variants_allowed"])
@pytest.mark.parametrize("value", ['"yes"', "1"])
def test_a_flag_is_true_or_false(tmp_path: Path, key: str, value: str) -> None:
    assert one(tmp_path, HEAD + f"[rules]\n{key} = {value}\n") == f"6: {key} = {value}: expected true or false"


@pytest.mark.parametrize(
    ("key", "value", "bounds"),
    [
        ("cap_bets", "0", "1 to 100"),
        ("cap_bets", "101", "1 to 100"),
        ("cap_bets", "true", "1 to 100"),
        ("cap_bets", '"3"', "1 to 100"),
        ("cap_bets", "3.5", "1 to 100"),
        ("min_players", "1", "2 to 10"),
        ("max_players", "11", "2 to 10"),
        ("big_bet_from_round", "6", "1 to 5"),
        ("big_bet_from_round", "0", "1 to 5"),
    ],
)
def test_a_whole_number_out_of_its_range(tmp_path: Path, key: str, value: str, bounds: str) -> None:
    assert one(tmp_path, HEAD + f"[rules]\n{key} = {value}\n") == f"6: {key} = {value}: expected a whole number from {bounds}"


@pytest.mark.parametrize("value", ['"Z"', '"1"', "true", '"77"'])
def test_wild_is_none_or_a_rank(tmp_path: Path, value: str) -> None:
    assert one(tmp_path, HEAD.replace("classic", "italian") + f"[rules]\nwild = {value}\n") == (
        f'6: wild = {value}: expected "none" or a rank: 2, 3, 4, 5, 6, 7, 8, 9, T, J, Q, K, A'
    )


def test_wild_as_a_rank_or_none(tmp_path: Path) -> None:
    path = tmp_path / "wild.toml"
    path.write_text(HEAD.replace("classic", "italian") + '[rules]\nwild = "7"\nmin_players = 4\n', encoding="utf-8")
    assert load_room(path).rules.wild == 7 and load_room(path).changed == ("min_players", "wild")
    path.write_text(HEAD.replace("classic", "italian") + '[rules]\nwild = "none"\n', encoding="utf-8")
    assert load_room(path).rules.wild is None and load_room(path).changed == ()


def test_a_bad_base_lists_the_profiles(tmp_path: Path) -> None:
    assert one(tmp_path, HEAD.replace('"classic"', '"texas"')) == '4: base = "texas" is not a profile: expected one of classic, stellapoker, italian'
    assert one(tmp_path, HEAD.replace('"classic"', '"clasic"')).endswith("did you mean 'classic'?")


def test_an_italian_variant_needs_variants_allowed(tmp_path: Path) -> None:
    """RULES.md §4 makes wild cards, the exposures and the vela at the start italian variants: a room that plays them says so."""
    assert one(tmp_path, HEAD + '[rules]\nwild = "7"\n') == (
        '6: wild = "7" with variants_allowed = false: it is one of RULES.md\'s italian variants; set variants_allowed = true to play it'
    )
    assert one(tmp_path, HEAD + '[rules]\nvela = "at_start"\nvela_betting_round = false\n').startswith('6: vela = "at_start" with variants_allowed = false')
    path = tmp_path / "allowed.toml"
    path.write_text(HEAD + '[rules]\nvariants_allowed = true\nwild = "7"\n', encoding="utf-8")
    assert load_room(path).rules.wild == 7


@pytest.mark.parametrize("head", ['[room]\nsites = ["Vela"]\nbase = "classic"\n', '[room]\nname = "  "\nsites = ["Vela"]\nbase = "classic"\n'])
def test_a_room_needs_a_name(tmp_path: Path, head: str) -> None:
    line = "1" if "name" not in head else "2"
    assert one(tmp_path, head) == f'{line}: the room needs a name: name = "..." under [room]'


def test_no_base_and_not_every_parameter(tmp_path: Path) -> None:
    problem = one(tmp_path, '[room]\nname = "x"\n\n[rules]\ncap_bets = 3\n')
    assert problem.startswith('1: no base profile: give base = "classic" (or stellapoker, italian) under [room], or set every parameter (missing: deck, ')
    assert "cap_bets" not in problem and problem.endswith("wild, exposure)")


@pytest.mark.parametrize(
    ("base", "rules", "line", "message"),
    [
        ("italian", "min_players = 5\nmax_players = 4", 6, "min_players = 5 is more than max_players = 4"),
        ("italian", "max_players = 10", 6, 'max_players = 10 with deck = "by_players": the deck\'s lowest rank would be below 2 (11 less the players; at most 9)'),
        ("classic", "max_players = 7", 6, 'max_players = 7 with deck = "fixed32": 7 players to the showdown take 36 cards with the vela, and the deck holds 32'),
        ("stellapoker", "max_players = 7", 6, 'max_players = 7 with deck = "fixed32": 7 players to the showdown take 35 cards, and the deck holds 32'),
        ("stellapoker", "vela_betting_round = true", 6, 'vela_betting_round = true with vela = "none": a betting round after the vela needs vela = "after_fifth" (there is no vela)'),
        (
            "italian",
            'vela = "at_start"\nvela_betting_round = true',
            7,
            'vela_betting_round = true with vela = "at_start": a betting round after the vela needs vela = "after_fifth" '
            "(a vela dealt at the start is turned after the last round)",
        ),
        ("classic", 'forced_bets = "blinds"', 5, 'bring_in = true with forced_bets = "blinds": a bring-in follows antes, not blinds'),
        ("classic", "big_blind_is_bet = true", 6, 'big_blind_is_bet = true with forced_bets = "antes": there is no big blind'),
        ("italian", 'exposure = "carte_coperte"\nbring_in = true', 6, 'exposure = "carte_coperte" with bring_in = true: the bring-in goes to the highest door card, which this exposure deals down'),
        ("italian", 'wild = "5"', 6, 'wild = "5" with deck = "by_players": with 2 players (min_players) the deck starts at 9'),
    ],
)
def test_a_combination_rules_md_does_not_allow_names_both_keys(tmp_path: Path, base: str, rules: str, line: int, message: str) -> None:
    """Each check of ``_Checker.combinations``; the line is the key's where the file writes it, else its [rules] table's (line 5)."""
    assert one(tmp_path, HEAD.replace("classic", base) + f"[rules]\n{rules}\n") == f"{line}: {message}"


def test_burns_that_can_exhaust_the_deck_are_a_warning_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "room.toml"
    path.write_text(HEAD + "[rules]\nburns = true\nvela = \"none\"\nvela_betting_round = false\n", encoding="utf-8")
    room = load_room(path)
    assert room.warnings == (
        f"{path}:6: burns = true with max_players = 6: 6 players to 5th street take 33 cards with the burns, and the 32-card deck "
        "holds 32; a hand that gets there is deck_exhausted",
    )
    r = hhtool("rules", "check", str(path))
    assert r.returncode == 0 and "  warning  " in r.stdout and "deck_exhausted" in r.stdout


RAKE = HEAD + "\n[rake]\n"
"""A room with a [rake] table on line 6: its keys start on line 7."""


@pytest.mark.parametrize(
    ("rake", "expected"),
    [
        ('cap = "1.00"', ["6: the rake needs percent = N (of the total pot)"]),
        ("percent = 0", ["7: percent = 0: expected a number more than 0, at most 100"]),
        ("percent = 101", ["7: percent = 101: expected a number more than 0, at most 100"]),
        ('percent = "five"', ['7: percent = "five": expected a number from 0 to 100']),
        ('percent = 5\ncap = "1.00"\ncap_big_bets = 2', ["9: cap and cap_big_bets are both given: a cap is one or the other"]),
        ("percent = 5\ncap_big_bets = 0", ["8: cap_big_bets = 0: expected a number more than 0, at most 1000"]),
        ('percent = 5\ncurrencies = ["eur"]', ['8: currencies = ["eur"]: expected a list of ISO 4217 codes, "chips" for play chips: currencies = ["EUR", "USD"]']),
        ('percent = 5\ncurrencies = "EUR"', ['8: currencies = "EUR": expected a list of ISO 4217 codes, "chips" for play chips: currencies = ["EUR", "USD"]']),
        ('percent = 5\ncurrencies = ["EURO"]', ['8: currencies = ["EURO"]: expected a list of ISO 4217 codes, "chips" for play chips: currencies = ["EUR", "USD"]']),
        ('percent = 5\ncap = "€1.00"', ['8: cap = "€1.00": expected an amount in the table\'s money, as text: "1.00" (no currency sign)']),
        ('percent = 5\ncap = "1.005"', ['8: cap = "1.005": expected an amount in the table\'s money, as text: "1.00" (no currency sign)']),
        ("percent = 5\ncap = 1.5", ['8: cap = 1.5: expected an amount in the table\'s money, as text: "1.00" (no currency sign)']),
        ("percent = 5\ncap = -1", ['8: cap = -1: expected an amount in the table\'s money, as text: "1.00" (no currency sign)']),
        ('percent = 5\nstep = "0"', ["8: step must be more than 0"]),
        ('percent = 5\nstep = "five cents"', ['8: step = "five cents": expected an amount in the table\'s money, as text: "1.00" (no currency sign)']),
        ('percent = 5\nfrom_street = "6th"', ['8: from_street = "6th": expected one of 2nd, 3rd, 4th, 5th']),
        ('percent = 5\nfrom_street = "vela"', ['8: from_street = "vela": expected one of 2nd, 3rd, 4th, 5th']),
        ("percent = 5\ncaps = 5", ["8: caps must be rows written [[rake.caps]], each with cap or cap_big_bets and its bounds"]),
        # the cap table: a row with no cap, bounds that cannot hold, a bad stake
        ("percent = 5\n\n[[rake.caps]]\nplayers_max = 2", ['9: a row of the cap table needs cap = "…" or cap_big_bets = N']),
        ('percent = 5\n\n[[rake.caps]]\ncap = "1.00"\nplayers_min = 4\nplayers_max = 3', ["11: players_min = 4 is more than players_max = 3"]),
        ('percent = 5\n\n[[rake.caps]]\ncap = "1.00"\nplayers_min = 1', ["11: players_min = 1: expected a whole number of players from 2 to 10"]),
        ('percent = 5\n\n[[rake.caps]]\ncap = "1.00"\nplayers_max = "two"', ['11: players_max = "two": expected a whole number of players from 2 to 10']),
        ('percent = 5\n\n[[rake.caps]]\ncap = "1.00"\nbig_bet_max = "1,00"', ['11: big_bet_max = "1,00": expected an amount in the table\'s money, as text: "1.00" (no currency sign)']),
        (
            'percent = 5\n\n[[rake.caps]]\ncap = "1.00"\n\n[[rake.caps]]\ncap = "2.00"\ncap_big_bets = 1',
            ["14: cap and cap_big_bets are both given: a cap is one or the other"],
        ),
    ],
)
def test_the_rake_s_problems(tmp_path: Path, rake: str, expected: list[str]) -> None:
    problems, _ = check(tmp_path, RAKE + rake + "\n")
    assert problems == expected


@pytest.mark.parametrize("sites", ['"Vela"', '["Vela Club"]', "[1]", '[""]'])
def test_sites_are_a_list_of_one_word_names(tmp_path: Path, sites: str) -> None:
    assert one(tmp_path, HEAD.replace('["Vela"]', sites)) == '3: sites must be a list of site names as the hand headers write them, one word each: sites = ["Vela"]'


def test_a_file_that_is_not_toml_names_the_line(tmp_path: Path) -> None:
    problem = one(tmp_path, HEAD + "[rules]\ncap_bets = = 3\n")
    assert problem.startswith("6: not a TOML file: ") and problem.endswith("(at line 6, column 12)")


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    assert one(tmp_path, (HEAD.replace("Circolo Vela", "Caff\xe8") + "[rules]\n").encode("latin-1")) == "2: not UTF-8 text (byte 19)"
    assert one(tmp_path, b"\xef\xbb\xbf" + (HEAD.replace("Circolo Vela", "Caff\xe8")).encode("latin-1")) == "2: not UTF-8 text (byte 22)"


def test_a_file_with_several_problems_reports_them_all_in_the_order_of_its_lines(tmp_path: Path) -> None:
    text = (
        '[room]\nsites = ["Vela"]\nbase = "classic"\n'  # 1-3: no name
        "[rules]\n"  # 4
        "cap_heads_upp = true\n"  # 5
        'tie_break = "splitt"\n'  # 6
        "max_players = 7\n"  # 7: too many for the deck, unchecked: a wrong value in [rules] (line 6) stops the combinations
        "[rake]\n"  # 8
        'cap = "1.00"\n'  # 9: no percent
        'currencies = ["eur"]\n'  # 10
        "[tablex]\n"  # 11
    )
    problems, last = check(tmp_path, text)
    assert [p.split(":")[0] for p in problems] == ["1", "5", "6", "8", "10", "11"]
    assert problems[0] == '1: the room needs a name: name = "..." under [room]'
    assert last.startswith("hhtool: ") and last.endswith("the room file cannot be used")
    assert [p.split(": ", 1)[1].split()[0] for p in problems] == ["the", "unknown", "tie_break", "the", "currencies", "unknown"]


def test_the_combinations_are_checked_when_the_room_table_has_problems(tmp_path: Path) -> None:
    problems, _ = check(tmp_path, '[room]\nbase = "classic"\nsites = ["Vela"]\n[rules]\nmax_players = 7\n')
    assert problems == [
        '1: the room needs a name: name = "..." under [room]',
        '5: max_players = 7 with deck = "fixed32": 7 players to the showdown take 36 cards with the vela, and the deck holds 32',
    ]


def test_a_room_file_is_never_half_applied(tmp_path: Path) -> None:
    """A problem anywhere: no room at all, no command runs under part of it, and a folder with one bad file gives no rooms."""
    good = tmp_path / "rooms" / "good.toml"
    bad = tmp_path / "rooms" / "bad.toml"
    good.parent.mkdir()
    good.write_text(HEAD + "[rules]\ntie_break = \"split\"\n", encoding="utf-8")
    bad.write_text(HEAD.replace("Vela", "Stella") + "[rules]\ntie_break = \"split\"\ncap_bets = 0\n", encoding="utf-8")
    with pytest.raises(RoomError) as e:
        load_room(bad)
    assert e.value.problems == [f"{bad}:7: cap_bets = 0: expected a whole number from 1 to 100"]
    with pytest.raises(RoomError) as e:
        load_rooms(good.parent)
    assert e.value.problems == [f"{bad}:7: cap_bets = 0: expected a whole number from 1 to 100"]
    r = hhtool("rank", "--rules", str(bad), "Ah Kd Qc 9s 8s", "As Kc Qd 9h 8h")
    assert r.returncode == 2 and r.stdout == ""
    assert f"{bad}:7: cap_bets = 0" in r.stderr
    r = hhtool("rules", "check", "--rooms", str(good.parent))
    assert r.returncode == 2
    assert "good.toml: ok" in r.stdout and "bad.toml: ok" not in r.stdout
    assert r.stderr.splitlines()[-1] == "hhtool: 1 of 2 room files cannot be used"


# --- two rooms claiming one site -------------------------------------------------------------


def rooms_folder(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "rooms"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_two_rooms_claiming_one_site_and_profile(tmp_path: Path) -> None:
    folder = rooms_folder(
        tmp_path,
        {
            "a.toml": HEAD,
            "b.toml": '[room]\nname = "Vela Due"\nbase = "classic"\nsites = ["Stella", "VELA"]\n',
            "c.toml": '[room]\nname = "Stella di Sera"\nsites = ["Vela"]\nbase = "stellapoker"\n',  # another profile: no clash
        },
    )
    with pytest.raises(RoomError) as e:
        load_rooms(folder)
    message = f"{folder / 'b.toml'}:4: site 'VELA' (classic) is governed by {folder / 'a.toml'} too; a site's hands of one profile have one room"
    assert e.value.problems == [message]
    r = hhtool("rules", "check", "--rooms", str(folder))
    assert r.returncode == 2
    assert _unwrap(r.stderr) == [message, "hhtool: 1 site claimed by two rooms"]
    # the same files named one by one
    r = hhtool("rules", "check", *(str(folder / n) for n in ("a.toml", "b.toml")))
    assert r.returncode == 2 and _unwrap(r.stderr)[0] == message


def test_a_folder_s_problems_and_its_clashes_are_told_together(tmp_path: Path) -> None:
    folder = rooms_folder(tmp_path, {"a.toml": HEAD, "b.toml": HEAD, "c.toml": HEAD + "[rules]\ncap_bets = 0\n"})
    with pytest.raises(RoomError) as e:
        load_rooms(folder)
    assert [p.split(": ")[0] for p in e.value.problems] == [f"{folder / 'c.toml'}:6", f"{folder / 'b.toml'}:3"]


def test_a_folder_that_checks_lists_the_hands_each_room_governs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rooms_folder(
        tmp_path,
        {
            "vela.toml": HEAD.replace('["Vela"]', '["Vela", "VelaClub"]') + '[rules]\ncap_heads_up = true\ntie_break = "split"\n',
            "stella.toml": '[room]\nname = "Stella di Sera"\nsites = ["StellaPoker"]\nbase = "stellapoker"\n',
        },
    )
    r = hhtool("rules", "check", "--rooms", "rooms")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-4:] == [
        "rooms: 2 room files, no problems; the hands each governs:",
        "  StellaPoker, stellapoker: Stella di Sera (rooms/stella.toml)",
        "  Vela, classic: Circolo Vela (rooms/vela.toml)",
        "  VelaClub, classic: Circolo Vela (rooms/vela.toml)",
    ]
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    # the default folder: $HHTOOL_ROOMS
    default = hhtool("rules", "check", env={"HHTOOL_ROOMS": str(tmp_path / "rooms")})
    assert default.returncode == 0 and f"  Vela, classic: Circolo Vela ({tmp_path / 'rooms' / 'vela.toml'})" in _unwrap(default.stdout)


def test_check_without_a_folder(tmp_path: Path) -> None:
    r = hhtool("rules", "check", env={"HHTOOL_ROOMS": str(tmp_path / "none")})
    assert r.returncode == 2 and f"no folder of room files at {tmp_path / 'none'}" in r.stderr
    r = hhtool("rules", "check", "--rooms", str(tmp_path / "none"))
    assert r.returncode == 2 and f"no folder of room files at {tmp_path / 'none'}" in r.stderr
    (tmp_path / "empty").mkdir()
    r = hhtool("rules", "check", "--rooms", str(tmp_path / "empty"))
    assert r.returncode == 0
    assert _unwrap(r.stdout) == [f"{tmp_path / 'empty'}: no room files (*.toml); every hand is replayed under its header's profile"]
    r = hhtool("rules", "check", "x.toml", "--rooms", str(tmp_path / "empty"))
    assert r.returncode == 2 and "give room files or --rooms DIR, not both" in r.stderr
    r = hhtool("rules", "check", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and _unwrap(r.stderr)[0] == f"{tmp_path / 'missing.toml'}: cannot read the room file: No such file or directory"


# --- what check says of a good room ---------------------------------------------------------------

VELA = """\
# Circolo Vela: classic, the cap lifted heads-up, pots split on a tie.
[room]
name = "Circolo Vela"
sites = ["Vela"]
base = "classic"

[rules]
cap_heads_up = true
tie_break = "split"

[rake]
percent = 5
cap = "1.00"
currencies = ["EUR", "USD"]
from_street = "3rd"

[[rake.caps]]
big_bet_max = "0.50"
cap = "0.50"

[[rake.caps]]
players_max = 2
cap_big_bets = 1
"""


def test_check_summarises_a_good_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("vela.toml").write_text(VELA, encoding="utf-8")
    r = hhtool("rules", "check", "vela.toml")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.splitlines() == [
        "vela.toml: ok",
        "  room     Circolo Vela",
        "  sites    Vela",
        "  base     classic",
        '  rules    tie_break = "split" (classic: "card_order")',
        "           cap_heads_up = true (classic: false)",
        "  rake     5 % of the total pot, rounded down to the cent (or the chip)",
        "           capped at 1.00 where no row below applies",
        "           stakes up to a big bet of 0.50: capped at 0.50 (cap row 1)",
        "           up to 2 players: capped at 1 big bet (cap row 2)",
        "           only tables in EUR, USD; play chips and other money take none",
        "           none when the hand ends before 3rd street",
        "1 room file, no problems; the hands each governs:",
        "  Vela, classic: Circolo Vela (vela.toml)",
    ]
    room = load_room("vela.toml")
    assert room.changed == ("tie_break", "cap_heads_up")
    assert room.cites(["rules.cap_heads_up"]) == "Circolo Vela's rules, vela.toml line 8 (cap_heads_up = true)"


def test_check_is_terminal_safe(tmp_path: Path) -> None:
    path = tmp_path / "room.toml"
    path.write_text(HEAD.replace("Circolo Vela", "Vela\\u001b[2J\\u202e") + "[rules]\ncap_bets = 0\n", encoding="utf-8")
    r = hhtool("rules", "check", str(path))
    assert "\x1b" not in r.stderr
    path.write_text(HEAD.replace("Circolo Vela", "Vela\\u001b[2J\\u202e"), encoding="utf-8")
    r = hhtool("rules", "check", str(path))
    assert r.returncode == 0 and "\x1b" not in r.stdout and "\u202e" not in r.stdout
    assert "  room     Vela\\x1b[2J\\u202e" in r.stdout


# --- --rules NAME|FILE ---------------------------------------------------------------------------


def test_rank_and_equity_take_a_room_file(tmp_path: Path) -> None:
    """The same two hands: classic's card order gives the pot to A♥; the room that splits ties splits it."""
    path = tmp_path / "vela.toml"
    path.write_text(VELA, encoding="utf-8")
    hands = ("Ah Kd Qc 9s 8s", "As Kc Qd 9h 8h")
    classic = hhtool("rank", "--rules", "classic", "--json", *hands)
    room = hhtool("rank", "--rules", str(path), "--json", *hands)
    assert classic.returncode == room.returncode == 0
    assert '"share": 1.0' in classic.stdout and room.stdout.count('"share": 0.5') == 2
    text = hhtool("rank", "--rules", str(path), *hands).stdout
    assert text.startswith("rules: Circolo Vela (classic)   deck: 7-A") and "split the pot" in text
    eq = hhtool("equity", "--rules", str(path), "--samples", "2000", "--exact-limit", "0", "Ah Kd Qc", "As Kc Qd")
    assert eq.returncode == 0, eq.stderr
    assert eq.stdout.startswith("rules: Circolo Vela (classic)")
    assert "<classic|stellapoker|italian|FILE>" in hhtool("rank", "-h").stdout
    assert "<classic|stellapoker|italian|FILE>" in hhtool("equity", "-h").stdout


def test_rules_names_a_profile_in_any_case_else_a_file(tmp_path: Path) -> None:
    assert hhtool("rank", "--rules", "Stellapoker", "--json", "Ah Kd Qc 9s 8s", "As Kc Qd 9h 8h").stdout.count('"share": 0.5') == 2
    r = hhtool("rank", "--rules", "texas", "Ah Kd Qc 9s 8s")
    assert r.returncode == 2 and r.stdout == ""
    assert "--rules texas: expected a rule profile (classic, stellapoker, italian) or a room file, and it is no such file" in r.stderr
    r = hhtool("equity", "--rules", str(tmp_path), "Ah Kd Qc", "As Kc Qd")
    assert r.returncode == 2 and "or a room file, and it is a folder" in r.stderr
    italian = tmp_path / "italian.toml"
    italian.write_text(HEAD.replace("classic", "italian") + '[rules]\nwild = "7"\nmin_players = 4\n', encoding="utf-8")
    r = hhtool("rank", "--rules", str(italian), "--players", "4", "--json", "Ah Ad Ac As 7d")
    assert r.returncode == 0 and '"pokerissimo"' in r.stdout  # the room's own wild rank


def test_rules_arg(tmp_path: Path) -> None:
    from hhtool.cli_options import rules_arg

    assert rules_arg("classic") == builtin_room("classic") and rules_arg(" ITALIAN ").rules == PROFILES["italian"]
    path = tmp_path / "vela.toml"
    path.write_text(VELA, encoding="utf-8")
    assert rules_arg(str(path)) == load_room(path)


# --- the rake a room's schedule takes -------------------------------------------------------------


def euros(n: int) -> str:
    return f"€{n // 100}.{n % 100:02d}"


def rake_of(tmp_path: Path, rake: str) -> RakeRule:
    path = tmp_path / "rake.toml"
    path.write_text(RAKE + rake + "\n", encoding="utf-8")
    rule = load_room(path).rake
    assert rule is not None
    return rule


def due(rule: RakeRule, total: int, *, currency: str = "EUR", big_bet: int = 100, players: int = 6, reached_round: int = 4) -> RakeDue:
    cents = currency != "chips"
    return rule.due(
        total, currency=currency, cents=cents, big_bet=big_bet, players=players, reached_round=reached_round, fmt=euros if cents else str
    )


def test_percent_rounded_down_to_the_cent(tmp_path: Path) -> None:
    rule = rake_of(tmp_path, "percent = 5")
    assert rule == RakeRule(Fraction(5))
    assert due(rule, 1000) == RakeDue(50, "5 % of €10.00 is €0.50", ("rake.percent",))
    assert due(rule, 1239) == RakeDue(61, "5 % of €12.39, rounded down to the cent, is €0.61", ("rake.percent",))  # 61.95
    assert due(rule, 19) == RakeDue(0, "5 % of €0.19, rounded down to the cent, is €0.00", ("rake.percent",))
    assert due(rule, 1239, currency="chips") == RakeDue(61, "5 % of 1239, rounded down to the chip, is 61", ("rake.percent",))
    assert due(rake_of(tmp_path, "percent = 4.5"), 1000) == RakeDue(45, "4.5 % of €10.00 is €0.45", ("rake.percent",))
    assert due(rake_of(tmp_path, 'percent = "3.75"'), 1000) == RakeDue(37, "3.75 % of €10.00, rounded down to the cent, is €0.37", ("rake.percent",))


def test_step(tmp_path: Path) -> None:
    rule = rake_of(tmp_path, 'percent = 5\nstep = "0.05"')
    assert rule.step == Decimal("0.05")
    assert due(rule, 1239) == RakeDue(60, "5 % of €12.39, rounded down to a multiple of €0.05, is €0.60", ("rake.percent", "rake.step"))
    assert due(rule, 1200) == RakeDue(60, "5 % of €12.00 is €0.60", ("rake.percent",))  # a multiple already: the step says nothing
    assert due(rule, 99) == RakeDue(0, "5 % of €0.99, rounded down to a multiple of €0.05, is €0.00", ("rake.percent", "rake.step"))


def test_cap(tmp_path: Path) -> None:
    rule = rake_of(tmp_path, 'percent = 5\ncap = "1.00"')
    assert rule.cap == Cap(amount=Decimal("1.00"))
    assert due(rule, 1000) == RakeDue(50, "5 % of €10.00 is €0.50, under the cap of €1.00", ("rake.percent", "rake.cap"))
    assert due(rule, 2000) == RakeDue(100, "5 % of €20.00 is €1.00, the cap", ("rake.percent", "rake.cap"))
    assert due(rule, 3000) == RakeDue(100, "5 % of €30.00 is €1.50, over the cap of €1.00: the rake is €1.00", ("rake.percent", "rake.cap"))
    assert due(rule, 3000, currency="chips") == RakeDue(1, "5 % of 3000 is 150, over the cap of 1: the rake is 1", ("rake.percent", "rake.cap"))


def test_cap_in_big_bets(tmp_path: Path) -> None:
    rule = rake_of(tmp_path, "percent = 5\ncap_big_bets = 2")
    assert rule.cap == Cap(big_bets=Fraction(2))
    assert due(rule, 6000, big_bet=100) == RakeDue(
        200, "5 % of €60.00 is €3.00, over the cap of €2.00 (2 big bets of €1.00): the rake is €2.00", ("rake.percent", "rake.cap_big_bets")
    )
    assert due(rule, 6000, big_bet=200) == RakeDue(300, "5 % of €60.00 is €3.00, under the cap of €4.00 (2 big bets of €2.00)", ("rake.percent", "rake.cap_big_bets"))
    half = rake_of(tmp_path, "percent = 5\ncap_big_bets = 1.5")
    assert due(half, 6000, big_bet=75) == RakeDue(
        112, "5 % of €60.00 is €3.00, over the cap of €1.12 (1.5 big bets of €0.75): the rake is €1.12", ("rake.percent", "rake.cap_big_bets")
    )  # 1.5 × 75 = 112.5 cents, rounded down


CAP_TABLE = """percent = 5
cap = "3.00"

[[rake.caps]]
big_bet_max = "1.00"
cap = "0.50"

[[rake.caps]]
players_min = 2
players_max = 3
cap = "1.00"

[[rake.caps]]
players_min = 7
cap_big_bets = 1
"""


def test_the_cap_table_by_stakes_and_players(tmp_path: Path) -> None:
    """The first row that matches the hand caps it, else the flat cap."""
    rule = rake_of(tmp_path, CAP_TABLE)
    assert rule.caps == (
        CapRow(Cap(amount=Decimal("0.50")), "rake.caps.1", big_bet_max=Decimal("1.00")),
        CapRow(Cap(amount=Decimal("1.00")), "rake.caps.2", players_min=2, players_max=3),
        CapRow(Cap(big_bets=Fraction(1)), "rake.caps.3", players_min=7),
    )
    assert due(rule, 3000, big_bet=100, players=2) == RakeDue(
        50, "5 % of €30.00 is €1.50, over the cap of €0.50 for stakes up to a big bet of €1.00: the rake is €0.50", ("rake.percent", "rake.caps.1")
    )
    assert due(rule, 3000, big_bet=200, players=3) == RakeDue(
        100, "5 % of €30.00 is €1.50, over the cap of €1.00 for 2 to 3 players: the rake is €1.00", ("rake.percent", "rake.caps.2")
    )
    assert due(rule, 8000, big_bet=200, players=7) == RakeDue(
        200, "5 % of €80.00 is €4.00, over the cap of €2.00 (1 big bet of €2.00) for 7 players or more: the rake is €2.00", ("rake.percent", "rake.caps.3")
    )
    assert due(rule, 8000, big_bet=200, players=5) == RakeDue(300, "5 % of €80.00 is €4.00, over the cap of €3.00: the rake is €3.00", ("rake.percent", "rake.cap"))
    no_flat = rake_of(tmp_path, CAP_TABLE.replace('cap = "3.00"\n', "", 1))
    assert due(no_flat, 8000, big_bet=200, players=5) == RakeDue(400, "5 % of €80.00 is €4.00", ("rake.percent",))  # no row, no cap


def test_currencies(tmp_path: Path) -> None:
    rule = rake_of(tmp_path, 'percent = 5\ncurrencies = ["EUR", "USD"]')
    assert rule.currencies == ("EUR", "USD")
    assert due(rule, 1000, currency="USD").amount == 50
    assert due(rule, 1000, currency="chips") == RakeDue(0, "the room takes no rake from play chips: it rakes EUR and USD only", ("rake.currencies",))
    assert due(rule, 1000, currency="GBP") == RakeDue(0, "the room takes no rake from a table in GBP: it rakes EUR and USD only", ("rake.currencies",))
    chips = rake_of(tmp_path, 'percent = 5\ncurrencies = ["chips"]')
    assert due(chips, 1000, currency="chips").amount == 50 and due(chips, 1000).amount == 0
    every = rake_of(tmp_path, "percent = 5")  # no currencies: every table, chips included
    assert due(every, 1000, currency="chips").amount == 50


def test_from_street(tmp_path: Path) -> None:
    rule = rake_of(tmp_path, 'percent = 5\nfrom_street = "3rd"')
    assert due(rule, 1000, reached_round=1) == RakeDue(0, "the room takes no rake from a hand that ends before 3rd street", ("rake.from_street",))
    assert due(rule, 1000, reached_round=2).amount == 50
    assert due(rake_of(tmp_path, "percent = 5"), 1000, reached_round=1).amount == 50


# --- the rules' digest --------------------------------------------------------------------------


def test_the_digest_follows_the_rules_and_the_rake_not_the_words(tmp_path: Path) -> None:
    vela = load_room_text(tmp_path, VELA)
    renamed = load_room_text(tmp_path, VELA.replace('name = "Circolo Vela"', 'name = "Vela Club"').replace("# Circolo", "# The club").replace('["Vela"]', '["VelaClub"]'))
    assert vela.digest == renamed.digest and re.fullmatch(r"[0-9a-f]{16}", vela.digest)
    assert vela.canonical() == renamed.canonical()
    fewer_raises = load_room_text(tmp_path, VELA.replace("cap_heads_up = true", "cap_heads_up = true\ncap_bets = 3"))
    cheaper = load_room_text(tmp_path, VELA.replace("percent = 5", "percent = 4"))
    no_rake = load_room_text(tmp_path, VELA.split("[rake]")[0])
    assert len({vela.digest, fewer_raises.digest, cheaper.digest, no_rake.digest}) == 4
    assert describe_changes(vela.canonical(), fewer_raises.canonical()) == ["cap_bets 4 → 3"]
    assert describe_changes(vela.canonical(), cheaper.canonical()) == ["rake percent 5 → 4"]
    assert describe_changes(vela.canonical(), no_rake.canonical()) == ["rake: ruled → none"]
    assert describe_changes(no_rake.canonical(), vela.canonical()) == ["rake: none → ruled"]
    assert describe_changes(vela.canonical(), vela.canonical()) == []
    split_back = load_room_text(tmp_path, VELA.replace('tie_break = "split"', 'tie_break = "card_order"'))
    assert describe_changes(vela.canonical(), split_back.canonical()) == ["tie_break split → card_order"]
    assert builtin_room("classic").digest != vela.digest


def load_room_text(tmp_path: Path, text: str) -> Room:
    path = tmp_path / "room.toml"
    path.write_text(text, encoding="utf-8")
    return load_room(path)


def test_a_folder_with_a_bad_file_and_a_clash_says_both(tmp_path: Path) -> None:
    folder = rooms_folder(tmp_path, {"a.toml": HEAD, "b.toml": HEAD, "c.toml": HEAD + "[rules]\ncap_bets = 0\n"})
    r = hhtool("rules", "check", "--rooms", str(folder))
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1] == "hhtool: 1 of 3 room files cannot be used; 1 site claimed by two rooms"
    assert r.stdout.count(": ok\n") == 2


def test_rooms_that_claim_no_site(tmp_path: Path) -> None:
    path = tmp_path / "room.toml"
    path.write_text('[room]\nname = "Casa"\nbase = "italian"\n', encoding="utf-8")
    r = hhtool("rules", "check", str(path))
    assert r.returncode == 0
    assert "  sites    none: the room governs no hand of a history (--rules FILE only)" in r.stdout
    assert r.stdout.splitlines()[-1] == "1 room file, no problems; no room claims a site, so none governs a hand"
