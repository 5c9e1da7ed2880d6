"""The server's HTTP connections: uvicorn's h11 protocol, with a deadline for each request to arrive whole.

uvicorn (0.55) closes a connection left idle after an answer (its
``timeout_keep_alive``, 5 s), but not one that never sends a whole
request: a client that opens a connection and sends nothing, or a few
bytes of a request now and then, holds its socket (and a file
descriptor of the server's) for ever, and enough of them leave none for
the pages.  :class:`BoundedH11Protocol` gives each request
:data:`REQUEST_SECONDS` to arrive whole, from the connection's opening
or from the end of the answer before it; past that the connection is
closed.  The time a request takes to be answered is not counted (the
database's own limit bounds it, :data:`hhtool.web.app.TIME_LIMIT`).

The 400 that uvicorn itself sends for bytes that are no HTTP request
carries the security headers of every other response
(:data:`hhtool.web.app.SECURITY_HEADERS`).
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from hhtool.web.app import SECURITY_HEADERS_RAW

REQUEST_SECONDS = 10.0
"""Seconds a connection has to send a whole request (line, headers and body), from its opening or from the end
of the answer before: a browser sends one in milliseconds, and speculative connections it opens ahead and
leaves idle are closed, which it expects."""

_WHOLE = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)
"""The client's states once its request has arrived whole (or the connection is ending)."""


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with a connection closed when its request does not arrive whole in :data:`REQUEST_SECONDS`."""

    request_seconds = REQUEST_SECONDS
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]  # uvicorn's own annotation: a Transport
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state in _WHOLE:
            self._disarm()

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            self._arm()  # the next request's time starts now (a pipelined one already here disarms it at once)
        super().on_response_complete()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to bytes h11 cannot read as a request, with the security headers of every response."""
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close"), *SECURITY_HEADERS_RAW]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=msg.encode("ascii")), h11.EndOfMessage()):
            out = self.conn.send(event)
            if out:
                self.transport.write(out)
        self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        """The request did not arrive whole in time: close the connection (no answer: h11 has no request to answer)."""
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state in _WHOLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:  # the app answers a request (one with Upgrade)
            return
        try:
            self.conn.send(h11.ConnectionClosed())
        except h11.LocalProtocolError:
            pass
        self.transport.close()
