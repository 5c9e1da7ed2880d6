"""``docs/schema.md``, generated: the tables of :mod:`hhtool.store.schema` and the ones derived from the seats (:mod:`hhtool.store.totals`).

A module of its own because the page describes both: the derived tables'
columns are built from the schema's (``totals`` imports ``schema``), so the
schema cannot describe them without importing what imports it.  A test
checks that the file equals :func:`schema_markdown`.
"""

from __future__ import annotations

from hhtool.history.bounds import MAX_HAND_CHARS, MAX_LINE_CHARS
from hhtool.store import totals
from hhtool.store.schema import TABLES


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
        "Generated from `hhtool/store/schema.py` and `hhtool/store/totals.py` (`python -m hhtool.store.schemadoc > docs/schema.md`).",
        "",
        "## How an import fills it",
        "",
        "- `hhtool import PATH... [--db FILE] [--workers N] [--batch N] [--rooms DIR] [--reaudit] [--json]`: files, folders",
        "  (recursively, hidden entries skipped), globs, `.zip` members and `.gz` files. A file whose",
        "  content hash (SHA-256) is already in `files` is skipped without being parsed.",
        "- Links are followed within bounds; FIFOs, devices, sockets and link loops are skipped with a",
        "  note; a folder or archive that cannot be read is named in the summary and skipped, the rest",
        "  imported; zip members with unsafe names are read under safe ones: the rules are in",
        "  [`format-notes.md`](format-notes.md#files-an-import-reads) (\"Files an import reads\").",
        "- Worker processes (one per core) parse and replay; one writer inserts their rows in",
        "  transactions of up to `--batch` hands (20,000) or 5 seconds, inserted 10,000 hands at a time",
        "  (fewer, larger transactions: DuckDB then writes most rows compressed into the file at once",
        "  instead of through its log, `docs/performance.md`, \"Import\"). A file's `files` row is written",
        "  in the transaction of its last hands, so an import stopped at any moment (Ctrl-C, `kill -9`)",
        "  leaves a consistent database, and running the same command again finishes the job: the",
        "  hands already committed are recognised as duplicates, the others are stored.",
        "- Exactly once: a hand is stored only if its `(site, hand_id)` is new. The same id with the",
        "  same text is a duplicate (counted, not stored); with another text it is a conflict: the",
        "  first text stays in `hands`, the other is kept once in `conflicts`. A hand that does not",
        "  parse is kept once (by the hash of its text) in `failed`, with its error.",
        "- Room files (`--rooms DIR`, default `$HHTOOL_ROOMS`, else `~/.config/hhtool/rooms`; docs/rooms.md):",
        "  each hand is replayed under the room whose file names its site (for its profile), and `hands.room`",
        "  and `hands.rules_digest` say so; `rooms` keeps those rules as they were. A folder with a file that",
        "  cannot be used is a usage error (exit 2) and nothing is imported. Each import then counts the",
        "  stored hands audited under other rules than the files give now (a room changed, added, removed)",
        "  and says what changed, changing nothing; `--reaudit` (with or without paths) replays them from",
        "  their text and replaces what the replay made of them (the hand's verdict, findings, room and",
        "  digest, its seats, actions, cards, pots and findings rows), a batch a transaction, exactly once.",
        f"- Size bounds ([`format-notes.md`](format-notes.md)): a hand with a line over {MAX_LINE_CHARS:,} characters",
        f"  or over {MAX_HAND_CHARS:,} characters in all is a failed hand (`parse`) whose `message` says how long",
        "  it was and whose `raw_text` is its first part; it is cut where it is read, so a file's hostile",
        "  line (128 MiB without a line end) costs the import no more memory than a small file.",
        "- Exit codes: 0 when every hand read was stored or already there, whatever its verdict",
        "  (`invalid` and `disputed` hands are findings, not failures); 1 when a hand failed to parse",
        "  or to replay, or conflicted with a stored hand, or a file could not be read (a truncated",
        "  `.gz`: it is named in the summary and the other files are imported), or, as for `parse`, a",
        "  file named holds no hand or the inputs none; 2 for usage errors",
        "  (no such path, the database in use by another process, not hhtool's, damaged, or not",
        "  writable: a full disk, a read-only folder, see [`query.md`](query.md)); 130 when interrupted.",
        "- `hhtool query SQL [--format table|csv|json] [--out FILE] [--timeout SECONDS]` opens the database",
        "  read-only and reads its tables only: no other file, database, extension or setting, each statement",
        "  stopped after 300 s unless `--timeout` says otherwise ([`query.md`](query.md));",
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
