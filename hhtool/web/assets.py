"""The pages' own scripts and styles: the web's ``static/`` files and the replayer's, each read once.

``graph.js`` and ``progress.js`` are the web app's alone; ``replayer.js``
and ``replayer.css`` belong to the replayer (:mod:`hhtool.replayer`),
which the report inlines too.  The server serves both at ``/static/``
(:data:`hhtool.web.app.ASSETS`), by fixed names only.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from hhtool.replayer.html import asset as replayer_asset


@cache
def asset(name: str) -> str:
    """``name`` from the web's ``static/`` folder, else from the replayer's."""
    here = files("hhtool.web").joinpath("static", name)
    return here.read_text(encoding="utf-8") if here.is_file() else replayer_asset(name)
