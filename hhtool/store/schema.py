"""The tables of the hand database: one list of columns per table, the DDL made from it.

The column lists are the single source: the DDL, the polars schemas the
workers build their frames with (:mod:`hhtool.store.frames`) and
``docs/schema.md`` (:func:`schema_markdown`, kept in step by a test) all
come from here.  Money is always an integer in the hand's minor units
(cents for a hand written with a currency sign or decimals, chips
otherwise; ``hands.unit`` says which).

A hand is identified by ``(site, hand_id)``; the other hand tables refer
to it by ``hand_key``, a number the single writer gives each new hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from hhtool.history.bounds import MAX_HAND_CHARS, MAX_LINE_CHARS
from hhtool.store.flags import RATIO_FLAGS, STREETS

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
        _c("site", "VARCHAR", "the room that wrote the history (`Vela`, `StellaPoker`, ...)"),
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

META = TableSpec(
    "meta",
    "Key-value facts about the database itself (`schema_version`).",
    (_c("key", "VARCHAR", "the name"), _c("value", "VARCHAR", "the value")),
    key=("key",),
)

TABLES: tuple[TableSpec, ...] = (FILES, HANDS, SEATS, ACTIONS, CARDS, POTS, FINDINGS, FAILED, CONFLICTS, META)
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


def schema_markdown() -> str:
    """``docs/schema.md``: every table and column (a test checks the file equals this)."""
    lines = [
        "# The hand database",
        "",
        "`hhtool import` writes one DuckDB file (`--db`, else `$HHTOOL_DB`, else",
        "`$XDG_DATA_HOME/hhtool/hhtool.duckdb`, else `~/.local/share/hhtool/hhtool.duckdb`).",
        "Money is always an integer in the hand's minor units: cents when the hand writes",
        "a currency sign or decimals, chips otherwise (`hands.unit`). A hand is identified by",
        "`(site, hand_id)`; the per-hand tables refer to it by `hand_key`.",
        "",
        "The file is in DuckDB 2's storage format, which DuckDB 1 cannot open: hhtool needs",
        "`duckdb>=2.0.1` (`pyproject.toml`; with 1.5 the import fails on polars 2's Arrow string views,",
        "and 2.0.0 reads a TIMESTAMPTZ into Python only with pytz installed).",
        "",
        "Generated from `hhtool/store/schema.py` (`python -m hhtool.store.schema > docs/schema.md`).",
        "",
        "## How an import fills it",
        "",
        "- `hhtool import PATH... [--db FILE] [--workers N] [--batch N] [--json]`: files, folders",
        "  (recursively, hidden entries skipped), globs, `.zip` members and `.gz` files. A file whose",
        "  content hash (SHA-256) is already in `files` is skipped without being parsed.",
        "- Links are followed within bounds; FIFOs, devices, sockets and link loops are skipped with a",
        "  note; a folder or archive that cannot be read is named in the summary and skipped, the rest",
        "  imported; zip members with unsafe names are read under safe ones: the rules are in",
        "  [`format-notes.md`](format-notes.md#files-an-import-reads) (\"Files an import reads\").",
        "- Worker processes (one per core) parse and replay; one writer inserts their rows in",
        "  transactions of up to `--batch` hands (10,000) or 5 seconds. A file's `files` row is written",
        "  in the transaction of its last hands, so an import stopped at any moment (Ctrl-C, `kill -9`)",
        "  leaves a consistent database, and running the same command again finishes the job: the",
        "  hands already committed are recognised as duplicates, the others are stored.",
        "- Exactly once: a hand is stored only if its `(site, hand_id)` is new. The same id with the",
        "  same text is a duplicate (counted, not stored); with another text it is a conflict: the",
        "  first text stays in `hands`, the other is kept once in `conflicts`. A hand that does not",
        "  parse is kept once (by the hash of its text) in `failed`, with its error.",
        f"- Size bounds ([`format-notes.md`](format-notes.md)): a hand with a line over {MAX_LINE_CHARS:,} characters",
        f"  or over {MAX_HAND_CHARS:,} characters in all is a failed hand (`parse`) whose `message` says how long",
        "  it was and whose `raw_text` is its first part; it is cut where it is read, so a file's hostile",
        "  line (128 MiB without a line end) costs the import no more memory than a small file.",
        "- Exit codes: 0 when every hand read was stored or already there, whatever its verdict",
        "  (`invalid` and `disputed` hands are findings, not failures); 1 when a hand failed to parse",
        "  or to replay, or conflicted with a stored hand, or a file could not be read (a truncated",
        "  `.gz`: it is named in the summary and the other files are imported); 2 for usage errors",
        "  (no such path, the database in use by another process, not hhtool's, damaged, or not",
        "  writable: a full disk, a read-only folder, see [`query.md`](query.md)); 130 when interrupted.",
        "- `hhtool query SQL [--format table|csv|json] [--out FILE]` opens the database read-only",
        "  and reads its tables only: no other file, database, extension or setting ([`query.md`](query.md));",
        "  `hhtool export --parquet DIR` writes the tables as Parquet ([`scale.md`](scale.md)).",
        "- DuckDB allows one writing process: a second import (or a query during an import) is told",
        "  the database is in use, with exit code 2.",
        "",
        "## Bounds",
        "",
        "No value that parses can overflow its column. The parser's bounds ([`format-notes.md`](format-notes.md),",
        "\"Bounds\"): an amount is at most 10^12 minor units, a seat number, table size or button",
        "at most 99, a hand at most 32,767 lines; a hand past one is a failed hand (`failed.kind` `range`, kept",
        "with its text and error) in `parse`, `audit` and `import` alike. From them:",
        "",
        "- TINYINT columns (`max_seats`, `button`, `players`, `dealt_in`, `seats.seat`, `pots.pot`,",
        "  `wild_rank`) hold at most 99; SMALLINT `actions.seq` stays below 32,767 (one money line a line).",
        "- Every BIGINT money value of a hand (`small_bet` .. `big_blind`, `stack`, `total_pot`, `rake`,",
        "  `amount`, `to_amount`, and what the replay adds up: `invested`, `collected`, `due`, `net`, the",
        "  pots' `amount`, `rake` and `shares`) adds at most one amount of 10^12 per line: its magnitude is",
        "  below 32,767 * 10^12 * 2 < 2^56, against a BIGINT's 2^63.",
        "- What the bounds do not limit is checked at import: a hand whose values do not fit their columns",
        "  (the replay finding more than 32,767 faults in one hand, SMALLINT `findings`) is stored in `failed`",
        "  (`range`, with the column and value) and the other hands of its chunk are stored; `audit` still",
        "  replays it. A line number past 2^31 (INTEGER) does the same, and is NULL in `failed`. A hand that",
        "  fails to be turned into rows for any other reason is `failed` too (`error`).",
        "- The statistics and the report sum money (`net` and its showdown parts, per player, per session,",
        "  per category) as HUGEINT (128 bits) in DuckDB, Int128 in polars and `int` in Python: exact, and",
        "  no sum can overflow (2^64 rows of 2^63 stay below 2^127), also in a database written by an",
        "  earlier version, without the bounds, whose values may reach 2^63. The rake shares and the win",
        "  rates (net over a big bet) are DOUBLE.",
        "",
    ]
    for t in TABLES:
        lines.append(f"## `{t.name}`")
        lines.append("")
        lines.append(t.doc)
        if t.key:
            lines.append("")
            lines.append(f"Primary key: `({', '.join(t.key)})`.")
        lines.append("")
        lines.append("| column | type | meaning |")
        lines.append("|---|---|---|")
        for c in t.columns:
            doc = c.doc.replace("|", "\\|")
            stored = f" (stored with {c.compression} compression)" if c.compression else ""
            lines.append(f"| `{c.name}` | {c.sql} | {doc}{stored} |")
        lines.append("")
    lines += _totals_markdown()
    lines += [
        "## Example queries",
        "",
        "```sql",
        "-- verdicts",
        "SELECT verdict, count(*) FROM hands GROUP BY verdict;",
        "-- each player's net, in big bets, per site and currency",
        "SELECT h.site, h.currency, s.player, count(*) AS hands, sum(s.net) AS net,",
        "       round(sum(s.net::DOUBLE / h.big_bet), 2) AS big_bets",
        "FROM seats s JOIN hands h USING (hand_key) WHERE s.dealt_in",
        "GROUP BY ALL ORDER BY net DESC;",
        "-- findings by code",
        "SELECT code, count(*) FROM findings GROUP BY code ORDER BY 2 DESC;",
        "```",
        "",
    ]
    return "\n".join(lines)


def _totals_markdown() -> list[str]:
    """The sections of ``docs/schema.md`` on the tables derived from the seats (:mod:`hhtool.store.totals`)."""
    from hhtool.store import totals

    t, h = totals.PLAYER_TOTALS, totals.PLAYER_HANDS
    counts = [name for name, _ in totals.SEAT_COUNTERS]
    money = [name for name, _ in totals.MONEY_COUNTERS] + ["rake"]
    lines = [
        "## Tables derived from the seats",
        "",
        f"`{t.name}`, `{h.name}` and `allin_hands` hold nothing the tables above do not: `hhtool serve`'s",
        "import adds a batch's rows to them in the transaction that adds its hands, so that the players' pages and",
        "`hhtool stats` read a few rows instead of every seat (`hhtool/store/totals.py`, docs/serve.md). `hhtool import`",
        "does not keep them (with them its writer spent 273 µs a hand instead of 151, `python bench/import.py`): it",
        "leaves them behind the hands. The table `derived` holds each one's `version`, the last hand it holds (`upto`)",
        "and its rows when last compacted; where they do not match the hands, their readers use the seats, and the",
        "server, when it opens the database, adds the rows of the hands after `upto` (or builds the table again from",
        "the seats: a database written before the tables, another version, hands removed). A batch's rows are appended; when the appended rows outgrow the table as",
        "last compacted, it is rewritten in the order of the players. Neither is part of `export --parquet` or the Spark",
        "import's dataset: `--parquet` reads the seats.",
        "",
        f"### `{t.name}`",
        "",
        "Each player's statistics as sums: a row per player, per hands' facts a filter of `hhtool stats` selects by,",
        "and per UTC hour the hands started in; one key may have several rows, so every reader sums.",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
    ]
    lines += [f"| `{c.name}` | {c.sql} | {c.doc} |" for c in totals.DIMENSIONS]
    lines += [
        f"| {', '.join(f'`{n}`' for n in counts)} | BIGINT | the counts `hhtool stats` sums (`SEAT_COUNTERS`): hands dealt in, "
        "each statistic's actions and opportunities, bets, calls and folds per street |",
        f"| {', '.join(f'`{n}`' for n in money)} | HUGEINT | the money sums, in minor units of the row's currency (docs/stats.md) |",
        "",
        f"### `{h.name}`",
        "",
        "Each player's hands, a row per seat dealt in, with what the winnings graph and the sessions read and the",
        "filters select by; in the order of the players, then time (but for the rows appended since the last compaction).",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
    ]
    lines += [f"| `{c.name}` | {c.sql} | {c.doc} |" for c in h.columns]
    a = totals.ALLIN_HANDS
    lines += [
        "",
        f"### `{a.name}`",
        "",
        "The hands in which someone was all-in, for the hands list's `allin` filter (a semi-join on these keys, not on",
        "every action line).",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
        *(f"| `{c.name}` | {c.sql} | {c.doc} |" for c in a.columns),
        "",
    ]
    return lines


if __name__ == "__main__":  # pragma: no cover
    print(schema_markdown(), end="")
