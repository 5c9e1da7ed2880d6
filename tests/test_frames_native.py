"""A chunk's frames through Arrow's C interface (``_columns.arrow_table``) are the frames polars makes from the lists.

The compiled build hands each table's columns to polars as one Arrow struct
array built in C (:func:`hhtool.store.frames._native_frame`); the pure build
has polars read the Python lists (:func:`hhtool.store.frames._frame`).  Both
must give the same frames, names, types, order, values and NULLs, and a
value beyond its column's type must fail the build as polars' own does (the
worker then moves the hand to ``failed``: ``tests/test_bounds_import.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

import pytest

import hhtool.store.frames as fr
from hhtool.simulate import make_config, simulate_text
from hhtool.store.rows import Rows
from hhtool.store.worker import ChunkTask, process_chunk

pytestmark = pytest.mark.skipif(fr._arrow_table is None, reason="the pure build has no C helper")


@contextmanager
def _lists() -> Iterator[None]:
    """polars reading the lists, as in the pure build."""
    native = fr._arrow_table
    fr._arrow_table = None
    try:
        yield
    finally:
        fr._arrow_table = native


def _chunk(profile: str, structure: str, seed: int) -> bytes:
    text, _ = simulate_text(make_config(rules=profile, structure=structure, players=6, seed=seed), 60)
    return text.encode()


@pytest.mark.parametrize(("profile", "structure"), [("classic", "fixed"), ("stellapoker", "pot"), ("italian", "no")])
def test_the_frames_are_polars_own(profile: str, structure: str) -> None:
    data = _chunk(profile, structure, 44)
    # a euro sign (not ASCII: its UTF-8 made by the helper), a broken hand (a failed row) and a name past 12 bytes
    data = data.replace(b"Seat 1: ", "Seat 1: Zoë€_and_a_long_name".encode(), 3) + b"\n\nnot a hand\nat all\n"
    task = ChunkTask(0, 0, "/x/hands.txt", data, 0, False)
    native = process_chunk(task).frames
    with _lists():
        lists = process_chunk(task).frames
    assert native.keys() == lists.keys()
    for name, df in native.items():
        assert df.schema == lists[name].schema, name
        assert df.equals(lists[name]), name
    assert native["hands"].height and native["seats"].height and native["failed"].height


def test_nulls_every_kind_and_empty_columns() -> None:
    names = ["local", "b", "s", "l", "t", "q", "u"]
    kinds = {"local": "i", "b": "b", "s": "s", "l": "l", "t": "t", "q": "?", "u": "u"}
    rows = Rows(names)
    rows.add((0, None, -(2**15), 2**63 - 1, None, True, None))
    rows.add((1, -128, None, None, -1, None, "x" * 13))
    rows.add((2, 127, 2**15 - 1, -(2**63), 0, False, ""))
    df = fr._native_frame(rows, kinds)
    assert df.to_dict(as_series=False) == {
        "local": [0, 1, 2], "b": [None, -128, 127], "s": [-(2**15), None, 2**15 - 1], "l": [2**63 - 1, None, -(2**63)],
        "t": [None, datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc), datetime(1970, 1, 1, tzinfo=timezone.utc)],
        "q": [True, None, False], "u": [None, "x" * 13, ""],
    }
    assert str(df.schema["t"]) == "Datetime(time_unit='us', time_zone='UTC')"
    assert fr._native_frame(Rows(names), kinds).height == 0


@pytest.mark.parametrize(("kind", "value"), [("b", 128), ("b", -129), ("s", 2**15), ("i", -(2**31) - 1), ("l", 2**63), ("l", -(2**70))])
def test_a_value_beyond_its_type_fails_the_build(kind: str, value: int) -> None:
    rows = Rows(["local", "v"])
    rows.add((0, 1))
    rows.add((1, value))
    with pytest.raises(OverflowError):
        fr._native_frame(rows, {"local": "i", "v": kind})


@pytest.mark.parametrize(("kind", "value"), [("i", "1"), ("i", 1.5), ("?", 1), ("u", 3)])
def test_a_value_of_another_type_fails_the_build(kind: str, value: Any) -> None:
    rows = Rows(["local", "v"])
    rows.add((0, value))
    with pytest.raises(TypeError):
        fr._native_frame(rows, {"local": "i", "v": kind})
