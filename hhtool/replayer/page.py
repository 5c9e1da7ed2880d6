"""A shared hand's page: one HTML file that opens from disk, holds the replayer and the forum text, and fetches nothing.

:func:`share_html` puts the replayer (:mod:`hhtool.replayer.html`) of a
:class:`~hhtool.replayer.share.Shared` hand on a page of its own, its CSS
and JavaScript inline, under a Content-Security-Policy that allows nothing
but those (no request of any kind, even if a string got through), with the
forum text (:mod:`hhtool.replayer.forum`) below for a reader without
JavaScript.  ``docs/share.md`` describes it.
"""

from __future__ import annotations

import base64
import hashlib
import html

from hhtool.replayer.forum import forum_text
from hhtool.replayer.html import asset, replayer_html
from hhtool.replayer.share import Shared, share_json
from hhtool.textsafe import term


def title(shared: Shared) -> str:
    """The page's title: the site and hand number, or for an anonymised hand its game only."""
    h = shared.steps.hand.header
    if shared.anonymised:
        return f"A Telesina {h.profile} hand"
    return f"{h.site} hand {h.hand_id}"


_PAGE_CSS = """
body{font-family:system-ui,sans-serif;margin:1em auto;padding:0 1em;color:#222;max-width:1320px}
h1{font-size:1.3em;margin:.2em 0}
.note{color:#666;font-size:.85em}
pre.forum{font-size:.85em;background:#f6f6f6;border:1px solid #ddd;padding:.6em;overflow-x:auto}
"""


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def share_html(shared: Shared) -> str:
    """The whole page: one file that opens from disk and fetches nothing.

    Its Content-Security-Policy allows exactly the page's two style
    elements and the replayer's script (by their SHA-256), no connection,
    image, font, frame, form or base URL: the replayer draws with
    ``textContent`` anyway (docs/replayer.md), and the policy holds even
    if a string of the hand were ever mistaken for markup.
    """
    css, js = asset("replayer.css"), asset("replayer.js")
    policy = (
        f"default-src 'none'; script-src {_digest(js)}; style-src {_digest(_PAGE_CSS)} {_digest(css)}; "
        "img-src 'none'; connect-src 'none'; font-src 'none'; base-uri 'none'; form-action 'none'"
    )
    name = html.escape(term(title(shared)))
    what = (
        "anonymised: the players but the hero are named by their seat; no site, table, hand number or time"
        if shared.anonymised
        else "as the history holds it"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{name}</title>\n"
        f"<style>{_PAGE_CSS}</style>\n"
        "</head><body>\n"
        f"<h1>{name}</h1>\n"
        f'<p class="note">A hand shared with hhtool ({html.escape(what)}). Step through it with the buttons or the arrow keys.</p>\n'
        + replayer_html(share_json(shared))
        + '<details><summary>the hand as text</summary>\n<pre class="forum">'
        + html.escape(forum_text(shared))
        + "</pre></details>\n</body></html>\n"
    )


__all__ = ["share_html", "title"]
