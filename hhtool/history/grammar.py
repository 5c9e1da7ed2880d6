"""The Lark grammar of FORMAT.md, and the fast line matcher compiled from it.

``grammars/telesina.lark`` is the source of truth.  It is shipped inside
the package as ``hhtool.grammars`` (setup.py maps that package to the top-level folder) and
built once, lazily, as an LALR parser with a contextual lexer.  One part of
the grammar is not written in it but derived from it: the chatter about
someone who holds no seat (the start symbol ``stranger`` and its terminal
``STRANGER``), from the chatter rules (:func:`with_strangers`).  Every reader
of the grammar -- Lark, the fast matcher, the C reader's configuration --
reads :func:`grammar_text`, the file with that part written in.

Parsing a hand line by line with Lark costs tens of microseconds a line,
which is too slow for the 5,000 hands a second we aim at.  The grammar is
regular line by line, so :func:`matcher` compiles each start symbol into
one regular expression straight from Lark's compiled rules: one
alternative per rule expansion, one capture group per token the parse
tree would keep, and a template that puts ``None`` where Lark's
``maybe_placeholders`` would.  Both routes return the same
``(event name, tokens)`` pair for every line (``tests/test_grammar.py``
checks this on every sample line and on generated hands), so the regular
expression is a faster reading of the grammar, not a second grammar.  Lark
itself runs only when a line fails, to say where and what was expected.
"""

from __future__ import annotations

import ast
import functools
import itertools
import os
import re
from dataclasses import dataclass
from importlib import resources
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lark import Lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

START_SYMBOLS = ("header", "table", "seat", "line", "stranger")
"""The start symbols, one per kind of line position in a hand."""

PLACEHOLDER = "\x1f"
"""Starts the token that stands for a seated player's name (PLAYER)."""

Tokens = tuple["str | None", ...]
LineMatch = tuple[str, Tokens]


class GrammarShapeError(Exception):
    """The grammar uses a construct the fast matcher cannot compile, or has a chatter rule :func:`stranger_forms` cannot read."""


def grammar_source() -> str:
    """``telesina.lark`` as written, read from the installed package."""
    return resources.files("hhtool.grammars").joinpath("telesina.lark").read_text(encoding="utf-8")


def grammar_text() -> str:
    """The grammar every reader builds: ``telesina.lark`` with its ``stranger`` forms (:func:`with_strangers`)."""
    return with_strangers(grammar_source())


CHATTER = "chatter"
"""The rule that lists the chatter kinds: ``?chatter: disconnected | timed_out | said | joins | leaves``."""

STRANGER_NAME = r"[^\x1f\n].*?"
"""What ``STRANGER`` reads before a chatter's text: a name (not a placeholder), as little as leaves a chatter text to end the line."""

_LARK_STRING = r'"(?:[^"\\\n]|\\.)*"'
_CHATTER_RULE = re.compile(r"^\?" + CHATTER + r"[ \t]*:(.*(?:\n[ \t]+\|.*)*)", re.MULTILINE)
_RULE_NAME = re.compile(r"[a-z][a-z0-9_]*")
_BODY_TOKEN = re.compile(rf"\s*(?:({_LARK_STRING})|([A-Z_][A-Z0-9_]*)|(\[)|(\]))")
_REGEX_SPECIAL = re.compile(r"([\\.^$*+?{}\[\]|()/])")


def _rule_body(source: str, name: str) -> str:
    """The one expansion of a rule ``name: ...`` written on one line; GrammarShapeError otherwise."""
    found = re.findall(rf"^{name}[ \t]*:(.*)((?:\n[ \t]+\|.*)*)$", source, flags=re.MULTILINE)
    if len(found) != 1 or found[0][1]:
        raise GrammarShapeError(f"the chatter rule {name} must be written once, on one line, with one expansion")
    return str(found[0][0]).strip()


def _terminal_regex(source: str, name: str) -> str:
    """A terminal as a regular expression: its one string or /regex/ (no flags) in the grammar's text."""
    found = re.findall(rf"^{name}(?:\.-?[0-9]+)?[ \t]*:[ \t]*(.*?)[ \t]*$", source, flags=re.MULTILINE)
    text = found[0] if len(found) == 1 else ""
    if re.fullmatch(_LARK_STRING, text):
        return _REGEX_SPECIAL.sub(r"\\\1", ast.literal_eval(text))
    regex = re.fullmatch(r"/((?:[^/\\\n]|\\.)*)/", text)
    if regex is None:
        raise GrammarShapeError(f"a chatter rule's terminal {name} must be one string or one /regex/ without flags")
    return regex.group(1) if "|" not in regex.group(1) else f"(?:{regex.group(1)})"


def stranger_forms(source: str) -> tuple[tuple[str, ...], str]:
    """The chatter about someone not seated, from a grammar's chatter rules: ``?stranger``'s alternatives and STRANGER's pattern.

    Each rule ``?chatter`` lists is a name, then its text: ``leaves: PLAYER
    " leaves the table"``.  Its alternative is the rule with STRANGER for
    PLAYER, named after it: ``STRANGER " leaves the table" -> leaves``.  Its
    lookahead in STRANGER is its text as far as it is fixed (strings and
    terminals; an optional part ends it), ending the line when nothing follows
    (`` leaves the table$``, `` joins the table at seat #[0-9]+$``), else a
    prefix (`` said, "``).  So STRANGER takes as the name what stands before
    the first chatter text that the line ends with, and a chatter rule cannot
    be forgotten in either place.  GrammarShapeError for a chatter rule of
    another form.
    """
    listed = _CHATTER_RULE.findall(source)
    if len(listed) != 1:
        raise GrammarShapeError(f"the grammar needs one rule ?{CHATTER}: the chatter rules, each a name and its text")
    names = [n.strip() for n in listed[0].split("|")]
    if not all(_RULE_NAME.fullmatch(n) for n in names):
        raise GrammarShapeError(f"?{CHATTER} lists rules by name, one per alternative: {listed[0].strip()!r}")
    alternatives: list[str] = []
    lookaheads: list[str] = []
    for name in names:
        body = _rule_body(source, name)
        rest = body.removeprefix("PLAYER")
        tokens: list[re.Match[str]] = []
        at = 0
        while at < len(rest.rstrip()):
            token = _BODY_TOKEN.match(rest, at)
            if token is None:
                break
            tokens.append(token)
            at = token.end()
        depth = list(itertools.accumulate((t.group(3) is not None) - (t.group(4) is not None) for t in tokens))
        if (
            rest == body
            or not rest[:1].isspace()
            or at < len(rest.rstrip())
            or not tokens
            or tokens[0].group(1) is None
            or min(depth) < 0
            or depth[-1] != 0
        ):
            raise GrammarShapeError(f"the chatter rule {name} must be PLAYER, then its text: strings, terminals, [optional parts]")
        alternatives.append(f"STRANGER {rest.strip()} -> {name}")
        ahead = ""
        for token in tokens:
            string, terminal = token.group(1), token.group(2)
            if string is not None:
                ahead += _REGEX_SPECIAL.sub(r"\\\1", ast.literal_eval(string))
            elif terminal is not None:
                ahead += _terminal_regex(source, terminal)
            else:
                break
        else:
            ahead += "$"
        lookaheads.append(ahead)
    return tuple(alternatives), f"{STRANGER_NAME}(?={'|'.join(lookaheads)})"


def with_strangers(source: str) -> str:
    """A grammar's text with its chatter about someone not seated written in (:func:`stranger_forms`).

    The start symbol ``stranger`` and the terminal ``STRANGER`` are written
    after the rest; a grammar that writes either itself is refused
    (GrammarShapeError): they follow from its chatter rules and nothing else.
    """
    if re.search(r"^(?:\??stranger|STRANGER)\b", source, flags=re.MULTILINE):
        raise GrammarShapeError("the grammar writes stranger or STRANGER itself: they are derived from its chatter rules")
    alternatives, pattern = stranger_forms(source)
    return (
        f"{source.rstrip()}\n\n"
        "// ------------------------------------------- derived by hhtool/history/grammar.py\n"
        f"// the chatter about someone who holds no seat in this hand, from ?{CHATTER}'s rules\n\n"
        "?stranger: " + "\n         | ".join(alternatives) + "\n"
        f"STRANGER.2: /{pattern}/\n"
    )


def _events(start: str, by_origin: dict[str, list[Rule]]) -> list[tuple[str, Rule]]:
    """The rules that build a start symbol's events, each with its event's name, in the grammar's order.

    An alternative of a ``?rule`` that is another rule alone, without an alias
    (``?line: ... | bet | ...``), stands for that rule's alternatives, named
    after it (``bet``), or after their alias; and so on down (``?line: ... |
    chatter``, ``?chatter: ... | leaves``): Lark's tree is then the innermost
    rule's.  Any other alternative builds the event of its alias, or of the
    start symbol.
    """
    out: list[tuple[str, Rule]] = []

    def walk(rules: list[Rule], name: str) -> None:
        for rule in rules:
            only = rule.expansion[0] if len(rule.expansion) == 1 else None
            if (
                rule.options.expand1
                and rule.alias is None
                and only is not None
                and not only.is_term
                and not only.name.startswith("_")
            ):
                walk(by_origin[only.name], only.name)
            else:
                out.append((str(rule.alias or name), rule))

    walk(by_origin[start], start)
    return out


def build_parser(*, strict: bool = False, cache: str | bool = False) -> Lark:
    """A new LALR parser for all start symbols (tests build it ``strict``); ``cache``: Lark's cache file."""
    from lark import Lark

    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        start=list(START_SYMBOLS),
        maybe_placeholders=True,
        strict=strict,
        cache=cache,
    )


def cache_file() -> str | bool:
    """Where the built parser is kept between processes: ``$XDG_CACHE_HOME/hhtool`` (``~/.cache/hhtool``).

    Building the LALR tables costs most of a second of CPU, in every process
    that reads a hand the C reader does not (every one, in the pure build);
    loading them from Lark's cache, a hundredth.  Lark keeps the digest of the
    grammar, its options, its own version and Python's in the file and builds
    again when any differs, or when the file cannot be read (a half-written
    one from a process beside this one included).  The user's own cache
    folder, not the shared temporary one Lark uses by default: the file is a
    pickle, which only its owner may write.  False (no cache) when the folder
    cannot be made.
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "hhtool")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return False
    return os.path.join(folder, "telesina-lark.pickle")


@functools.cache
def parser() -> Lark:
    """The shared parser, built on first use (or loaded from :func:`cache_file`)."""
    return build_parser(cache=cache_file())


def lark_match(start: str, text: str) -> LineMatch:
    """Parse one line with Lark; raises Lark's ``UnexpectedInput`` on failure."""
    from lark import Token, Tree

    tree = parser().parse(text, start=start)
    if not isinstance(tree, Tree):  # pragma: no cover - the grammar's shape forbids it
        raise GrammarShapeError(f"start {start!r} gave a bare token")
    children: list[str | None] = []
    for child in tree.children:
        if child is None or isinstance(child, Token):
            children.append(None if child is None else str(child))
        else:  # pragma: no cover - the grammar's shape forbids it
            raise GrammarShapeError(f"rule {tree.data} has a nested rule")
    return str(tree.data), tuple(children)


@dataclass(frozen=True, slots=True)
class _Alternative:
    """One expansion: the event it builds and where its tokens are."""

    name: str
    first_group: int  # index in ``Match.groups()`` of its first token group
    template: tuple[int | None, ...]  # per child: group offset, or None
    span: tuple[int, int] | None  # when the children are consecutive groups: their slice


@dataclass(frozen=True, slots=True)
class Alternative:
    """A compiled expansion before bucketing: what :class:`LineMatcher` is built from."""

    name: str
    body: str  # regex, capture groups for kept tokens only
    template: list[int | None]
    lead: str | None  # "player": starts with PLAYER; "literal": with a string; None: a regex
    key: str | None  # the first KEY_LEN characters of the leading literal
    literals: tuple[str, ...] = ()  # string terminals the line must contain for this expansion to match


KEY_LEN = 4
PLAYER_TOKEN_LEN = 3
"""The reader's placeholders are fixed width: the separator and two digits."""

_Bucket = tuple[re.Pattern[str], dict[str, _Alternative]]


class LineMatcher:
    """One start symbol compiled to small regular expressions.

    A single alternation of every line kind costs microseconds a line,
    because Python's regex engine tries the alternatives one by one.  So
    the alternatives are bucketed by their leading literal: the first
    KEY_LEN characters of the line, or of what follows a leading player
    placeholder, pick a bucket of one or two alternatives.
    """

    def __init__(self, alternatives: list[Alternative]) -> None:
        wild = [a for a in alternatives if a.lead is None or a.key is None and a.lead == "literal"]
        player_wild = [a for a in alternatives if a.lead == "player" and a.key is None]
        self._wild = self._compile(wild)
        # Lines that lead with a regex (the header) try every expansion in turn, and the
        # header has one per combination of its optional parts.  Only expansions whose
        # string terminals all occur in the line can match, so the line's set of the
        # literals that tell them apart picks a smaller alternation (same order).
        common = set.intersection(*(set(a.literals) for a in wild)) if wild else set()
        self._wild_alternatives = wild
        self._wild_literals = tuple(sorted({lit for a in wild for lit in a.literals} - common))
        self._wild_by_literals: dict[tuple[bool, ...], _Bucket] = {}
        self._player_wild = self._compile(player_wild + wild)
        self._literal: dict[str, _Bucket] = {}
        self._player: dict[str, _Bucket] = {}
        for kind, table, extra in (("literal", self._literal, wild), ("player", self._player, player_wild + wild)):
            keys = {a.key for a in alternatives if a.lead == kind and a.key is not None}
            for key in keys:
                chosen = [a for a in alternatives if a.lead == kind and a.key == key]
                table[key] = self._compile(chosen + extra)

    @staticmethod
    def _compile(alternatives: list[Alternative]) -> _Bucket:
        parts: list[str] = []
        table: dict[str, _Alternative] = {}
        group = 0
        for i, alt in enumerate(alternatives):
            label = f"a{i}"
            parts.append(f"(?P<{label}>{alt.body})")
            template = tuple(alt.template)
            span = None
            if template == tuple(range(len(template))):
                span = (group + 1, group + 1 + len(template))
            table[label] = _Alternative(alt.name, group + 1, template, span)
            group += 1 + re.compile(alt.body).groups
        pattern = re.compile("|".join(parts) if parts else r"(?!)")
        return pattern, table

    def _wild_for(self, text: str) -> _Bucket:
        if not self._wild_literals:
            return self._wild
        present = tuple([lit in text for lit in self._wild_literals])
        bucket = self._wild_by_literals.get(present)
        if bucket is None:
            found = {lit for lit, yes in zip(self._wild_literals, present) if yes}
            chosen = [a for a in self._wild_alternatives if all(lit in found or lit not in self._wild_literals for lit in a.literals)]
            bucket = self._wild_by_literals[present] = self._compile(chosen)
        return bucket

    def match(self, text: str) -> LineMatch | None:
        """The event name and tokens, as Lark would give them, or ``None``."""
        if text[:1] == PLACEHOLDER:
            bucket = self._player.get(text[PLAYER_TOKEN_LEN : PLAYER_TOKEN_LEN + KEY_LEN]) or self._player_wild
        else:
            bucket = self._literal.get(text[:KEY_LEN]) or self._wild_for(text)
        pattern, table = bucket
        m = pattern.fullmatch(text)
        if m is None:
            return None
        alt = table[m.lastgroup]  # type: ignore[index]
        groups = m.groups()
        if alt.span is not None:
            return alt.name, groups[alt.span[0] : alt.span[1]]
        base = alt.first_group
        return alt.name, tuple([None if t is None else groups[base + t] for t in alt.template])


def _compile_start(lark: Lark, start: str) -> LineMatcher:
    from lark.grammar import Terminal

    rules_by_origin: dict[str, list[Rule]] = {}
    for rule in lark.rules:
        rules_by_origin.setdefault(rule.origin.name, []).append(rule)
    terminals = {t.name: t for t in lark.terminals}
    Variant = tuple[str, list["int | None"], list[Terminal]]

    def variants(rule: Rule) -> list[Variant]:
        """Regex bodies, child templates (group offsets) and the flat terminal sequence."""
        expansion = rule.expansion
        empties = rule.options.empty_indices if rule.options else ()
        if empties:
            s = "".join(str(int(b)) for b in empties)
            nones = [len(ones) for ones in s.split("0")]
        else:
            nones = [0] * (len(expansion) + 1)
        keep_all = bool(rule.options and rule.options.keep_all_tokens)
        segments: list[list[tuple[str, int, list[int | None], list[Terminal]]]] = []
        for i, sym in enumerate(expansion):
            pre: list[int | None] = [None] * nones[i]
            if isinstance(sym, Terminal):
                rx = terminals[sym.name].pattern.to_regexp()
                if re.compile(rx).groups:
                    raise GrammarShapeError(f"terminal {sym.name} has a capturing group")
                if keep_all or not sym.filter_out:
                    segments.append([(f"({rx})", 1, [*pre, 0], [sym])])
                else:
                    segments.append([(f"(?:{rx})", 0, pre, [sym])])
            elif sym.name.startswith("_"):
                options: list[tuple[str, int, list[int | None], list[Terminal]]] = []
                for sub in rules_by_origin[sym.name]:
                    for sub_body, sub_template, syms in variants(sub):
                        options.append((sub_body, re.compile(sub_body).groups, [*pre, *sub_template], syms))
                segments.append(options)
            else:
                raise GrammarShapeError(f"rule {rule.origin.name} nests rule {sym.name}: inline it (_name)")
        trailing: list[int | None] = [None] * nones[len(expansion)]
        out: list[Variant] = []
        for combo in itertools.product(*segments):
            body = ""
            template: list[int | None] = []
            flat: list[Terminal] = []
            offset = 0
            for seg_body, n, seg_template, syms in combo:
                body += seg_body
                template.extend(None if t is None else t + offset for t in seg_template)
                flat.extend(syms)
                offset += n
            out.append((body, template + trailing, flat))
        return out

    def literal(sym: Terminal | None) -> str | None:
        if sym is None:
            return None
        pattern = terminals[sym.name].pattern
        return pattern.value if pattern.type == "str" else None

    def lead_and_key(flat: list[Terminal]) -> tuple[str | None, str | None]:
        if not flat:
            return None, None
        if flat[0].name == "PLAYER":
            lit = literal(flat[1] if len(flat) > 1 else None)
            return "player", lit[:KEY_LEN] if lit and len(lit) >= KEY_LEN else None
        lit = literal(flat[0])
        if lit is None:
            return None, None
        return "literal", lit[:KEY_LEN] if len(lit) >= KEY_LEN else None

    alternatives: list[Alternative] = []
    for name, rule in _events(start, rules_by_origin):
        for body, template, flat in variants(rule):
            lead, key = lead_and_key(flat)
            literals = tuple(sorted({lit for lit in map(literal, flat) if lit}))
            alternatives.append(Alternative(name, body, template, lead, key, literals))
    return LineMatcher(alternatives)


@functools.cache
def matcher(start: str) -> LineMatcher:
    """The fast matcher for one start symbol, compiled on first use."""
    if start not in START_SYMBOLS:
        raise ValueError(f"unknown start symbol {start!r}")
    return _compile_start(parser(), start)


def describe_terminal(name: str) -> str:
    """What a terminal means, in words, for error messages."""
    words = _TERMINAL_WORDS.get(name)
    if words:
        return words
    for t in parser().terminals:
        if t.name == name:
            if t.pattern.type == "str":
                return repr(t.pattern.value)
            return f"{name.lower()} ({t.pattern.value})"
    return name


_TERMINAL_WORDS = {
    "PLAYER": "the name of a seated player",
    "AMOUNT": "an amount like €0.50, $12 or 1,500",
    "CARDS": "cards like Qc Qs 9c",
    "INT": "a number",
    "SITE": "the site name (one word)",
    "HAND_ID": "the hand id (letters, digits, -)",
    "PROFILE": "a profile: classic, stellapoker or italian",
    "VELA_AT_START": "' [vela at start]'",
    "WILD": "' [wild <rank>]'",
    "EXPOSURE": "' [carte coperte]' or ' [una coperta]'",
    "STRUCTURE": "a structure: Fixed Limit, Pot Limit or No Limit",
    "DATE": "a date like 2026/11/29",
    "TIME": "a time like 18:00:00",
    "ZONE": "a time zone like UTC, CET or +01:00",
    "TABLE_NAME": "the table name in quotes",
    "SEAT_NAME": "a player name followed by ' (<amount> in chips)'",
    "BLIND": "'small blind' or 'big blind'",
    "STREET_NAME": "a street: 2nd, 3rd, 4th or 5th",
    "ALL_IN": "' and is all-in'",
    "POT": "'pot', 'main pot' or 'side pot-<n>'",
    "SIDE_POTS": "' Side pot-<n> <amount>.'",
    "BUTTON": "' (button)'",
    "BLIND_MARK": "' (small blind)' or ' (big blind)'",
    "FOLD_STREET": "'on 2nd Street' ... 'on the Vela'",
    "DESCRIPTION": "a hand description like 'a pair of Kings'",
    "CHAT": "the chat text",
    "STRANGER": "a player name",
    "$END": "the end of the line",
}


@dataclass(frozen=True, slots=True)
class RuleShape:
    """One rule of a start symbol as a sequence of terminals: what configures the C reader.

    ``shape``: every expansion (the optional parts present or absent), longest
    first, each as its terminals' names with the literals the parse tree
    drops written ``lit`` -- ``"PLAYER lit AMOUNT ALL_IN | PLAYER lit AMOUNT"``;
    ``literals``: the text of those literals in the longest expansion, in order.
    The C reader knows a routine per shape and compares the literals it is given.
    """

    rule: str
    shape: str
    literals: tuple[str, ...]


def rule_shapes(start: str, grammar: str | None = None) -> dict[str, RuleShape]:
    """The rules of a start symbol (``line``, ``stranger``, ``header``, ...) by event name, as :class:`RuleShape` s.

    Inlined rules (``_seat_who``) are expanded in place, and a rule standing
    alone for its alternatives (``chatter``) by those, as :func:`matcher` does.
    ``grammar``: another grammar's text instead of ``telesina.lark`` (the tests
    configure the C reader from a grammar with other words).
    """
    if grammar is None and start in START_SYMBOLS:
        return dict(_facts()[1][start])
    return _rule_shapes(start, grammar)


def _rule_shapes(start: str, grammar: str | None) -> dict[str, RuleShape]:
    """:func:`rule_shapes` read from the grammar itself (Lark's grammar loader)."""
    terminals, rules = _compiled(grammar)
    by_origin: dict[str, list[Rule]] = {}
    for rule in rules:
        by_origin.setdefault(rule.origin.name, []).append(rule)

    def flat(symbols: Sequence[object]) -> list[list[tuple[str, str | None]]]:
        """Every expansion of a symbol sequence: (terminal name or "lit", the literal's text)."""
        out: list[list[tuple[str, str | None]]] = [[]]
        for sym in symbols:
            name = getattr(sym, "name")
            if getattr(sym, "is_term"):
                pattern = terminals[name].pattern
                item = ("lit", pattern.value) if getattr(sym, "filter_out") else (name, None)
                out = [seq + [item] for seq in out]
            else:
                subs = [e for r in by_origin[name] for e in flat(r.expansion)]
                out = [seq + sub for seq in out for sub in subs]
        return out

    shapes: dict[str, RuleShape] = {}
    for name, rule in _events(start, by_origin):
        for seq in flat(rule.expansion):
            known = shapes.get(name)
            text = " ".join(item for item, _ in seq)
            lits = tuple(lit for item, lit in seq if item == "lit" and lit is not None)
            if known is None:
                shapes[name] = RuleShape(name, text, lits)
            else:
                parts = sorted([*known.shape.split(" | "), text], key=lambda s: (-len(s.split(" ")), s))
                longest = lits if len(lits) > len(known.literals) else known.literals
                shapes[name] = RuleShape(name, " | ".join(parts), longest)
    return shapes


def terminal_patterns(grammar: str | None = None) -> dict[str, str]:
    """Each named terminal as a regular expression (a string terminal escaped): what :func:`terminal_words` fits."""
    if grammar is None:
        return dict(_facts()[0])
    return _terminal_patterns(grammar)


def _terminal_patterns(grammar: str | None) -> dict[str, str]:
    return {name: t.pattern.to_regexp() for name, t in _compiled(grammar)[0].items()}


Facts = tuple[dict[str, str], dict[str, dict[str, RuleShape]]]
"""What the C reader is configured from: :func:`terminal_patterns` and the :func:`rule_shapes` of every start symbol."""
FACTS_FORMAT = 1
"""The facts file's layout: a file of another is read as missing."""


@functools.cache
def _facts() -> Facts:
    """``telesina.lark``'s terminals and rule shapes, from :func:`facts_file` when it holds this grammar's, else read and kept there.

    Why: reading them needs Lark's grammar loader, which builds Lark's own
    parser of grammars first: 0.3 s of CPU in every process that configures
    the C reader (0.1 s of it without ``interegular``, a development
    package, whose collision check of Lark's own terminals Lark then
    runs), that is in each of an import's worker processes, at every start
    (docs/performance.md, "The import's stages").  The file is plain JSON
    data, keyed by a digest of the grammar's text and of what read it
    (Lark's installed files, this format), so that another grammar or
    another Lark reads the grammar again; the file's name carries the
    digest too, so that two installs on one machine (a pure and a compiled
    build, two checkouts) each keep their own rather than each writing over
    the other's at every start; a file that cannot be read or written is
    passed by.
    """
    import hashlib
    import json

    text = grammar_text()
    key = hashlib.sha256(f"{FACTS_FORMAT}\0{_lark_stamp()}\0{text}".encode()).hexdigest()
    path = facts_file(key)
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if data.get("key") == key:
                _still_used(path)
                shapes = {
                    start: {name: RuleShape(str(r[0]), str(r[1]), tuple(str(x) for x in r[2])) for name, r in rows.items()}
                    for start, rows in data["shapes"].items()
                }
                return {str(k): str(v) for k, v in data["terminals"].items()}, shapes
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            pass
    facts = _terminal_patterns(None), {start: _rule_shapes(start, None) for start in START_SYMBOLS}
    if path:
        _keep(path, json.dumps({
            "key": key, "terminals": facts[0],
            "shapes": {start: {n: [r.rule, r.shape, list(r.literals)] for n, r in rows.items()} for start, rows in facts[1].items()},
        }))
        _prune_facts(path)
    return facts


FACTS_UNUSED_DAYS = 30
"""A facts file no process has read for this long is another install's, gone or idle: removed when a new one is kept."""


def _still_used(path: str) -> None:
    """Mark the facts file at ``path`` as read now (its time), at most once a day, so that :func:`_prune_facts` keeps it.

    Why: each install (each venv: Lark's files are in the key) keeps a file of
    its own, and an upgrade or a venv made anew leaves the old one behind;
    a file's modification time, refreshed by its readers, says which are
    still in use (the access time is often not kept: ``noatime``).
    """
    import time

    try:
        if time.time() - os.stat(path).st_mtime > 86400:
            os.utime(path)
    except OSError:
        pass


def _prune_facts(kept: str) -> None:
    """Remove the facts files beside ``kept`` that no process has read for :data:`FACTS_UNUSED_DAYS` days (:func:`_still_used`).

    A removed file that was still wanted (an install idle for that long)
    costs its next process the grammar's reading once, 0.3 s, and is kept
    again; nothing else depends on it.
    """
    import glob
    import time

    limit = time.time() - FACTS_UNUSED_DAYS * 86400
    for other in glob.glob(os.path.join(os.path.dirname(kept), "telesina-facts-*.json")):
        try:
            if other != kept and os.stat(other).st_mtime < limit:
                os.unlink(other)
        except OSError:
            pass


def _lark_stamp() -> str:
    """Lark's installed files, by the size and time of its ``__init__.py`` (found without importing it: that is what the facts save)."""
    from importlib.util import find_spec

    try:
        spec = find_spec("lark")
        origin = spec.origin if spec is not None else None
        st = os.stat(origin) if origin else None
    except (ImportError, ValueError, OSError):
        return ""
    return f"{origin}:{st.st_size}:{st.st_mtime_ns}" if st is not None else ""


def _keep(path: str, text: str) -> None:
    """``text`` written to ``path`` whole or not at all (a reader beside never sees half of it); nothing if it cannot be."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".facts-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def facts_file(key: str) -> str | None:
    """Where :func:`_facts` keeps the grammar's terminals and rule shapes read under ``key`` (its digest): beside Lark's
    :func:`cache_file`, named by the key's first 16 hex digits; None without a cache folder."""
    lark_file = cache_file()
    name = f"telesina-facts-{key[:16]}.json"
    return os.path.join(os.path.dirname(lark_file), name) if isinstance(lark_file, str) else None


Hole = tuple[str, ...]
"""The words one hole of a skeleton took from a terminal's pattern (see :func:`terminal_words`)."""

_HOLE = re.compile(r"\{(\[\]|\||[A-Z_]*)\}")
_FRAGMENT = r"(?:[^\\|()\[\]{}.*+?^$\n]|\\[^A-Za-z0-9])+"
"""A regular expression that is a plain text (each special character escaped): one word."""
_SET = r"(?:[^\\\[\]^\-]|\\[^A-Za-z0-9])+"
"""The inside of a character class of single characters, no range: a word per character."""


def _unescape(fragment: str) -> str:
    return re.sub(r"\\(.)", r"\1", fragment, flags=re.DOTALL)


def terminal_words(skeleton: str, pattern: str, patterns: dict[str, str]) -> tuple[Hole, ...]:
    r"""The words a terminal's pattern puts in a skeleton's holes; ValueError when the pattern is not of that skeleton.

    Why: the C reader reads each terminal by hand, so it must know the
    terminal's structure (the skeleton, which it declares) while the words in
    it stay the grammar's.  A skeleton is the pattern with its words taken
    out: ``{}`` a plain text (one word), ``{[]}`` the inside of a character
    class (a word per character: the currency signs of ``[€$£]``), ``{|}``
    an alternation of plain texts (a word per alternative, in the pattern's
    order), ``{NAME}`` another terminal's whole pattern; everything else must
    be written exactly so.  ``" and is all-in"`` (escaped) fits ``{}`` with
    the word ``" and is all-in"``.

    >>> terminal_words("{}(?:10|[2-9TJQKA]){}", r" \[wild (?:10|[2-9TJQKA])\]", {})
    ((' [wild ',), (']',))
    >>> terminal_words("{|}", r"(?:small\ blind|big\ blind)", {})
    (('small blind', 'big blind'),)
    """
    kinds: list[str] = []
    rx = ""
    at = 0
    for hole in _HOLE.finditer(skeleton):
        rx += re.escape(skeleton[at : hole.start()])
        at = hole.end()
        what = hole.group(1)
        if what == "":
            rx += f"({_FRAGMENT}?)"
        elif what == "[]":
            rx += f"({_SET}?)"
        elif what == "|":
            rx += f"({_FRAGMENT}(?:\\|{_FRAGMENT})*)"
        else:
            rx += re.escape(patterns[what]) if what in patterns else "(?!)"
            continue
        kinds.append(what)
    rx += re.escape(skeleton[at:])
    found = re.fullmatch(rx, pattern) or (re.fullmatch(rx, pattern[3:-1]) if skeleton == "{|}" and pattern.startswith("(?:") and pattern.endswith(")") else None)
    if found is None:
        raise ValueError(f"{pattern!r} is not of the form {skeleton!r}")
    holes: list[Hole] = []
    for what, text in zip(kinds, found.groups()):
        if what == "":
            holes.append((_unescape(text),))
        elif what == "[]":
            holes.append(tuple(a or b for a, b in re.findall(r"\\(.)|(.)", text, flags=re.DOTALL)))
        else:
            holes.append(tuple(_unescape(alt) for alt in re.findall(f"{_FRAGMENT}", text)))
    return tuple(holes)


@functools.cache
def _compiled(grammar: str | None = None) -> tuple[dict[str, TerminalDef], list[Rule]]:
    """The grammar's terminals and rules, without building the parser (a tenth of its cost).

    What configures the C reader at start-up: a process whose hands are all
    read in C never builds the LALR parser.
    """
    from lark.load_grammar import load_grammar

    text = grammar_text() if grammar is None else grammar
    loaded, _ = load_grammar(text, "telesina.lark", None, False)  # type: ignore[no-untyped-call]
    terminals, rules, _ = loaded.compile(list(START_SYMBOLS), set())
    return {t.name: t for t in terminals}, rules
