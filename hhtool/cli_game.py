"""The game's commands, which read no history and no database: ``rank``, ``equity``, ``simulate``.

Each builds the request from its options, asks :mod:`hhtool.game` or
:mod:`hhtool.simulate`, prints the answer, and makes the library's errors
usage errors (exit 2).  The app registers them (:mod:`hhtool.cli`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from hhtool.cli_options import RULES_METAVAR, StructureName, rules_arg
from hhtool.cli_output import EXIT_OK, EXIT_USAGE, fail

if TYPE_CHECKING:
    from hhtool.game.rules import RuleSet

RulesOpt = Annotated[
    str,
    typer.Option("--rules", metavar=RULES_METAVAR, help="The rule profile (RULES.md), or a room file (docs/rooms.md): its [rules]."),
]


def _ruleset(value: str, wild: str | None) -> RuleSet:
    """The rules ``--rules`` names (a profile or a room file), with ``--wild`` applied and checked.

    A room's rules keep their base profile's name for the replay; here,
    where the name only heads the answer, they are named for the room:
    ``Circolo Vela (classic)``.
    """
    from dataclasses import replace

    from hhtool.game.cards import CardError, parse_rank
    from hhtool.game.rules import RulesError
    from hhtool.textsafe import term

    room = rules_arg(value)
    rules = room.rules
    if room.name != rules.name:
        rules = replace(rules, name=term(f"{room.name} ({room.base})" if room.base else room.name))
    if wild is None:
        return rules
    try:
        return rules.with_options(wild=parse_rank(wild))
    except CardError as e:
        raise fail(f"--wild: {e}") from None
    except RulesError as e:
        raise fail(str(e)) from None


def rank(
    hands: Annotated[Optional[list[str]], typer.Argument(metavar="HAND", help='One player\'s own cards each, in quotes: "Qc Qs 9c Jc Jd".', show_default=False)] = None,
    rules: RulesOpt = "classic",
    vela: Annotated[Optional[str], typer.Option("--vela", metavar="CARD", help="The vela (community card), e.g. Ks.")] = None,
    players: Annotated[Optional[int], typer.Option("--players", metavar="N", help="Players dealt in (sizes the italian deck); default: the number of hands.")] = None,
    wild: Annotated[Optional[str], typer.Option("--wild", metavar="RANK", help="Italian only: the wild rank, e.g. 7.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON array, in input order.")] = False,
    batch: Annotated[Optional[Path], typer.Option("--batch", metavar="FILE", help="Read JSON lines {hands, vela, players}; '-' is standard input.")] = None,
) -> None:
    """Rank Telesina hands under a rule profile or a room's rules and say why the winner wins."""
    from hhtool.game import rank as rank_mod
    from hhtool.game.cards import CardError
    from hhtool.game.rules import RulesError

    ruleset = _ruleset(rules, wild)

    if batch is not None:
        if hands:
            raise fail("give hands as arguments or --batch, not both")
        stream = sys.stdin if str(batch) == "-" else None
        try:
            source = stream if stream is not None else open(batch, encoding="utf-8-sig")
        except OSError as e:
            raise fail(f"cannot read {batch}: {e.strerror}") from None
        with source:
            bad = rank_mod.run_batch(ruleset, source, sys.stdout, sys.stderr, name=str(batch))
        raise typer.Exit(EXIT_USAGE if bad else EXIT_OK)

    if not hands:
        raise fail("give at least one hand, e.g. hhtool rank --rules classic \"Qc Qs 9c Jc Jd\"")
    try:
        table = rank_mod.rank_hands(ruleset, hands, vela=vela, players=players)
    except (rank_mod.RankInputError, RulesError, CardError) as e:
        raise fail(str(e)) from None
    if as_json:
        typer.echo(rank_mod.to_json(table))
    else:
        typer.echo(rank_mod.to_text(table))


def equity(
    hands: Annotated[Optional[list[str]], typer.Argument(metavar="HAND", show_default=False, help='One player\'s cards so far each, in quotes, hole card first: "Qc Qs 9c"; ?? for a card nobody has seen.')] = None,
    rules: RulesOpt = "classic",
    vela: Annotated[Optional[str], typer.Option("--vela", metavar="CARD", help="The vela when it is up, e.g. Ks (italian: ?? for one still down).")] = None,
    dead: Annotated[Optional[list[str]], typer.Option("--dead", metavar="CARDS", help='Cards seen and out of play (folded players\' up cards): "7h 8d".')] = None,
    players: Annotated[Optional[int], typer.Option("--players", metavar="N", help="Players dealt in (sizes the italian deck); default: the number of hands.")] = None,
    wild: Annotated[Optional[str], typer.Option("--wild", metavar="RANK", help="Italian only: the wild rank, e.g. 7.")] = None,
    samples: Annotated[Optional[int], typer.Option("--samples", metavar="N", help="Runouts drawn when there are too many to count (default 100,000).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", metavar="N", help="Seed of the drawing (default 0): the same seed gives the same figures.")] = None,
    exact_limit: Annotated[
        Optional[int],
        typer.Option("--exact-limit", metavar="N", min=0, help="Count every runout only up to N of them, else sample (default 30,000,000 heads up, 10,000,000 with more)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object, players in input order.")] = False,
) -> None:
    """Each player's equity (expected share of the pot), win and tie chance: exact, or sampled when runouts are too many."""
    from hhtool.game import equity as equity_mod
    from hhtool.game import equity_render
    from hhtool.game import rank as rank_mod
    from hhtool.game.cards import CardError
    from hhtool.game.rules import RulesError

    ruleset = _ruleset(rules, wild)
    if not hands or len(hands) < 2:  # one player alone wins every runout: no question to count
        raise fail("give the hands of at least two players, e.g. hhtool equity --rules classic \"Qc Qs 9c\" \"Ah Kd Jh\"")
    try:
        result = equity_mod.equity_from_text(
            ruleset,
            hands,
            vela=vela,
            dead=dead or [],
            players=players,
            samples=equity_mod.DEFAULT_SAMPLES if samples is None else samples,
            seed=equity_mod.DEFAULT_SEED if seed is None else seed,
            exact_limit=exact_limit,
        )
    except (rank_mod.RankInputError, RulesError, CardError) as e:
        raise fail(str(e)) from None
    typer.echo(equity_render.to_json(result) if as_json else equity_render.to_text(result))


def simulate(
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The hand-history file to write.")],
    hands: Annotated[int, typer.Option("--hands", metavar="N", help="How many hands.")] = 1000,
    rules: Annotated[
        str,
        typer.Option(
            "--rules",
            metavar=RULES_METAVAR,
            help="The rule profile (RULES.md), or a room file (docs/rooms.md): its rules, its rake and, unless --site, its first site.",
        ),
    ] = "classic",
    structure: Annotated[StructureName, typer.Option("--structure", help="Fixed, pot or no limit.")] = "fixed",
    players: Annotated[int, typer.Option("--players", metavar="N", help="Players at the table: 2-6 (italian 2-8).")] = 6,
    italian_options: Annotated[Optional[str], typer.Option("--italian-options", metavar="LIST", help="Comma list: vela-at-start, wild=RANK, carte-coperte | una-coperta.")] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="The same seed writes the same bytes.")] = 0,
    view: Annotated[str, typer.Option("--view", metavar="NAME", help="'audit' (every hole card) or a player's name (their own history).")] = "audit",
    site: Annotated[Optional[str], typer.Option("--site", metavar="NAME", help="Site name: Vela (€), StellaPoker ($), Tavolo (chips) or any word (€).")] = None,
    faults: Annotated[float, typer.Option("--faults", metavar="SHARE", help="Share of hands to alter with a fault class; manifest in FILE.faults.jsonl.")] = 0.0,
    jobs: Annotated[
        int, typer.Option("--jobs", metavar="N", help="Worker processes; 0: one per core (the output does not depend on it).")
    ] = 0,
    pool: Annotated[int, typer.Option("--pool", metavar="N", help="Population mode: N players join and leave several tables running at once.")] = 0,
    tables: Annotated[int, typer.Option("--tables", metavar="N", help="With --pool: tables at once (default: about two thirds of the pool seated).")] = 0,
    collude: Annotated[
        Optional[list[str]],
        typer.Option(
            "--collude",
            metavar="KIND[:A,B][:STRENGTH]",
            help="A colluding pair (repeatable): soft-play, chip-dumping (A dumps to B) or card-sharing; "
            "without names the seed picks the pair; strength 0-1 (default 0.5). Manifest in FILE.collusion.jsonl.",
        ),
    ] = None,
) -> None:
    """Simulate Telesina hands that audit ok, optionally with faults, colluding pairs and their manifests."""
    from hhtool.simulate import SimulationError, make_config, write_simulation

    room = rules_arg(rules)
    if hands < 0:
        raise fail(f"--hands {hands}: not a number of hands")
    if jobs < 0:
        raise fail(f"--jobs {jobs}: at least 0 (0 is one per core)")
    if jobs == 0:
        jobs = os.cpu_count() or 1
    try:
        config = make_config(
            rules=room,
            structure=structure,
            players=players,
            italian_options=italian_options,
            seed=seed,
            view=view,
            site=site,
            faults=faults,
            pool=pool,
            tables=tables,
            collude=collude or (),
        )
        result = write_simulation(config, hands, out, jobs=jobs)
    except SimulationError as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"cannot write {out}: {e.strerror}") from None
    note = f", {result.faults} altered (manifest {result.manifest})" if result.manifest is not None else ""
    if result.collusion is not None:
        note += f", {result.deviations} pair-hand(s) with a colluding decision (manifest {result.collusion})"
    typer.echo(f"{result.hands} hand(s) written to {result.out}{note}", err=True)
