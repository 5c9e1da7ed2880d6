"""A Spark import's output folder as a reader sees it: its layout, its commit records, the files they commit.

``hhtool spark-import ... --out DIR`` (:mod:`hhtool.spark.commit`) stages
a run's tables under ``DIR/_hhtool/staging/run-N/``, commits them by
writing ``DIR/_hhtool/commits/run-N.json`` (the list of the run's files,
where each was staged and where it goes), then moves them to their
places.  A reader (``--parquet DIR``, :mod:`hhtool.store.parquet`) takes
only what a record commits, each file where it is now: a run still being
written, or killed before its commit, is never read.

The layout and the reading are here, in the store, because the store
reads the dataset and comes before Spark in the stages
(docs/architecture.md): Spark's side imports them from here, never the
other way.  This reads a local ``DIR`` in plain Python; the writing goes
through Hadoop's ``FileSystem`` on the Spark driver.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from hhtool.store.schema import SCHEMA_VERSION

META = "_hhtool"
COMMITS = f"{META}/commits"
STAGING = f"{META}/staging"
RECORD = re.compile(r"^run-(\d{6,})\.json$")
"""The name of a run's commit record in ``COMMITS`` (:func:`run_name` and ``.json``); any other file there is not one."""


def run_name(run: int) -> str:
    """``run-000042``: a run's staging folder, the name of its commit record, the prefix of its files' names."""
    return f"run-{run:06d}"


class DatasetError(Exception):
    """A Parquet dataset that cannot be read as hhtool's (the CLI prints it and exits 2)."""


def is_dataset(root: str | Path) -> bool:
    """A folder a Spark import wrote (it has commit records)."""
    return (Path(root) / COMMITS).is_dir()


def committed_files(root: str | Path) -> dict[str, list[str]]:
    """Per table, the absolute paths of its committed files in a local ``DIR``: each where it is now (placed, or still staged).

    Raises :class:`DatasetError` for a record that cannot be read or a
    committed file found nowhere, or for a dataset of another schema version.
    """
    root = Path(root)
    out: dict[str, list[str]] = {}
    folder = root / COMMITS
    for name in sorted(os.listdir(folder)):
        if not RECORD.match(name):
            continue
        try:
            record = json.loads((folder / name).read_text(encoding="utf-8"))
            moves = record["moves"]
            version = record["schema_version"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise DatasetError(f"{folder / name}: a commit record that cannot be read ({e})") from None
        if version != SCHEMA_VERSION:
            raise DatasetError(
                f"{root}: written with schema version {version}, and this hhtool reads version {SCHEMA_VERSION}: "
                "import the hand histories again into a new folder"
            )
        for src, dst in moves:
            here = root / dst
            if not here.exists():
                here = root / src
                if not here.exists():
                    raise DatasetError(f"{root / dst}: a committed file is missing (the dataset is damaged)")
            out.setdefault(dst.split("/", 1)[0], []).append(str(here))
    return out
