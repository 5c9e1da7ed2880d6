"""The hand replayer as one self-contained HTML fragment, for the web app's hand page and the report.

:func:`replayer_html` gives a ``<div class="hhr">`` holding the hand's steps
(:mod:`hhtool.replay.steps`) as JSON in a ``<script type="application/json">``
and, unless told not to, the replayer's CSS and JavaScript inline
(:func:`replayer_assets`, from this package's ``static/replayer.css`` and
``static/replayer.js``).  The script draws the table, the buttons and the
hand's text with ``textContent`` only, so a player named
``<script>alert(1)</script>`` is text; the JSON is escaped so that no
``</script>`` (nor ``<!--``) in a name can end its element.  Every string
of the steps is shown as the server's pages show it
(:func:`hhtool.textsafe.term`): a name holding U+202E (right-to-left
override), an isolate or a C1 control would otherwise reorder every line
that holds it, its amounts and cards read backwards.  Each fragment
works on its own: a page may hold many (the report does) and include the
assets once.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

from hhtool.replay.steps import HandSteps
from hhtool.textsafe import term

_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))
"""What JSON inside a ``<script>`` must not hold literally: ``<`` (``</script>``, ``<!--``), ``>``, ``&``, and the line separators old parsers choke on."""


def script_json(data: object) -> str:
    """``data`` as JSON that is safe between ``<script type="application/json">`` and ``</script>``."""
    out = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, escape in _ESCAPES:  # str.replace: a hundred times str.translate's speed on a hand's 50 kB
        out = out.replace(char, escape)
    return out


@cache
def asset(name: str) -> str:
    """A file of the replayer's ``static/`` folder (``replayer.js``, ``replayer.css``), read once."""
    return files("hhtool.replayer").joinpath("static", name).read_text(encoding="utf-8")


def replayer_assets() -> str:
    """The replayer's ``<style>`` and ``<script>``, inline: once on a page, before or after its fragments.

    For the report, a file with nothing beside it; the server's pages
    load the same files from ``/static/`` instead (no inline script under
    their Content-Security-Policy).
    """
    return f"<style>{asset('replayer.css')}</style>\n<script>{asset('replayer.js')}</script>\n"


def shown(data: object) -> object:
    """``data`` (JSON-like: dicts, lists, strings, numbers) with every string as :func:`hhtool.textsafe.term` shows it.

    The replayer uses names as keys too (a seat, the player acting, a
    contender's equity): every one goes through the same function, so they
    still match.  The keys of the dicts are the steps' own field names.
    """
    if isinstance(data, str):
        return term(data)
    if isinstance(data, list):
        return [shown(v) for v in data]
    if isinstance(data, dict):
        return {k: shown(v) for k, v in data.items()}
    return data


def replayer_html(steps: HandSteps | dict[str, Any], *, assets: bool = True) -> str:
    """One hand's replayer: a ``<div class="hhr">`` (with the CSS and JS inline when ``assets``).

    ``steps``: the hand's steps, or their packed JSON already made
    (``to_json(packed=True)``, as :mod:`hhtool.replayer.share` redacts it).
    Without JavaScript the fragment says so and the hand's text is still
    on the page around it (the report lists it); everything the replayer
    shows comes from the embedded steps.
    """
    doc = steps if isinstance(steps, dict) else steps.to_json(packed=True)
    data = script_json(doc)
    # a string may hold a control or bidi character: JSON writes C0 as an escape (a backslash), the others raw
    if "\\" in data or term(data) != data:
        data = script_json(shown(doc))
    body = (
        '<div class="hhr" role="region" aria-label="hand replayer">'
        f'<script type="application/json" class="hhr-data">{data}</script>'
        '<noscript>The replayer needs JavaScript.</noscript>'
        "</div>\n"
    )
    return body + replayer_assets() if assets else body


__all__ = ["asset", "replayer_assets", "replayer_html", "script_json", "shown"]
