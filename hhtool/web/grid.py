"""``/players``: the players grid (:mod:`hhtool.stats.grid`) under the filters of ``hhtool stats``, sorted and paged on the server.

Every player in scope is one row of :class:`~hhtool.stats.grid.Grid`,
made once from ``player_totals`` (a grouped query: 8 ms for the 33 players
of a million hands) and kept while no hand is added, as the server keeps
its other figures (:class:`hhtool.web.hands.Kept`); each order asked is
kept beside it, so paging and going back cost neither the query nor the
sort.  The net sorts per currency: ``sort=net_EUR`` orders by the euro net,
the players without a euro hand last, whichever the direction
(docs/serve.md, "The players grid").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from hhtool.stats.filters import Filters
from hhtool.stats.grid import Cell, Grid, GridColumn, GridRow, grid_from_result, grid_from_totals
from hhtool.stats.order import name_key
from hhtool.web.params import FILTER_PARAMS, BadRequest, Params, filters

if TYPE_CHECKING:
    import duckdb

    from hhtool.web.hands import Kept

PLAYERS_PARAMS = (*FILTER_PARAMS, "player_tag", "name", "sort", "order", "page")
"""The parameters of ``/players``: the statistics' filters, the players' tags (``player_tag``, ``hhtool stats
--player-tag``: the grid's alone, since it chooses rows, not hands), a part of the name, the order and the page."""
PAGE_SIZE = 100


@dataclass(frozen=True, slots=True)
class PlayersQuery:
    filters: Filters = field(default_factory=Filters)
    name: str | None = None  # a part of the name, any case
    sort: str = "hands"
    descending: bool = True
    page: int = 1


def players_query(items: list[tuple[str, str]]) -> PlayersQuery:
    """``/players``' parameters, each checked (a 400 for what does not parse).  ``sort`` is checked against the grid's
    columns once it is made (:func:`players_page`): its net columns are the currencies in scope."""
    from dataclasses import replace

    from hhtool.stats.filters_parse import QUERY_STRING, FilterError, tag_list

    p = Params(items, PLAYERS_PARAMS)
    f = filters(p)
    try:
        f = replace(f, player_tags=tag_list(QUERY_STRING.name("player_tag"), p.all("player_tag")))
    except FilterError as e:
        raise BadRequest(str(e)) from None
    sort = p.one("sort") or "hands"
    order = p.one("order") or ("asc" if sort == "player" else "desc")
    if order not in ("asc", "desc"):
        raise BadRequest(f"order {order!r}: use asc or desc")
    return PlayersQuery(f, p.one("name"), sort, order == "desc", p.integer("page", 1, 1, 10**8))


def grid_for(cur: duckdb.DuckDBPyConnection, f: Filters, derived: frozenset[str]) -> Grid:
    """The grid of the players in scope of ``f``: from ``player_totals`` where it holds every stored hand, else from
    the statistics summed over the seats (the same rows, more slowly)."""
    from hhtool.stats.compute import compute_on
    from hhtool.store.totals import PLAYER_TOTALS

    if PLAYER_TOTALS.name in derived and not f.tags:  # a tag is a condition on each hand: not in the hourly sums
        return grid_from_totals(cur, f)
    return grid_from_result(compute_on(cur, f, derived=derived, known=True))


@dataclass(frozen=True, slots=True)
class Heading:
    column: GridColumn
    url: str  # this page sorted by the column (the other way when it is the order already)
    sorted: str | None  # "ascending" / "descending" when the page is in its order


@dataclass(frozen=True, slots=True)
class PlayersPage:
    headings: list[Heading]
    rows: list[tuple[GridRow, list[Cell]]]
    total: int  # players that match, on every page
    first: int
    last: int
    prev: str | None
    next: str | None
    everyone: int  # players in scope before the name's search
    left_out: int  # hands the verdicts filter leaves out (docs/stats.md, "Verdicts"): the page says so
    left_out_verdicts: tuple[str, ...]
    every_hand: str  # this page with every verdict counted


def players_page(cur: duckdb.DuckDBPyConnection, q: PlayersQuery, path: str, items: list[tuple[str, str]], kept: Kept,
                 derived: frozenset[str]) -> PlayersPage:
    """The page of the grid ``q`` asks for; ``path`` and ``items`` (the query string) make its links."""
    from hhtool.stats.compute import left_out

    grid = kept.get(("grid", repr(q.filters)), lambda: grid_for(cur, q.filters, derived))
    if grid.column(q.sort) is None:
        raise BadRequest(f"sort {q.sort!r}: use one of {', '.join(grid.sort_keys())} (net_CODE: the net in that currency)")
    ordered: list[GridRow] = kept.get(("grid-order", repr(q.filters), q.sort, q.descending), lambda: grid.sorted(q.sort, q.descending))
    if q.name:
        part = name_key(q.name)[0]
        ordered = [r for r in ordered if part in name_key(r.player)[0]]
    start = (q.page - 1) * PAGE_SIZE
    shown = ordered[start : start + PAGE_SIZE]
    columns = grid.columns()
    def url(**changes: str | None) -> str:
        kept_items = [(k, v) for k, v in items if k not in changes and v.strip()]
        kept_items += [(k, v) for k, v in changes.items() if v is not None]
        return path + ("?" + urlencode(kept_items) if kept_items else "")

    headings = []
    for c in columns:
        here = c.key == q.sort
        if here:
            order = "asc" if q.descending else "desc"
        else:
            order = "asc" if c.key == "player" else "desc"
        headings.append(Heading(c, url(sort=c.key, order=order, page=None), ("descending" if q.descending else "ascending") if here else None))
    return PlayersPage(
        headings=headings,
        rows=[(r, [r.cell(c) for c in columns]) for r in shown],
        total=len(ordered),
        first=start + 1 if shown else 0,
        last=start + len(shown),
        prev=url(page=str(q.page - 1)) if q.page > 1 else None,
        next=url(page=str(q.page + 1)) if start + PAGE_SIZE < len(ordered) else None,
        everyone=len(grid.rows),
        left_out=kept.get(("left-out", repr(q.filters)), lambda: left_out(cur, q.filters)),
        left_out_verdicts=q.filters.left_out,
        every_hand=url(verdicts="all", page=None),
    )

