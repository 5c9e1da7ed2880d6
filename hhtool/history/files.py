"""Which files an import reads: folders walked and globs expanded without hanging, looping or losing a skip.

A folder of hand histories is walked recursively (hidden entries
skipped); a glob's ``**`` matches any depth of folders.  Both follow
links to folders, with two bounds so that no walk runs into a loop:

* each real folder is walked once, known by ``(st_dev, st_ino)``: a link
  to a folder that contains it (a loop) is noted and not followed, a
  second link to a folder already walked adds nothing;
* at most :data:`MAX_LINK_DEPTH` links to folders are followed on the way
  from the folder named to any folder under it.

Only regular files are read.  A FIFO, a device or a socket would hang the
import (a FIFO without a writer never answers, ``/dev/zero`` never ends),
and a link that loops on itself has nothing to read: found in a folder or
matched by a glob they are skipped with a note (``skipped``: nothing is
lost).  What may hold hands but cannot be read -- a folder that cannot be
listed, a link to a missing file, a file without read permission -- is
``unreadable``: named in the summary, exit code 1.  Named on the command
line, even a FIFO or a loop is unreadable: the user asked for it and it
was not read.  A file is opened without blocking and checked again once
open (:func:`open_regular`), so that a FIFO put in a file's place after it
was found cannot hang the read either.

Virtual file systems (``proc``, ``sysfs``, ``devtmpfs``, ``cgroup``, ...:
:data:`VIRTUAL_FS`) hold the system's state, not histories, and some of
their regular files block or never end (``/proc/kmsg``): a folder on one
is not walked, a file on one not read (skipped with a note, or unreadable
when named), known by its device, which ``/proc/self/mountinfo`` gives
for each mount.  So ``hhtool import /`` reads the files of ``/`` but not
``/proc``, ``/sys`` or ``/dev``.

What the import and ``parse``/``audit`` read is decided here, once
(:func:`find_units`): the files found, each ``.zip``'s members
(:func:`zip_members`, also the Spark import's) and ``.gz`` content, as
:class:`Unit` objects.  The rules are in docs/format-notes.md ("Files an import
reads").  Opening a file
(:mod:`hhtool.history.regular`) and reading a zip archive within bounds
(:mod:`hhtool.history.archives`) are modules of their own.
"""

from __future__ import annotations

import errno
import gzip
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from fnmatch import fnmatchcase
from pathlib import Path
from typing import BinaryIO, Final

from hhtool.history.archives import (
    ARCHIVE_ERRORS,
    ENCRYPTED,
    Archive,
    ArchiveBoundError,
    Shelf,
    member_problem,
    owning,
    zip_members,
)
from hhtool.history.regular import kind, open_regular, virtual_fs


MAX_LINK_DEPTH: Final = 16
"""Links to folders followed, at most, from a folder named to any folder under it."""

_GLOB_CHARS: Final = re.compile(r"[*?\[]")

DirId = tuple[int, int]  # (st_dev, st_ino) of a folder


class NoSuchPath(Exception):
    """A path from the command line that does not exist or matches nothing (a usage error)."""


def _stat_error(path: Path, e: OSError) -> tuple[str, bool]:
    """Why ``path`` cannot be stat'ed, and whether hands may be lost by skipping it (False for a loop)."""
    if e.errno == errno.ELOOP:
        return "a symbolic link loop", False
    if e.errno in (errno.ENOENT, errno.ENOTDIR) and os.path.islink(path):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a link to a missing file ({target!r})", True
    return e.strerror or str(e), True


def display(path: str) -> str:
    """``path`` as text that can be shown and stored: bytes of a file name that are not UTF-8 written ``\\xff``.

    Python gives such bytes as lone surrogates, which no UTF-8 output (the
    terminal, JSON, DuckDB) can hold; the file itself is opened by its own name.
    """
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")


def _real_ancestors(folder: Path) -> set[DirId]:
    """The folders that really contain ``folder`` (itself included): a link to one of them is a loop."""
    ids: set[DirId] = set()
    real = Path(os.path.realpath(folder))
    for p in (real, *real.parents):
        try:
            st = os.stat(p)
        except OSError:
            continue
        ids.add((st.st_dev, st.st_ino))
    return ids


class Finder:
    """The files under the paths given, each found once, with every path skipped and why.

    ``files``: (real path, links resolved; named by the user: a path or a
    glob match, not found inside a folder); ``skipped``: path -> why it was not read, nothing
    lost (a loop, a FIFO, a device, a socket, a link past the bound);
    ``unreadable``: path -> why it could not be read (hands may be lost).
    """

    def __init__(self) -> None:
        self.files: list[tuple[str, bool]] = []
        self.skipped: dict[str, str] = {}
        self.unreadable: dict[str, str] = {}
        self._walked: set[DirId] = set()  # folders whose files are found already (each walked once)

    def add(self, text: str) -> None:
        """A path from the command line: a file, a folder (walked) or a glob; :class:`NoSuchPath` if none."""
        path = Path(text)
        try:
            st = os.stat(path)
        except OSError as e:
            if _GLOB_CHARS.search(text) and e.errno in (errno.ENOENT, errno.ENOTDIR):
                matches = self.glob(text)
                if not matches:
                    raise NoSuchPath(f"no file matches {text}") from None
                for m in matches:
                    self._found(Path(m), named=True)
                return
            why = _stat_error(path, e)[0]
            if e.errno in (errno.ENOENT, errno.ENOTDIR):
                link = f" ({why})" if os.path.islink(path) else ""
                raise NoSuchPath(f"no such file or folder: {text}{link}") from None
            self.unreadable[text] = why  # a loop named, or no permission to reach it: not read, exit 1
            return
        self._place(path, st, named=True, explicit=True)

    def _found(self, path: Path, named: bool) -> None:
        """A path found in a folder or by a glob: a file to read, a folder to walk, or a skip."""
        try:
            st = os.stat(path)
        except OSError as e:
            why, lost = _stat_error(path, e)
            (self.unreadable if lost else self.skipped)[str(path)] = why
            return
        self._place(path, st, named=named, explicit=False)

    def _place(self, path: Path, st: os.stat_result, named: bool, explicit: bool) -> None:
        """A file to read, a folder to walk, or what is neither: skipped (an error if named on the command line)."""
        fs = virtual_fs(st) if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode) else None  # a device says what it is
        if fs is not None:
            what = "a folder" if stat.S_ISDIR(st.st_mode) else "a file"
            if explicit:
                self.unreadable[str(path)] = f"{what} of a virtual file system ({fs}): not read (it holds the system's state, not hand histories)"
            else:
                self.skipped[str(path)] = f"{what} of a virtual file system ({fs}): not read"
            return
        if stat.S_ISDIR(st.st_mode):
            self.walk(path, (st.st_dev, st.st_ino))
        elif stat.S_ISREG(st.st_mode):
            self.files.append((os.path.realpath(path), named))
        elif explicit:
            self.unreadable[str(path)] = f"{kind(st.st_mode)}, not a regular file: not read (an import reads regular files only)"
        else:
            self.skipped[str(path)] = f"{kind(st.st_mode)}, not a regular file"

    def walk(self, top: Path, ident: DirId) -> None:
        """Every file under the folder ``top`` (recursively, hidden entries skipped), in name order."""
        for folder, others in self._folders(top, ident, self._walked):
            real = os.path.realpath(folder)  # once a folder: a file's real path is its real folder's and its name
            for entry in others:
                try:
                    link = entry.is_symlink()
                    regular = entry.is_file() and not link  # from the directory listing, without a stat, for most files
                except OSError:
                    regular = False
                if regular:
                    self.files.append((os.path.join(real, entry.name), False))
                else:  # a link (stat'ed, to know what and where it leads), or not a regular file
                    self._found(Path(entry.path), named=False)

    def _folders(self, top: Path, ident: DirId, visited: set[DirId]) -> Iterator[tuple[Path, list[os.DirEntry[str]]]]:
        """Each real folder under ``top`` (itself included) once, depth first in name order, with its other entries.

        Links to folders are followed within the bounds of the module's
        docstring; a loop, a link past the bound and a folder that cannot
        be listed are recorded.  Iterative: a deep tree does not reach
        Python's recursion limit.
        """
        chain: set[DirId] = set()  # the folders from top to the one being listed: a link to one of them is a loop
        stack: list[tuple[Path | None, DirId, int]] = [(top, ident, 0)]  # (folder, id, links followed); None: leave id
        while stack:
            folder, fid, links = stack.pop()
            if folder is None:
                chain.discard(fid)
                continue
            if fid in visited:  # reached before another way (a second link to it): its files are found
                continue
            visited.add(fid)
            chain.add(fid)
            stack.append((None, fid, 0))
            try:
                with os.scandir(folder) as it:
                    entries = sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
            except OSError as e:
                self.unreadable[str(folder)] = f"a folder that cannot be read ({e.strerror or e})"
                continue
            subfolders: list[tuple[Path | None, DirId, int]] = []
            others: list[os.DirEntry[str]] = []
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if not is_dir:
                    others.append(entry)
                    continue
                child = Path(entry.path)
                try:
                    st = entry.stat()
                    link = entry.is_symlink()
                except OSError as e:
                    why, lost = _stat_error(child, e)
                    (self.unreadable if lost else self.skipped)[str(child)] = why
                    continue
                cid = (st.st_dev, st.st_ino)
                fs = virtual_fs(st)
                if fs is not None:
                    self.skipped[str(child)] = f"a folder of a virtual file system ({fs}): not walked"
                elif cid in chain or (link and cid in _real_ancestors(folder)):
                    self.skipped[str(child)] = "a link to a folder that contains it (a loop): not followed"
                elif links + link > MAX_LINK_DEPTH:
                    self.skipped[str(child)] = f"more than {MAX_LINK_DEPTH} links to folders deep: not followed"
                else:
                    subfolders.append((child, cid, links + link))
            yield folder, others
            stack.extend(reversed(subfolders))

    def glob(self, pattern: str) -> list[str]:
        """The paths matching ``pattern``, sorted: ``*``, ``?``, ``[...]`` within a name, ``**`` any depth of folders.

        As :func:`glob.glob` with ``recursive=True`` (wildcards do not match
        hidden names unless the pattern's part starts with ``.``), but a
        ``**`` walks each real folder once and within the bound on links
        (:func:`glob.glob` follows looping links until the path is too long:
        minutes).  A trailing ``**`` matches the folder, which is then walked.
        """
        parts = [p for p in pattern.split(os.sep) if p]
        bases = [os.sep if pattern.startswith(os.sep) else ""]
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            found: dict[str, None] = {}
            for base in bases:
                if part == "**":
                    if last:  # the folder itself, walked for its files
                        found[base or os.curdir] = None
                        continue
                    found[base] = None  # zero folders deep
                    top = Path(base or os.curdir)
                    try:
                        st = os.stat(top)
                    except OSError:
                        continue
                    for folder, _ in self._folders(top, (st.st_dev, st.st_ino), set()):
                        if folder != top:
                            found[str(folder)] = None
                elif _GLOB_CHARS.search(part):
                    try:
                        with os.scandir(base or os.curdir) as it:
                            names = [(e.name, e) for e in it]
                    except OSError as e:
                        if e.errno not in (errno.ENOENT, errno.ENOTDIR):
                            self.unreadable[base or os.curdir] = f"a folder that cannot be read ({e.strerror or e})"
                        continue
                    for name, entry in names:
                        if name.startswith(".") and not part.startswith("."):
                            continue
                        if fnmatchcase(name, part):
                            try:
                                keep = last or entry.is_dir()
                            except OSError:
                                keep = False
                            if keep:
                                found[os.path.join(base, name)] = None
                else:
                    p = os.path.join(base, part)
                    if os.path.lexists(p) if last else os.path.isdir(p):
                        found[p] = None
            bases = list(found)
        if pattern.endswith(os.sep):
            bases = [b for b in bases if os.path.isdir(b)]
        return sorted(bases) if parts else []


@dataclass(frozen=True, slots=True)
class Unit:
    """One file to read: a plain file, a ``.gz`` file or a member of a ``.zip``."""

    path: str  # files.path
    fs_path: Path
    member: str | None = None  # zip member name
    named: bool = True  # named by the user (a path or a glob match), not found inside a folder or an archive
    member_size: int = 0  # a zip member's size, from the archive's directory
    index: int = -1  # a zip member's place in the archive's directory (two entries may have one name)
    archive: Archive | None = field(default=None, compare=False, repr=False)  # shared by the members of one archive of a pass

    def open(self) -> BinaryIO:
        """The unit's content; only a regular file is opened, never blocking (:func:`open_regular`).

        A zip member is read from its archive as the pass opened it, not
        from a new opening (:class:`Archive`); a unit made without one
        opens the archive for this read alone.
        """
        if self.member is not None:
            archive = self.archive if self.archive is not None else Archive(self.fs_path)
            try:
                member = archive.open(self.member, self.index)
            finally:
                if self.archive is None:
                    archive.close()  # the stream keeps it open until it is closed
            if not self.member.endswith(".gz"):
                return member
            try:
                return owning(gzip.GzipFile(fileobj=member, mode="rb"), member)
            except BaseException:
                member.close()
                raise
        raw = open_regular(self.fs_path)
        try:
            return owning(gzip.GzipFile(fileobj=raw, mode="rb"), raw) if self.fs_path.suffix == ".gz" else raw
        except BaseException:
            raw.close()
            raise

    def mtime(self) -> datetime:
        return datetime.fromtimestamp(self.fs_path.stat().st_mtime, tz=timezone.utc)

    def content_size(self) -> int:
        """Bytes of content, known without reading it (for the progress bar and the choice of workers).

        A ``.gz`` file's trailer holds its size modulo 4 GiB; a zip member's
        is in the archive's directory (for a ``.gz`` member, its compressed
        size).  0 for a file that cannot be read: reading it fails later,
        with the error.
        """
        if self.member is not None:
            return self.member_size
        try:
            with open_regular(self.fs_path) as f:
                if self.fs_path.suffix == ".gz":
                    f.seek(-4, os.SEEK_END)
                    return int.from_bytes(f.read(4), "little")
                return os.fstat(f.fileno()).st_size
        except OSError:
            return 0


@dataclass(slots=True)
class Found:
    """What paths hold: the units to read, in a stable order, and what was not read and why (paths absolute).

    ``skipped``: (path, why), nothing lost (a loop, a FIFO, a device, a
    virtual file system); ``unreadable``: (path, why), hands may be lost;
    ``renamed``: (path read as, name in the archive, why it is unsafe).
    """

    units: list[Unit] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    renamed: list[tuple[str, str, str]] = field(default_factory=list)


def find_units(paths: Iterable[str | Path], exclude: Iterable[str | Path] = ()) -> Found:
    """Every file to read under ``paths``, once each: the walk and the archives of every command that reads histories.

    A path is a file, a folder (walked recursively, hidden entries
    skipped) or a glob (``**`` recurses); ``.zip`` archives contribute
    their members, ``.gz`` files their content.  ``exclude``: files never
    to read (the database itself, its write-ahead log).  :class:`NoSuchPath`
    for a path that does not exist or a glob that matches nothing.
    """
    finder = Finder()
    for p in paths:
        finder.add(str(p))
    found = Found()
    shelf = Shelf()  # the archives of this pass: one open at a time
    seen: set[str] = {str(Path(x).resolve()) for x in exclude}
    for key, named in finder.files:  # real paths: the same file through two links is read once
        if key in seen:
            continue
        seen.add(key)
        fs = Path(key)
        if fs.suffix.lower() == ".zip":
            found.units.extend(_archive_units(Archive(fs, shelf), display(key), finder.unreadable, found.renamed))
        else:
            found.units.append(Unit(display(key), fs, named=named))
    # shown absolute, as the files are; not resolved (a loop cannot be)
    found.skipped.extend((display(os.path.abspath(path)), why) for path, why in finder.skipped.items())
    found.unreadable.extend((display(os.path.abspath(path)), why) for path, why in finder.unreadable.items())
    return found


def _archive_units(archive: Archive, key: str, unreadable: dict[str, str], renamed: list[tuple[str, str, str]]) -> list[Unit]:
    """The members of a zip archive as units sharing it; a damaged archive, an encrypted member or one past a bound is recorded in ``unreadable``.

    An archive past a bound as a whole (too many entries, expanding too
    much) is not read at all: reading a part of it would leave the rest
    to a re-run that could not read it either.  A member past a bound is
    passed by and the others are read.
    """
    try:
        members = zip_members(archive.directory(), key)
    except ArchiveBoundError as e:
        unreadable[key] = str(e)
        return []
    except ARCHIVE_ERRORS as e:
        unreadable[key] = f"not a readable zip archive ({e or type(e).__name__})"
        return []
    units: list[Unit] = []
    for m in members:
        if m.encrypted:
            unreadable[m.path] = ENCRYPTED
            continue
        problem = member_problem(m.info)
        if problem is not None:
            unreadable[m.path] = problem
            continue
        if m.unsafe is not None:
            renamed.append((m.path, m.info.filename, m.unsafe))
        units.append(Unit(m.path, archive.fs_path, m.info.filename, named=False, member_size=m.info.file_size, index=m.index, archive=archive))
    if not units:
        archive.close()
    return units
