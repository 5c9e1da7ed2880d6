"""What hhtool changes of typer and click: examples under a command's help, argument types out of it, free text that starts with ``-``.

Each piece works around a default that suits a program but confuses a
person reading ``hhtool -h`` or writing SQL; none knows any command.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand


def examples(*lines: str) -> str:
    """A command's help epilog: its examples, one command line each, kept as written (click's \\b)."""
    return "Examples:\n\n\b\n" + "\n".join(f"  hhtool {line}" for line in lines)


def plain_argument_types() -> None:
    """Print an argument by its metavar alone (``PATH...``), not beside its Python type (``<list[str]>``).

    typer shows the annotation of a positional argument next to its name in
    help; an option's metavar already replaces it.  The name we give says
    what to write; the type only confuses a person.
    """
    from typer.core import TyperArgument

    shown = getattr(TyperArgument, "display_type_rich", None)
    if shown is None or getattr(shown, "_hhtool", False):
        return

    def display_type_rich(self: TyperArgument, ctx: object) -> str | None:
        return None if self.metavar else shown(self, ctx)

    setattr(display_type_rich, "_hhtool", True)
    setattr(TyperArgument, "display_type_rich", display_type_rich)


class TextArgumentsCommand(TyperCommand):
    """A command whose argument is free text that may start with ``-``: SQL's ``-- a comment``.

    click takes every word starting with ``-`` for an option, so
    ``hhtool query "-- totals\nSELECT 1"`` would be an unknown option.  No
    option's name holds a space or a line break, so a word starting with
    ``-`` whose name part (before any ``=``) holds one is the argument: it
    is moved after a ``--``, where click reads arguments only.  A word
    that could be an option stays one (a mistyped ``--fromat`` is still
    refused by name), and the value of an option is never moved.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # ctx: click's Context, which typer does not export
        return super().parse_args(ctx, text_after_dashes(args, self.get_params(ctx)))


def text_after_dashes(args: list[str], params: list[Any]) -> list[str]:
    """``args`` with the words that cannot be options (and those after a ``--``) after one ``--``, in their order."""
    valued = {name for p in params if p.param_type_name == "option" and not p.is_flag and not p.count for name in p.opts}
    options: list[str] = []
    texts: list[str] = []
    words = iter(args)
    for word in words:
        if word == "--":
            texts.extend(words)
            break
        name = word.split("=", 1)[0]
        if word.startswith("-") and len(word) > 1 and not any(c.isspace() for c in name):
            options.append(word)
            value = next(words, None) if word in valued else None  # an option's value is never an argument
            if value is not None:
                options.append(value)
        else:
            texts.append(word)
    return options + ["--", *texts] if texts else options
