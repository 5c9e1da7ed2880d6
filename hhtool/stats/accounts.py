"""A player is an account: a name on a site.  The key a row of the statistics has, and what a ``--player`` names.

Every tracker counts an account, not a name: "alice" at Vela and "alice" at
Tavolo are two people until someone says otherwise.  So every figure is
summed per (site, name), and a person who owns several accounts is a group
of them (``hhtool alias``, :mod:`hhtool.stats.aliases`) whose figures are
the sums of theirs (docs/stats.md, "Players and accounts").

A row's key stays a string, so that every caller that passes a player's
name keeps working: an account's key is its bare name when no other site
of the database has an account of that name and the name holds no ``@``,
else ``NAME@SITE`` (:func:`account_key`).  A site name never holds an
``@`` (:data:`SITE_NAME`), so the last ``@`` of a key parts it without
ambiguity (:func:`parse_key`).  The keys are decided over the database's
accounts, not the filters' (a site filter could otherwise make ``alice``
of a link mean another account than the page it came from).

What a ``--player X`` names (:func:`resolve`): a person's alias (their
accounts, one row), else ``NAME@SITE`` (that account), else a bare name
(every account of that name, each its own row).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb

Account = tuple[str, str]
"""(site, name): one account."""
Pick = tuple[str | None, str]
"""(site or None for every site, name): what a player filter selects, before or after :func:`resolve`."""
Wanted = tuple[str | None, str, str]
"""(the person whose row it is, or None for the account's own row; site; name): a resolved filter's account."""

SITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""A site's name as the parser reads it from a header: no ``@``, so ``NAME@SITE`` parts at its last ``@``."""


def account_key(site: str, name: str, shared: bool) -> str:
    """The key of the account ``name`` at ``site``: the bare name unless another site has that name (``shared``) or it holds an ``@``."""
    return f"{name}@{site}" if shared or "@" in name else name


def parse_key(key: str) -> tuple[str, str | None]:
    """(name, site) of ``NAME@SITE``; (key, None) for a bare name (or a text whose part after its last ``@`` is no site's name)."""
    if "@" in key:
        name, site = key.rsplit("@", 1)
        if name and SITE_NAME.fullmatch(site):
            return name, site
    return key, None


def picks_of(names: Iterable[str]) -> list[Pick]:
    """What ``names`` select with no database to ask (no person known): ``NAME@SITE`` that account, or the whole text as a
    bare name (a name with an ``@`` written bare); a bare name every account of it."""
    out: list[Pick] = []
    for text in names:
        name, site = parse_key(text)
        out.append((site, name))
        if site is not None:
            out.append((None, text))
    return list(dict.fromkeys(out))


def one_of(column: str, names: list[str]) -> tuple[str, list[Any]]:
    """``column`` is one of ``names``: a list of values DuckDB compares with each row group's least and greatest name
    (a table in the order of the players reads the named ones' row groups only), or a list parameter for many."""
    if len(names) <= 64:
        return f"{column} IN ({', '.join('?' for _ in names) or 'NULL'})", list(names)
    return f"list_contains(?::VARCHAR[], {column})", [list(names)]


def accounts_where(player: str, site: str, picks: list[Pick]) -> tuple[str, list[Any]]:
    """SQL that holds for the rows whose ``player`` and ``site`` columns are one of ``picks``, and its parameters.

    The names first, as a list DuckDB compares with each row group's least
    and greatest name (``player_totals`` and ``player_hands`` are in the
    order of the players, so only the named ones' row groups are read), then
    the sites of the names that are not wanted on every site.
    """
    names = list(dict.fromkeys(n for _, n in picks))
    if not names:
        return "FALSE", []
    who, params = one_of(player, names)
    everywhere = {n for s, n in picks if s is None}
    pairs = sorted({(s, n) for s, n in picks if s is not None and n not in everywhere})
    if not pairs:
        return who, params
    if everywhere:
        any_name, any_params = one_of(player, sorted(everywhere))
    else:
        any_name, any_params = "FALSE", []
    if not everywhere and len({s for s, _ in pairs}) == 1:  # one site (an account, a person's of one site): plain conjuncts
        site_cond, site_params = one_of(site, [pairs[0][0]])
        if len(names) == 1:
            return f"({who} AND {site_cond})", params + site_params
    if len(pairs) <= 64:
        exact = " OR ".join(f"({player} = ? AND {site} = ?)" for _ in pairs)
        exact_params: list[Any] = [v for s, n in pairs for v in (n, s)]
    else:
        exact = f"list_contains(?::VARCHAR[], {site} || chr(31) || {player})"
        exact_params = [[f"{s}\x1f{n}" for s, n in pairs]]
    if not everywhere:
        return f"({who} AND ({exact}))", params + exact_params
    return f"({who} AND ({any_name} OR {exact}))", params + any_params + exact_params


def aliases_of(con: duckdb.DuckDBPyConnection) -> dict[Account, str]:
    """Every account that belongs to a person, and the person; none where the database has no ``aliases`` table."""
    import duckdb

    try:
        rows = con.execute("SELECT site, player, person FROM aliases").fetchall()
    except duckdb.CatalogException:  # a Parquet export of an hhtool before aliases, or a database not yet given the table
        return {}
    return {(str(s), str(p)): str(person) for s, p, person in rows}


def shared_names(con: duckdb.DuckDBPyConnection, names: list[str] | None, totals: bool) -> set[str]:
    """The names among ``names`` (None: every name) that have accounts on two sites or more of the database (dealt in a hand
    of any verdict: whatever the filters, so that a key names the same account on every page and in every command)."""
    if names is not None and not names:
        return set()
    if totals:
        source, player, dealt = "player_totals h", "h.player", "h.hands > 0"
    else:
        source, player, dealt = "seats s JOIN hands h USING (hand_key)", "s.player", "s.dealt_in"
    where, params = (dealt, []) if names is None else one_of(player, names)
    where = f"{dealt} AND {where}"
    rows = con.execute(f"SELECT {player} FROM {source} WHERE {where} GROUP BY {player} HAVING count(DISTINCT h.site) > 1", params).fetchall()
    return {str(r[0]) for r in rows}


def keys_of(
    con: duckdb.DuckDBPyConnection, present: Iterable[Account], resolved: tuple[Wanted, ...] | None, totals: bool
) -> dict[Account, list[str]]:
    """The row key(s) each account in ``present`` counts under: its own account key, or its person's.

    ``resolved``: the filter's accounts (:func:`resolve`; an account asked
    both as a person's and by its name counts in both rows).  Without a
    player filter (``None``) a person's accounts count in the person's row
    only: the grid of a database shows a person once, not once more per
    account.
    """
    accounts = list(dict.fromkeys(present))
    shared = shared_names(con, sorted({n for _, n in accounts}), totals)
    persons = aliases_of(con)
    named = set(persons.values())  # a person named as their accounts are (alice's): the accounts are NAME@SITE beside them
    own = {a: account_key(a[0], a[1], a[1] in shared or a[1] in named) for a in accounts}
    out: dict[Account, list[str]] = {}
    if resolved is not None:
        for person, site, name in resolved:
            a = (site, name)
            if a in own:
                key = person if person is not None else own[a]
                got = out.setdefault(a, [])
                if key not in got:
                    got.append(key)
        return out
    return {a: [persons.get(a) or own[a]] for a in accounts}


def resolve(con: duckdb.DuckDBPyConnection, names: tuple[str, ...], totals: bool) -> tuple[tuple[Wanted, ...], list[str]]:
    """What each of ``names`` selects, as accounts with a hand in the database, and the names that select none.

    A person's alias: their accounts, counted as the person; else
    ``NAME@SITE``: that account; else a bare name (or a name with an ``@``
    written as it is): every account of that name.
    """
    persons = aliases_of(con)
    members: dict[str, list[Account]] = {}
    for a, person in persons.items():
        members.setdefault(person, []).append(a)
    picks = picks_of(n for n in names if n not in members)
    # the accounts as parsed first (NAME@SITE's name, a bare name), the whole text of a NAME@SITE as a name only where that
    # account is not found (a name with an "@" written bare): not a pass over every seat for a name nobody has
    first = {parse_key(n)[0] for n in names if n not in members} | {a[1] for n in names for a in members.get(n, [])}
    found = _accounts(con, sorted(first), totals)
    literal = sorted({n for n in names if n not in members and parse_key(n)[1] is not None
                      and (parse_key(n)[1], parse_key(n)[0]) not in found})
    found |= _accounts(con, literal, totals)
    out: list[Wanted] = []
    missing = []
    for text in names:
        got: list[Wanted] = []
        if text in members:
            got = [(text, s, n) for s, n in sorted(members[text]) if (s, n) in found]
            if got or members[text]:
                out += got
                continue
        for site, name in picks_of([text]):
            got += [(None, s, n) for s, n in sorted(found) if n == name and (site is None or s == site)]
        if not got:
            missing.append(text)
        out += got
    return tuple(dict.fromkeys(out)), missing


def _accounts(con: duckdb.DuckDBPyConnection, names: list[str], totals: bool) -> set[Account]:
    """The accounts of ``names`` with a seat in the database (dealt in or not: a name never dealt in is still a player of it)."""
    if not names:
        return set()
    found: set[Account] = set()
    if totals:
        who, params = one_of("h.player", names)
        found = {(str(s), str(p)) for s, p in con.execute(
            f"SELECT DISTINCT h.site, h.player FROM player_totals h WHERE h.hands > 0 AND {who}", params).fetchall()}
    rest = [n for n in names if n not in {p for _, p in found}]
    if rest:
        found |= {(str(s), str(p)) for s, p in con.execute(
            "SELECT DISTINCT h.site, s.player FROM seats s JOIN hands h USING (hand_key) WHERE list_contains(?::VARCHAR[], s.player)", [rest]
        ).fetchall()}
    return found


def all_accounts(con: duckdb.DuckDBPyConnection) -> list[Account]:
    """Every account of the database (a seat's name at its hand's site), for the names a misspelt one may have meant."""
    return [(str(s), str(p)) for s, p in con.execute("SELECT DISTINCT h.site, s.player FROM seats s JOIN hands h USING (hand_key)").fetchall()]
