"""The Spark import's driver: read, parse and replay on the executors, decide once, write, commit.

The plan (``docs/scale.md``)::

    local paths: the DuckDB import's walk (driver)      (hhtool.spark.inputs, hhtool.history.files.Finder)
    other URLs: binaryFile (hdfs://, s3a://, ...)
      -> pieces: read, decompress, hash, cut at blank lines (executors, hhtool.spark.executor.pieces)
      -> only when the files cannot keep every core busy (must_spread):
         repartition by (file, piece), a big file's pieces spread over every core
      -> chunks: the DuckDB import's worker function      (executors, process_chunk), kept:
         its frames as Arrow IPC, its hands' and failed hands' keys as list columns;
         one row a chunk of counts to the driver (the run's totals, the files table)
      -> keys: (site, hand_id, text_hash) of every hand, that list exploded (the JVM alone)
      -> deduplication: a shuffle by (site, hand_id) against this run and the committed runs;
         only what is not new reaches the driver, as runs of places a chunk
      -> hand_key: the committed maximum + the hand's place in (file, line) order, given
         to each chunk's runs of new hands on the driver and broadcast back
      -> one pass of the Python workers writes every table's Parquet into the staging
         folder (executor.write_tables, hhtool.spark.staging), then the commit (hhtool.spark.commit)

Exactly once, as in DuckDB (:mod:`hhtool.spark.decide`).  Here: the run
and its passes; the session's life is :mod:`hhtool.spark.jvm`'s, what a
run reads :mod:`hhtool.spark.inputs`', what it did
:mod:`hhtool.spark.summary`'s.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from hhtool.game.room import NO_ROOMS, Rooms
from hhtool.spark.cds import Archive
from hhtool.spark.commit import STAGING, DatasetError, Output, placed, run_name
from hhtool.spark.decide import committed_hashes, decide, last_key
from hhtool.spark.inputs import file_size, input_paths, local_files, path_order, walk
from hhtool.spark.jvm import JVM_OPTIONS, configure, jvm_charset, running, start, stop
from hhtool.spark.summary import SparkImportError, SparkSummary
from hhtool.spark.tables import spark_schema
from hhtool.store.schema import FILES

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hhtool.history.files import Finder

__all__ = ["TASKS_PER_CORE", "WRITE_TASKS_PER_CORE", "SparkImportError", "SparkSummary", "must_spread", "spark_import"]


def spark_import(
    paths: Sequence[str],
    out: str,
    *,
    master: str | None = None,
    spark: SparkSession | None = None,
    partitions: int | None = None,
    spread: bool | None = None,
    rooms: Rooms = NO_ROOMS,
) -> SparkSummary:
    """Import every hand under ``paths`` into the Parquet dataset ``out`` with Spark; commit it as one run.

    ``spark``: the session to run on; without one, a session on ``master``
    (:func:`hhtool.spark.jvm.session`), stopped once the run is over unless one was running
    before.  Left to the end of the process, a session stops only once
    Python has gone: the JVM sees its input close and runs its shutdown (the
    Python workers, the cached blocks on disk) for one to five seconds more,
    its standard output still the command's, so that a script reading it
    waits that long after the summary.

    ``partitions``: at most how many tasks the parse is split into
    (default: :data:`TASKS_PER_CORE` a core of the session; one a file
    below that).  ``spread``: whether the
    files' pieces are shuffled over the cores before the parse (default:
    when the files' sizes cannot keep every core busy, :func:`must_spread`).
    ``rooms``: the room files each hand is replayed under, by its site, as
    :func:`hhtool.store.importer.import_paths`'s (broadcast once to the
    executors); the dataset's ``rooms`` gains the rules of each room the
    run's new hands name, unless a run committed them before.  Raises
    :class:`SparkImportError` when Spark cannot start or read a path;
    what the run wrote is visible only once it is committed.
    """
    import time

    started = time.monotonic()
    finder = walk(paths)
    if spark is not None:
        return _import(spark, paths, finder, out, partitions, spread, started, rooms)
    from hhtool.spark.cds import finish, options

    ours = not running()
    local = master is None or master.startswith("local")
    archive = options(JVM_OPTIONS) if local and ours else Archive("")
    spark = start(master, "hhtool spark-import", archive)
    try:
        return _import(spark, paths, finder, out, partitions, spread, started, rooms)
    finally:
        if ours:  # made for this run: stopped here, not when the process has gone (spark_import's docstring)
            finish(archive, stop(spark))  # the first local run of an installation: waits for its JVM, which writes the class archive


def _import(
    spark: SparkSession, paths: Sequence[str], finder: Finder, out: str, partitions: int | None, spread: bool | None, started: float,
    rooms: Rooms = NO_ROOMS,
) -> SparkSummary:
    """:func:`spark_import` on a session."""
    import time

    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    configure(spark)
    sc = spark.sparkContext
    output = Output(out, sc._jvm, sc._jsc.hadoopConfiguration())
    try:
        runs = output.recover()
    except DatasetError as e:
        raise SparkImportError(str(e)) from None
    run = max((int(r["run"]) for r in runs), default=0) + 1
    summary = SparkSummary(out=out, run=run)
    inputs = input_paths(paths, finder, summary, jvm_charset(spark))
    parts = partitions or TASKS_PER_CORE * sc.defaultParallelism
    # Local files: their paths and sizes only; the executors read them (executor.pieces), as the DuckDB
    # import's workers do, by ``name``: the file's own name in bytes (a name that is not UTF-8 cannot
    # cross to the JVM as text; ``path`` shows it as the DuckDB import stores it, its odd bytes ``\xff``).
    # A task a file, the largest first (the order must_spread deals them out in);
    # more files than ``parts``: ``parts`` tasks, each dealt every parts-th file of that order.
    # The cost of a file follows its hands (an all-in's equity, a long hand), not only its size:
    # many small tasks, handed to whichever core is free, end the pass within about one task of each other.
    from hhtool.history.files import display

    local = sorted(((path, file_size(path)) for path in inputs.local), key=lambda x: -x[1])
    k = max(1, min(len(local), parts))
    raw = local_files(spark, [[(display(path), size, os.fsencode(path)) for path, size in local[j::k]] for j in range(k)])
    if inputs.urls:
        try:
            listed = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(inputs.urls)
        except AnalysisException as e:
            raise SparkImportError(f"Spark cannot read the input: {str(e).splitlines()[0]}") from None
        raw = raw.unionByName(listed.select("path", "modificationTime", "content", "length", F.lit(None).cast("binary").alias("name")))
    if spread is None:  # the local files' sizes are known here; a URL's files are Spark's listing's
        sizes = [size for _, size in local] + ([int(r[0]) for r in raw.select("length").collect()] if inputs.urls else [])
        spread = must_spread(sizes, sc.defaultParallelism)
    try:
        _run(spark, output, raw, inputs.named, run, last_key(runs), summary, parts, spread, started, rooms)
    finally:  # the jobs' descriptions (Spark's UI, its event log) name hhtool's passes; the session may run others after
        sc._jsc.setLocalProperty("spark.job.description", None)
    summary.seconds = time.monotonic() - started
    return summary


TASKS_PER_CORE = 16
"""The parse's tasks a core, at most (one a file below that): the pass ends when its slowest core does, so
many short tasks, each handed to a core when it is free, keep every core busy to the end; the write's
tasks are fewer (:data:`WRITE_TASKS_PER_CORE`), each one file a table and date."""


WRITE_TASKS_PER_CORE = 4
"""The write's tasks a core, at most: it writes one file a task, table and date, so fewer, larger files."""


def must_spread(sizes: Sequence[int], cores: int, slack: float = 1.15) -> bool:
    """Whether whole files, one task each, would leave cores idle: then the pieces are shuffled over every core.

    Without the shuffle a file is parsed by the task that read it, and the
    text never crosses the JVM again; that keeps the cores evenly busy only
    when the files are many or alike.  The files (``sizes`` in bytes) are
    given out largest first to the least busy core, as Spark's scheduler
    hands out its tasks; if the busiest core gets more than ``slack`` times
    its share, a shuffle of the text costs less than the wait.  A file of a
    single piece cannot be spread, so a set of small files never is.
    """
    import heapq

    from hhtool.store.sources import CHUNK_BYTES

    if cores <= 1 or not sizes or max(sizes) <= CHUNK_BYTES:
        return False
    loads = [0] * cores
    for size in sorted(sizes, reverse=True):
        heapq.heapreplace(loads, loads[0] + size)
    return max(loads) > slack * sum(sizes) / cores


def _run(
    spark: SparkSession,
    output: Output,
    raw: DataFrame,
    named: frozenset[str],
    run: int,
    base: int,
    summary: SparkSummary,
    partitions: int,
    spread: bool,
    started: float,
    rooms: Rooms = NO_ROOMS,
) -> None:
    """The run's three passes (read and parse; decide; write every table), then the commit.

    ``base``: the committed runs' largest ``hand_key``.
    """
    import time

    from pyspark import StorageLevel
    from pyspark.sql import types as T

    from hhtool.spark import executor as X
    from hhtool.spark.affinity import confined, wanted
    from hhtool.spark.staging import StagedWriter

    sc = spark.sparkContext
    now = datetime.now(timezone.utc)
    stage = f"{STAGING}/{run_name(run)}"
    stage_uri = output.qualified(stage)
    known = sc.broadcast(committed_hashes(output))
    governing = sc.broadcast(rooms)  # to each executor once, not with each task

    local = wanted(sc.master)  # a local run's tasks each keep a CPU of their own (hhtool.spark.affinity)

    def cut(batches: Any) -> Any:
        return confined(local, X.pieces(batches, known.value, named))

    def parse(batches: Any) -> Any:
        return confined(local, X.chunks(batches, governing.value))

    def read(batches: Any) -> Any:
        return confined(local, X.chunks(X.pieces(batches, known.value, named), governing.value))

    files_in = raw.select("path", "modificationTime", "content", "name")
    chunk_type = spark_schema(X.CHUNK_COLUMNS).add("keys", T.ArrayType(spark_schema(X.KEY_FIELDS))).add("fails", T.ArrayType(spark_schema(X.FAIL_FIELDS)))
    if spread:  # the pieces shuffled over every core (a big file's too), then parsed
        parsed = files_in.mapInArrow(cut, spark_schema(X.PIECE_COLUMNS)).repartition(partitions, "file", "chunk").mapInArrow(
            parse, chunk_type
        )
    else:  # each file cut and parsed by the task that read it; the files packed into about ``partitions`` tasks
        spark.conf.set("spark.sql.files.minPartitionNum", str(partitions))
        parsed = files_in.mapInArrow(read, chunk_type)
    chunks = parsed.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        sc.setJobDescription("hhtool: read, parse and replay")  # the first action: it fills the cache of chunks
        read_files, hands_of = _files_read(chunks, summary)
        sc.setJobDescription("hhtool: new, duplicate or conflict")
        decisions = decide(spark, output, chunks, hands_of, base, summary)
        sc.setJobDescription("hhtool: write every table")
        plan = sc.broadcast(decisions)

        def write(batches: Any) -> Any:
            return confined(local, X.write_tables(batches, plan.value, stage_uri, now))

        frames = chunks.where("status IS NULL").select("file", "chunk", *(f"t_{t}" for t in X.FRAME_TABLES))
        frames = frames.coalesce(WRITE_TASKS_PER_CORE * sc.defaultParallelism)  # no shuffle; fewer tasks only where there are more
        written = frames.mapInArrow(write, spark_schema(X.WRITTEN_COLUMNS)).collect() if decisions else []
        plan.unpersist()
    finally:
        chunks.unpersist()
    files = [(t, p) for t, p, *_ in written if t is not None]
    governed: set[tuple[str, str]] = set()
    for _, _, verdict, n, room, digest in written:
        if verdict is not None:
            summary.verdicts[verdict] = summary.verdicts.get(verdict, 0) + int(n)
        if room is not None:
            governed.add((str(room), str(digest)))
    # ---- the files read to the end (a content read twice in this run: once, under its first path), written here
    rows, seen = [], set()
    for r in sorted(read_files, key=lambda r: path_order(r["path"])):
        if r["sha256"] not in seen:
            seen.add(r["sha256"])
            rows.append({**r, "imported_at": now})
    rooms_new = _new_rooms(output, rooms, governed, now)
    if rows or rooms_new is not None:
        import pyarrow as pa

        from hhtool.spark.tables import arrow_schema

        writer = StagedWriter(stage_uri, "driver")
        if rows:
            writer.add_arrow("files", None, pa.Table.from_pylist(rows, schema=arrow_schema([(c.name, c.sql) for c in FILES.columns])))
        if rooms_new is not None:
            writer.add("rooms", rooms_new)
        files += [(t, p) for t, p, _ in writer.close()]
    summary.imported = len(rows)
    summary.cp1252_files = sorted(r["path"] for r in rows if r["encoding"] == "cp1252")
    summary.seconds = time.monotonic() - started
    record = summary.as_dict()
    record["committed_at"] = now.isoformat()
    moves = [(f"{stage}/{path}", placed(run, table, path.split("/", 1)[1])) for table, path in files]
    output.commit(run, moves, record)


def _new_rooms(output: Output, rooms: Rooms, governed: set[tuple[str, str]], now: datetime) -> Any:
    """The ``rooms`` rows (a polars frame) of the rooms the run's new hands name and no committed run recorded; None if none."""
    if not governed:
        return None
    import polars as pl
    import pyarrow.parquet as pq

    from hhtool.spark.staging import arrow_filesystem
    from hhtool.store.rooms import room_rows

    done: set[tuple[str, str]] = set()
    committed = output.files("rooms")
    if committed:
        fs, base = arrow_filesystem(output.qualified("rooms"))
        table = pq.read_table([f"{base}/{f}" for f in committed], columns=["name", "digest"], filesystem=fs)
        done = set(zip(table.column("name").to_pylist(), table.column("digest").to_pylist()))
    wanted = [pair for pair in governed if pair not in done]
    if not wanted:
        return None
    rows = room_rows(rooms)
    keep = set(wanted)
    rows = rows.filter(pl.Series([(n, d) in keep for n, d in rows.select("name", "digest").iter_rows()], dtype=pl.Boolean))
    return rows.with_columns(pl.lit(now, pl.Datetime("us", "UTC")).alias("imported_at")) if rows.height else None


def _files_read(chunks: DataFrame, summary: SparkSummary) -> tuple[list[dict[str, Any]], dict[tuple[str, int], int]]:
    """The first pass: every file's outcome into ``summary``; the rows of ``files`` for those read to the end (without
    ``imported_at``), and how many hands each chunk parsed (``local`` 0 to that number less one).

    One row a chunk comes to the driver, without its frames or keys (no shuffle: the chunks are summed here).
    """
    from pyspark.sql import functions as F

    rows = chunks.select(
        "file", "chunk", "status", "message", "sha256", "size", F.unix_micros("mtime").alias("mtime"),
        "hands", "failed", "junk_lines", "replay_errors", "cp1252", "open_from",
    ).collect()
    per_file: dict[str, dict[str, Any]] = {}
    parsed: dict[tuple[str, int], int] = {}
    for r in rows:
        f = per_file.get(r["file"])
        if f is None:
            f = per_file[r["file"]] = {
                "path": r["file"], "status": r["status"], "message": r["message"], "sha256": r["sha256"], "size": r["size"],
                "mtime": _instant(r["mtime"]), "cp1252": False, "hands": 0, "failed": 0, "open_from": None,
            }
        if r["status"] is None:
            hands, failed = int(r["hands"] or 0), int(r["failed"] or 0)
            parsed[(r["file"], int(r["chunk"]))] = hands
            f["hands"] += hands + failed
            f["failed"] += failed
            f["cp1252"] = f["cp1252"] or bool(r["cp1252"])
            if r["open_from"] is not None:  # on the file's last piece only
                f["open_from"] = int(r["open_from"])
            summary.hands += hands + failed
            summary.failed += failed
            summary.junk_lines += int(r["junk_lines"] or 0)
            summary.replay_errors += int(r["replay_errors"] or 0)
    read = []
    for f in sorted(per_file.values(), key=lambda f: path_order(f["path"])):
        status = f.pop("status")
        message = f.pop("message")
        if status == "unreadable":
            summary.unreadable.append(f"{f['path']}: {message}")
        elif status == "no_hand":
            summary.not_histories.append(f["path"])
        elif status == "unchanged":
            summary.unchanged += 1
        else:
            f["encoding"] = "cp1252" if f.pop("cp1252") else "utf-8"
            read.append(f)
    summary.files = len(per_file)
    return read, parsed


def _instant(micros: int | None) -> datetime | None:
    """An instant from Spark's microseconds since the epoch, in UTC (PySpark's own conversion gives the driver's local time)."""
    from datetime import timedelta

    return None if micros is None else datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=int(micros))
