"""A room's own rules as a file: its name, the sites it governs, its rule parameters and its rake.

A floor manager writes a room file once (TOML; docs/rooms.md)::

    [room]
    name = "Circolo Vela"
    sites = ["Vela"]
    base = "classic"

    [rules]
    cap_heads_up = true

    [rake]
    percent = 5
    cap = "1.00"
    currencies = ["EUR", "USD"]

:func:`load_room` reads one and checks all of it before anything uses it:
an unknown key (with its line and the nearest known name), a wrong value
(with the values allowed), a combination RULES.md does not allow (naming
both keys).  Every problem is collected and raised together as a
:class:`RoomError`; a room is never half-applied.  The three built-in
profiles are files of the same form (``hhtool/game/profiles/``), from which
:mod:`hhtool.game.rules` builds its :class:`~hhtool.game.rules.RuleSet` s.

:class:`Rooms` is a folder of room files, each governing the hands whose
header names one of its sites and its base profile.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any, get_args

from hhtool.game.cards import RANK_CHARS, CardError, lowest_rank, parse_rank
from hhtool.game.rake import Cap, CapRow, RakeRule, percent_text
from hhtool.game.rules import (
    PROFILE_NAMES,
    PROFILES,
    STREET_NAMES,
    Deck,
    Exposure,
    ForcedBets,
    RuleSet,
    RulesError,
    SfRule,
    ShowdownOrder,
    ShowingTie,
    TieBreak,
    Vela,
    builtin_text,
)

ROOMS_ENV = "HHTOOL_ROOMS"
"""The environment variable naming the folder of room files (``--rooms`` overrides it)."""

CHOICES: dict[str, tuple[str, ...]] = {
    "deck": get_args(Deck),
    "forced_bets": get_args(ForcedBets),
    "vela": get_args(Vela),
    "showing_tie": get_args(ShowingTie),
    "tie_break": get_args(TieBreak),
    "sf_rule": get_args(SfRule),
    "showdown_order": get_args(ShowdownOrder),
    "exposure": get_args(Exposure),
}
"""The rule parameters that take one of a few words, and those words."""

BOUNDS: dict[str, tuple[int, int]] = {"min_players": (2, 10), "max_players": (2, 10), "cap_bets": (1, 100), "big_bet_from_round": (1, 5)}
"""The rule parameters that take a whole number, and its range."""

FLAGS = ("bring_in", "burns", "vela_betting_round", "cap_heads_up", "pair_showing_option", "big_blind_is_bet", "variants_allowed")
"""The rule parameters that are ``true`` or ``false``."""

RULE_KEYS: tuple[str, ...] = tuple(f.name for f in fields(RuleSet) if f.name != "name")
"""Every parameter of RULES.md, by the name the code and RULES.md use: the keys of ``[rules]``."""

ROOM_KEYS = ("name", "sites", "base")
RAKE_KEYS = ("percent", "cap", "cap_big_bets", "step", "currencies", "from_street", "caps")
CAP_ROW_KEYS = ("cap", "cap_big_bets", "big_bet_max", "players_min", "players_max")
TABLES = ("room", "rules", "rake")

_CURRENCY = re.compile(r"[A-Z]{3}")
_MONEY = re.compile(r"\d+(\.\d{1,2})?")


class RoomError(ValueError):
    """A room file that cannot be used: every problem, each ``file:line: what is wrong``."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Room:
    """A room's rules: the rule set its hands are replayed under, its rake, and where each key was written.

    ``rules.name`` stays the base profile's name (the hands' headers name
    it); ``name`` is the room's.  ``changed``: the rule parameters the
    room sets differently from its base profile, whose findings cite the
    room file rather than RULES.md.  ``digest``: a hash of the rules
    (parameters and rake; not the name, sites or comments) that the
    database records with each hand replayed under them.
    """

    name: str
    sites: tuple[str, ...]
    base: str
    rules: RuleSet
    rake: RakeRule | None
    source: str
    changed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    def ruleset_for(self, vela_at_start: bool, wild: int | None, exposure: Exposure) -> RuleSet:
        """The room's rules with a hand header's italian options applied (may raise RulesError)."""
        return self.rules.with_options(vela="at_start" if vela_at_start else None, wild=wild, exposure=exposure)

    def cites(self, keys: Iterable[str]) -> str:
        """Where the room file states ``keys``: ``rooms/vela.toml line 8 (cap_bets = 3)``."""
        parts = []
        for key in keys:
            line = self.lines.get(key)
            parts.append(f"line {line} ({_key_words(key, self)})" if line else _key_words(key, self))
        if not parts:
            return f"{self.name}'s rules, {self.source}"
        # a room rebuilt from the database (room_from_record) knows its keys' values, not their lines
        return f"{self.name}'s rules, {self.source}{' ' if parts[0].startswith('line ') else ': '}{', '.join(parts)}"

    def canonical(self) -> dict[str, Any]:
        """The rules as plain JSON values, every parameter written out: what :attr:`digest` hashes."""
        r = {k: getattr(self.rules, k) for k in RULE_KEYS}
        return {"rules": r, "rake": None if self.rake is None else _rake_json(self.rake)}

    @property
    def digest(self) -> str:
        return rules_digest(self.canonical())


def rules_digest(canonical: Mapping[str, Any]) -> str:
    """16 hex digits of SHA-256 over the canonical JSON (sorted keys)."""
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def describe_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between two :meth:`Room.canonical` values: ``["cap_bets 4 → 3", "rake percent 5 → 4"]``."""
    out = []
    for k in RULE_KEYS:
        a, b = old.get("rules", {}).get(k), new.get("rules", {}).get(k)
        if a != b:
            out.append(f"{k} {_json_words(a)} → {_json_words(b)}")
    ra, rb = old.get("rake"), new.get("rake")
    if ra != rb:
        if ra is None or rb is None:
            out.append("rake: " + ("none" if ra is None else "ruled") + " → " + ("none" if rb is None else "ruled"))
        else:
            for k in sorted(set(ra) | set(rb)):
                if ra.get(k) != rb.get(k):
                    out.append(f"rake {k} {_rake_value_words(k, ra.get(k))} → {_rake_value_words(k, rb.get(k))}")
    return out


def _rake_value_words(key: str, v: Any) -> str:
    """A value of :func:`_rake_json` as a floor manager reads it: ``4.5`` (not ``9/2``), ``1.5 big bets``, ``"1.00"``."""
    if v is None:
        return "none"
    if key == "percent":
        return percent_text(Fraction(v))
    if key == "cap" and isinstance(v, dict):
        return f'"{v["amount"]}"' if "amount" in v else f"{percent_text(Fraction(v['big_bets']))} big bets"
    if key == "caps" and isinstance(v, list):
        return f"{len(v)} row{'s' if len(v) != 1 else ''}" if v else "none"
    return _json_words(v)


def _json_words(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else str(v)


def _rake_json(r: RakeRule) -> dict[str, Any]:
    def cap_json(c: Cap | None) -> dict[str, str] | None:
        if c is None:
            return None
        return {"amount": str(c.amount)} if c.amount is not None else {"big_bets": str(c.big_bets)}

    return {
        "percent": str(r.percent),
        "cap": cap_json(r.cap),
        "step": None if r.step is None else str(r.step),
        "currencies": None if r.currencies is None else list(r.currencies),
        "from_street": r.from_street,
        "caps": [
            {
                "cap": cap_json(row.cap),
                "big_bet_max": None if row.big_bet_max is None else str(row.big_bet_max),
                "players_min": row.players_min,
                "players_max": row.players_max,
            }
            for row in r.caps
        ],
    }


def room_from_record(name: str, base: str, sites: Iterable[str], source: str, canonical: Mapping[str, Any]) -> Room:
    """A room as the database recorded it (``rooms``: its :meth:`Room.canonical` JSON), to replay a stored hand exactly as it was.

    The file's lines are not recorded, so a finding cites the file without
    them; the rules and the rake are those the hand was audited under, even
    if the file has changed since.
    """
    r = canonical["rules"]
    values = {k: r[k] for k in RULE_KEYS}
    rules = RuleSet(name=base, **values)
    origin = PROFILES.get(base)
    changed = tuple(k for k in RULE_KEYS if origin is not None and values[k] != getattr(origin, k))
    rake = canonical.get("rake")
    return Room(name, tuple(sites), base, rules, None if rake is None else _rake_from_json(rake), source, changed)


def _rake_from_json(j: Mapping[str, Any]) -> RakeRule:
    def cap(c: Mapping[str, str] | None) -> Cap | None:
        if c is None:
            return None
        return Cap(amount=Decimal(c["amount"])) if "amount" in c else Cap(big_bets=Fraction(c["big_bets"]))

    def dec(v: str | None) -> Decimal | None:
        return None if v is None else Decimal(v)

    rows = tuple(
        CapRow(cap(row["cap"]) or Cap(), f"rake.caps.{i}", dec(row["big_bet_max"]), row["players_min"], row["players_max"])
        for i, row in enumerate(j["caps"], 1)
    )
    currencies = j["currencies"]
    return RakeRule(Fraction(j["percent"]), cap(j["cap"]), dec(j["step"]), None if currencies is None else tuple(currencies), j["from_street"], rows)


def _key_words(key: str, room: Room) -> str:
    """``cap_bets = 3``: a key as the file states it (a rule by its value in the room's rules)."""
    table, _, name = key.partition(".")
    if table == "rules" and name in RULE_KEYS:
        v = getattr(room.rules, name)
        return f"{name} = {toml_value(name, v)}"
    if table == "rake" and room.rake is not None:
        return _rake_key_words(name, room.rake)
    return key


def _rake_key_words(name: str, r: RakeRule) -> str:
    """``percent = 5``, ``cap = "1.00"``, ``[[rake.caps]] row 2``: a key of [rake] as the file states it."""
    if name == "percent":
        return f"percent = {percent_text(r.percent)}"
    if name in ("cap", "cap_big_bets") and r.cap is not None:
        return f'cap = "{r.cap.amount}"' if r.cap.amount is not None else f"cap_big_bets = {percent_text(r.cap.big_bets or Fraction(0))}"
    if name == "step" and r.step is not None:
        return f'step = "{r.step}"'
    if name == "currencies" and r.currencies is not None:
        return "currencies = [" + ", ".join(f'"{c}"' for c in r.currencies) + "]"
    if name == "from_street":
        return f'from_street = "{r.from_street}"'
    if name.startswith("caps."):
        return f"[[rake.caps]] row {name.partition('.')[2]}"
    return f"rake {name}"


def toml_value(name: str, v: Any) -> str:
    """A rule parameter's value as a room file writes it: ``true``, ``"split"``, ``3``, ``"7"`` (a wild rank), ``"none"``."""
    if name == "wild":
        return '"none"' if v is None else f'"{RANK_CHARS[v - 2]}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    return f'"{v}"' if isinstance(v, str) else str(v)


# --- reading a file ---------------------------------------------------------------------------


def key_lines(text: str) -> dict[str, int]:
    """The line of each key and table a TOML text writes: ``{"rules": 7, "rules.cap_bets": 8, "rake.caps.1.cap": 15}``.

    tomllib gives values, not places; a room file's errors must name their
    line, so the lines are found by a light scan of the text (table
    headers, ``key =`` lines, dotted keys), good for the files people write.
    Rows of an array of tables count from 1 (``rake.caps.1``).
    """
    out: dict[str, int] = {}
    table = ""
    counts: dict[str, int] = {}
    header = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
    keyline = re.compile(r"^\s*([A-Za-z0-9_\-\"'.]+(?:\s*\.\s*[A-Za-z0-9_\-\"']+)*)\s*=")
    in_multiline = False
    for no, raw in enumerate(text.splitlines(), 1):
        if in_multiline:
            if raw.count('"""') % 2 == 1 or raw.count("'''") % 2 == 1:
                in_multiline = False
            continue
        m = header.match(raw)
        if m:
            name = ".".join(p.strip().strip("\"'") for p in m.group(2).split("."))
            if m.group(1) == "[[":
                counts[name] = counts.get(name, 0) + 1
                name = f"{name}.{counts[name]}"
            table = name
            out.setdefault(table, no)
            continue
        k = keyline.match(raw)
        if k:
            key = ".".join(p.strip().strip("\"'") for p in k.group(1).split("."))
            out.setdefault(f"{table}.{key}" if table else key, no)
            rest = raw[k.end():]
            if rest.count('"""') == 1 or rest.count("'''") == 1:
                in_multiline = True
    return out


def load_room(path: str | Path) -> Room:
    """Read and check the room file at ``path``; a :class:`RoomError` with every problem otherwise."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise RoomError([f"{path}: cannot read the room file: {e.strerror}"]) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        start = e.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)  # utf-8-sig counts after its byte-order mark
        line = data.count(b"\n", 0, start) + 1
        raise RoomError([f"{path}:{line}: not UTF-8 text (byte {start})"]) from None
    return parse_room(text, str(path))


def builtin_room(name: str) -> Room:
    """The built-in profile ``name`` read as a room file (what ``hhtool rules show NAME`` prints)."""
    return parse_room(builtin_text(name), f"built-in {name}", builtin=True)


def parse_room(text: str, source: str, *, builtin: bool = False) -> Room:
    """A room from the text of its file; ``source`` names the file in messages."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        at = re.search(r"\(at line (\d+), column \d+\)$", str(e))
        raise RoomError([f"{source}:{at.group(1)}: not a TOML file: {e}" if at else f"{source}: not a TOML file: {e}"]) from None
    return _Checker(doc, key_lines(text), source, builtin).room()


class _Checker:
    """One room file's checks, collecting every problem before it says any."""

    def __init__(self, doc: dict[str, Any], lines: dict[str, int], source: str, builtin: bool) -> None:
        self.doc = doc
        self.lines = lines
        self.source = source
        self.builtin = builtin
        self.problems: list[str] = []
        self.warnings: list[str] = []

    def where(self, key: str) -> str:
        line = self.lines.get(key)
        if line is None:  # a key of a table written inline: the table's line
            table = key.rpartition(".")[0]
            while table and table not in self.lines:
                table = table.rpartition(".")[0]
            line = self.lines.get(table)
        return f"{self.source}:{line}" if line else self.source

    def line_of(self, problem: str) -> int:
        """The line a problem names (0 for the file as a whole): problems are told in the order of the file."""
        m = re.match(r"(\d+):", problem[len(self.source) + 1 :])
        return int(m.group(1)) if m else 0

    def problem(self, key: str, message: str) -> None:
        self.problems.append(f"{self.where(key)}: {message}")

    def unknown(self, key: str, name: str, known: Iterable[str], what: str) -> None:
        near = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]!r}?" if near else f"; the known ones are {', '.join(known)}"
        self.problem(key, f"unknown {what} {name!r}{hint}")

    def room(self) -> Room:
        doc = self.doc
        for t in doc:
            if t not in TABLES:
                self.unknown(t, t, TABLES, "table")
            elif not isinstance(doc[t], dict):
                self.problem(t, f"{t} must be a table ([{t}])")
        head: dict[str, Any] = doc["room"] if isinstance(doc.get("room"), dict) else {}
        for k in head:
            if k not in ROOM_KEYS:
                self.unknown(f"room.{k}", k, ROOM_KEYS, "key in [room]")
        name = head.get("name")
        if not isinstance(name, str) or not name.strip():
            self.problem("room.name" if "name" in head else "room", "the room needs a name: name = \"...\" under [room]")
            name = ""
        sites_raw = head.get("sites", [])
        sites: tuple[str, ...] = ()
        if not isinstance(sites_raw, list) or not all(isinstance(s, str) and s.strip() and " " not in s.strip() for s in sites_raw):
            self.problem("room.sites", "sites must be a list of site names as the hand headers write them, one word each: sites = [\"Vela\"]")
        else:
            sites = tuple(s.strip() for s in sites_raw)
        base = head.get("base")
        given: dict[str, Any] = doc["rules"] if isinstance(doc.get("rules"), dict) else {}
        before = len(self.problems)
        values = self.rules_values(given)
        rules_ok = len(self.problems) == before  # a problem in [room] does not hide those of the combinations
        if base is None:
            missing = [k for k in RULE_KEYS if k not in given]
            if missing and not self.builtin:
                self.problem("room", f"no base profile: give base = \"classic\" (or stellapoker, italian) under [room], or set every parameter (missing: {', '.join(missing)})")
            rules = RuleSet(name=str(name), **values) if not missing and rules_ok else None
            base_name = str(name) if self.builtin else ""
            if not missing and not self.builtin:
                self.warnings.append(
                    f"{self.where('room')}: no base profile: the room governs no hand of a history (it governs its sites' hands "
                    "of its base profile), only --rules FILE; give base = \"classic\" (or stellapoker, italian) under [room]"
                )
        elif base not in PROFILE_NAMES:
            near = difflib.get_close_matches(str(base), PROFILE_NAMES, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            self.problem("room.base", f"base = {_shown(base)} is not a profile: expected one of {', '.join(PROFILE_NAMES)}{hint}")
            rules, base_name = None, ""
        else:
            base_name = base
            rules = replace(PROFILES[base], **values) if rules_ok else None
        if rules is not None:
            self.combinations(rules)
        rake = self.rake(doc["rake"]) if isinstance(doc.get("rake"), dict) else None
        if self.problems or rules is None:
            raise RoomError(sorted(self.problems, key=self.line_of) or [f"{self.source}: the rules are incomplete"])
        origin = PROFILES.get(base_name)
        changed = tuple(k for k in RULE_KEYS if origin is not None and getattr(rules, k) != getattr(origin, k))
        return Room(str(name).strip(), sites, base_name, rules, rake, self.source, changed, tuple(self.warnings), self.lines)

    def rules_values(self, given: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in given.items():
            key = f"rules.{k}"
            if k not in RULE_KEYS:
                self.unknown(key, k, RULE_KEYS, "rule parameter")
            elif k in CHOICES:
                if v not in CHOICES[k]:
                    self.problem(key, f"{k} = {_shown(v)}: expected one of {', '.join(CHOICES[k])}")
                else:
                    out[k] = v
            elif k in FLAGS:
                if not isinstance(v, bool):
                    self.problem(key, f"{k} = {_shown(v)}: expected true or false")
                else:
                    out[k] = v
            elif k in BOUNDS:
                lo, hi = BOUNDS[k]
                if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                    self.problem(key, f"{k} = {_shown(v)}: expected a whole number from {lo} to {hi}")
                else:
                    out[k] = v
            elif k == "wild":
                if v == "none":
                    out[k] = None
                else:
                    try:
                        if isinstance(v, bool) or not isinstance(v, (int, str)):
                            raise CardError("", "")
                        out[k] = parse_rank(str(v))
                    except CardError:
                        self.problem(key, f"wild = {_shown(v)}: expected \"none\" or a rank: {', '.join(RANK_CHARS)}")
        return out

    def combinations(self, r: RuleSet) -> None:
        """The checks RULES.md makes across parameters; each message names both keys."""
        if r.min_players > r.max_players:
            self.problem("rules.min_players", f"min_players = {r.min_players} is more than max_players = {r.max_players}")
            return
        if r.deck == "by_players" and r.max_players > 9:
            self.problem("rules.max_players", f"max_players = {r.max_players} with deck = \"by_players\": the deck's lowest rank would be below 2 (11 less the players; at most 9)")
            return
        size = (15 - lowest_rank(r.deck, r.max_players)) * 4
        vela = 1 if r.vela != "none" else 0
        need = 5 * r.max_players + vela
        if need > size:
            self.problem(
                "rules.max_players",
                f"max_players = {r.max_players} with deck = \"{r.deck}\": {r.max_players} players to the showdown take {need} cards"
                + (" with the vela" if vela else "")
                + f", and the deck holds {size}",
            )
        elif r.burns and need + 3 > size:
            self.warnings.append(
                f"{self.where('rules.burns')}: burns = true with max_players = {r.max_players}: {r.max_players} players to 5th street take "
                f"{need + 3} cards with the burns, and the {size}-card deck holds {size}; a hand that gets there is deck_exhausted"
            )
        if r.vela_betting_round and r.vela != "after_fifth":
            self.problem(
                "rules.vela_betting_round",
                f"vela_betting_round = true with vela = \"{r.vela}\": a betting round after the vela needs vela = \"after_fifth\""
                + (" (a vela dealt at the start is turned after the last round)" if r.vela == "at_start" else " (there is no vela)"),
            )
        if r.bring_in and r.forced_bets != "antes":
            self.problem("rules.bring_in", f"bring_in = true with forced_bets = \"{r.forced_bets}\": a bring-in follows antes, not blinds")
        if r.big_blind_is_bet and r.forced_bets != "blinds":
            self.problem("rules.big_blind_is_bet", f"big_blind_is_bet = true with forced_bets = \"{r.forced_bets}\": there is no big blind")
        if r.exposure != "standard" and r.bring_in:
            self.problem("rules.exposure", f"exposure = \"{r.exposure}\" with bring_in = true: the bring-in goes to the highest door card, which this exposure deals down")
        if not r.variants_allowed:  # RULES.md §4: wild cards, the exposures and the vela at the start are italian variants
            for key, on in (("wild", r.wild is not None), ("exposure", r.exposure != "standard"), ("vela", r.vela == "at_start")):
                if on:
                    self.problem(
                        f"rules.{key}",
                        f"{key} = {toml_value(key, getattr(r, key))} with variants_allowed = false: "
                        "it is one of RULES.md's italian variants; set variants_allowed = true to play it",
                    )
        if r.wild is not None:
            low = lowest_rank(r.deck, r.min_players)
            if r.wild < low:
                self.problem("rules.wild", f"wild = \"{RANK_CHARS[r.wild - 2]}\" with deck = \"{r.deck}\": with {r.min_players} players (min_players) the deck starts at {RANK_CHARS[low - 2]}")

    def rake(self, t: Mapping[str, Any]) -> RakeRule | None:
        n = len(self.problems)
        for k in t:
            if k not in RAKE_KEYS:
                self.unknown(f"rake.{k}", k, RAKE_KEYS, "key in [rake]")
        if "percent" not in t:
            self.problem("rake", "the rake needs percent = N (of the total pot)")
        percent = self.number("rake.percent", t["percent"], 0, 100) if "percent" in t else Fraction(0)
        cap = self.cap("rake", t)
        step = self.money("rake.step", t["step"]) if "step" in t else None
        if step is not None and step <= 0:
            self.problem("rake.step", "step must be more than 0")
        currencies: tuple[str, ...] | None = None
        if "currencies" in t:
            c = t["currencies"]
            if not isinstance(c, list) or not all(isinstance(x, str) and (_CURRENCY.fullmatch(x) or x == "chips") for x in c):
                self.problem("rake.currencies", f"currencies = {_shown(c)}: expected a list of ISO 4217 codes, \"chips\" for play chips: currencies = [\"EUR\", \"USD\"]")
            else:
                currencies = tuple(c)
        from_street = t.get("from_street", "2nd")
        if from_street not in STREET_NAMES:
            self.problem("rake.from_street", f"from_street = {_shown(from_street)}: expected one of {', '.join(STREET_NAMES)}")
            from_street = "2nd"
        rows: list[CapRow] = []
        raw_rows = t.get("caps", [])
        if not isinstance(raw_rows, list) or not all(isinstance(x, dict) for x in raw_rows):
            self.problem("rake.caps", "caps must be rows written [[rake.caps]], each with cap or cap_big_bets and its bounds")
            raw_rows = []
        for i, row in enumerate(raw_rows, 1):
            key = f"rake.caps.{i}"
            for k in row:
                if k not in CAP_ROW_KEYS:
                    self.unknown(f"{key}.{k}", k, CAP_ROW_KEYS, "key in [[rake.caps]]")
            row_cap = self.cap(key, row)
            if "cap" not in row and "cap_big_bets" not in row:  # (a cap given wrong is a problem of its own)
                self.problem(key, "a row of the cap table needs cap = \"…\" or cap_big_bets = N")
            big = self.money(f"{key}.big_bet_max", row["big_bet_max"]) if "big_bet_max" in row else None
            lo = self.players(f"{key}.players_min", row.get("players_min"))
            hi = self.players(f"{key}.players_max", row.get("players_max"))
            if lo is not None and hi is not None and lo > hi:
                self.problem(f"{key}.players_min", f"players_min = {lo} is more than players_max = {hi}")
            if row_cap is not None:
                rows.append(CapRow(row_cap, key, big, lo, hi))
        if len(self.problems) > n:
            return None
        assert isinstance(from_street, str) and from_street in STREET_NAMES
        return RakeRule(percent, cap, step, currencies, from_street, tuple(rows))

    def cap(self, table: str, t: Mapping[str, Any]) -> Cap | None:
        if "cap" in t and "cap_big_bets" in t:
            self.problem(f"{table}.cap_big_bets", "cap and cap_big_bets are both given: a cap is one or the other")
            return None
        if "cap" in t:
            amount = self.money(f"{table}.cap", t["cap"])
            return Cap(amount=amount) if amount is not None else None
        if "cap_big_bets" in t:
            bb = self.number(f"{table}.cap_big_bets", t["cap_big_bets"], 0, 1000)
            return Cap(big_bets=bb)
        return None

    def number(self, key: str, v: Any, lo: int, hi: int) -> Fraction:
        """A percentage or count of big bets: an integer, a decimal, or a decimal in a string; exact."""
        try:
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                raise ValueError
            f = Fraction(Decimal(str(v)))
        except (ValueError, InvalidOperation):
            self.problem(key, f"{key.rpartition('.')[2]} = {_shown(v)}: expected a number from {lo} to {hi}")
            return Fraction(0)
        if not lo <= f <= hi or f == 0:
            self.problem(key, f"{key.rpartition('.')[2]} = {_shown(v)}: expected a number more than {lo}, at most {hi}")
        return f

    def money(self, key: str, v: Any) -> Decimal | None:
        """An amount in the table's money, written as a string of digits with up to two decimals: ``"1.00"``."""
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            return Decimal(v)
        if isinstance(v, str) and _MONEY.fullmatch(v.strip()):
            return Decimal(v.strip())
        self.problem(key, f"{key.rpartition('.')[2]} = {_shown(v)}: expected an amount in the table's money, as text: \"1.00\" (no currency sign)")
        return None

    def players(self, key: str, v: Any) -> int | None:
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not 2 <= v <= 10:
            self.problem(key, f"{key.rpartition('.')[2]} = {_shown(v)}: expected a whole number of players from 2 to 10")
            return None
        return v


def _shown(v: Any) -> str:
    """A value as the file wrote it, roughly: strings quoted, booleans lower case."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return json.dumps(v, ensure_ascii=False, default=str) if isinstance(v, (list, dict)) else str(v)


# --- a folder of rooms ------------------------------------------------------------------------


def default_rooms_dir() -> Path:
    """``$HHTOOL_ROOMS``, else ``rooms/`` in the user's config folder (``$XDG_CONFIG_HOME/hhtool/rooms``, ``~/.config/hhtool/rooms``)."""
    env = os.environ.get(ROOMS_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "hhtool" / "rooms"


@dataclass(frozen=True, slots=True)
class Rooms:
    """The room files of a folder, each governing the hands of its sites played under its base profile."""

    rooms: tuple[Room, ...] = ()
    folder: str | None = None
    by_site: Mapping[tuple[str, str], Room] = field(default_factory=dict, compare=False)

    def for_hand(self, site: str, profile: str) -> Room | None:
        """The room that governs a hand whose header names ``site`` and ``profile`` (None: the profile's own rules)."""
        if not self.by_site:
            return None
        return self.by_site.get((site.casefold(), profile))

    def __bool__(self) -> bool:
        return bool(self.rooms)


NO_ROOMS = Rooms()


def rooms_of(rooms: Iterable[Room], folder: str | None = None) -> Rooms:
    """The rooms, indexed by site and base; two rooms claiming the same site and profile are a :class:`RoomError`."""
    index: dict[tuple[str, str], Room] = {}
    problems = []
    listed = tuple(rooms)
    for room in listed:
        for site in room.sites:
            k = (site.casefold(), room.base)
            other = index.get(k)
            if other is not None and other is not room:
                line = room.lines.get("room.sites")
                where = f"{room.source}:{line}" if line else room.source
                problems.append(f"{where}: site {site!r} ({room.base}) is governed by {other.source} too; a site's hands of one profile have one room")
            index[k] = room
    if problems:
        raise RoomError(problems)
    return Rooms(listed, folder, index)


def load_rooms(folder: str | Path | None, *, required: bool = False) -> Rooms:
    """Every ``*.toml`` file of ``folder`` (default :func:`default_rooms_dir`), checked; all problems of all files raised together.

    A missing folder is no rooms, unless ``required`` (the user named it).
    """
    path = Path(folder) if folder is not None else default_rooms_dir()
    if not path.is_dir():
        if required or (folder is None and ROOMS_ENV in os.environ):
            raise RoomError([f"{path}: no such folder of room files"])
        return NO_ROOMS
    rooms: list[Room] = []
    problems: list[str] = []
    for f in sorted(path.glob("*.toml")):
        try:
            rooms.append(load_room(f))
        except RoomError as e:
            problems += e.problems
    try:
        found = rooms_of(rooms, str(path))
    except RoomError as e:
        problems += e.problems
    if problems:
        raise RoomError(problems)
    return found


__all__ = [
    "NO_ROOMS",
    "Room",
    "RoomError",
    "Rooms",
    "RulesError",
    "builtin_room",
    "default_rooms_dir",
    "describe_changes",
    "load_room",
    "load_rooms",
    "parse_room",
    "rooms_of",
]
