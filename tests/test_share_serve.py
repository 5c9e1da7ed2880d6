"""The hand's page in ``serve`` shares the hand as ``hhtool share`` does: the same bytes, a file to download (issue 43)."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from hhtool.api import import_paths, share_hand
from tests.servegen import Server

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "sample_histories" / "000_format_example.txt"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    db = tmp_path_factory.mktemp("share") / "h.duckdb"
    import_paths([EXAMPLE], db, workers=0)
    expected = {  # the command's output on the same database, before the server holds it
        "html": share_hand(db=db, hand_id="C-1001"),
        "text": share_hand(db=db, hand_id="C-1001", fmt="text"),
        "anon": share_hand(db=db, hand_id="C-1001", anonymise=True),
        "anon_text": share_hand(db=db, hand_id="C-1001", fmt="text", anonymise=True, hero="alice"),
    }
    s = Server(db)
    yield s, expected
    code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err


def _download(s: Server, path: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(s.url + path.lstrip("/"), timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode("utf-8")


def test_the_hand_page_offers_the_four_ways_to_share(served: tuple[Server, dict[str, str]]) -> None:
    s, _ = served
    status, _, body = s.get("/hands/Vela/C-1001")
    assert status == 200
    links = body.split('<p id="share">', 1)[1].split("</p>", 1)[0]
    for href in ('href="/share/Vela/C-1001"', 'href="/share/Vela/C-1001?anonymise=1"', 'href="/share/Vela/C-1001?format=text"',
                 'href="/share/Vela/C-1001?format=text&amp;anonymise=1"'):
        assert href in links


@pytest.mark.parametrize(
    ("query", "key", "name", "kind"),
    [
        ("", "html", "Vela-C-1001.html", "text/html"),
        ("?format=text", "text", "Vela-C-1001.txt", "text/plain"),
        ("?anonymise=1", "anon", "telesina-hand.html", "text/html"),
        ("?format=text&anonymise=1&hero=alice", "anon_text", "telesina-hand.txt", "text/plain"),
    ],
)
def test_the_download_is_the_commands_file(served: tuple[Server, dict[str, str]], query: str, key: str, name: str, kind: str) -> None:
    s, expected = served
    status, headers, body = _download(s, "/share/Vela/C-1001" + query)
    assert status == 200
    assert headers["content-type"].startswith(kind)
    assert headers["content-disposition"] == f'attachment; filename="{name}"'
    assert body == expected[key]
    if "anonymise" in query:  # nothing names the others, the site, the table, the hand or its time
        for removed in ("bob", "carol", "dave", "Vela 1", "C-1001", "2026/11/29", "18:00"):
            assert removed not in body, removed


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/share/Vela/NO-SUCH", 404),
        ("/share/Vela/C-1001?format=pdf", 400),
        ("/share/Vela/C-1001?hero=alice", 400),  # a hero only means something when the others are renamed
        ("/share/Vela/C-1001?anonymise=1&hero=zoe", 400),
        ("/share/Vela/C-1001?color=red", 400),
        ("/share/Vela", 404),
    ],
)
def test_what_cannot_be_shared_is_refused(served: tuple[Server, dict[str, str]], path: str, status: int) -> None:
    s, _ = served
    got, _, _ = _download(s, path)
    assert got == status
