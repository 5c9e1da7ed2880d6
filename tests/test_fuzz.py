"""Fuzzing in the suite: mutated histories through the reader, the parse, the replay, the audit and the import's worker.

The inputs and the checks are in :mod:`tests.fuzzgen`; each target gets a
few hundred inputs here (``bench/fuzz.py`` runs the same for minutes).
The checks assert only clean errors: a hand, an error record naming its
line, or junk; findings from the replay and the audit, never an
exception; a result from the worker with every hand stored or failed.

Every target gets the whole hostility of ``fuzzgen.ALL``, as
``bench/fuzz.py`` does: numbers of thousands of digits, values past every
column's range, tokens of 200,000 characters (the bounds of
docs/format-notes.md turn each into a failed hand, never an exception).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzzgen

FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(fuzzgen.mutated(fuzzgen.ALL), st.data())
def test_reader_gives_hands_errors_naming_a_line_or_junk(data: bytes, split: st.DataObject) -> None:
    """Read from bytes in two reads cut anywhere, and from a string: the same records, each clean."""
    fuzzgen.check_reader(data, split.draw(st.integers(0, len(data)), label="split"))


@FUZZ
@given(fuzzgen.mutated(fuzzgen.ALL))
def test_parsed_hands_write_back_and_go_to_json(data: bytes) -> None:
    fuzzgen.check_parse(data)


@FUZZ
@given(fuzzgen.mutated(fuzzgen.ALL))
def test_replay_reaches_a_verdict_under_every_profile(data: bytes) -> None:
    fuzzgen.check_replay(data)


@settings(FUZZ, max_examples=200)
@given(fuzzgen.mutated(fuzzgen.ALL))
def test_audit_renders_every_hand(data: bytes) -> None:
    fuzzgen.check_audit(data)


@settings(FUZZ, max_examples=150)
@given(fuzzgen.mutated(fuzzgen.ALL), st.sampled_from([256, 4096, 1 << 20]))
def test_import_worker_stores_or_fails_every_hand(data: bytes, chunk_bytes: int) -> None:
    """As the importer does: the file cut into chunks at blank lines, each chunk a task."""
    fuzzgen.check_worker(data, chunk_bytes)

