"""The Spark import's driver: read, parse and replay on the executors, decide once, write, commit.

The plan (``docs/scale.md``)::

    local paths: the DuckDB import's walk (driver)      (hhtool.history.files.Finder)
    other URLs: binaryFile (hdfs://, s3a://, ...)
      -> pieces: read, decompress, hash, cut at blank lines (executors, hhtool.spark.executor.pieces)
      -> only when the files cannot keep every core busy (must_spread):
         repartition by (file, piece), a big file's pieces spread over every core
      -> chunks: the DuckDB import's worker function      (executors, process_chunk), kept:
         its frames as Arrow IPC, its hands' keys as a list column
      -> keys: (site, hand_id, text_hash) of every hand, that list exploded (the JVM alone)
      -> deduplication: a shuffle by (site, hand_id) against this run and the committed runs
      -> hand_key: the committed maximum + the hand's place in (file, line) order, given
         to each piece's runs of new hands on the driver and broadcast back
      -> each table written to the staging folder, then committed (hhtool.spark.commit)

Exactly once, as in DuckDB: a hand whose ``(site, hand_id)`` is new is
stored (the first one in file and line order when a run reads it twice);
the same id with the same text is a duplicate; with another text a
conflict, kept once in ``conflicts``; a failed hand is kept once by the
hash of its text; a file whose content hash is committed is not read again.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.spark.commit import STAGING, DatasetError, Output, placed, run_name
from hhtool.spark.tables import PARTITION, output_columns, spark_schema
from hhtool.store.schema import CONFLICTS, FAILED, FILES, HAND_TABLES, HANDS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hhtool.history.files import Finder


class SparkImportError(Exception):
    """A Spark import that cannot start or run: Java or PySpark missing, a path Spark cannot read (the CLI exits 2)."""


@dataclass(slots=True)
class SparkSummary:
    """What a run did; the same counts as :class:`~hhtool.store.importer.ImportSummary` where they mean the same."""

    out: str
    run: int = 0
    files: int = 0  # files found (a zip member is one)
    imported: int = 0  # files committed by this run
    unchanged: int = 0  # content already committed: not read again
    hands: int = 0  # hand records read (parsed and failed)
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    conflicts_new: int = 0
    failed: int = 0
    failed_new: int = 0
    replay_errors: int = 0
    junk_lines: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    not_histories: list[str] = field(default_factory=list)
    cp1252_files: list[str] = field(default_factory=list)  # not UTF-8: read as Windows-1252
    unreadable: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why): not read, nothing lost (a loop, a FIFO, a virtual file system)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.failed or self.conflicts or self.replay_errors or self.unreadable)

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)

    def text(self) -> str:
        """The summary for a terminal, in the DuckDB import's words (file names escaped: they may come from an archive)."""
        from dataclasses import fields

        from hhtool.store.importer import ImportSummary
        from hhtool.textsafe import term

        same = {f.name for f in fields(ImportSummary)} & {f.name for f in fields(self)}
        return term(f"run {self.run} committed under {self.out}") + "\n" + ImportSummary(**{n: getattr(self, n) for n in same}).text()


def java_available() -> bool:
    """A ``java`` on the PATH or under ``$JAVA_HOME``: PySpark's local mode starts a JVM."""
    home = os.environ.get("JAVA_HOME")
    return shutil.which("java") is not None or bool(home and (Path(home) / "bin" / "java").exists())


def session(master: str | None = None, app: str = "hhtool spark-import") -> SparkSession:
    """A SparkSession: the one spark-submit made, else a new one on ``master`` (``local[*]`` when not given).

    A local session runs its Python workers with this interpreter (so
    they import this hhtool), on the loopback address, without the web UI.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkImportError("PySpark is not installed: pip install 'hhtool[spark]' (it needs Java 17)") from None
    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    if not java_available():
        raise SparkImportError("Spark needs Java 17, and no java was found (install openjdk-17-jre-headless, or set JAVA_HOME)")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import warnings

    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)  # pandas is only Arrow's go-between here
    builder = SparkSession.builder.appName(app)
    local = master is None or master.startswith("local")
    builder = builder.master(master or "local[*]")
    if local:
        builder = (
            builder.config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "8")
            # a local job is short: the JIT's quick tier alone and one GC thread leave the cores to the parse;
            # the JVM's log (errors only) on standard error, so that standard output holds the summary alone
            .config(
                "spark.driver.extraJavaOptions",
                f"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dlog4j2.configurationFile={Path(__file__).with_name('log4j2.properties').as_uri()}",
            )
            .config("spark.log.structuredLogging.enabled", "false")
        )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _configure(spark: SparkSession) -> None:
    """What the import needs of the session, whoever made it: UTC instants, Parquet timestamps as DuckDB writes them."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "4")  # a piece row holds up to a megabyte of text


@dataclass(slots=True)
class _Inputs:
    """What a run reads: the files hhtool's walk found under the local paths, and the other URLs for Spark to list."""

    local: list[str]  # files, as the DuckDB import finds them (hhtool.history.files.Finder): their own names, maybe not UTF-8
    named: frozenset[str]  # the files among them the user named, as shown (read whatever they hold)
    urls: list[str]  # hdfs://, s3a://, file: ...: listed by Spark (binaryFile), which hides names starting with _ or .


def _is_url(path: str) -> bool:
    """Whether a path is Spark's to list (``hdfs://``, ``s3a://``, ``file:``) rather than hhtool's walk's."""
    return "://" in path or path.startswith("file:")


def _walk(paths: Sequence[str]) -> Finder:
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


def _input_paths(paths: Sequence[str], finder: Finder, summary: SparkSummary, charset: str = "utf-8") -> _Inputs:
    """The files under ``paths``: local ones found by the DuckDB import's own walk, so that both imports read the same files.

    Spark's own listing (Hadoop's) hides every name starting with ``_`` or
    ``.``, even a file named, and passes by empty files; the walk reads
    ``_x.txt`` as the DuckDB import does, and records in ``summary`` what
    it skips (a FIFO, a loop, a virtual file system) or cannot read.  A
    ``file:`` URL is Spark's to list; one under which Spark would lose a
    file is refused (:func:`_unlistable`, ``charset``: the JVM's for file names).
    ``finder``: the local paths walked already (:func:`_walk`).
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
    return _Inputs(local, named, urls)


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


def _jvm_charset(spark: SparkSession) -> str:
    """The JVM's charset for file names, as Python names it (UTF-8 when Python does not know it)."""
    import codecs

    jvm = spark.sparkContext._jvm
    name = str((jvm.java.lang.System.getProperty("sun.jnu.encoding") if jvm is not None else None) or "UTF-8")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "utf-8"


def _size(path: str) -> int:
    """A local file's size for dealing out the tasks (0 when it cannot be read: its task reports why)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _committed(spark: SparkSession, output: Output, table: str, columns: list[tuple[str, str]]) -> DataFrame:
    """The committed rows of ``table`` (the columns asked for), empty when there are none."""
    schema = spark_schema(columns)
    files = [output.uri(f"{table}/{f}") for f in output.files(table)]
    if not files:
        return spark.createDataFrame([], schema)
    return spark.read.schema(schema).parquet(*files)


def spark_import(
    paths: Sequence[str],
    out: str,
    *,
    master: str | None = None,
    spark: SparkSession | None = None,
    partitions: int | None = None,
    spread: bool | None = None,
) -> SparkSummary:
    """Import every hand under ``paths`` into the Parquet dataset ``out`` with Spark; commit it as one run.

    ``partitions``: how many pieces of work the parse is split into
    (default: four per core of the session).  ``spread``: whether the
    files' pieces are shuffled over the cores before the parse (default:
    when the files' sizes cannot keep every core busy, :func:`must_spread`).  Raises
    :class:`SparkImportError` when Spark cannot start or read a path;
    what the run wrote is visible only once it is committed.
    """
    import time

    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    started = time.monotonic()
    finder = _walk(paths)
    spark = spark or session(master)
    _configure(spark)
    sc = spark.sparkContext
    output = Output(out, sc._jvm, sc._jsc.hadoopConfiguration())
    try:
        runs = output.recover()
    except DatasetError as e:
        raise SparkImportError(str(e)) from None
    run = max((int(r["run"]) for r in runs), default=0) + 1
    summary = SparkSummary(out=out, run=run)
    inputs = _input_paths(paths, finder, summary, _jvm_charset(spark))
    parts = partitions or 4 * sc.defaultParallelism
    columns = "path STRING, modificationTime TIMESTAMP, content BINARY, length BIGINT, name BINARY"
    # Local files: their paths and sizes only; the executors read them (executor.pieces), as the DuckDB
    # import's workers do, by ``name``: the file's own name in bytes (a name that is not UTF-8 cannot
    # cross to the JVM as text; ``path`` shows it as the DuckDB import stores it, its odd bytes ``\xff``).
    # A task a file, the largest first (the order must_spread deals them out in);
    # more files than ``parts``: ``parts`` tasks, each dealt every parts-th file of that order.
    from hhtool.history.files import display

    local = sorted(((path, _size(path)) for path in inputs.local), key=lambda x: -x[1])
    k = max(1, min(len(local), parts))
    dealt = [local[i] for j in range(k) for i in range(j, len(local), k)]
    raw = spark.createDataFrame(sc.parallelize([(display(path), None, None, size, os.fsencode(path)) for path, size in dealt], k), columns)
    if inputs.urls:
        try:
            listed = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(inputs.urls)
        except AnalysisException as e:
            raise SparkImportError(f"Spark cannot read the input: {str(e).splitlines()[0]}") from None
        raw = raw.unionByName(listed.select("path", "modificationTime", "content", "length", F.lit(None).cast("binary").alias("name")))
    try:
        _run(spark, output, raw, inputs.named, run, summary, parts, spread, started)
    finally:  # the jobs' descriptions (Spark's UI, its event log) name hhtool's passes; the session may run others after
        sc._jsc.setLocalProperty("spark.job.description", None)
    summary.seconds = time.monotonic() - started
    return summary


def _numbered(runs: Sequence[Any], base: int) -> list[tuple[str, int, list[tuple[int, int, int]]]]:
    """Each chunk's runs of new hands ``(file, chunk, [(lo, n, first hand_key)])``, numbered from ``base + 1`` in (file, line) order.

    The order is the DuckDB import's: a folder's files as it walks them
    (the path compared part by part), a file's chunks and hands in order.
    """
    out: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    key = base + 1
    for r in sorted(runs, key=lambda r: (r["file"].split("/"), r["chunk"], r["lo"])):
        out.setdefault((r["file"], r["chunk"]), []).append((int(r["lo"]), int(r["n"]), key))
        key += int(r["n"])
    return [(f, c, v) for (f, c), v in out.items()]


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
    summary: SparkSummary,
    partitions: int,
    spread: bool | None,
    started: float,
) -> None:
    import time

    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    from pyspark.sql.window import Window

    from hhtool.spark import executor as X

    sc = spark.sparkContext
    now = datetime.now(timezone.utc)
    stage = f"{STAGING}/{run_name(run)}"
    known = sc.broadcast(frozenset(r[0] for r in _committed(spark, output, "files", [("sha256", "VARCHAR")]).collect()))

    def cut(batches: Any) -> Any:
        return X.pieces(batches, known.value, named)

    def table(name: str) -> Any:
        return lambda batches: X.table_rows(batches, name, now)

    def read(batches: Any) -> Any:
        return X.chunks(X.pieces(batches, known.value, named))

    files_in = raw.select("path", "modificationTime", "content", "name")
    chunk_type = spark_schema(X.CHUNK_COLUMNS).add("keys", T.ArrayType(spark_schema(X.KEY_FIELDS)))
    if spread is None:
        spread = must_spread([int(r[0]) for r in raw.select("length").collect()], sc.defaultParallelism)
    if spread:  # the pieces shuffled over every core (a big file's too), then parsed
        parsed = files_in.mapInArrow(cut, spark_schema(X.PIECE_COLUMNS)).repartition(partitions, "file", "chunk").mapInArrow(
            X.chunks, chunk_type
        )
    else:  # each file cut and parsed by the task that read it; the files packed into about ``partitions`` tasks
        spark.conf.set("spark.sql.files.minPartitionNum", str(partitions))
        parsed = files_in.mapInArrow(read, chunk_type)
    chunks = parsed.persist(StorageLevel.MEMORY_AND_DISK)
    order = F.split("file", "/")  # a folder's files in the order the DuckDB import walks them
    # ---- the files
    sc.setJobDescription("hhtool: read, parse and replay")  # the first action: it fills the cache of chunks
    status = chunks.where("chunk <= 0").select("file", "status", "message").collect()
    sc.setJobDescription("hhtool: counts and keys")
    for r in status:
        if r["status"] == "unreadable":
            summary.unreadable.append(f"{r['file']}: {r['message']}")
        elif r["status"] == "no_hand":
            summary.not_histories.append(r["file"])
        elif r["status"] == "unchanged":
            summary.unchanged += 1
    summary.files = len(status)
    totals = chunks.where("status IS NULL").agg(
        F.sum("hands"), F.sum("failed"), F.sum("junk_lines"), F.sum("replay_errors")
    ).first()
    if totals is not None:
        summary.hands = int((totals[0] or 0) + (totals[1] or 0))
        summary.failed = int(totals[1] or 0)
        summary.junk_lines = int(totals[2] or 0)
        summary.replay_errors = int(totals[3] or 0)
    # ---- the deduplication
    keys = chunks.select("file", "chunk", F.explode("keys").alias("key")).select("file", "chunk", "key.*")  # a row a hand
    by_id = Window.partitionBy("site", "hand_id").orderBy(order, "first_line")
    stored = _committed(spark, output, "hands", [("site", "VARCHAR"), ("hand_id", "VARCHAR"), ("text_hash", "BIGINT"), ("hand_key", "BIGINT")])
    base_row = stored.agg(F.max("hand_key")).first()
    base = int(base_row[0]) if base_row is not None and base_row[0] is not None else 0
    decided = (
        keys.withColumn("rank", F.row_number().over(by_id))
        .withColumn("first_hash", F.first("text_hash").over(by_id))
        .join(stored.select("site", "hand_id", F.col("text_hash").alias("stored_hash")), ["site", "hand_id"], "left")
        .withColumn(
            "outcome",
            F.when(F.col("stored_hash").isNotNull(), F.when(F.col("text_hash") == F.col("stored_hash"), "duplicate").otherwise("conflict"))
            .when(F.col("rank") == 1, "new")
            .when(F.col("text_hash") == F.col("first_hash"), "duplicate")
            .otherwise("conflict"),
        )
        .drop("rank", "first_hash", "stored_hash")
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    for r in decided.groupBy("outcome").count().collect():
        if r["outcome"] == "duplicate":
            summary.duplicates = int(r["count"])
        elif r["outcome"] == "conflict":
            summary.conflicts = int(r["count"])
    new = decided.where("outcome = 'new'")
    for r in new.groupBy("verdict").count().collect():
        summary.verdicts[str(r["verdict"])] = int(r["count"])
    # hand_key: after the committed ones, in (file, line) order, as the DuckDB import's single writer numbers them.
    # The new hands of a chunk come as runs of consecutive locals (most chunks: one run, every hand; a file
    # read before under another name: none), so the driver numbers runs, one or two a chunk, never hands.
    run_of = F.col("local") - F.row_number().over(Window.partitionBy("file", "chunk").orderBy("local"))
    runs = (
        new.withColumn("run", run_of)
        .groupBy("file", "chunk", "run")
        .agg(F.min("local").alias("lo"), F.count(F.lit(1)).alias("n"))
        .select("file", "chunk", "lo", "n")
        .collect()
    )
    mapping_schema = T.StructType(
        [*spark_schema([("file", "VARCHAR"), ("chunk", "INTEGER")]).fields, T.StructField("new", T.ArrayType(spark_schema(X.RANGE_COLUMNS)))]
    )
    mapping = spark.createDataFrame(_numbered(runs, base), mapping_schema)
    summary.stored = sum(int(r["n"]) for r in runs)
    moves: list[tuple[str, str]] = []

    def write(name: str, df: DataFrame, partitioned: bool) -> None:
        sc.setJobDescription(f"hhtool: write {name}")
        target = output.uri(f"{stage}/{name}")
        writer = df.write.mode("overwrite")
        (writer.partitionBy(PARTITION) if partitioned else writer).parquet(target)
        moves.extend((f"{stage}/{name}/{f}", placed(run, name, f)) for f in output.files(f"{stage}/{name}"))

    for spec in (HANDS, *HAND_TABLES):
        frames = chunks.select("file", "chunk", F.col(f"t_{spec.name}").alias("frame")).where("frame IS NOT NULL")
        # the mapping is one row a chunk: sent whole to every task, the frames stay where they are
        rows = frames.join(F.broadcast(mapping), ["file", "chunk"]).select("frame", "new").mapInArrow(table(spec.name), spark_schema(output_columns(spec)))
        write(spec.name, rows, True)
    # ---- conflicts: each other text once, not one committed already (no conflict: nothing to read)
    if summary.conflicts:
        first_seen = Window.partitionBy("site", "hand_id", "text_hash").orderBy(order, "first_line")
        known_conflicts = _committed(spark, output, "conflicts", [("site", "VARCHAR"), ("hand_id", "VARCHAR"), ("text_hash", "BIGINT")])
        kept = (
            decided.where("outcome = 'conflict'")
            .withColumn("n", F.row_number().over(first_seen))
            .where("n = 1")
            .join(known_conflicts, ["site", "hand_id", "text_hash"], "left_anti")
        )
        conflict_map = kept.groupBy("file", "chunk").agg(F.collect_list("local").alias("conflicts"))
        conflict_rows = (
            chunks.select("file", "chunk", F.col("t_hands").alias("frame"))
            .where("frame IS NOT NULL")
            .join(conflict_map, ["file", "chunk"])
            .select("frame", "conflicts")
            .mapInArrow(table("conflicts"), spark_schema([(c.name, c.sql) for c in CONFLICTS.columns]))
        )
        write("conflicts", conflict_rows, False)
        summary.conflicts_new = int(kept.count())
    # ---- failed hands: each text once (none failed: nothing to read)
    if summary.failed:
        failed = chunks.select("t_failed").where("t_failed IS NOT NULL").mapInArrow(X.failed_rows, spark_schema(X.FAILED_COLUMNS))
        known_failed = _committed(spark, output, "failed", [("raw_hash", "BIGINT")])
        failed = (
            failed.withColumn("n", F.row_number().over(Window.partitionBy("raw_hash").orderBy(order, "first_line")))
            .where("n = 1")
            .join(known_failed, ["raw_hash"], "left_anti")
            .withColumn("imported_at", F.lit(now))
            .select([F.col(c.name).cast(spark_schema([(c.name, c.sql)])[0].dataType) for c in FAILED.columns])
            .persist(StorageLevel.MEMORY_AND_DISK)
        )
        write("failed", failed, False)
        summary.failed_new = int(failed.count())
        failed.unpersist()
    # ---- the files read to the end (a content read twice in this run: once, under its first path)
    files = (
        chunks.where("status IS NULL")
        .groupBy(F.col("file").alias("path"))
        .agg(
            F.first("sha256").alias("sha256"), F.first("size").alias("size"), F.first("mtime").alias("mtime"),
            F.max("cp1252").alias("cp1252"), F.sum(F.col("hands") + F.col("failed")).alias("hands"), F.sum("failed").alias("failed"),
        )
        .withColumn("n", F.row_number().over(Window.partitionBy("sha256").orderBy(F.split("path", "/"))))
        .where("n = 1")
        .withColumn("imported_at", F.lit(now))
        .withColumn("encoding", F.when(F.col("cp1252"), "cp1252").otherwise("utf-8"))
        .select([F.col(c.name).cast(spark_schema([(c.name, c.sql)])[0].dataType) for c in FILES.columns])
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    write("files", files, False)
    summary.imported = int(files.count())
    summary.cp1252_files = sorted(str(r[0]) for r in files.where("encoding = 'cp1252'").select("path").collect())
    summary.seconds = time.monotonic() - started
    record = summary.as_dict()
    record["committed_at"] = now.isoformat()
    output.commit(run, moves, record)
    for df in (chunks, decided, files):
        df.unpersist()
