"""Notes and tags: a player's thoughts on a hand or on another player, kept beside the hands (``hhtool note``, ``hhtool tag``).

Four tables (:mod:`hhtool.store.schema`): ``hand_notes`` and ``hand_tags``
keyed by the hand's ``(site, hand_id)``, ``player_notes`` and
``player_tags`` by the account's ``(site, player)``, never by ``hand_key``: an import never writes
them, so a file imported again and ``import --reaudit`` (which replaces a
hand's rows of the tables keyed by ``hand_key``) leave them as they are,
and ``export --parquet`` carries them like every table.  A note is
untrusted text like a history's (escaped in HTML, :mod:`hhtool.textsafe`
on a terminal and in CSV, a parameter of every query) and at most
:data:`MAX_NOTE` characters; a tag is a short word (:data:`TAG`), kept in
lower case so that ``Study`` and ``study`` are one tag.  What is written is
checked first: the hand or the account must be in the database (a typo
would otherwise keep a note nobody sees).  Every refusal is a
:class:`NoteError`, a usage error (exit 2, a 400 in ``serve``).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hhtool.stats.accounts import SITE_NAME, Account, parse_key
from hhtool.store.db import StoreError, batch_transaction

if TYPE_CHECKING:
    import duckdb

MAX_NOTE = 10_000
"""Characters of a note at most: pages of text, far more than a read on a player; a longer one is refused, not cut."""
MAX_TAGS = 24
"""Tags given at once at most (those of a hand are not limited)."""
TAG = re.compile(r"[^\W][\w-]{0,39}")
"""A tag: 1 to 40 letters, digits, ``_`` or ``-`` (any script's letters), starting with a letter, digit or ``_``."""
STUDY = "study"
"""The tag offered first: the study list's (``serve``'s /study, ``hhtool report --tag study``)."""


class NoteError(StoreError):
    """A note or tag that cannot be written as asked (a usage error: exit 2), with why."""


@dataclass(frozen=True, slots=True)
class HandRef:
    """A stored hand, as the notes name it."""

    site: str
    hand_id: str


@dataclass(frozen=True, slots=True)
class HandNote:
    """A hand's note and tags (either may be empty)."""

    site: str
    hand_id: str
    note: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlayerNote:
    """An account's note and tags (either may be empty)."""

    site: str
    player: str
    note: str
    tags: tuple[str, ...] = ()

    @property
    def account(self) -> str:
        return f"{self.player}@{self.site}"


def checked_note(text: str) -> str:
    """The note as it is kept: line ends as ``\\n``, trailing spaces of the whole dropped; :class:`NoteError` past :data:`MAX_NOTE`."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").rstrip()
    if len(text) > MAX_NOTE:
        raise NoteError(f"the note is {len(text):,} characters: at most {MAX_NOTE:,} (shorten it, or keep the long text elsewhere)")
    return text


def checked_tags(tags: list[str]) -> list[str]:
    """The tags in lower case, each once, in their order; :class:`NoteError` for one that is not a tag (:data:`TAG`)."""
    out: list[str] = []
    if len(tags) > MAX_TAGS:
        raise NoteError(f"{len(tags)} tags at once: at most {MAX_TAGS}")
    for text in tags:
        tag = text.strip().lower()
        if not TAG.fullmatch(tag):
            raise NoteError(f"tag {text[:60]!r}: a tag is 1 to 40 letters, digits, '-' or '_' (e.g. study, bluff-catch)")
        if tag not in out:
            out.append(tag)
    return out


def find_hand(con: duckdb.DuckDBPyConnection, hand_id: str, site: str | None = None) -> HandRef:
    """The stored hand ``hand_id`` (of ``site`` when given), as ``hhtool share --hand ID --site NAME`` finds it;
    :class:`NoteError` when none or several (two sites) match."""
    if site is not None:
        rows = con.execute("SELECT site, hand_id FROM hands WHERE hand_id = ? AND site = ?", [hand_id, site]).fetchall()
    else:
        rows = con.execute("SELECT site, hand_id FROM hands WHERE hand_id = ? ORDER BY site", [hand_id]).fetchall()
    if not rows:
        return _no_hand(con, hand_id, site)
    if len(rows) > 1:
        sites = ", ".join(str(r[0]) for r in rows)
        raise NoteError(f"{len(rows)} sites hold a hand {hand_id!r} ({sites}): choose one with --site NAME")
    return HandRef(str(rows[0][0]), str(rows[0][1]))


def _no_hand(con: duckdb.DuckDBPyConnection, hand_id: str, site: str | None) -> HandRef:
    near = [str(r[0]) for r in con.execute(
        "SELECT hand_id FROM hands WHERE hand_id LIKE ? ESCAPE '\\' LIMIT 200", [_like_prefix(hand_id[:4]) + "%"]
    ).fetchall()]
    close = difflib.get_close_matches(hand_id, near, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise NoteError(f"no hand {hand_id!r}{f' of site {site!r}' if site is not None else ''} in this database{hint}")


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def hand_note(con: duckdb.DuckDBPyConnection, hand: HandRef) -> HandNote:
    """The hand's note ('' when none) and tags (alphabetical)."""
    row = con.execute("SELECT note FROM hand_notes WHERE site = ? AND hand_id = ?", [hand.site, hand.hand_id]).fetchone()
    tags = [str(r[0]) for r in con.execute(
        "SELECT tag FROM hand_tags WHERE site = ? AND hand_id = ? ORDER BY tag", [hand.site, hand.hand_id]).fetchall()]
    return HandNote(hand.site, hand.hand_id, "" if row is None else str(row[0]), tuple(tags))


def set_hand_note(con: duckdb.DuckDBPyConnection, hand: HandRef, text: str, *, append: bool = False) -> str:
    """Write the hand's note (``append``: after the one it has, a line apart); an empty note removes it.  The note kept."""
    note = checked_note(text)
    if append:
        before = hand_note(con, hand).note
        note = checked_note(f"{before}\n{note}" if before and note else before or note)
    with batch_transaction(con):
        con.execute("DELETE FROM hand_notes WHERE site = ? AND hand_id = ?", [hand.site, hand.hand_id])
        if note:
            con.execute("INSERT INTO hand_notes VALUES (?, ?, ?, now())", [hand.site, hand.hand_id, note])
    return note


def add_tags(con: duckdb.DuckDBPyConnection, hand: HandRef, tags: list[str]) -> list[str]:
    """Give the hand these tags (one already there is kept as it was); the tags added."""
    wanted = checked_tags(tags)
    if not wanted:
        raise NoteError("name at least one tag, e.g. study")
    have = set(hand_note(con, hand).tags)
    added = [t for t in wanted if t not in have]
    with batch_transaction(con):
        for tag in added:
            con.execute("INSERT INTO hand_tags VALUES (?, ?, ?, now())", [hand.site, hand.hand_id, tag])
    return added


def remove_tags(con: duckdb.DuckDBPyConnection, hand: HandRef, tags: list[str]) -> list[str]:
    """Take these tags off the hand (every tag when none is named); the tags removed."""
    have = hand_note(con, hand).tags
    gone = list(have) if not tags else [t for t in checked_tags(tags) if t in have]
    with batch_transaction(con):
        for tag in gone:
            con.execute("DELETE FROM hand_tags WHERE site = ? AND hand_id = ? AND tag = ?", [hand.site, hand.hand_id, tag])
    return gone


HAND_TAG_COUNTS_SQL = (
    "SELECT t.tag, count(*) AS hands FROM hand_tags t JOIN hands h ON h.site = t.site AND h.hand_id = t.hand_id "
    "GROUP BY t.tag ORDER BY hands DESC, t.tag"
)
"""Every tag of a hand and its hands, most first (serve's tag buttons)."""

TAG_COUNTS_SQL = (
    "WITH h AS (" + HAND_TAG_COUNTS_SQL.replace(" ORDER BY hands DESC, t.tag", "") + "), "
    "p AS (SELECT tag, count(*) AS players FROM player_tags GROUP BY tag) "
    "SELECT coalesce(h.tag, p.tag) AS tag, coalesce(h.hands, 0) AS hands, coalesce(p.players, 0) AS players "
    "FROM h FULL JOIN p ON h.tag = p.tag ORDER BY hands DESC, players DESC, tag"
)
"""Every tag, the hands and the accounts that have it (``hhtool tags``): read-only SQL, which ``hhtool serve`` runs for
the CLI while it holds the file.  A player's tag counts its accounts, whether or not they still have a hand stored
(a tag is written only on one that has)."""


def tag_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """Every tag of a hand and the hands that have it, most first, then by name (a tag of a hand no longer stored is not counted)."""
    rows = con.execute(HAND_TAG_COUNTS_SQL).fetchall()
    return [(str(t), int(n)) for t, n in rows]


def all_hand_notes(con: duckdb.DuckDBPyConnection) -> list[HandNote]:
    """Every hand with a note or a tag, by site and hand id."""
    rows = con.execute(
        """
        SELECT coalesce(n.site, t.site) AS site, coalesce(n.hand_id, t.hand_id) AS hand_id, any_value(n.note),
               list(t.tag ORDER BY t.tag) FILTER (WHERE t.tag IS NOT NULL)
        FROM hand_notes n FULL JOIN hand_tags t ON n.site = t.site AND n.hand_id = t.hand_id
        GROUP BY ALL ORDER BY site, hand_id
        """
    ).fetchall()
    return [HandNote(str(s), str(h), str(n or ""), tuple(str(t) for t in (tags or ()))) for s, h, n, tags in rows]


def notes_of_hands(con: duckdb.DuckDBPyConnection, hands: list[tuple[str, str]]) -> dict[tuple[str, str], HandNote]:
    """The note and tags of each of ``hands`` ((site, hand_id) each) that has either, for a page of hands."""
    if not hands:
        return {}
    sites = [s for s, _ in hands]
    ids = [h for _, h in hands]
    keys = "SELECT unnest(?::VARCHAR[]) AS site, unnest(?::VARCHAR[]) AS hand_id"
    out: dict[tuple[str, str], HandNote] = {}
    notes = {(str(s), str(h)): str(n) for s, h, n in con.execute(
        f"SELECT n.site, n.hand_id, n.note FROM hand_notes n JOIN ({keys}) k USING (site, hand_id)", [sites, ids]).fetchall()}
    tags: dict[tuple[str, str], list[str]] = {}
    for s, h, t in con.execute(
        f"SELECT t.site, t.hand_id, t.tag FROM hand_tags t JOIN ({keys}) k USING (site, hand_id) ORDER BY t.tag", [sites, ids]
    ).fetchall():
        tags.setdefault((str(s), str(h)), []).append(str(t))
    for key in dict.fromkeys([*notes, *tags]):
        out[key] = HandNote(key[0], key[1], notes.get(key, ""), tuple(tags.get(key, ())))
    return out


# ------------------------------------------------------------------ players


def parse_account(text: str) -> Account:
    """(site, name) of ``NAME@SITE``; :class:`NoteError` for a text that names no site."""
    name, site = parse_key(text)
    if site is None or not SITE_NAME.fullmatch(site):
        raise NoteError(f"account {text[:200]!r}: write it NAME@SITE (the site as the hand headers name it), as `hhtool stats` writes an account")
    return site, name


def check_account(con: duckdb.DuckDBPyConnection, account: Account) -> None:
    """:class:`NoteError` for an account with no seat in the database, with the names it may have meant."""
    site, name = account
    if con.execute("SELECT 1 FROM seats s JOIN hands h USING (hand_key) WHERE h.site = ? AND s.player = ? LIMIT 1", [site, name]).fetchone():
        return
    from hhtool.stats.accounts import all_accounts

    close = difflib.get_close_matches(f"{name}@{site}", [f"{n}@{s}" for s, n in all_accounts(con)], n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise NoteError(f"no account {name + '@' + site!r} in this database (no hand of {name!r} at {site!r}){hint}")


def player_note(con: duckdb.DuckDBPyConnection, account: Account) -> str:
    """The account's note, '' when none."""
    row = con.execute("SELECT note FROM player_notes WHERE site = ? AND player = ?", list(account)).fetchone()
    return "" if row is None else str(row[0])


def set_player_note(con: duckdb.DuckDBPyConnection, account: Account, text: str, *, append: bool = False) -> str:
    """Write the account's note (checked: :func:`check_account`; ``append`` as :func:`set_hand_note`); an empty one removes it."""
    check_account(con, account)
    note = checked_note(text)
    if append:
        before = player_note(con, account)
        note = checked_note(f"{before}\n{note}" if before and note else before or note)
    with batch_transaction(con):
        con.execute("DELETE FROM player_notes WHERE site = ? AND player = ?", list(account))
        if note:
            con.execute("INSERT INTO player_notes VALUES (?, ?, ?, now())", [*account, note])
    return note


def player_notes(con: duckdb.DuckDBPyConnection) -> dict[Account, str]:
    """Every account's note; none where the database has no ``player_notes`` (a Parquet export of an earlier hhtool)."""
    import duckdb

    try:
        rows = con.execute("SELECT site, player, note FROM player_notes").fetchall()
    except duckdb.CatalogException:
        return {}
    return {(str(s), str(p)): str(n) for s, p, n in rows}


def notes_for_key(
    key: str, notes: dict[Account, str], aliases: dict[Account, str], tags: dict[Account, tuple[str, ...]] | None = None
) -> list[PlayerNote]:
    """The notes and tags of what a player's key names (:mod:`hhtool.stats.accounts`): a person's accounts', ``NAME@SITE``'s,
    a bare name's every account's; by site.  An account with a tag and no note is there too, its note ''."""
    tags = tags or {}
    if not notes and not tags:
        return []
    known = sorted(set(notes) | set(tags))

    def made(accounts: list[Account]) -> list[PlayerNote]:
        return [PlayerNote(s, p, notes.get((s, p), ""), tags.get((s, p), ())) for s, p in accounts]

    mine = [a for a, person in aliases.items() if person == key]
    if mine:
        wanted = set(mine)
        return made([a for a in known if a in wanted])
    name, site = parse_key(key)
    return made([(s, p) for s, p in known if p == name and (site is None or s == site)]) or (
        made([(s, p) for s, p in known if p == key]) if site is not None else []
    )


def all_player_notes(con: duckdb.DuckDBPyConnection) -> list[PlayerNote]:
    """Every account with a note or a tag, by site and name."""
    notes, tags = player_notes(con), player_tags(con)
    return [PlayerNote(s, p, notes.get((s, p), ""), tags.get((s, p), ())) for s, p in sorted(set(notes) | set(tags))]


def player_tags(con: duckdb.DuckDBPyConnection) -> dict[Account, tuple[str, ...]]:
    """Every account's tags (alphabetical); none where the database has no ``player_tags`` (a Parquet export of an earlier hhtool)."""
    import duckdb

    try:
        rows = con.execute("SELECT site, player, tag FROM player_tags ORDER BY site, player, tag").fetchall()
    except duckdb.CatalogException:
        return {}
    out: dict[Account, list[str]] = {}
    for s, p, t in rows:
        out.setdefault((str(s), str(p)), []).append(str(t))
    return {a: tuple(t) for a, t in out.items()}


def account_tags(con: duckdb.DuckDBPyConnection, account: Account) -> tuple[str, ...]:
    """The account's tags, alphabetical."""
    return tuple(str(r[0]) for r in con.execute(
        "SELECT tag FROM player_tags WHERE site = ? AND player = ? ORDER BY tag", list(account)).fetchall())


def add_player_tags(con: duckdb.DuckDBPyConnection, account: Account, tags: list[str]) -> list[str]:
    """Give the account these tags (checked: :func:`check_account`; one already there is kept as it was); the tags added."""
    wanted = checked_tags(tags)
    if not wanted:
        raise NoteError("name at least one tag, e.g. fish")
    check_account(con, account)
    have = set(account_tags(con, account))
    added = [t for t in wanted if t not in have]
    with batch_transaction(con):
        for tag in added:
            con.execute("INSERT INTO player_tags VALUES (?, ?, ?, now())", [*account, tag])
    return added


def remove_player_tags(con: duckdb.DuckDBPyConnection, account: Account, tags: list[str]) -> list[str]:
    """Take these tags off the account (every tag when none is named); the tags removed."""
    check_account(con, account)
    have = account_tags(con, account)
    gone = list(have) if not tags else [t for t in checked_tags(tags) if t in have]
    with batch_transaction(con):
        for tag in gone:
            con.execute("DELETE FROM player_tags WHERE site = ? AND player = ? AND tag = ?", [*account, tag])
    return gone


def tagged_accounts(con: duckdb.DuckDBPyConnection, tags: tuple[str, ...]) -> set[Account]:
    """The accounts with any of ``tags`` (``--player-tag``: the grid limited to them); none without ``player_tags``."""
    import duckdb

    if not tags:
        return set()
    try:
        rows = con.execute(f"SELECT DISTINCT site, player FROM player_tags WHERE tag IN ({', '.join('?' for _ in tags)})", list(tags)).fetchall()
    except duckdb.CatalogException:
        return set()
    return {(str(s), str(p)) for s, p in rows}
