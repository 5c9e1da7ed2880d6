"""``hhtool integrity``: the pairs of accounts worth a review, or one pair's dossier (docs/integrity.md).

Thin: the filters parsed as ``stats`` parses them, :func:`hhtool.collusion.screen`
or :func:`hhtool.collusion.dossier`, and the text of
:mod:`hhtool.collusion.render`.  Exit 0 with no lead above ``none``,
1 when a pair has a lead (weak, moderate or strong), 2 for usage errors.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hhtool.cli_database import _source, _stats_args
from hhtool.cli_options import (
    DayStartOpt, DbOption, Format, FromOpt, PlayerOpt, PlayerTagOpt, ProfileOpt, SeatsOpt, SiteOpt, StakesOpt, StructureOpt, TagOpt, ToOpt, VerdictsOpt,
)
from hhtool.cli_output import EXIT_FINDINGS, EXIT_OK, fail


def integrity(
    db: DbOption = None,
    player: PlayerOpt = None,
    date_from: FromOpt = None,
    date_to: ToOpt = None,
    site: SiteOpt = None,
    profile: ProfileOpt = None,
    structure: StructureOpt = None,
    max_seats: SeatsOpt = None,
    stakes: StakesOpt = None,
    day_start: DayStartOpt = 0,
    verdicts: VerdictsOpt = None,
    tag: TagOpt = None,
    player_tag: PlayerTagOpt = None,
    min_hands: Annotated[int, typer.Option("--min-hands", min=0, metavar="N", help="Only pairs with at least this many hands together.")] = 0,
    pair: Annotated[
        Optional[tuple[str, str]], typer.Option("--pair", metavar="A B", help="The dossier of one pair: every hand together, priced.")
    ] = None,
    top: Annotated[int, typer.Option("--top", min=0, metavar="N", help="Pairs shown in the table (0: all).")] = 20,
    fmt: Annotated[Format, typer.Option("--format", help="How to print the pairs (or the dossier).")] = "table",
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the priced equities and the passes' frames kept beside the database.")] = False,
) -> None:
    """Pairs of accounts whose play together is worth a review: co-presence, chip flow, soft play, priced decisions (docs/integrity.md)."""
    from hhtool.collusion import UnknownPairError, dossier, screen
    from hhtool.collusion.render import dossier_csv, dossier_json, dossier_text, screen_csv, screen_json, screen_text
    from hhtool.store.db import StoreError, database_errors

    filters, _ = _stats_args(player, date_from, date_to, site, profile, structure, max_seats, 0, stakes, day_start, None, None, verdicts, tag,
                             player_tag)
    source = _source(db, None)
    if not source.exists():
        raise fail(f"no database at {source}")
    try:
        with database_errors(source, everything=True):
            if pair is not None:
                d = dossier(source, pair[0], pair[1], filters, cache=not no_cache)
                typer.echo({"table": dossier_text, "csv": dossier_csv, "json": dossier_json}[fmt](d), nl=False)
                raise typer.Exit(EXIT_FINDINGS if d.pair.get("lead", "none") != "none" else EXIT_OK)
            s = screen(source, filters, min_hands=min_hands, cache=not no_cache)
    except UnknownPairError as e:
        raise fail(str(e)) from None
    except StoreError as e:
        raise fail(str(e)) from None
    if fmt == "table":
        typer.echo(screen_text(s, top or None), nl=False)
    else:
        typer.echo((screen_csv if fmt == "csv" else screen_json)(s), nl=False)
    leads = s.pairs.height and bool((s.pairs["lead"] != "none").any())
    raise typer.Exit(EXIT_FINDINGS if leads else EXIT_OK)
