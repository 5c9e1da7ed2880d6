"""What a Spark import reads: the local paths walked as the DuckDB import walks them, the URLs left to Spark, as rows.

Apart from the run because both imports must read the same files in the
same order: local paths go through hhtool's own walk
(:class:`hhtool.history.files.Finder`, before any JVM starts, so that a
path that is not there is a usage error at once), whose files the
executors then read by name; only URLs (``hdfs://``, ``s3a://``,
``file:``) are Spark's to list, and a ``file:`` URL under which Spark's
listing would lose a file is refused.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hhtool.spark.summary import SparkImportError, SparkSummary

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hhtool.history.files import Finder


@dataclass(slots=True)
class Inputs:
    """What a run reads: the files hhtool's walk found under the local paths, and the other URLs for Spark to list."""

    local: list[str]  # files, as the DuckDB import finds them (hhtool.history.files.Finder): their own names, maybe not UTF-8
    named: frozenset[str]  # the files among them the user named, as shown (read whatever they hold)
    urls: list[str]  # hdfs://, s3a://, file: ...: listed by Spark (binaryFile), which hides names starting with _ or .


def _is_url(path: str) -> bool:
    """Whether a path is Spark's to list (``hdfs://``, ``s3a://``, ``file:``) rather than hhtool's walk's."""
    return "://" in path or path.startswith("file:")


def walk(paths: Sequence[str]) -> Finder:
    """The local paths walked as the DuckDB import walks them, before any JVM starts: a path that is not there is a usage error at once."""
    from hhtool.history.files import Finder, NoSuchPath

    finder = Finder()
    for p in paths:
        if not _is_url(p):
            try:
                finder.add(p)
            except NoSuchPath as e:
                raise SparkImportError(str(e)) from None
    return finder


def input_paths(paths: Sequence[str], finder: Finder, summary: SparkSummary, charset: str = "utf-8") -> Inputs:
    """The files under ``paths``: local ones found by the DuckDB import's own walk, so that both imports read the same files.

    Spark's own listing (Hadoop's) hides every name starting with ``_`` or
    ``.``, even a file named, and passes by empty files; the walk reads
    ``_x.txt`` as the DuckDB import does, and records in ``summary`` what
    it skips (a FIFO, a loop, a virtual file system) or cannot read.  A
    ``file:`` URL is Spark's to list; one under which Spark would lose a
    file is refused (:func:`_unlistable`, ``charset``: the JVM's for file names).
    ``finder``: the local paths walked already (:func:`walk`).
    """
    from hhtool.history.files import display

    urls: list[str] = []
    for p in paths:
        if _is_url(p):
            lost = _unlistable(p, charset) if p.startswith("file:") else []
            if lost:
                names = ", ".join(display(x) for x in lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
                raise SparkImportError(
                    f"{p}: Spark's listing would pass by {names} without a word (a file name that {charset} cannot hold, "
                    "so its hands would be lost): give the folder as a local path, without file:, which hhtool's own walk reads "
                    "as the DuckDB import does, or rename the file"
                )
            urls.append(p)
    local = list(dict.fromkeys(key for key, _ in finder.files))  # real paths: a file through two links once
    named = frozenset(display(key) for key, was_named in finder.files if was_named)
    summary.skipped.extend((display(os.path.abspath(path)), why) for path, why in finder.skipped.items())
    summary.unreadable.extend(f"{display(os.path.abspath(path))}: {why}" for path, why in finder.unreadable.items())
    return Inputs(local, named, urls)


def _unlistable(url: str, charset: str) -> list[str]:
    """The files under a ``file:`` URL, as this machine sees it, whose names the JVM cannot hold; empty when it is not here.

    Hadoop lists a local folder through Java, which decodes every file name
    in its charset for names (``sun.jnu.encoding``: UTF-8 here, ASCII under
    the C locale); a name that is not in it (``caf\\xe9.txt``, Latin-1 bytes)
    comes back altered, is then not found, and Hadoop drops it from the
    listing without a word.  Found by hhtool's walk (the names Spark hides,
    ``_x`` and ``.x``, are lost by design and said so in docs/scale.md).
    """
    from hhtool.history.files import Finder, NoSuchPath
    from hhtool.spark.executor import local_path

    finder = Finder()
    try:
        finder.add(local_path(url))
    except NoSuchPath:
        return []  # not on this machine (a path on the executors' nodes): Spark's to find
    lost = []
    for path, _ in finder.files:
        name = os.path.basename(path)
        if name.startswith(("_", ".")):
            continue
        try:
            os.fsencode(path).decode("utf-8").encode(charset)
        except (UnicodeDecodeError, UnicodeEncodeError):
            lost.append(path)
    return lost


def file_size(path: str) -> int:
    """A local file's size for dealing out the tasks (0 when it cannot be read: its task reports why)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def local_files(spark: SparkSession, tasks: list[list[tuple[str, int, bytes]]]) -> DataFrame:
    """The local files as rows of Spark's ``binaryFile`` listing plus ``name``, ``tasks[j]`` in partition ``j``.

    No time or content: the executors read the files, by ``name``.

    Each task's files go to the JVM as one Arrow batch, which Spark makes
    one partition (``createDataFrame`` of an Arrow table, kept an RDD of
    its batches): no Python worker turns them into rows, where a list or an
    RDD of them takes one (a daemon, and a worker with its imports) beside
    the parse's own in every task.  Each file is ``(path as shown, size,
    name in bytes)``.
    """
    import pyarrow as pa

    schema = pa.schema([
        ("path", pa.string()), ("modificationTime", pa.timestamp("us", "UTC")), ("content", pa.binary()),
        ("length", pa.int64()), ("name", pa.binary()),
    ])
    batches = [
        pa.RecordBatch.from_pydict({
            "path": [p for p, _, _ in files], "modificationTime": [None] * len(files), "content": [None] * len(files),
            "length": [n for _, n, _ in files], "name": [b for _, _, b in files],
        }, schema=schema)
        for files in tasks
        if files
    ]
    settings = {
        "spark.sql.execution.arrow.maxRecordsPerBatch": str(max((b.num_rows for b in batches), default=1)),  # else cut at this many rows
        "spark.sql.execution.arrow.localRelationThreshold": "0",  # else a small table is a local relation, cut over the cores evenly
    }
    before = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:  # the Spark schema from the Arrow one; no batch (no local file): an empty frame
        return spark.createDataFrame(pa.Table.from_batches(batches, schema))
    finally:  # the session's own settings again (the import's, or its user's)
        for key, old in before.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)


def path_order(path: str) -> list[str]:
    """A folder's files in the order the DuckDB import walks them: the path compared part by part (Spark's ``split(file, '/')``)."""
    return path.split("/")
