"""The import's database, table by table, identical to the one the tree before the faster rows made (issue 44).

``bench/import.py``'s corpus in small (its six profiles and structures,
``hhtool simulate`` with its seeds, 40 hands a file), a file of hands with
faults (the ``findings`` rows) and the sample files beside them (good and
broken: the ``failed`` rows), imported through the
worker processes as a large import is.  Each table's rows, every column
but the import's own times (``imported_at``, a file's ``mtime``) and with
the files' paths made relative, sorted and hashed: :data:`FINGERPRINT`
was made on main at 503640c with the compiled build (``python -m
tests.test_import_identical``, which prints it) and checked on the pure
build too, so the rows' speed-ups (``hhtool/store/rows.py``) cannot change
a stored value unnoticed, in either build.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from pathlib import Path

import duckdb

from hhtool.simulate import simulate_text
from hhtool.simulate.config import make_config
from hhtool.store.importer import import_paths
from hhtool.store.schema import META, TABLES
from tests.sample_paths import BROKEN, GOOD

PROFILES = (("classic", "fixed"), ("stellapoker", "pot"), ("italian", "no"), ("classic", "no"), ("stellapoker", "fixed"), ("italian", "pot"))
"""bench/import.py's profiles and structures, in its order; file ``k`` has seed ``1000 + k`` as there."""
HANDS_A_FILE = 40
SKIPPED = frozenset({"imported_at", "mtime"})
"""Columns that hold when the import ran, not what it read."""
PATHS = {"file", "path"}
"""Columns that hold a file's path: compared relative to the imported folder."""

FINGERPRINT: dict[str, tuple[int, str]] = {
    "files": (26, "bb1f4a3657bb3aab811cee42256a3df1928a7c881339afff620bb17459025d30"),
    "hands": (293, "303df66b79e4e7b52cb9ae3eaed16d47c32247ca16a7d44a3b6582999e7b221a"),
    "seats": (1609, "e7fc2dfc2fd60ef0c16ee93cd50749b406fa428689f8738a66e8ca322e21c6c8"),
    "actions": (4898, "35bed096a99654856276405bf7f2e8761830e631aea3469194d7218d97b0a958"),
    "cards": (4595, "636740d5beb941dde0b32aae35f8ea413aa85a7f881a1908c45f104e6cbc04ca"),
    "pots": (297, "78a179afab745ca6f825a404e24da304f5d11d65c6eb774d5607884cc1755411"),
    "findings": (49, "d720a39dd6e5e1d3797d6370b76f09a28aeca3026a218beacccc7f454aadc361"),
    "failed": (9, "c97e32a0290bb6456c548268d43f1b00164193c1223c159c243f80b738b9233c"),
    "conflicts": (0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    "rooms": (0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    "aliases": (0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
}
"""Each table's rows and the SHA-256 of its sorted rows (:func:`fingerprint`), as main stored them."""


def write_corpus(folder: Path) -> None:
    """The simulated files (one with faults), and the samples (good and broken) copied beside them."""
    for k, (rules, structure) in enumerate(PROFILES):
        text, _ = simulate_text(make_config(rules=rules, structure=structure, seed=1000 + k), HANDS_A_FILE)
        (folder / f"sim_{k:02d}.txt").write_text(text, encoding="utf-8")
    text, _ = simulate_text(make_config(rules="classic", structure="pot", seed=2044, faults=0.5), HANDS_A_FILE)
    (folder / "faults.txt").write_text(text, encoding="utf-8")
    for path in GOOD + BROKEN:
        shutil.copyfile(path, folder / f"sample_{path.name}")


def fingerprint(
    db: Path, folder: Path, skipped: frozenset[str] = SKIPPED, *, by_hand: bool = False,
) -> dict[str, tuple[int, str]]:
    """Every table's row count and the hash of its rows sorted (times as epoch microseconds, paths relative to ``folder``),
    the columns ``skipped`` left out.  ``by_hand``: each ``hand_key`` read as its hand's site and id, for two imports
    that stored the same hands in another order (a live import takes files as they come), so numbered them otherwise."""
    prefix = str(folder) + "/"
    out: dict[str, tuple[int, str]] = {}
    con = duckdb.connect(str(db), read_only=True)
    try:
        for spec in TABLES:
            if spec is META:
                continue
            parts = []
            keyed = by_hand and any(c.name == "hand_key" for c in spec.columns)
            for c in spec.columns:
                if c.name in skipped:
                    continue
                if c.sql == "TIMESTAMPTZ":
                    parts.append(f't."{c.name}".epoch_us()')
                elif c.name in PATHS:
                    parts.append(f"replace(t.\"{c.name}\", '{prefix}', '')")
                elif keyed and c.name == "hand_key":
                    parts.append("k.hand_")
                else:
                    parts.append(f't."{c.name}"')
            joined = " LEFT JOIN (SELECT hand_key AS key_, site || ':' || hand_id AS hand_ FROM hands) k ON t.hand_key = k.key_" if keyed else ""
            rows = con.execute(f"SELECT {', '.join(parts)} FROM {spec.name} t{joined} ORDER BY ALL").fetchall()
            digest = hashlib.sha256()
            for row in rows:
                digest.update(repr(row).encode("utf-8"))
                digest.update(b"\n")
            out[spec.name] = (len(rows), digest.hexdigest())
    finally:
        con.close()
    return out


def import_corpus(tmp: Path) -> dict[str, tuple[int, str]]:
    folder = tmp / "in"
    folder.mkdir()
    write_corpus(folder)
    db = tmp / "x.duckdb"
    summary = import_paths([folder], db, workers=2)
    assert summary.stored > 250 and summary.failed > 0  # the simulated hands stored, the broken samples failed
    return fingerprint(db, folder)


def test_every_table_as_main_stored_it(tmp_path: Path) -> None:
    got = import_corpus(tmp_path)
    assert set(FINGERPRINT) <= set(got)
    # the tables added since (a person's notes and tags) are ones no import writes: empty after any import
    assert {name: got[name][0] for name in set(got) - set(FINGERPRINT)} == {name: 0 for name in set(got) - set(FINGERPRINT)}
    different = {name: (got[name], FINGERPRINT[name]) for name in FINGERPRINT if got[name] != FINGERPRINT[name]}
    assert not different


if __name__ == "__main__":  # prints FINGERPRINT for the tree it runs on
    with tempfile.TemporaryDirectory() as tmp:
        printed = import_corpus(Path(tmp))
    sys.stdout.write("FINGERPRINT: dict[str, tuple[int, str]] = {\n")
    for name, (count, digest) in printed.items():
        sys.stdout.write(f'    "{name}": ({count}, "{digest}"),\n')
    sys.stdout.write("}\n")
