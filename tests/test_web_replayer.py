"""The replayer's HTML fragment: the steps embedded so that no name can end their ``<script>``."""

from __future__ import annotations

import json
import re
from typing import Any

from hhtool.replay.steps import steps_from_text
from hhtool.replayer.html import replayer_assets, replayer_html, script_json
from tests.sample_paths import SAMPLES

HOSTILE = ("</script><script>alert(1)</script>", "'; DROP TABLE hands; --")


def hostile_hand() -> str:
    """The format example with its two players renamed to hostile names (``bob`` wins)."""
    text = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")
    text = re.sub(r"\balice\b", HOSTILE[0], text)
    return re.sub(r"\bbob\b", HOSTILE[1], text)


def test_script_json_cannot_close_its_element() -> None:
    data = {"name": "</script><!-- & \u2028"}
    out = script_json(data)
    assert "<" not in out and ">" not in out and "&" not in out and "\u2028" not in out
    assert json.loads(out) == data


def test_the_fragment_embeds_the_steps_escaped() -> None:
    steps = steps_from_text(hostile_hand())
    html = replayer_html(steps, assets=False)
    assert html.count("<script") == 1 and html.count("</script>") == 1  # only the data element's own
    body = html.split('class="hhr-data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(body)
    assert data == json.loads(json.dumps(steps.to_json(packed=True)))
    full = unpacked(data)
    assert set(HOSTILE) <= {p["name"] for p in full["steps"][0]["seats"]}
    assert full == json.loads(json.dumps(steps.to_json()))


def unpacked(data: dict[str, Any]) -> dict[str, Any]:
    """A packed ``to_json`` as the page's script unpacks it: each step's seats from the seat table."""
    table = data.pop("seat_table")
    for step in data["steps"]:
        step["seats"] = [table[k] for k in step["seats"]]
    return data


def test_packing_keeps_every_seat_state_once() -> None:
    steps = steps_from_text(hostile_hand())
    packed = steps.to_json(packed=True)
    assert len(packed["seat_table"]) == len({p for s in steps.steps for p in s.seats}) < sum(len(s.seats) for s in steps.steps) / 3
    assert len(script_json(packed)) < len(script_json(steps.to_json())) / 2


def test_the_assets_are_inline_and_fetch_nothing() -> None:
    assets = replayer_assets()
    assert "<style>" in assets and "<script>" in assets
    assert not re.search(r"https?://|src=|@import|fetch\(|XMLHttpRequest|innerHTML", assets)
    assert replayer_html(steps_from_text(hostile_hand())).endswith(assets)
