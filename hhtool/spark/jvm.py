"""The JVM's life for the Spark import: a session found or started (tuned when local), configured, and stopped.

Apart from the run (:mod:`hhtool.spark.job`) because a session outlives a
run or is made for it alone, and either way the start and the stop are
where the seconds go that no hand needs: the JVM's start, hidden behind
the driver's own imports (:data:`PRELOADED`), and its end, let run beside
what the process does next (:func:`stop`).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.spark.cds import Archive
from hhtool.spark.summary import SparkImportError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


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
    return start(master, app, archive)


def start(master: str | None, app: str, archive: Archive) -> SparkSession:
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


def configure(spark: SparkSession) -> None:
    """What the import needs of the session, whoever made it: UTC instants, Parquet timestamps as DuckDB writes them."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "4")  # a piece row holds up to a megabyte of text


def stop(spark: SparkSession) -> Any:
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


def running() -> bool:
    """Whether this process has a Spark context running already (False without PySpark: :func:`session` says it is missing)."""
    try:
        from pyspark import SparkContext
    except ImportError:
        return False
    return SparkContext._active_spark_context is not None


def jvm_charset(spark: SparkSession) -> str:
    """The JVM's charset for file names, as Python names it (UTF-8 when Python does not know it)."""
    import codecs

    jvm = spark.sparkContext._jvm
    name = str((jvm.java.lang.System.getProperty("sun.jnu.encoding") if jvm is not None else None) or "UTF-8")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "utf-8"
