"""The tables of the hand database: one list of columns per table, the DDL made from it.

The column lists are the single source: the DDL, the polars schemas the
workers build their frames with (:mod:`hhtool.store.frames`) and
``docs/schema.md`` (:mod:`hhtool.store.schemadoc`, kept in step by a test)
all come from here.  Money is always an integer in the hand's minor units
(cents for a hand written with a currency sign or decimals, chips
otherwise; ``hands.unit`` says which).

A hand is identified by ``(site, hand_id)``; the other hand tables refer
to it by ``hand_key``, a number the single writer gives each new hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from hhtool.store.flags import CHECK_RAISE_STREETS, N_MORE_FLAGS, RATIO_FLAGS, RERAISE_STREETS, STREETS

SCHEMA_VERSION = 2
"""1: the first; 2: each seat's statistics flags (``SEAT_STATS``), starting cards and shown category."""


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    sql: str  # the DuckDB type
    doc: str
    compression: str = ""  # DuckDB's compression for the column, where its own choice costs more (see ddl)


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str
    doc: str
    columns: tuple[Column, ...]
    key: tuple[str, ...] = ()  # the primary key, if any
    partitioned: bool = False  # exported as Parquet partitioned by the hand's date

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


def _c(name: str, sql: str, doc: str, compression: str = "") -> Column:
    return Column(name, sql, doc, compression)


TEXT_COMPRESSION = "zstd"
"""For the hands' texts: DuckDB's own choice (dictionary and FSST) for 1.4 kB of text a hand made a
third of the import's checkpoint time; zstd is cheaper to write and a third smaller (docs/performance.md)."""


HAND_KEY = _c("hand_key", "BIGINT", "the hand (`hands.hand_key`)")

FILES = TableSpec(
    "files",
    "One row per file imported to the end (a plain file, a `.gz` file, or one member of a `.zip`). "
    "A file is written here in the same transaction as its last hands, so a row means the whole file is in; "
    "a file whose content hash is already here is skipped.",
    (
        _c("path", "VARCHAR", "absolute path; a zip member is `/path/archive.zip!member/name.txt`"),
        _c("sha256", "VARCHAR", "SHA-256 of the content (decompressed for `.gz` and zip members), hex"),
        _c("size", "BIGINT", "bytes of content (of a file the live import reads as it grows: those in so far, docs/live.md)"),
        _c("mtime", "TIMESTAMPTZ", "the file's modification time (the archive's for a zip member)"),
        _c("imported_at", "TIMESTAMPTZ", "when its import finished"),
        _c("encoding", "VARCHAR", "`utf-8`, or `cp1252` when part of it was not UTF-8"),
        _c("hands", "INTEGER", "hand records in the file (parsed and failed)"),
        _c("failed", "INTEGER", "hands of the file that did not parse"),
        _c(
            "open_from", "BIGINT",
            "the byte where the file's last hand starts while it may still grow (no blank line after it; the live import: "
            "only when it did not parse once the file had stopped changing): a read of the grown file starts there again, "
            "and the whole hand replaces its failed row (docs/live.md); NULL otherwise",
        ),
    ),
    key=("path",),
)

HANDS = TableSpec(
    "hands",
    "One row per hand, unique by `(site, hand_id)`: the header, table, summary, the replay's verdict and the text as read.",
    (
        _c("hand_key", "BIGINT", "the hand's number in this database (1, 2, ...), referenced by the other hand tables"),
        _c("site", "VARCHAR", "the site that wrote the history, as its header names it (`Vela`, `StellaPoker`, ...): the name a room file's `sites` lists"),
        _c("hand_id", "VARCHAR", "the room's hand number, unique within a site"),
        _c("file", "VARCHAR", "`files.path` of the file it was first imported from"),
        _c("first_line", "INTEGER", "line of its header in that file (1-based)"),
        _c("profile", "VARCHAR", "`classic`, `stellapoker` or `italian`"),
        _c("vela_at_start", "BOOLEAN", "italian option `[vela at start]`"),
        _c("wild_rank", "TINYINT", "italian option `[wild N]`: the wild rank (2..14), else NULL"),
        _c("exposure", "VARCHAR", "`standard`, `carte_coperte` or `una_coperta`"),
        _c("structure", "VARCHAR", "`fixed`, `pot` or `no` (limit)"),
        _c("currency", "VARCHAR", "the currency sign (`€`, `$`, `£`) or empty for chips"),
        _c("unit", "VARCHAR", "`cent` (amounts are hundredths of the currency) or `chip`"),
        _c("small_bet", "BIGINT", "the small bet (minimum bet in pot and no limit)"),
        _c("big_bet", "BIGINT", "the big bet"),
        _c("ante", "BIGINT", "the ante (classic, italian), else NULL"),
        _c("bring_in", "BIGINT", "the bring-in (classic), else NULL"),
        _c("small_blind", "BIGINT", "the small blind (stellapoker), else NULL"),
        _c("big_blind", "BIGINT", "the big blind (stellapoker), else NULL"),
        _c("started_at", "TIMESTAMPTZ", "when the hand started (the header's time in its zone)"),
        _c("zone", "VARCHAR", "the zone as written (`UTC`, `CET`, `+01:00`)"),
        _c("table_name", "VARCHAR", "the table's name"),
        _c("max_seats", "TINYINT", "`<n>-max`"),
        _c("button", "TINYINT", "the button's seat"),
        _c("players", "TINYINT", "players seated"),
        _c("dealt_in", "TINYINT", "players dealt in (posted or were dealt 2nd-street cards)"),
        _c("total_pot", "BIGINT", "`Total pot` of the summary"),
        _c("rake", "BIGINT", "`Rake` of the summary"),
        _c("vela", "VARCHAR", "the vela (`Ks`), NULL when none was turned"),
        _c("showdown", "BOOLEAN", "the hand had a `*** SHOW DOWN ***`"),
        _c("verdict", "VARCHAR", "the replay's verdict: `ok`, `disputed`, `invalid`, or `error` when the replay itself failed"),
        _c("findings", "SMALLINT", "how many findings (rows in `findings`)"),
        _c("text_hash", "BIGINT", "64-bit BLAKE2b of `raw_text`: same id and same hash is a duplicate, a different hash a conflict"),
        _c("raw_text", "VARCHAR", "the hand's text as read (UTF-8, `\\n` line ends, ending with `\\n`)", TEXT_COMPRESSION),
        _c(
            "room", "VARCHAR",
            "the room whose file governed the replay (`rooms.name`: the file of `--rooms` naming the hand's site, for its profile); "
            "NULL: replayed under the profile of RULES.md the header names",
        ),
        _c("rules_digest", "VARCHAR", "the hash of the room's rules the hand was replayed under (`rooms.digest`); NULL without a room"),
    ),
    key=("site", "hand_id"),
    partitioned=True,
)

def _seat_stats() -> tuple[Column, ...]:
    """Each seat's statistics flags, decided at import by :mod:`hhtool.store.flags` (``docs/stats.md``), in its order."""
    cols = [
        _c(f"saw_{st}", "BOOLEAN", f"dealt in, the hand reached {st}{' street' if st != 'vela' else ''} and the player had not folded before")
        for st in STREETS[1:]
    ]
    ratios = (
        ("vpip", "put money in by choice on 2nd street", "decided on 2nd street"),
        ("complete", "completed the bring-in", "decided on 2nd street (a bring-in hand) before any completion, bet or raise"),
        ("raise2", "raised facing a bet on 2nd street", "decided facing a bet on 2nd street"),
        ("steal", "completed at the first turn with the chance to steal", "first 2nd-street turn among the last two, all between the bring-in and it folded"),
        ("bi_fold_steal", "brought in and folded to a steal at the next turn", "brought in and someone stole, everyone after the stealer folded"),
    )
    assert tuple(key for key, _, _ in ratios) == RATIO_FLAGS  # the order flags.py fills them in
    for key, action, opportunity in ratios:
        cols += [_c(key, "BOOLEAN", action), _c(f"{key}_opp", "BOOLEAN", f"opportunity: {opportunity}")]
    for st in STREETS:
        cols += [
            _c(f"fold_to_bet_{st}", "BOOLEAN", f"folded facing a bet on {st}"),
            _c(f"fold_to_bet_{st}_opp", "BOOLEAN", f"decided facing a bet on {st}"),
        ]
    for st in STREETS:
        cols += [
            _c(f"bets_{st}", "INTEGER", f"bets, raises and completions on {st}"),
            _c(f"calls_{st}", "INTEGER", f"calls on {st}"),
            _c(f"folds_{st}", "INTEGER", f"folds on {st}"),
        ]
    return tuple(cols)


SEAT_STATS = _seat_stats()
"""The ``seats`` columns of the statistics: what the player did in the hand and what they had the chance to do."""


def _seat_more_flags() -> tuple[Column, ...]:
    """The statistics' flags added after the first (issue 41), at the end of ``seats`` (:data:`ADDED_COLUMNS`), in
    :mod:`hhtool.store.flags`' order of bits.  NULL in a row imported before them: no opportunity counted
    (``saw_vela_opp``: read from the hand's profile, docs/stats.md)."""
    cols = [_c("saw_vela_opp", "BOOLEAN", "opportunity of `saw_vela`: dealt in, and the hand's rules have a vela")]
    for st in RERAISE_STREETS:
        cols += [
            _c(f"reraise_{st}", "BOOLEAN", f"re-raised (a 3-bet) on {st}"),
            _c(f"reraise_{st}_opp", "BOOLEAN", f"decided on {st} facing a bet and exactly one raise, with a raise allowed"),
        ]
    for st in CHECK_RAISE_STREETS:
        cols += [
            _c(f"check_raise_{st}", "BOOLEAN", f"raised on {st} after checking"),
            _c(f"check_raise_{st}_opp", "BOOLEAN", f"checked on {st}, then decided facing a bet with a raise allowed"),
        ]
    cols += [
        _c("cbet", "BOOLEAN", "bet 3rd street after making the last completion, bet or raise of 2nd street"),
        _c("cbet_opp", "BOOLEAN", "made the last completion, bet or raise of 2nd street, and nobody had bet 3rd street at the first turn there"),
        _c("cbet_fold", "BOOLEAN", "folded to that continuation bet"),
        _c("cbet_fold_opp", "BOOLEAN", "first decided on 3rd street facing the continuation bet alone"),
    ]
    assert len(cols) == N_MORE_FLAGS  # the bits flags.py fills
    return tuple(cols)


SEAT_MORE_FLAGS = _seat_more_flags()
"""The statistics' boolean columns at the end of ``seats``, packed with ``SEAT_STATS``' in the worker's bits."""
SEAT_FLAG_COLUMNS = (*(c for c in SEAT_STATS if c.sql == "BOOLEAN"), *SEAT_MORE_FLAGS)
"""Every boolean flag column of ``seats``, in the order of the worker's bits (bit ``i``: the ``i``-th)."""

SEATS = TableSpec(
    "seats",
    "One row per seated player per hand. Money the player put in and took out, as the replay counts it; "
    "the statistics' flags of the player in this hand, decided at import (definitions in `docs/stats.md`; "
    "false and 0 for a seat not dealt in).",
    (
        HAND_KEY,
        _c("seat", "TINYINT", "seat number"),
        _c("player", "VARCHAR", "the player's name as seated"),
        _c("stack", "BIGINT", "chips at the start of the hand"),
        _c("dealt_in", "BOOLEAN", "the player was dealt into the hand"),
        _c("button", "BOOLEAN", "the player is on the button"),
        _c("invested", "BIGINT", "everything the player put in (forced bets, bets, calls, raises), less uncalled bets returned"),
        _c("collected", "BIGINT", "what the history says the player collected (`collected ... from pot` lines)"),
        _c("due", "BIGINT", "what the rules give the player (differs from `collected` in a disputed hand)"),
        _c("net", "BIGINT", "`collected - invested`"),
        _c("went_to_showdown", "BOOLEAN", "still in the hand at the showdown (showed or mucked there)"),
        _c("won_at_showdown", "BOOLEAN", "went to showdown and collected something"),
        _c("outcome", "VARCHAR", "the summary's outcome: `folded`, `won`, `lost`, `mucked`, `collected` (NULL if missing)"),
        _c("fold_street", "VARCHAR", "for `folded`: `2nd`, `3rd`, `4th`, `5th` or `vela`"),
        *SEAT_STATS,
        _c("hole_card", "VARCHAR", "the 2nd-street card dealt face down, when both 2nd-street cards are known and one is up"),
        _c("door_card", "VARCHAR", "the 2nd-street card dealt face up, with `hole_card`"),
        _c(
            "shown_category",
            "VARCHAR",
            "for a player who showed five cards: what they make with the vela under the hand's rules "
            "(`high card` .. `pokerissimo`, as the replay ranks them), else NULL",
        ),
        _c(
            "allin_net",
            "BIGINT",
            "the all-in adjusted net: `net`, with each pot in which a player was all-in and no more betting could "
            "happen counted at this player's expected value of it when betting ended (equity times the pot less its "
            "rake; whole minor units, largest remainder: `docs/stats.md`); `net` for a hand without such an all-in; "
            "NULL where `net` is, and in rows imported before the column (read as `net`)",
        ),
        *SEAT_MORE_FLAGS,
    ),
    partitioned=True,
)

ACTIONS = TableSpec(
    "actions",
    "Every money line of a hand in order: forced bets, actions and uncalled bets returned. Amounts as written.",
    (
        HAND_KEY,
        _c("seq", "SMALLINT", "order within the hand (0, 1, ...)"),
        _c("line", "INTEGER", "line in the file"),
        _c("street", "VARCHAR", "`2nd`, `3rd`, `4th`, `5th` or `vela` (forced bets belong to `2nd`)"),
        _c("player", "VARCHAR", "who acted"),
        _c(
            "kind",
            "VARCHAR",
            "`ante`, `small_blind`, `big_blind`, `bring_in`, `complete`, `bet`, `call`, `raise`, `check`, `fold`, `uncalled` (returned)",
        ),
        _c("amount", "BIGINT", "the amount written: posted, brought in, bet, called, the raise's increment, returned; NULL for check, fold, complete"),
        _c("to_amount", "BIGINT", "for `raise` and `complete`: the new total for the round"),
        _c("all_in", "BOOLEAN", "the line ends `and is all-in`"),
    ),
    partitioned=True,
)

CARDS = TableSpec(
    "cards",
    "Every card known in a hand, once: players' cards from the deal lines (and the showdown for hole cards seen only there), and the vela.",
    (
        HAND_KEY,
        _c("player", "VARCHAR", "the owner; NULL for the vela"),
        _c("street", "VARCHAR", "when it was dealt: `2nd` .. `5th`, `vela`, or `showdown` for a hole card first seen there"),
        _c("card", "VARCHAR", "rank and suit, `Qs`"),
        _c("up", "BOOLEAN", "face up (dealt up, or exposed later); false for hole cards"),
    ),
    partitioned=True,
)

POTS = TableSpec(
    "pots",
    "The pots as the replay settles them under the hand's rules.",
    (
        HAND_KEY,
        _c("pot", "TINYINT", "0 for the main pot, n for side pot-n"),
        _c("name", "VARCHAR", "`main pot`, `side pot-1`, ..."),
        _c("amount", "BIGINT", "the pot before rake"),
        _c("rake", "BIGINT", "rake taken from it"),
        _c("eligible", "VARCHAR[]", "players who can win it"),
        _c("winners", "VARCHAR[]", "who the rules give it to"),
        _c("shares", "BIGINT[]", "what each of `winners` gets, in the same order"),
    ),
    partitioned=True,
)

FINDINGS = TableSpec(
    "findings",
    "What the replay noticed (codes in `docs/findings.md`).",
    (
        HAND_KEY,
        _c("seq", "SMALLINT", "order within the hand"),
        _c("code", "VARCHAR", "the finding's code (`wrong_opener`, ...); `replay_error` when the replay itself failed"),
        _c("severity", "VARCHAR", "`error` or `warning`"),
        _c("line", "INTEGER", "line in the file"),
        _c("message", "VARCHAR", "what, in words"),
        _c("cause_seq", "SMALLINT", "the `seq` of the finding this one follows from (its cause, listed first); NULL for a cause"),
    ),
    partitioned=True,
)

ADDED_COLUMNS: tuple[str, ...] = (
    "ALTER TABLE findings ADD COLUMN IF NOT EXISTS cause_seq SMALLINT",
    "ALTER TABLE seats ADD COLUMN IF NOT EXISTS allin_net BIGINT",
    "ALTER TABLE files ADD COLUMN IF NOT EXISTS open_from BIGINT",
    "ALTER TABLE hands ADD COLUMN IF NOT EXISTS room VARCHAR",
    "ALTER TABLE hands ADD COLUMN IF NOT EXISTS rules_digest VARCHAR",
    *(f"ALTER TABLE seats ADD COLUMN IF NOT EXISTS {c.name} {c.sql}" for c in SEAT_MORE_FLAGS),
)
"""Columns added within a schema version: nullable, at a table's end, so a database that lacks one gains it when
opened for writing (its older rows NULL) and nothing else changes."""

FAILED = TableSpec(
    "failed",
    "Hands that could not be read, with their text and the error. Identified by the hash of their text, so importing the same file again adds nothing.",
    (
        _c("raw_hash", "BIGINT", "64-bit BLAKE2b of `raw_text`"),
        _c("file", "VARCHAR", "`files.path`"),
        _c("line", "INTEGER", "the line of the error in the file"),
        _c("col", "INTEGER", "the column of the error, when known"),
        _c("first_line", "INTEGER", "the line where the hand starts in the file"),
        _c("hand_id", "VARCHAR", "the hand id, when the header could be read"),
        _c(
            "kind",
            "VARCHAR",
            "`parse`, `incomplete` (truncated), `inconsistent`, `range` (a number beyond its bound, see Bounds) "
            "or `error` (the import could not store a hand it read: a bug to report)",
        ),
        _c("message", "VARCHAR", "the error"),
        _c("line_text", "VARCHAR", "the offending line"),
        _c("expected", "VARCHAR", "what the parser expected there, comma separated"),
        _c("raw_text", "VARCHAR", "the hand's text as read; of a hand over the size bounds, its first part", TEXT_COMPRESSION),
        _c("imported_at", "TIMESTAMPTZ", "when it was stored"),
    ),
    key=("raw_hash",),
)

CONFLICTS = TableSpec(
    "conflicts",
    "Hands whose `(site, hand_id)` is already in `hands` with a different text: the other text, kept.",
    (
        _c("site", "VARCHAR", "the site"),
        _c("hand_id", "VARCHAR", "the hand id (the stored one is in `hands`)"),
        _c("text_hash", "BIGINT", "64-bit BLAKE2b of this `raw_text`"),
        _c("file", "VARCHAR", "`files.path` it was read from"),
        _c("first_line", "INTEGER", "line of its header in that file"),
        _c("raw_text", "VARCHAR", "the other text", TEXT_COMPRESSION),
        _c("imported_at", "TIMESTAMPTZ", "when it was seen"),
    ),
    key=("site", "hand_id", "text_hash"),
)

ROOMS = TableSpec(
    "rooms",
    "Each room's rules as they were when hands were replayed under them: one row per room and digest, written in the "
    "transaction of the first hand stored (or audited again) under them. A hand names its row by `hands.room` and "
    "`hands.rules_digest`; a room file changed since is told by its digest, and `hhtool import --reaudit` audits its hands again.",
    (
        _c("name", "VARCHAR", "the room's name (`[room] name`)"),
        _c("digest", "VARCHAR", "the first 16 hex digits of the SHA-256 of `rules` (its UTF-8): what `hands.rules_digest` holds"),
        _c("base", "VARCHAR", "the profile the room builds on (`[room] base`): it governs the hands of its sites played under it"),
        _c("sites", "VARCHAR[]", "the hand headers' site names the file governs (`[room] sites`)"),
        _c(
            "rules", "VARCHAR",
            "the rules as canonical JSON (keys sorted, no spaces): every parameter of RULES.md under `rules`, and `rake` "
            "(`null`: the Rake line is taken as stated)",
        ),
        _c("source", "VARCHAR", "the room file it was read from (absolute path)"),
        _c("imported_at", "TIMESTAMPTZ", "when it was first seen: the commit of the first hand replayed under it"),
    ),
    key=("name", "digest"),
)

ALIASES = TableSpec(
    "aliases",
    "The accounts a person owns (`hhtool alias`): one row an account, an account in one person's at most; the figures of "
    "a person are the sums of their accounts' (docs/stats.md, \"Players and accounts\").",
    (
        _c("person", "VARCHAR", "the person's name: not empty, no `@`, the name of no account that is not theirs"),
        _c("site", "VARCHAR", "the account's site (`hands.site`)"),
        _c("player", "VARCHAR", "the account's name at that site (`seats.player`)"),
    ),
    key=("site", "player"),
)

HAND_NOTES = TableSpec(
    "hand_notes",
    "A player's note on a hand (`hhtool note HAND TEXT`, the note box of serve's hand page): one a hand at most. Keyed by the "
    "hand's `(site, hand_id)`, not its `hand_key`, and never written by an import: a file imported again and "
    "`import --reaudit` leave it as it is (docs/study.md).",
    (
        _c("site", "VARCHAR", "the hand's site (`hands.site`)"),
        _c("hand_id", "VARCHAR", "the hand's id (`hands.hand_id`)"),
        _c("note", "VARCHAR", "the note as written: at most 10,000 characters, untrusted text like the histories'"),
        _c("written_at", "TIMESTAMPTZ", "when it was last written"),
    ),
    key=("site", "hand_id"),
)

HAND_TAGS = TableSpec(
    "hand_tags",
    "A hand's tags (`hhtool tag HAND study`, the tag buttons of serve's hand page): a row a hand and tag; `--tag NAME` "
    "filters the statistics, the report and serve's lists by them. Keyed like `hand_notes`, which see.",
    (
        _c("site", "VARCHAR", "the hand's site (`hands.site`)"),
        _c("hand_id", "VARCHAR", "the hand's id (`hands.hand_id`)"),
        _c("tag", "VARCHAR", "the tag: 1 to 40 letters, digits, `-` or `_`, in lower case (`study`)"),
        _c("tagged_at", "TIMESTAMPTZ", "when the hand was given the tag"),
    ),
    key=("site", "hand_id", "tag"),
)

PLAYER_NOTES = TableSpec(
    "player_notes",
    "A player's note on an account (`hhtool note --player NAME@SITE TEXT`, the note box of serve's player page): a read on "
    "how they play, shown wherever the account is. Keyed by the account, `(site, player)`, like `aliases`.",
    (
        _c("site", "VARCHAR", "the account's site (`hands.site`)"),
        _c("player", "VARCHAR", "the account's name at that site (`seats.player`)"),
        _c("note", "VARCHAR", "the note as written: at most 10,000 characters"),
        _c("written_at", "TIMESTAMPTZ", "when it was last written"),
    ),
    key=("site", "player"),
)

PLAYER_TAGS = TableSpec(
    "player_tags",
    "An account's tags (`hhtool tag --player NAME@SITE fish`, the tag buttons of serve's player page): a row an account and "
    "tag; `--player-tag NAME` limits the players grid to the accounts that have it. Keyed by the account, like `player_notes`.",
    (
        _c("site", "VARCHAR", "the account's site (`hands.site`)"),
        _c("player", "VARCHAR", "the account's name at that site (`seats.player`)"),
        _c("tag", "VARCHAR", "the tag: as `hand_tags.tag`"),
        _c("tagged_at", "TIMESTAMPTZ", "when the account was given the tag"),
    ),
    key=("site", "player", "tag"),
)

ADDED_TABLES: tuple[str, ...] = ("rooms", "aliases", "hand_notes", "hand_tags", "player_notes", "player_tags")
"""Tables added within a schema version: a database that lacks one gains it (empty) when opened for writing, as
with :data:`ADDED_COLUMNS`, and nothing else changes."""

META = TableSpec(
    "meta",
    "Key-value facts about the database itself (`schema_version`).",
    (_c("key", "VARCHAR", "the name"), _c("value", "VARCHAR", "the value")),
    key=("key",),
)

TABLES: tuple[TableSpec, ...] = (
    FILES, HANDS, SEATS, ACTIONS, CARDS, POTS, FINDINGS, FAILED, CONFLICTS, ROOMS, ALIASES, HAND_NOTES, HAND_TAGS, PLAYER_NOTES, PLAYER_TAGS, META,
)
HAND_TABLES: tuple[TableSpec, ...] = (SEATS, ACTIONS, CARDS, POTS, FINDINGS)
"""The tables with one or more rows per stored hand, keyed by ``hand_key``."""


def ddl(compression: bool = True) -> list[str]:
    """``CREATE TABLE IF NOT EXISTS`` for every table; ``compression``: with the columns' own compression
    (``USING COMPRESSION``: zstd for texts needs DuckDB's storage of version 1.2 or later)."""
    out = []
    for t in TABLES:
        cols = [f"    {c.name} {c.sql}" + (f" USING COMPRESSION {c.compression}" if compression and c.compression else "") for c in t.columns]
        if t.key:
            cols.append(f"    PRIMARY KEY ({', '.join(t.key)})")
        out.append(f"CREATE TABLE IF NOT EXISTS {t.name} (\n" + ",\n".join(cols) + "\n)")
    return out
