"""How a Spark import's output becomes visible all at once, or not at all.

A run writes its tables under ``DIR/_hhtool/staging/run-N/`` (Spark's
own job commit: a killed job leaves only that folder, which no reader
reads and the next run deletes).  When every table is written, the
driver writes ``DIR/_hhtool/commits/run-N.json`` -- the list of the run's
files, where each was staged and where it goes, and the run's summary --
by writing a temporary file and renaming it: that rename is the commit.
Only then are the files moved to their places
(``DIR/hands/date=2026-11-29/run-N-part-....parquet``); a run killed
during the moves is finished by the next one (:meth:`Output.recover`),
and meanwhile readers find each file where it is
(:func:`hhtool.store.dataset.committed_files`).

The driver works on ``DIR`` through Hadoop's ``FileSystem`` (any path
Spark writes: local, HDFS, S3 with the user's connector).  The folder's
layout and its reading belong to the store, which reads a local ``DIR``
in plain Python for ``--parquet`` (:mod:`hhtool.store.dataset`); this
module writes by that layout, and exports again the names of it the
driver uses (``STAGING``, ``DatasetError``, ``run_name``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hhtool.store.dataset import COMMITS, RECORD, STAGING, DatasetError, run_name
from hhtool.store.schema import SCHEMA_VERSION


@dataclass(slots=True)
class Output:
    """``DIR`` through Hadoop's FileSystem on the driver (``jvm``: the SparkContext's gateway, ``conf``: its Hadoop configuration).

    Hadoop's ``Path`` class and ``DIR``'s file system are looked up once:
    py4j resolves ``jvm.org.apache.hadoop.fs.Path`` a name at a time, each
    prefix a failed class lookup through every jar of Spark's class path,
    and a run's commit touches every file it wrote.
    """

    root: str
    jvm: Any
    conf: Any
    _path_class: Any = field(init=False, default=None)
    _filesystem: Any = field(init=False, default=None)

    def _path(self, rel: str = "") -> Any:
        if self._path_class is None:
            self._path_class = self.jvm.org.apache.hadoop.fs.Path
        return self._path_class(self.root.rstrip("/") + ("/" + rel if rel else ""))

    def _fs(self) -> Any:
        if self._filesystem is None:
            self._filesystem = self._path().getFileSystem(self.conf)
        return self._filesystem

    def uri(self, rel: str) -> str:
        return str(self._path(rel).toString())

    def qualified(self, rel: str) -> str:
        """``rel``'s full URI, scheme included (``file:/abs/...`` for a local ``DIR``, even a relative one): what executors elsewhere can open."""
        return str(self._fs().makeQualified(self._path(rel)).toString())

    def exists(self, rel: str) -> bool:
        return bool(self._fs().exists(self._path(rel)))

    def delete(self, rel: str) -> None:
        self._fs().delete(self._path(rel), True)

    def files(self, rel: str) -> list[str]:
        """Every data file under ``rel``, as paths relative to it (Spark's markers ``_SUCCESS`` and hidden files left out)."""
        fs = self._fs()
        base = self._path(rel)
        if not fs.exists(base):
            return []
        prefix = str(fs.makeQualified(base).toString()).rstrip("/") + "/"
        out = []
        it = fs.listFiles(base, True)
        while it.hasNext():
            full = str(it.next().getPath().toString())
            name = full.rsplit("/", 1)[-1]
            if name.startswith(("_", ".")):
                continue
            out.append(full[len(prefix):] if full.startswith(prefix) else full)
        return sorted(out)

    def read_text(self, rel: str) -> str:
        stream = self._fs().open(self._path(rel))
        try:
            return str(self.jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8"))
        finally:
            stream.close()

    def write_atomic(self, rel: str, text: str) -> None:
        """Write ``rel`` whole or not at all: a temporary file beside it, then a rename."""
        fs = self._fs()
        tmp = self._path(rel + ".tmp")
        out = fs.create(tmp, True)
        try:
            out.write(bytearray(text.encode("utf-8")))
        finally:
            out.close()
        final = self._path(rel)
        if not fs.rename(tmp, final):
            raise OSError(f"cannot rename {tmp.toString()} to {final.toString()}")

    def move(self, moves: list[tuple[str, str]] | list[list[str]]) -> None:
        """Move staged files to their places; a move done already (the source gone, the target there) is fine.

        Each call to the file system is a py4j round trip (and on HDFS a
        call to the name node): a run writes hundreds of files into a few
        folders, so each folder is made once and a file costs one rename,
        with the checks of a done move only where the rename fails.
        """
        from py4j.protocol import Py4JJavaError

        fs = self._fs()
        made: set[str] = set()
        for src, dst in moves:
            folder = dst.rpartition("/")[0]
            if folder not in made:
                fs.mkdirs(self._path(folder))
                made.add(folder)
            s, d = self._path(src), self._path(dst)
            try:
                if fs.rename(s, d):
                    continue
                why = "the file system refused"
            except Py4JJavaError as e:  # a missing source: false on HDFS, an exception on the local file system
                why = str(e.java_exception.toString())
            if fs.exists(s):
                raise OSError(f"cannot move {s.toString()} to {d.toString()}: {why}")
            if not fs.exists(d):
                raise DatasetError(f"{self.uri(src)}: a committed file is missing (neither staged nor in its place)")

    # ------------------------------------------------------------ runs

    def runs(self) -> list[dict[str, Any]]:
        """The committed runs' records, in order."""
        fs = self._fs()
        base = self._path(COMMITS)
        if not fs.exists(base):
            return []
        names = sorted(str(s.getPath().getName()) for s in fs.listStatus(base))
        return [json.loads(self.read_text(f"{COMMITS}/{n}")) for n in names if RECORD.match(n)]

    def recover(self) -> list[dict[str, Any]]:
        """Finish the moves of every committed run, delete every staging folder; the committed runs.

        A staging folder without a commit record is a run that was killed
        before its commit: nothing of it was visible, and it is dropped.
        """
        runs = self.runs()
        for record in runs:
            self.move(record["moves"])
        if self.exists(STAGING):
            self.delete(STAGING)
        return runs

    def commit(self, run: int, moves: list[tuple[str, str]], summary: dict[str, Any]) -> None:
        """The commit point (the record's rename), then the moves and the staging folder's removal."""
        record = {"run": run, "schema_version": SCHEMA_VERSION, "moves": moves, "summary": summary}
        self.write_atomic(f"{COMMITS}/{run_name(run)}.json", json.dumps(record, sort_keys=True))
        self.move(moves)
        self.delete(f"{STAGING}/{run_name(run)}")


def placed(run: int, table: str, staged: str) -> str:
    """Where a staged file goes: ``TABLE/date=D/run-N-part-....parquet`` (the run in the name keeps runs' files apart)."""
    folder, _, name = staged.rpartition("/")
    return f"{table}/{folder + '/' if folder else ''}{run_name(run)}-{name}"


__all__ = ["STAGING", "DatasetError", "Output", "placed", "run_name"]
