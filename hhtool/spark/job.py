"""The Spark import's driver: read, parse and replay on the executors, decide once, write, commit.

The plan (``docs/scale.md``)::

    local paths: the DuckDB import's walk (driver)      (hhtool.history.files.Finder)
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

from hhtool.spark.cds import Archive
from hhtool.spark.commit import STAGING, DatasetError, Output, placed, run_name
from hhtool.spark.tables import spark_schema
from hhtool.store.schema import FILES

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hhtool.history.files import Finder
    from hhtool.spark.executor import Decision


class SparkImportError(Exception):
    """A Spark import that cannot start or run: Java or PySpark missing, a path Spark cannot read (the CLI exits 2)."""


@dataclass(slots=True)
class SparkSummary:
    """What a run did; the same counts as :class:`~hhtool.store.summary.ImportSummary` where they mean the same."""

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


JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""A local session's JVM: a local job is short, so the JIT's quick tier alone and one GC thread leave the cores to the parse."""


def session(master: str | None = None, app: str = "hhtool spark-import") -> SparkSession:
    """A SparkSession: the one spark-submit made, else a new one on ``master`` (``local[*]`` when not given).

    A local session runs its Python workers with this interpreter (so
    they import this hhtool), on the loopback address, without the web UI,
    its JVM's classes mapped from the installation's class archive when
    one has been written (:mod:`hhtool.spark.cds`).
    """
    from hhtool.spark.cds import options

    archive = options(JVM_OPTIONS)
    if archive.pending is not None:  # only spark_import writes an archive (it ends the JVM to have it dumped)
        archive = Archive("")
    return _session(master, app, archive)


def _session(master: str | None, app: str, archive: Archive) -> SparkSession:
    """:func:`session`, the JVM started with ``archive``'s options (local sessions only)."""
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
    import threading
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
            # the JVM's log (errors only) on standard error, so that standard output holds the summary alone
            .config(
                "spark.driver.extraJavaOptions",
                f"{JVM_OPTIONS} {archive.java_options} -Dlog4j2.configurationFile={Path(__file__).with_name('log4j2.properties').as_uri()}",
            )
            .config("spark.log.structuredLogging.enabled", "false")
        )
    preload = threading.Thread(target=_preload, name="hhtool-preload", daemon=True)
    preload.start()  # while the JVM starts, which takes seconds with this thread's core otherwise idle
    spark = builder.getOrCreate()
    preload.join()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


PRELOADED = ("pandas", "pyarrow", "pyarrow.parquet", "hhtool.spark.executor", "hhtool.spark.staging")
"""The modules a driver imports after the JVM is up, imported while it starts instead (:func:`_preload`).

PySpark's first call into a new JVM imports pandas, numpy and pyarrow
(its converters look for them) while the JVM waits; the import's own
passes and the staged write import pyarrow's Parquet and hhtool's
executor code.  Together about half a second of one core with their files
in memory, seconds when they come from the disk: work every run does
while nothing else goes on, which the JVM's start (seconds of waiting
here) can hide.
"""


def _preload() -> None:
    """Import :data:`PRELOADED`; a module that fails here fails again where it is used, and says why there."""
    import importlib

    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the import where the module is used says what is wrong
            continue


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


def _local_files(spark: SparkSession, tasks: list[list[tuple[str, int, bytes]]]) -> DataFrame:
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

    ``spark``: the session to run on; without one, a session on ``master``
    (:func:`session`), stopped once the run is over unless one was running
    before.  Left to the end of the process, a session stops only once
    Python has gone: the JVM sees its input close and runs its shutdown (the
    Python workers, the cached blocks on disk) for one to five seconds more,
    its standard output still the command's, so that a script reading it
    waits that long after the summary.

    ``partitions``: at most how many tasks the parse is split into
    (default: :data:`TASKS_PER_CORE` a core of the session; one a file
    below that).  ``spread``: whether the
    files' pieces are shuffled over the cores before the parse (default:
    when the files' sizes cannot keep every core busy, :func:`must_spread`).  Raises
    :class:`SparkImportError` when Spark cannot start or read a path;
    what the run wrote is visible only once it is committed.
    """
    import time

    started = time.monotonic()
    finder = _walk(paths)
    if spark is not None:
        return _import(spark, paths, finder, out, partitions, spread, started)
    from hhtool.spark.cds import finish, options

    running = _running()
    local = master is None or master.startswith("local")
    archive = options(JVM_OPTIONS) if local and not running else Archive("")
    spark = _session(master, "hhtool spark-import", archive)
    try:
        return _import(spark, paths, finder, out, partitions, spread, started)
    finally:
        if not running:  # made for this run: stopped here, not when the process has gone (spark_import's docstring)
            finish(archive, _stop(spark))  # the first local run of an installation: waits for its JVM, which writes the class archive


def _stop(spark: SparkSession) -> Any:
    """Stop a session a run made, and let its JVM end beside what this process does next; the JVM's process (or None).

    Two waits of a stopped session that nothing needs:

    * PySpark's ``stop`` waits for its accumulator server's thread, which
      looks for its stop flag every half second to a second: half a second
      a run on average.  The server is shut down on a thread of its own instead.
    * The JVM ends once it reads the end of its standard input, that is
      once Python has gone: its shutdown (a second on a run of 200,000
      hands) came after Python's own exit (as long again) and after the
      summary, with the command's output still open.  Its input is closed
      here, so that it ends while this process goes on; a later session in
      this process starts a JVM of its own.
    """
    import threading

    from pyspark import SparkContext

    sc = spark.sparkContext
    server = getattr(sc, "_accumulatorServer", None)
    sc._accumulatorServer = None  # type: ignore[assignment]  # PySpark's stop skips it
    gateway: Any = SparkContext._gateway
    proc: Any = getattr(gateway, "proc", None)
    ours = gateway is not None and proc is not None and proc.stdin is not None  # else not a JVM this process launched
    try:
        spark.stop()
    finally:  # also when the stop fails (a JVM that died): a later session must not find this gateway
        if server is not None:
            # its one thread serves the JVM's connection, which drops as the JVM exits: the read that ends is no error
            server.handle_error = lambda request, client_address: None
            threading.Thread(target=server.shutdown, name="hhtool-accumulators-stop", daemon=True).start()
        if ours:
            # The end of its input is how the JVM learns that its driver has gone: it exits (0), as when Python ends.
            # A child forked while the JVM ran holds that input open too, and the JVM then ends with the last of them.
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                gateway.close()
            except Exception:  # noqa: BLE001 - its connections drop as the JVM exits
                pass
            SparkContext._gateway = None
            SparkContext._jvm = None
    return proc if ours else None


def _running() -> bool:
    """Whether this process has a Spark context running already (False without PySpark: :func:`session` says it is missing)."""
    try:
        from pyspark import SparkContext
    except ImportError:
        return False
    return SparkContext._active_spark_context is not None


def _import(
    spark: SparkSession, paths: Sequence[str], finder: Finder, out: str, partitions: int | None, spread: bool | None, started: float
) -> SparkSummary:
    """:func:`spark_import` on a session."""
    import time

    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

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
    parts = partitions or TASKS_PER_CORE * sc.defaultParallelism
    # Local files: their paths and sizes only; the executors read them (executor.pieces), as the DuckDB
    # import's workers do, by ``name``: the file's own name in bytes (a name that is not UTF-8 cannot
    # cross to the JVM as text; ``path`` shows it as the DuckDB import stores it, its odd bytes ``\xff``).
    # A task a file, the largest first (the order must_spread deals them out in);
    # more files than ``parts``: ``parts`` tasks, each dealt every parts-th file of that order.
    # The cost of a file follows its hands (an all-in's equity, a long hand), not only its size:
    # many small tasks, handed to whichever core is free, end the pass within about one task of each other.
    from hhtool.history.files import display

    local = sorted(((path, _size(path)) for path in inputs.local), key=lambda x: -x[1])
    k = max(1, min(len(local), parts))
    raw = _local_files(spark, [[(display(path), size, os.fsencode(path)) for path, size in local[j::k]] for j in range(k)])
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
        _run(spark, output, raw, inputs.named, run, _last_key(runs), summary, parts, spread, started)
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


def _numbered(runs: Sequence[Any], base: int) -> list[tuple[str, int, list[tuple[int, int, int]]]]:
    """Each chunk's runs of new hands ``(file, chunk, [(lo, n, first hand_key)])``, numbered from ``base + 1`` in (file, line) order.

    The order is the DuckDB import's: a folder's files as it walks them
    (the path compared part by part), a file's chunks and hands in order.
    """
    out: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    key = base + 1
    for r in sorted(runs, key=lambda r: (_path_order(r["file"]), r["chunk"], r["lo"])):
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


def _last_key(runs: Sequence[dict[str, Any]]) -> int:
    """The committed runs' largest ``hand_key``: each run numbers its ``stored`` hands on from the one before, so their sum."""
    try:
        return sum(int(r["summary"]["stored"]) for r in runs)
    except (KeyError, TypeError, ValueError) as e:
        raise SparkImportError(f"a commit record without its run's summary ({e}): the dataset is damaged") from None


def _committed_hashes(output: Output) -> frozenset[str]:
    """The content hashes of the committed files (``files.sha256``), read on the driver: a file with one is not read again."""
    import pyarrow.parquet as pq

    from hhtool.spark.staging import arrow_filesystem

    files = output.files("files")
    if not files:
        return frozenset()
    fs, base = arrow_filesystem(output.qualified("files"))
    table = pq.read_table([f"{base}/{f}" for f in files], columns=["sha256"], filesystem=fs)
    return frozenset(str(h) for h in table.column("sha256").to_pylist())


def _path_order(path: str) -> list[str]:
    """A folder's files in the order the DuckDB import walks them: the path compared part by part (Spark's ``split(file, '/')``)."""
    return path.split("/")


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
    known = sc.broadcast(_committed_hashes(output))

    local = wanted(sc.master)  # a local run's tasks each keep a CPU of their own (hhtool.spark.affinity)

    def cut(batches: Any) -> Any:
        return confined(local, X.pieces(batches, known.value, named))

    def parse(batches: Any) -> Any:
        return confined(local, X.chunks(batches))

    def read(batches: Any) -> Any:
        return confined(local, X.chunks(X.pieces(batches, known.value, named)))

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
        decisions = _decide(spark, output, chunks, hands_of, base, summary)
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
    files = [(t, p) for t, p, _, _ in written if t is not None]
    for _, _, verdict, n in written:
        if verdict is not None:
            summary.verdicts[verdict] = summary.verdicts.get(verdict, 0) + int(n)
    # ---- the files read to the end (a content read twice in this run: once, under its first path), written here
    rows, seen = [], set()
    for r in sorted(read_files, key=lambda r: _path_order(r["path"])):
        if r["sha256"] not in seen:
            seen.add(r["sha256"])
            rows.append({**r, "imported_at": now})
    if rows:
        import pyarrow as pa

        from hhtool.spark.tables import arrow_schema

        writer = StagedWriter(stage_uri, "driver")
        writer.add_arrow("files", None, pa.Table.from_pylist(rows, schema=arrow_schema([(c.name, c.sql) for c in FILES.columns])))
        files += [(t, p) for t, p, _ in writer.close()]
    summary.imported = len(rows)
    summary.cp1252_files = sorted(r["path"] for r in rows if r["encoding"] == "cp1252")
    summary.seconds = time.monotonic() - started
    record = summary.as_dict()
    record["committed_at"] = now.isoformat()
    moves = [(f"{stage}/{path}", placed(run, table, path.split("/", 1)[1])) for table, path in files]
    output.commit(run, moves, record)


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
    for f in sorted(per_file.values(), key=lambda f: _path_order(f["path"])):
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


def _decide(
    spark: SparkSession, output: Output, chunks: DataFrame, parsed: dict[tuple[str, int], int], base: int, summary: SparkSummary
) -> dict[tuple[str, int], Decision]:
    """The second pass, one job: which hands are new, duplicates or conflicts, which conflicts and failed hands are kept.

    Every hand's ``(site, hand_id, text_hash)`` (the chunks' ``keys``,
    exploded in the JVM) meets the others of its ``(site, hand_id)`` and
    the committed ones (a shuffle): the first in file and line order is
    new, the same text again a duplicate, another text a conflict; each
    conflicting text is kept once, unless committed already.  A failed
    hand is kept once by the hash of its text (the chunks' ``fails``).
    Only what is not new goes on, to one row a chunk that has any: its
    duplicates and conflicts as runs of ``local`` (most chunks have
    none; a file read before under another name, one run), the conflicts
    and failed hands it keeps.  The rest of each chunk's hands
    (``parsed``: ``local`` 0 to n - 1) are new, and numbered here
    (:func:`_numbered`).  Returns :data:`hhtool.spark.executor.Decision`
    by ``(file, chunk)``, for the chunks that keep anything.
    """
    if not any(parsed.values()) and not summary.failed:
        # no hand read (every file committed already, or none has one): nothing to decide, and no query run for it,
        # whose stages adaptive execution would cut short on their empty input, still running as the session goes on
        return {}
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    order = F.split("file", "/")  # a folder's files in the order the DuckDB import walks them
    keys = chunks.select("file", "chunk", F.explode("keys").alias("key")).select("file", "chunk", "key.*")  # a row a hand
    by_id = Window.partitionBy("site", "hand_id").orderBy(order, "first_line")
    decided = keys.withColumn("rank", F.row_number().over(by_id)).withColumn("first_hash", F.first("text_hash").over(by_id))
    if output.files("hands"):
        stored = _committed(spark, output, "hands", [("site", "VARCHAR"), ("hand_id", "VARCHAR"), ("text_hash", "BIGINT")])
        decided = decided.join(stored.withColumnRenamed("text_hash", "stored_hash"), ["site", "hand_id"], "left")
    else:
        decided = decided.withColumn("stored_hash", F.lit(None).cast("bigint"))
    decided = decided.withColumn(
        "outcome",
        F.when(F.col("stored_hash").isNotNull(), F.when(F.col("text_hash") == F.col("stored_hash"), "duplicate").otherwise("conflict"))
        .when(F.col("rank") == 1, "new")
        .when(F.col("text_hash") == F.col("first_hash"), "duplicate")
        .otherwise("conflict"),
    ).where("outcome != 'new'")
    # a conflicting text kept once: the first of its (site, hand_id, text_hash), unless committed already
    first_seen = Window.partitionBy("site", "hand_id", "text_hash", "outcome").orderBy(order, "first_line")
    decided = decided.withColumn("keep", (F.col("outcome") == "conflict") & (F.row_number().over(first_seen) == 1))
    if output.files("conflicts"):
        seen = _committed(spark, output, "conflicts", [("site", "VARCHAR"), ("hand_id", "VARCHAR"), ("text_hash", "BIGINT")])
        decided = decided.join(seen.withColumn("seen", F.lit(True)), ["site", "hand_id", "text_hash"], "left").withColumn(
            "keep", F.col("keep") & F.col("seen").isNull()
        )
    events = decided.select("file", "chunk", "local", F.when(F.col("keep"), "kept").otherwise(F.col("outcome")).alias("outcome"))
    if summary.failed:  # each failed text once, not one committed already (none failed: nothing to decide)
        fails = chunks.select("file", "chunk", F.explode("fails").alias("f")).select("file", "chunk", "f.*")
        fails = fails.withColumn("n", F.row_number().over(Window.partitionBy("raw_hash").orderBy(order, "first_line"))).where("n = 1")
        if output.files("failed"):
            fails = fails.join(_committed(spark, output, "failed", [("raw_hash", "BIGINT")]), ["raw_hash"], "left_anti")
        events = events.unionByName(fails.select("file", "chunk", F.col("index").alias("local"), F.lit("failed").alias("outcome")))
    outcome = F.col("outcome")
    rows = (
        events.groupBy("file", "chunk")
        .agg(
            F.sum((outcome == "duplicate").cast("int")).alias("duplicates"),
            F.sum(outcome.isin("conflict", "kept").cast("int")).alias("conflicts"),
            F.array_sort(F.collect_list(F.when(outcome != "failed", F.col("local")))).alias("old"),
            F.collect_list(F.when(outcome == "kept", F.col("local"))).alias("kept"),
            F.collect_list(F.when(outcome == "failed", F.col("local"))).alias("failed"),
        )
        # the hands not new, as runs of consecutive locals: one or two a chunk, however many hands
        .withColumn("starts", F.expr("IF(size(old) = 0, array(), filter(sequence(0, size(old) - 1), i -> i = 0 OR old[i] != get(old, i - 1) + 1))"))
        .select(
            "file", "chunk", "duplicates", "conflicts", "kept", "failed",
            F.expr("transform(starts, (s, j) -> named_struct('lo', old[s], 'n', coalesce(get(starts, j + 1), size(old)) - s))").alias("old"),
        )
        .collect()
    )
    old: dict[tuple[str, int], list[tuple[int, int]]] = {}
    out: dict[tuple[str, int], Decision] = {}
    kept_failed: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for r in rows:
        key = (r["file"], int(r["chunk"]))
        summary.duplicates += int(r["duplicates"] or 0)
        summary.conflicts += int(r["conflicts"] or 0)
        old[key] = [(int(x["lo"]), int(x["n"])) for x in r["old"] or ()]
        kept_failed[key] = (sorted(r["kept"] or ()), sorted(r["failed"] or ()))
    new_runs: list[dict[str, Any]] = [
        {"file": f, "chunk": c, "lo": lo, "n": n} for (f, c), hands in parsed.items() for lo, n in _complement(old.get((f, c), []), hands)
    ]
    numbered = {(f, c): v for f, c, v in _numbered(new_runs, base)}
    for key in numbered.keys() | kept_failed.keys():
        kept, failed = kept_failed.get(key, ([], []))
        summary.conflicts_new += len(kept)
        summary.failed_new += len(failed)
        if key in numbered or kept or failed:
            out[key] = (numbered.get(key, []), kept, failed)
    summary.stored = sum(int(r["n"]) for r in new_runs)
    return out


def _complement(runs: Sequence[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The runs ``(lo, length)`` of ``0 .. n - 1`` outside ``runs`` (sorted, apart): a chunk's new hands around those that are not."""
    out, at = [], 0
    for lo, length in runs:
        if lo > at:
            out.append((at, lo - at))
        at = lo + length
    if n > at:
        out.append((at, n - at))
    return out
