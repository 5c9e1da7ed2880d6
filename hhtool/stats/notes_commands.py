"""What ``hhtool note``, ``hhtool tag`` and ``hhtool alias`` do on an open connection, and the text they print.

One body for two callers: the CLI runs a command on the database file
(:mod:`hhtool.cli_notes`, :mod:`hhtool.cli_alias`), and while ``hhtool
serve`` holds the file the server runs the same body on a cursor of its
connection for the CLI (``POST /api/cli/write``, :mod:`hhtool.web.cli_api`),
which prints the text it sends back: the same bytes, the same refusals
(each a :class:`~hhtool.store.db.StoreError` the CLI makes exit 2) either
way.  A command's arguments are checked for sense by the CLI before it
gets here (which options go together); what is checked here is what the
database answers (the hand, the account, the note's length, a tag's form).

Every text printed is made terminal-safe (:mod:`hhtool.textsafe`) unless
``raw``: a note, a tag and a name may hold an escape.  :data:`COMMANDS`
names each body and the types of its arguments, for the server to check
what it is sent before it runs one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb


def _safe(text: str, raw: bool) -> str:
    from hhtool.textsafe import term

    return text if raw else term(text)


def _lines(text: str, none: str | None, raw: bool, indent: str = "") -> list[str]:
    """A note, a line of the terminal a line of the note, each made safe (a note may hold an escape, as a name may)."""
    if not text:
        return [] if none is None else [_safe(none, raw)]
    return [indent + _safe(line, raw) for line in text.split("\n")]


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def note(
    con: duckdb.DuckDBPyConnection, *, hand: str | None, text: str | None, site: str | None, player: str | None,
    append: bool, clear: bool, fmt: str, raw: bool,
) -> str:
    """``hhtool note``: a hand's or an account's note written (``text``; ``clear``: removed) or printed, or every note."""
    from hhtool.stats import notes as lib

    write = clear or text is not None
    if player is not None:
        account = lib.parse_account(player)
        if not write:
            lib.check_account(con, account)
            return _text(_lines(lib.player_note(con, account), f"no note on {player}", raw))
        kept = lib.set_player_note(con, account, "" if clear else text or "", append=append)
        return _text([_safe(f"{player}: " + (f"note written ({len(kept):,} characters)" if kept else "no note"), raw)])
    if hand is not None:
        ref = lib.find_hand(con, hand, site)
        where = f"{ref.site} hand {ref.hand_id}"
        if not write:
            got = lib.hand_note(con, ref)
            head = [_safe(f"tags: {' '.join(got.tags)}", raw)] if got.tags else []
            return _text(head + _lines(got.note, f"no note on {where}", raw))
        kept = lib.set_hand_note(con, ref, "" if clear else text or "", append=append)
        return _text([_safe(f"{where}: " + (f"note written ({len(kept):,} characters)" if kept else "no note"), raw)])
    return every_note(con, raw) if fmt == "text" else rendered_notes(con, fmt, raw)


def every_note(con: duckdb.DuckDBPyConnection, raw: bool) -> str:
    """Every note: the hands' (with their tags), then the players' (with theirs); a note's lines indented under its heading."""
    from hhtool.stats.notes import all_hand_notes, all_player_notes

    hands, players = all_hand_notes(con), all_player_notes(con)
    if not hands and not players:
        return "no note and no tag in this database (hhtool note HAND \"TEXT\", hhtool tag HAND study)\n"
    out: list[str] = []
    for h in hands:
        out.append(_safe(f"{h.site} hand {h.hand_id}" + (f"  [{' '.join(h.tags)}]" if h.tags else ""), raw))
        out += _lines(h.note, None, raw, indent="    ")
    for p in players:
        out.append(_safe(f"player {p.account}" + (f"  [{' '.join(p.tags)}]" if p.tags else ""), raw))
        out += _lines(p.note, None, raw, indent="    ")
    return _text(out)


def rendered_notes(con: duckdb.DuckDBPyConnection, fmt: str, raw: bool) -> str:
    """Every note as rows (kind, site, hand_id, player, tags, note), rendered as ``hhtool query`` renders: safe unless ``raw``."""
    import polars as pl

    from hhtool.stats.notes import all_hand_notes, all_player_notes
    from hhtool.store.query import render

    rows: list[tuple[str, str, str | None, str | None, str, str]] = [
        ("hand", h.site, h.hand_id, None, " ".join(h.tags), h.note) for h in all_hand_notes(con)
    ]
    rows += [("player", p.site, None, p.player, " ".join(p.tags), p.note) for p in all_player_notes(con)]
    names = ("kind", "site", "hand_id", "player", "tags", "note")
    df = pl.DataFrame([list(c) for c in zip(*rows)] if rows else [[] for _ in names], schema={n: pl.String for n in names}, orient="col")
    return render(df, fmt, raw=raw)  # type: ignore[arg-type]  # one of table, csv, json: the CLI checked it


def tag(
    con: duckdb.DuckDBPyConnection, *, hand: str | None, tags: list[str], site: str | None, player: str | None, remove: bool, raw: bool,
) -> str:
    """``hhtool tag``: tags given to a hand or an account, taken off (``remove``), or printed."""
    from hhtool.stats import notes as lib

    out: list[str] = []
    if player is not None:
        account = lib.parse_account(player)
        where = player
        if remove:
            gone = lib.remove_player_tags(con, account, tags)
            out.append(f"{where}: " + (f"removed {' '.join(gone)}" if gone else "no such tag to remove"))
        elif tags:
            added = lib.add_player_tags(con, account, tags)
            out.append(f"{where}: " + (f"tagged {' '.join(added)}" if added else "had those tags already"))
        else:
            lib.check_account(con, account)
        now = lib.account_tags(con, account)
    else:
        ref = lib.find_hand(con, hand or "", site)
        where = f"{ref.site} hand {ref.hand_id}"
        if remove:
            gone = lib.remove_tags(con, ref, tags)
            out.append(f"{where}: " + (f"removed {' '.join(gone)}" if gone else "no such tag to remove"))
        elif tags:
            added = lib.add_tags(con, ref, tags)
            out.append(f"{where}: " + (f"tagged {' '.join(added)}" if added else "had those tags already"))
        now = lib.hand_note(con, ref).tags
    out.append(f"tags: {' '.join(now)}" if now else f"{where} has no tag")
    return _text([_safe(line, raw) for line in out])


def alias_add(con: duckdb.DuckDBPyConnection, *, person: str, accounts: list[str], raw: bool) -> str:
    """``hhtool alias add``: these accounts made the person's."""
    from hhtool.stats.aliases import add_aliases

    added = add_aliases(con, person, accounts)
    return _text([_safe(f"{person}: {len(added)} account{'s' if len(added) != 1 else ''} added"
                        + (f" ({', '.join(a.account for a in added)})" if added else ""), raw)])


def alias_remove(con: duckdb.DuckDBPyConnection, *, accounts: list[str], raw: bool) -> str:
    """``hhtool alias remove``: these accounts taken out of their person's."""
    from hhtool.stats.aliases import remove_aliases

    return _text([_safe(f"{a.account}: no longer {a.person}'s", raw) for a in remove_aliases(con, accounts)])


def alias_list(con: duckdb.DuckDBPyConnection, *, fmt: str, raw: bool) -> str:
    """``hhtool alias list``: every person's accounts, a row each (person, site, player, account)."""
    import polars as pl

    from hhtool.stats.aliases import list_aliases
    from hhtool.store.query import render

    rows = list_aliases(con)
    df = pl.DataFrame({"person": [a.person for a in rows], "site": [a.site for a in rows], "player": [a.player for a in rows],
                       "account": [a.account for a in rows]}, schema={k: pl.String for k in ("person", "site", "player", "account")})
    return render(df, fmt, raw=raw)  # type: ignore[arg-type]  # one of table, csv, json: the CLI checked it


OPT_TEXT = "text?"
"""An argument's type in :data:`COMMANDS`: a text or None; ``"text"`` a text, ``"flag"`` true or false, ``"texts"`` a list of texts."""

COMMANDS: dict[str, tuple[Callable[..., str], dict[str, str]]] = {
    "note": (note, {"hand": OPT_TEXT, "text": OPT_TEXT, "site": OPT_TEXT, "player": OPT_TEXT, "append": "flag", "clear": "flag",
                    "fmt": "text", "raw": "flag"}),
    "tag": (tag, {"hand": OPT_TEXT, "tags": "texts", "site": OPT_TEXT, "player": OPT_TEXT, "remove": "flag", "raw": "flag"}),
    "alias-add": (alias_add, {"person": "text", "accounts": "texts", "raw": "flag"}),
    "alias-remove": (alias_remove, {"accounts": "texts", "raw": "flag"}),
    "alias-list": (alias_list, {"fmt": "text", "raw": "flag"}),
}
"""Each command's body and its arguments' types: what ``POST /api/cli/write`` runs, the arguments checked against these first."""

FORMATS = {"note": ("text", "table", "csv", "json"), "alias-list": ("table", "csv", "json")}
"""The formats a command's ``fmt`` may name (checked by the server too: a body renders only these)."""


def checked_args(command: str, args: Any) -> dict[str, Any]:
    """``args`` when they are exactly ``command``'s (:data:`COMMANDS`), each of its type; :class:`ValueError` naming what is wrong."""
    if command not in COMMANDS:
        raise ValueError(f"command: one of {', '.join(COMMANDS)}")
    _, spec = COMMANDS[command]
    if not isinstance(args, dict) or set(args) != set(spec):
        raise ValueError(f"{command}: the arguments {', '.join(spec)}")
    for name, kind in spec.items():
        v = args[name]
        ok = (
            isinstance(v, bool) if kind == "flag"
            else isinstance(v, str) if kind == "text"
            else (v is None or isinstance(v, str)) if kind == OPT_TEXT
            else isinstance(v, list) and all(isinstance(x, str) for x in v)
        )
        if not ok:
            raise ValueError(f"{command}: {name} is not a {kind}")
    if "fmt" in spec and args["fmt"] not in FORMATS[command]:
        raise ValueError(f"{command}: fmt is one of {', '.join(FORMATS[command])}")
    return dict(args)


def run(con: duckdb.DuckDBPyConnection, command: str, args: dict[str, Any]) -> str:
    """The command's body on ``con`` (arguments as :func:`checked_args` lets through): the text it prints."""
    body, _ = COMMANDS[command]
    return body(con, **args)
