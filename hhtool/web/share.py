"""``/share/SITE/HAND_ID``: a stored hand as ``hhtool share`` writes it, downloaded from the hand's page.

The same file as the command's (:mod:`hhtool.replayer.share`,
:mod:`hhtool.replayer.page`, :mod:`hhtool.replayer.forum`): the replayer as
one self-contained HTML file, or the forum text; ``anonymise=1`` names
every player but the hero by their seat and drops the site, table, hand
number and time -- the download's file name too, which otherwise carries
the hand's id.  A GET that reads: nothing is stored, and the file is sent
as an attachment (``Content-Disposition``), never shown as a page of this
origin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from hhtool.web.params import BadRequest, Params

SHARE_PARAMS = ("format", "anonymise", "hero")
"""The query parameters of ``/share/...``: what ``hhtool share`` calls ``--format``, ``--anonymise`` and ``--hero``."""


@dataclass(frozen=True, slots=True)
class ShareQuery:
    fmt: Literal["html", "text"] = "html"
    anonymise: bool = False
    hero: str | None = None


def share_query(items: list[tuple[str, str]]) -> ShareQuery:
    """The parameters, each checked: a 400 for what does not parse."""
    p = Params(items, SHARE_PARAMS)
    fmt = p.one("format") or "html"
    if fmt not in ("html", "text"):
        raise BadRequest(f"format {fmt!r}: use html or text")
    hero = p.one("hero")
    anonymise = bool(p.flag("anonymise"))
    if hero is not None and not anonymise:
        raise BadRequest("hero names the player whose name stays when the hand is anonymised: give anonymise=1 with it")
    return ShareQuery("html" if fmt == "html" else "text", anonymise, hero)


def file_name(site: str, hand_id: str, q: ShareQuery) -> str:
    """The download's name: the hand's site and id, unless anonymised (then nothing of them)."""
    ext = "html" if q.fmt == "html" else "txt"
    if q.anonymise:
        return f"telesina-hand.{ext}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"{site}-{hand_id}") + f".{ext}"


def shared_bytes(row: dict[str, Any], room: Any, q: ShareQuery) -> bytes:
    """The stored hand ``row`` (``hands``' raw text and first line) shared as ``q`` asks, under its stored room's rules."""
    from hhtool.history.errors import HandHistoryError
    from hhtool.replayer.forum import forum_text
    from hhtool.replayer.page import share_html
    from hhtool.replayer.share import ShareError, share

    try:
        shared = share(str(row["raw_text"]), first_line=int(row["first_line"]), source=str(row["file"]), room=room,
                       anonymise=q.anonymise, hero=q.hero)
    except (ShareError, HandHistoryError) as e:
        raise BadRequest(str(e)) from None
    return (share_html(shared) if q.fmt == "html" else forum_text(shared)).encode("utf-8")
