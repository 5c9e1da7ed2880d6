"""``hhtool stats``' players grid (issue 41): a row per player within the terminal's width, ``--columns``, ``--sort``
per currency, hostile and long names, ``-`` without opportunity; the detail blocks on request.

The database: the samples (27 players in €, $, £ and chips) and FORMAT.md's example twice more, its amounts
scaled to the widest a grid meets (``-€1,234,572.30``, ``-1,275,000`` chips), its players renamed to a name of
76 characters and to a hostile one (escape sequences, a bidi override).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.stats import compute
from hhtool.textsafe import columns as cells
from hhtool.store.importer import import_paths
from hhtool.textsafe import term
from tests.sample_paths import SAMPLES
from tests.storegen import TEMPLATE

LONG = "Giocatore_" + "Lunghissimo" * 6
HOSTILE = "\x1b]0;pwned\x07evil\u202eX"
EURO_SCALE = 242_073  # alice loses 510 cents a hand: -€1,234,572.30
CHIP_SCALE = 2_500  # and 1,275,000 chips


def _scaled(k: int, sign: str, hand_id: str) -> str:
    """FORMAT.md's example with every amount times ``k`` (``sign`` €, or none: chips), its players renamed."""
    text = re.sub(r"€(\d+)\.(\d\d)", lambda m: f"{sign}{int(m[1] + m[2]) * k / 100:.2f}" if sign else str(int(m[1] + m[2]) * k), TEMPLATE)
    text = text.replace("#C-1001", f"#{hand_id}")
    return text.replace("alice", LONG).replace("carol", HOSTILE)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("grid")
    src = tmp / "histories"
    src.mkdir()
    for path in SAMPLES.glob("*.txt"):
        (src / path.name).write_bytes(path.read_bytes())
    (src / "big.txt").write_text(_scaled(EURO_SCALE, "€", "G-1") + "\n" + _scaled(CHIP_SCALE, "", "G-2"), encoding="utf-8")
    path = tmp / "grid.duckdb"
    assert import_paths([str(src)], path, workers=0).ok
    return path


def stats(db: Path, *args: str, width: int = 80) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["stats", "--db", str(db), *args], env={"COLUMNS": str(width)})
    return res.exit_code, res.output


def grid(text: str) -> tuple[str, list[str]]:
    """The heading line and a line per player (up to the blank line before the notes)."""
    lines = text.split("\n\n", 1)[0].splitlines()
    return lines[0], lines[1:]


def cell(heading_line: str, line: str, heading: str) -> str:
    """The right-aligned cell of ``line`` under ``heading`` (a non-empty one), found by terminal cells, as the grid
    aligns (a name's wide or zero-width characters take other cells than characters)."""
    end = cells(heading_line[: heading_line.index(heading) + len(heading)])
    used = i = 0
    while i < len(line) and used < end:
        used += cells(line[i])
        i += 1
    while i < len(line) and cells(line[i]) == 0:  # a zero-width character belongs with the one before it
        i += 1
    return line[:i].rsplit(" ", 1)[-1]


@pytest.mark.parametrize("width", [80, 60, 132])
def test_a_row_per_player_within_the_width_with_the_longest_names_and_amounts(db: Path, width: int) -> None:
    code, out = stats(db, width=width)
    assert code == 0, out
    assert all(cells(line) <= width for line in out.splitlines()), max(out.splitlines(), key=cells)
    head, rows = grid(out)
    players = compute(db).players()
    assert len(rows) == len(players) == 29 and head.split()[:2] == ["player", "hands"]
    assert "net €" in head and "net chips" in head and "net $" in head and "net £" in head
    long_row = next(r for r in rows if r.startswith(LONG[:10]))
    assert "…" in long_row and LONG not in out  # cut with an ellipsis, not wrapped
    assert "-€1,234,572.30" in long_row and "-1,275,000" in long_row  # the widest amounts, whole
    if width >= 80:
        assert "VPIP" in head and "bb/100" in head
    if width == 132:  # a wider terminal: every default column, and more
        assert all(h in head for h in ("compl", "steal", "AF", "WTSD", "W$SD", "raise", "BIfSt"))
    else:
        assert "left out for the width" in out


def test_one_row_per_player_most_hands_first(db: Path) -> None:
    _, out = stats(db, "--columns", "hands")
    head, rows = grid(out)
    hands = [int(r.rsplit(" ", 1)[-1].replace(",", "")) for r in rows]
    assert hands == sorted(hands, reverse=True) and hands[0] == 8
    assert len(out.splitlines()) < 40  # not 33 lines a player


def test_a_hostile_name_is_shown_escaped(db: Path) -> None:
    _, out = stats(db, width=200)
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert term(HOSTILE) in out  # wide enough: shown whole, each control written as \x1b, \u202e
    _, out = stats(db, width=80)
    assert "\x1b" not in out and term(HOSTILE)[:10] in out


def test_columns_choose_and_order_the_grid(db: Path) -> None:
    code, out = stats(db, "--columns", "vpip, hands,wsd,vpip", width=200)
    assert code == 0, out
    head, rows = grid(out)
    assert head.split() == ["player", "VPIP", "hands", "W$SD"]  # in the order given, each once, nothing added
    code, out = stats(db, "--columns", "hands,vpipp")
    assert code == 2 and "did you mean 'vpip'?" in out and "known: hands, net, " in out and "wwsf" in out
    code, out = stats(db, "--columns", "hands", "--format", "csv")  # CSV has every column: a choice would be lost
    assert code == 2 and "--columns chooses the grid's columns" in out


def test_no_opportunity_is_a_dash_never_zero(db: Path) -> None:
    r = compute(db)
    none = [p for p in r.players() if r.ratio(p, "steal").opportunities == 0]
    some = [p for p in r.players() if r.ratio(p, "steal").opportunities > 0]
    assert none and some
    _, out = stats(db, "--columns", "hands,steal", "--raw", width=200)
    head, rows = grid(out)
    by_name = {p: line for p in r.players() for line in rows if line.startswith(p + " ")}
    for p in none:
        assert cell(head, by_name[p], "steal") == "-", by_name[p]
    for p in some:
        assert re.fullmatch(r"\d+\.\d", cell(head, by_name[p], "steal")), by_name[p]


def test_net_sorts_one_currency_at_a_time(db: Path) -> None:
    """``--sort net_USD``: the dollar players by dollars, then the others; never minor units of two monies compared."""
    r = compute(db)
    for code in ("USD", "EUR", "chips"):
        _, out = stats(db, "--sort", f"net_{code}", "--columns", "hands", "--raw", width=200)
        _, rows = grid(out)
        order = [next(p for p in sorted(r.players(), key=len, reverse=True) if line.startswith(p + " ")) for line in rows]
        nets = {p: {c.code: f["net"] for c, f in r.money_of(p).items()} for p in order}
        having = [p for p in order if code in nets[p]]
        assert order[: len(having)] == having, code  # those with a hand in it first
        values = [nets[p][code] for p in having]
        assert values == sorted(values, reverse=True), (code, values)
    # the default money of `--sort net` is the first currency: euros, not the chips player's bigger numbers
    _, out = stats(db, "--sort", "net", "--columns", "net", "--raw", width=200)
    _, rows = grid(out)
    euro = [p for p in r.players() if any(c.code == "EUR" for c in r.money_of(p))]
    assert rows[0].startswith("bob ") and all("€" in row for row in rows[: len(euro)]) and "€" not in rows[len(euro)]
    exit_code, out = stats(db, "--sort", "net_US")
    assert exit_code == 2 and "did you mean 'net_USD'?" in out and "net_chips" in out


def test_rates_make_one_converted_column_and_keep_what_does_not_convert(db: Path) -> None:
    code, out = stats(db, "--currency", "EUR", "--rate", "USD=0.92", width=200)
    assert code == 0, out
    head, _ = grid(out)
    assert "net in EUR" in head and "net £" in head and "net chips" in head and "net $" not in head
    assert "USD 1 = 0.92 EUR" in out


def test_detail_blocks_on_request_and_for_one_player(db: Path) -> None:
    _, out = stats(db, "--format", "detail")
    assert out.count("\n== ") + out.startswith("== ") == 29 and "completed the bring-in" in out
    _, out = stats(db, "--player", "bob")
    assert out.startswith("== bob: 8 hands") and "VPIP (2nd street)" in out
    _, out = stats(db, "--player", "bob", "--columns", "hands,vpip")
    assert grid(out)[0].split() == ["player", "hands", "VPIP"]


def test_csv_and_json_keep_their_shape_and_follow_sort(db: Path) -> None:
    _, out = stats(db, "--format", "json", "--sort", "hands")
    players = json.loads(out)["players"]
    assert [p["hands"] for p in players] == sorted((p["hands"] for p in players), reverse=True)
    _, out = stats(db, "--format", "json")  # unsorted: the names' order, as before
    assert [p["player"] for p in json.loads(out)["players"]] == compute(db).players()
