"""The server's writes: a POST from its own pages, with the page's CSRF token, from the same origin, on loopback.

Reading is every other route's; writing (today: the accounts a person owns,
``hhtool alias``) is a POST only, and each is checked here before anything
is read of the database:

* the token: a secret made when the server starts, written into each form
  of its pages, compared in constant time -- a page of another site cannot
  read it, so cannot send it;
* the origin: a browser names the page a POST comes from (``Origin``); it
  must be this server's own (scheme, host and port as the request names
  them; the ``Host`` itself is held to the loopback's names by the app's
  ``TrustedHostMiddleware``). A POST without ``Origin`` is refused too: every
  browser that runs the pages sends one;
* the body: a form (``application/x-www-form-urlencoded``) of at most
  :data:`MAX_FORM` bytes.

A refusal is a 403 naming which check failed; nothing is written.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import parse_qsl

from hhtool.web.params import BadRequest

MAX_FORM = 64 * 1024
"""Bytes of a form at most: a person and a few hundred accounts, far less."""


class Refused(Exception):
    """A write refused before anything was read (a 403): no token, another origin, not a form."""


def new_csrf_token() -> str:
    """The secret the server's forms carry: new at each start, never written anywhere but into its pages."""
    return secrets.token_urlsafe(32)


def checked_form(method: str, headers: dict[str, str], own_origin: str, body: bytes, token: str) -> list[tuple[str, str]]:
    """The form's fields, once the request is shown to be a write from this server's own page; :class:`Refused` otherwise.

    ``headers``: the request's, names in lower case; ``own_origin``:
    ``scheme://host[:port]`` as the request reached the server.
    """
    if method != "POST":
        raise Refused("a write is a POST from the server's own page")
    origin = headers.get("origin")
    if origin is None or origin != own_origin:
        raise Refused(f"a write comes from this server's own pages ({own_origin}), not from {origin or 'a request that names no origin'}")
    kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused("a write is a form of the server's own page")
    if len(body) > MAX_FORM:
        raise BadRequest(f"the form is {len(body):,} bytes: at most {MAX_FORM:,}")
    try:
        fields = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise BadRequest("the form is not UTF-8") from None
    sent = [v for k, v in fields if k == "csrf"]
    if len(sent) != 1 or not hmac.compare_digest(sent[0].encode("utf-8"), token.encode("utf-8")):
        raise Refused("the form's token is missing or not this server's (reload the page: the server may have restarted)")
    return [(k, v) for k, v in fields if k != "csrf"]
