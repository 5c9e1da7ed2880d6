"""The hand replayer as one self-contained HTML fragment, for the web app's hand page and the report.

:func:`replayer_html` gives a ``<div class="hhr">`` holding the hand's steps
(:mod:`hhtool.replay.steps`) as JSON in a ``<script type="application/json">``
and, unless told not to, the replayer's CSS and JavaScript inline
(:func:`replayer_assets`, from the package's ``static/replayer.css`` and
``static/replayer.js``).  The script draws the table, the buttons and the
hand's text with ``textContent`` only, so a player named
``<script>alert(1)</script>`` is text; the JSON is escaped so that no
``</script>`` (nor ``<!--``) in a name can end its element.  Each fragment
works on its own: a page may hold many (the report does) and include the
assets once.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

from hhtool.replay.steps import HandSteps

_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}
"""What JSON inside a ``<script>`` must not hold literally: ``<`` (``</script>``, ``<!--``), ``>``, ``&``, and the line separators old parsers choke on."""


def script_json(data: object) -> str:
    """``data`` as JSON that is safe between ``<script type="application/json">`` and ``</script>``."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_ESCAPES)


@cache
def _asset(name: str) -> str:
    return files("hhtool.web").joinpath("static", name).read_text(encoding="utf-8")


def replayer_assets() -> str:
    """The replayer's ``<style>`` and ``<script>``: once on a page, before or after its fragments."""
    return f"<style>{_asset('replayer.css')}</style>\n<script>{_asset('replayer.js')}</script>\n"


def replayer_html(steps: HandSteps, *, assets: bool = True) -> str:
    """One hand's replayer: a ``<div class="hhr">`` (with the CSS and JS inline when ``assets``).

    Without JavaScript the fragment says so and the hand's text is still
    on the page around it (the report lists it); everything the replayer
    shows comes from the embedded steps.
    """
    data = script_json(steps.to_json())
    body = (
        '<div class="hhr" role="region" aria-label="hand replayer">'
        f'<script type="application/json" class="hhr-data">{data}</script>'
        '<noscript>The replayer needs JavaScript.</noscript>'
        "</div>\n"
    )
    return body + replayer_assets() if assets else body


__all__ = ["replayer_assets", "replayer_html", "script_json"]
