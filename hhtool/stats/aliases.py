"""The accounts a person owns: reading and writing the ``aliases`` table (``hhtool alias``).

A player is an account, a name on a site (:mod:`hhtool.stats.accounts`);
a person who plays under several accounts says so here, and every figure
can then be asked for the person: the sums of their accounts' (docs/stats.md,
"Players and accounts").  What is written is checked first, since a typo
would otherwise make a person of an account that never played, or a person
whose name hides an account's: an account must have a hand in the database,
a person's name may be an account's only where every account of that name
is the person's (alice, for alice at Vela and at Tavolo).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hhtool.stats.accounts import SITE_NAME, Account, aliases_of, all_accounts, parse_key
from hhtool.store.db import StoreError, batch_transaction

if TYPE_CHECKING:
    import duckdb


class AliasError(StoreError):
    """An alias that cannot be written as asked (a usage error: exit 2), with why."""


@dataclass(frozen=True, slots=True)
class Alias:
    """One account of a person."""

    person: str
    site: str
    player: str

    @property
    def account(self) -> str:
        return f"{self.player}@{self.site}"


def list_aliases(con: duckdb.DuckDBPyConnection) -> list[Alias]:
    """Every person's accounts, by person, then site and name."""
    from hhtool.stats.order import name_key

    rows = [Alias(p, s, n) for (s, n), p in aliases_of(con).items()]
    return sorted(rows, key=lambda a: (name_key(a.person), a.site, name_key(a.player)))


def parse_account(text: str) -> Account:
    """(site, name) of ``NAME@SITE``; :class:`AliasError` for a text that names no site."""
    name, site = parse_key(text)
    if site is None or not SITE_NAME.fullmatch(site):
        raise AliasError(f"account {text!r}: write it NAME@SITE (the site as the hand headers name it)")
    return site, name


def _nearest(text: str, accounts: list[Account]) -> str:
    close = difflib.get_close_matches(text, [f"{n}@{s}" for s, n in accounts], n=3, cutoff=0.5)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def add_aliases(con: duckdb.DuckDBPyConnection, person: str, accounts: list[str]) -> list[Alias]:
    """Make ``accounts`` (``NAME@SITE`` each) the person's, in one transaction; the rows written.

    Refused (:class:`AliasError`, nothing written): a person's name empty,
    with an ``@`` (it would read as an account) or the name of an account
    that is not to be theirs (``--player NAME`` would no longer mean that
    account); an
    account with no hand in the database (a typo: the nearest are named);
    an account already another person's (remove it first).  An account
    already the person's is kept as it is.
    """
    if not person.strip() or person != person.strip():
        raise AliasError(f"person {person!r}: a name must be not empty, nor start or end with a space")
    if "@" in person:
        raise AliasError(f"person {person!r}: a person's name cannot hold '@' (NAME@SITE names an account)")
    if not accounts:
        raise AliasError("name at least one account, NAME@SITE")
    known = all_accounts(con)
    have = set(known)
    current = aliases_of(con)
    wanted: list[Account] = []
    for text in accounts:
        a = parse_account(text)
        if a not in have:
            raise AliasError(f"no account {text!r} in this database (no hand of {a[1]!r} at {a[0]!r}){_nearest(text, known)}")
        owner = current.get(a)
        if owner is not None and owner != person:
            raise AliasError(f"account {text!r} is already {owner!r}'s: `hhtool alias remove {text}` first")
        if owner is None and a not in wanted:
            wanted.append(a)
    # a person may bear the name of accounts (alice, for alice at Vela and at Tavolo) when every account of that name is
    # theirs: --player NAME then means the person, and no account of that name is left that it could have meant
    mine = {a for a, owner in current.items() if owner == person} | set(wanted)
    others = sorted(a for a in known if a[1] == person and a not in mine)
    if others:
        raise AliasError(
            f"person {person!r}: that is also the name of the account{'s' if len(others) > 1 else ''} "
            f"{', '.join(f'{n}@{s}' for s, n in others)}, not among theirs: add {'them' if len(others) > 1 else 'it'} too, "
            "or choose another name for the person (--player NAME would otherwise no longer mean that account)"
        )
    with batch_transaction(con):
        for site, name in wanted:
            con.execute("INSERT INTO aliases (person, site, player) VALUES (?, ?, ?)", [person, site, name])
    return [Alias(person, s, n) for s, n in wanted]


def remove_aliases(con: duckdb.DuckDBPyConnection, accounts: list[str]) -> list[Alias]:
    """Take ``accounts`` (``NAME@SITE`` each) out of their person's, in one transaction; the rows removed.
    :class:`AliasError` (nothing removed) for one that is no person's."""
    current = aliases_of(con)
    gone: list[Alias] = []
    for text in accounts:
        a = parse_account(text)
        if a not in current:
            raise AliasError(f"account {text!r} is no person's alias")
        gone.append(Alias(current[a], a[0], a[1]))
    with batch_transaction(con):
        for x in gone:
            con.execute("DELETE FROM aliases WHERE site = ? AND player = ?", [x.site, x.player])
    return gone
