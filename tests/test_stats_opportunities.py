"""No statistic shows a number over no opportunity, and none has an opportunity the hand's rules do not give (issue 41).

docs/stats.md: every statistic is actions over opportunities, and one with
no opportunity is ``-`` (CSV empty, JSON ``null``), never 0 %.  So a
statistic a profile cannot have -- the vela in stellapoker and in italian
without ``[vela at start]``, the bring-in's in a profile without a bring-in
-- must count no opportunity there, or it prints "0.0 % (0 of 3,268)".

For each profile (and italian with the vela at start): a few hundred
simulated hands imported into their own database, every statistic of every
player computed, and the table, CSV and JSON ``hhtool stats`` writes.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.game.rules import profile
from hhtool.simulate import make_config, simulate_text
from hhtool.stats import compute
from hhtool.stats.compute import RATES, RATIO_KINDS, STATS
from hhtool.stats.render import exact_value, fmt_value
from hhtool.store.importer import import_paths

# name: (profile, structure, players, italian options, seed, hands)
GAMES = {
    "classic": ("classic", "fixed", 6, None, 41, 300),
    "stellapoker": ("stellapoker", "pot", 6, None, 42, 300),
    "italian": ("italian", "fixed", 6, None, 43, 300),
    "italian-vela-at-start": ("italian", "no", 5, "vela-at-start", 44, 300),
}
BRING_IN_STATS = ("complete", "steal", "bi_fold_steal")
RATIO_STATS = [s for s in STATS if s.kind in RATIO_KINDS]


def rules_of(game: str) -> tuple[bool, bool]:
    """(has a vela, has a bring-in) under the game's rules."""
    name, _, _, options, _, _ = GAMES[game]
    rules = profile(name).with_options(vela="at_start" if options and "vela-at-start" in options else None)
    return rules.has_vela, rules.bring_in


@pytest.fixture(scope="module", params=list(GAMES))
def game_db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    game: str = request.param
    name, structure, players, options, seed, hands = GAMES[game]
    tmp = tmp_path_factory.mktemp(game)
    src = tmp / "hh"
    src.mkdir()
    config = make_config(rules=name, structure=structure, players=players, italian_options=options, seed=seed)
    text, _ = simulate_text(config, hands)
    (src / "hands.txt").write_text(text, encoding="utf-8")
    db = tmp / "t.duckdb"
    summary = import_paths([str(src)], db, workers=0)
    assert summary.ok
    return game, db


def test_no_opportunity_the_rules_do_not_give(game_db: tuple[str, Path]) -> None:
    game, db = game_db
    has_vela, has_bring_in = rules_of(game)
    r = compute(db)
    players = r.players()
    assert len(players) >= 3
    impossible = ([] if has_vela else ["saw_vela"]) + ([] if has_bring_in else list(BRING_IN_STATS))
    for player in players:
        for key in impossible:
            got = r.ratio(player, key)
            assert got.opportunities == 0, f"{game}: {player}'s {key} counts {got.opportunities} opportunities the rules do not give"
    if not has_vela:  # no vela round: nothing done in it, no aggression figures of it
        vela = r.by_street.filter(r.by_street["street"] == "vela")
        assert vela["af"].null_count() == vela.height and vela["afq"].null_count() == vela.height
        assert vela["fold_to_bet_d"].sum() == 0 and vela["bets_raises"].sum() == 0 and vela["calls"].sum() == 0
    # the statistics the rules do give have opportunities (the test is not vacuous)
    possible = ["vpip", "saw_3rd", "saw_5th", "fold_to_bet"] + (["saw_vela"] if has_vela else []) + (list(BRING_IN_STATS[:2]) if has_bring_in else [])
    for key in possible:
        assert sum(r.ratio(p, key).opportunities for p in players) > 0, (game, key)
    if has_vela:
        assert sum(r.ratio(p, "saw_vela").actions for p in players) > 0, game


def test_no_number_over_no_opportunity(game_db: tuple[str, Path]) -> None:
    """Every figure with 0 opportunities is '-' in the table, empty in the CSV, null in the JSON; every other one a number."""
    game, db = game_db
    has_vela, has_bring_in = rules_of(game)
    r = compute(db)
    runner = CliRunner()
    out = runner.invoke(app, ["stats", "--db", str(db), "--format", "csv"])
    assert out.exit_code == 0, out.output
    rows = {row["player"]: row for row in csv.DictReader(io.StringIO(out.stdout))}
    out = runner.invoke(app, ["stats", "--db", str(db), "--format", "json"])
    assert out.exit_code == 0, out.output
    objs = {o["player"]: o for o in json.loads(out.stdout)["players"]}
    out = runner.invoke(app, ["stats", "--db", str(db), "--format", "detail"])
    assert out.exit_code == 0, out.output
    text = out.stdout
    assert set(rows) == set(objs) == set(r.players())
    never = ([] if has_vela else ["saw_vela"]) + ([] if has_bring_in else list(BRING_IN_STATS))
    for player in r.players():
        row = r.row(player)
        block = text.split(f"== {player}:", 1)[1].split("\n== ", 1)[0]
        for s in RATIO_STATS:
            n, d = row[f"{s.key}_n"], int(row[f"{s.key}_d"])
            assert n >= 0 and (s.kind != "pct" or n <= d), (game, player, s.key)
            value, detail = fmt_value(s, row)
            line = next(x for x in block.splitlines() if x.strip().startswith(s.label))
            shown = line.strip()[len(s.label):].split()[0]
            assert int(rows[player][f"{s.key}_opportunities"]) == objs[player][f"{s.key}_opportunities"] == d
            if d == 0:
                assert exact_value(s, row) is None and value == "-" and shown == "-", (game, player, s.key, line)
                assert rows[player][s.key] == "" and objs[player][s.key] is None, (game, player, s.key)
            else:
                assert value != "-" and shown != "-" and rows[player][s.key] != "" and objs[player][s.key] is not None
        for key in never:  # what the rules cannot give shows '-' everywhere, never 0 %
            label = next(s.label for s in STATS if s.key == key)
            line = next(x for x in block.splitlines() if x.strip().startswith(label))
            assert line.strip()[len(label):].split()[0] == "-", f"{game}: {player}: {line.strip()!r}"
            assert rows[player][key] == "" and objs[player][key] is None, (game, player, key)
        for key, (_, d_key) in RATES.items():
            hands = int(row[d_key])
            assert (rows[player][key] == "") == (objs[player][key] is None) == (hands == 0), (game, player, key)


def test_the_grid_shows_no_number_over_no_opportunity(game_db: tuple[str, Path]) -> None:
    """The players grid (``hhtool stats``' table) shows '-' in every column the rules give no opportunity for."""
    game, db = game_db
    has_vela, has_bring_in = rules_of(game)
    never = ([] if has_vela else ["saw_vela"]) + ([] if has_bring_in else list(BRING_IN_STATS))
    if not never:
        pytest.skip(f"{game}'s rules give every statistic an opportunity")
    out = CliRunner().invoke(app, ["stats", "--db", str(db), "--columns", ",".join(["hands", *never])], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    lines = out.stdout.split("\n\n", 1)[0].splitlines()[1:]  # a line per player, before the notes
    assert len(lines) == len(compute(db).players())
    for line in lines:
        assert line.split()[-len(never):] == ["-"] * len(never), (game, line)

