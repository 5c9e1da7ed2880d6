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
reads").

A zip archive is opened once for all its members (:class:`_Archive`):
opening it reads its central directory, an entry a member, so reopening it
for each member read made an archive's cost quadratic in its members (8,000
members took 210 s).  It is read
within the bounds of :mod:`hhtool.history.bounds` (its entries, a member's
size, how much it expands: a zip bomb); past one, the archive or the member
is unreadable with a message naming the bound, and the rest is read.
"""

from __future__ import annotations

import errno
import gzip
import io
import lzma
import os
import re
import stat
import struct
import threading
import weakref
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import IO, Any, BinaryIO, Final, Protocol, cast

from hhtool.history import bounds

MAX_LINK_DEPTH: Final = 16
"""Links to folders followed, at most, from a folder named to any folder under it."""

_GLOB_CHARS: Final = re.compile(r"[*?\[]")

DirId = tuple[int, int]  # (st_dev, st_ino) of a folder


VIRTUAL_FS: Final = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "pstore",
    "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "binfmt_misc", "efivarfs", "autofs", "rpc_pipefs",
    "nsfs", "selinuxfs", "devfs", "fdescfs", "procfs", "linprocfs", "linsysfs",
})
"""File systems that show the system's state as files (Linux's and the BSDs' names): never walked or read."""


class NoSuchPath(Exception):
    """A path from the command line that does not exist or matches nothing (a usage error)."""


@cache
def virtual_devices(mountinfo: str = "/proc/self/mountinfo") -> dict[int, str]:
    """``st_dev`` -> file system type of every mount of a virtual file system (:data:`VIRTUAL_FS`).

    From ``mountinfo``'s lines (``36 25 0:22 / /proc rw,... - proc proc rw``:
    the third field is the device, the one after ``-`` the type), so that no
    mount point is stat'ed (an automount point would mount on a stat).
    Where there is no such file (not Linux), the device of ``/proc``,
    ``/sys`` and ``/dev`` when it is not the root's.
    """
    found: dict[int, str] = {}
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        fields = line.split()
        try:
            fstype = fields[fields.index("-", 6) + 1]  # the optional fields end at "-"
        except (ValueError, IndexError):
            continue
        major, _, minor = fields[2].partition(":")
        if fstype in VIRTUAL_FS and major.isdigit() and minor.isdigit():
            found[os.makedev(int(major), int(minor))] = fstype
    if not lines:
        try:
            root = os.stat("/").st_dev
            for folder in ("/proc", "/sys", "/dev"):
                dev = os.stat(folder).st_dev
                if dev != root:
                    found.setdefault(dev, folder.strip("/"))
        except OSError:
            pass
    return found


def _virtual(st: os.stat_result) -> str | None:
    """The virtual file system ``st`` is on (``proc``), or None."""
    return virtual_devices().get(st.st_dev)


def kind(mode: int) -> str:
    """What a file that is neither a regular file nor a folder is, for a message ("a FIFO")."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


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


def _check_regular(st: os.stat_result) -> None:
    """Raise :class:`OSError` unless ``st`` is a regular file's, outside any virtual file system."""
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, f"{kind(st.st_mode)}, not a regular file")
    fs = _virtual(st)
    if fs is not None:
        raise OSError(errno.EINVAL, f"a file of a virtual file system ({fs}), not a hand history")


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading if it is a regular file outside a virtual file system; :class:`OSError` if not.

    Opened without blocking (``O_NONBLOCK``: a FIFO without a writer would
    otherwise hang the open) and checked on the open file, so that nothing
    put in the file's place after it was found is read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        _check_regular(os.fstat(fd))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


_DRIVE: Final = re.compile(r"^[A-Za-z]:")


def safe_member_name(name: str) -> tuple[str, str | None]:
    """A zip member's name as it is shown and stored (``files.path``), and why the original was unsafe (or None).

    Members are only read, never extracted, so an unsafe name harms
    nothing here; but the name is shown and stored, and a program that
    later takes it for a path must not be led outside a folder.  So
    backslashes become ``/``, a leading ``/`` or drive letter is dropped,
    and ``.`` and ``..`` parts are removed: ``..\\..\\x.txt`` is shown as
    ``x.txt``.
    """
    why: list[str] = []
    text = name
    if "\\" in text:
        why.append("backslashes")
        text = text.replace("\\", "/")
    if text.startswith("/") or _DRIVE.match(text):
        why.append("an absolute path")
        text = _DRIVE.sub("", text)
    parts = text.split("/")
    if ".." in parts:
        why.append("'..' parts")
    kept = [p for p in parts if p not in ("", ".", "..")]
    if not why:
        return name, None
    return "/".join(kept) or "unnamed", ", ".join(why)


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
        fs = _virtual(st) if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode) else None  # a device says what it is
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
                fs = _virtual(st)
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


ARCHIVE_ERRORS = (OSError, EOFError, zipfile.BadZipFile, zlib.error, lzma.LZMAError, ValueError, NotImplementedError, RuntimeError)
"""What reading a damaged, truncated or unsupported archive raises (:mod:`zipfile` raises all of these on garbage;
``RuntimeError``: an encrypted member)."""


class ArchiveBoundError(OSError):
    """An archive or a zip member past a bound of :mod:`hhtool.history.bounds`: not read; its message says which bound."""


def unreadable_reason(e: BaseException) -> str:
    """Why a file could not be read, in words: the system's ("Permission denied"; the path is shown beside it), or the archive's."""
    if isinstance(e, ArchiveBoundError):
        return str(e)
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return f"damaged, truncated or of an unsupported kind ({e or type(e).__name__})"


class _Closable(Protocol):
    def close(self) -> None: ...


class _Owning(io.BufferedIOBase):
    """``stream`` read as it is, closing ``owned`` (the file under it, its hold on an archive) after it when closed."""

    def __init__(self, stream: IO[bytes] | gzip.GzipFile, *owned: _Closable) -> None:
        super().__init__()
        self._stream = stream
        self._owned = owned

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        return self._stream.read(-1 if size is None else size)

    def read1(self, size: int = -1) -> bytes:
        return self._stream.read(size)

    def seekable(self) -> bool:
        return self._stream.seekable()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self._stream.seek(offset, whence)

    def tell(self) -> int:
        return self._stream.tell()

    def close(self) -> None:
        if self.closed:
            return
        try:
            self._stream.close()
        finally:
            for thing in self._owned:
                thing.close()
            super().close()


def _owning(stream: IO[bytes] | gzip.GzipFile, *owned: _Closable) -> BinaryIO:
    return cast(BinaryIO, _Owning(stream, *owned))


_Key = tuple[int, int, int, int, int]
"""An archive file as it is on disk: (st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns); another key, another content."""


def _stat_key(st: os.stat_result) -> _Key:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


_LOCK: Final = threading.RLock()
"""Guards every archive's opened state and hold counts (a pass's units may be read in another thread than the one that found them)."""

_END_RECORD: Final[Callable[[BinaryIO], list[Any] | None] | None] = getattr(zipfile, "_EndRecData", None)
"""zipfile's own reading of an archive's end record (private, the same since Python 2), so that the directory counted
is the one :class:`zipfile.ZipFile` reads; without it the entries are counted once zipfile has read them (:func:`_check_archive`)."""
_CENTRAL_ENTRY: Final = struct.Struct("<4s24xHHH12x")
"""A central directory entry's fixed part (46 bytes): its signature, and the lengths of its name, extra field and comment."""


def _directory_entries(raw: BinaryIO, limit: int) -> int:
    """The entries of the archive's central directory, counted as :mod:`zipfile` walks it, up to ``limit + 1``.

    Counted before :class:`zipfile.ZipFile` reads the directory, which makes
    an object of about half a kilobyte for each entry: an archive with too
    many costs a count, not gigabytes.  0 when the end record is not found
    (zipfile then says what is wrong); the count stops where an entry is
    damaged (zipfile says so too).
    """
    try:
        end = _END_RECORD(raw) if _END_RECORD is not None else None
    except (OSError, zipfile.BadZipFile):
        return 0
    if not end:
        return 0
    size = end[5]  # bytes of the directory; it ends where the end record (zip64: its two records) starts, as zipfile reckons
    start = end[9] - size - (76 if end[0] == b"PK\x06\x06" else 0)
    if start < 0:
        return 0
    count = at = buf_at = 0
    buf = b""
    while at + _CENTRAL_ENTRY.size <= size and count <= limit:
        if at + _CENTRAL_ENTRY.size > buf_at + len(buf):
            raw.seek(start + at)
            buf, buf_at = raw.read(min(1 << 20, size - at)), at
            if len(buf) < _CENTRAL_ENTRY.size:
                break
        signature, name, extra, comment = _CENTRAL_ENTRY.unpack_from(buf, at - buf_at)
        if signature != b"PK\x01\x02":
            break
        count += 1
        at += _CENTRAL_ENTRY.size + name + extra + comment
    return count


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why the member ``info`` is not read (a bound of :mod:`hhtool.history.bounds`), or None.

    Its sizes are the directory's: :mod:`zipfile` never gives more bytes
    than the uncompressed size it says (it stops there), so bounding what
    the directory says bounds what is read.
    """
    size = info.file_size
    if size > bounds.MAX_MEMBER_BYTES:
        return bounds.member_too_large(size)
    if size > max(bounds.MAX_COMPRESSION_RATIO * info.compress_size, bounds.RATIO_FREE_BYTES):
        return bounds.too_compressed("a zip member", size, info.compress_size)
    return None


def _check_archive(archive: zipfile.ZipFile, size: int) -> None:
    """Raise :class:`ArchiveBoundError` if the archive (``size`` bytes on disk) is past a bound as a whole.

    Its entries are counted again (a directory may have more than its end
    record says), and its members read together may expand at most
    :data:`~hhtool.history.bounds.MAX_COMPRESSION_RATIO` times the archive's
    size on disk: members that each pass but share their compressed bytes
    (overlapping entries, a classic zip bomb) or many small bombs do not.
    """
    infos = archive.infolist()
    if len(infos) > bounds.MAX_ARCHIVE_MEMBERS:
        raise ArchiveBoundError(bounds.too_many_members())
    total = sum(i.file_size for i in infos if not i.is_dir() and _member_problem(i) is None)
    if total > max(bounds.MAX_COMPRESSION_RATIO * size, bounds.RATIO_FREE_BYTES):
        raise ArchiveBoundError(bounds.too_compressed("a zip archive", total, size))


class _Opened:
    """An archive's file and directory as opened once, and how many hold them: the archive, and each member stream read from it.

    Closed when the last lets go, so that a member stream still being read
    when its archive lets go (another archive of the pass opened, the archive
    changed on disk) reads on from the file it started with.
    """

    __slots__ = ("raw", "zip", "key", "holders")

    def __init__(self, raw: BinaryIO, archive: zipfile.ZipFile, key: _Key) -> None:
        self.raw = raw
        self.zip = archive
        self.key = key
        self.holders = 1

    def release(self) -> None:
        with _LOCK:
            self.holders -= 1
            if self.holders:
                return
        try:
            self.zip.close()
        finally:
            self.raw.close()


class _Hold:
    """A member stream's hold on its archive's :class:`_Opened`, let go once, when the stream is closed."""

    __slots__ = ("_opened",)

    def __init__(self, opened: _Opened) -> None:
        self._opened: _Opened | None = opened

    def close(self) -> None:
        opened, self._opened = self._opened, None
        if opened is not None:
            opened.release()


def _open_archive(fs_path: Path) -> _Opened:
    """The zip archive ``fs_path`` opened and its directory read, within the bounds; :class:`ArchiveBoundError` past one."""
    raw = open_regular(fs_path)
    try:
        st = os.fstat(raw.fileno())
        if _directory_entries(raw, bounds.MAX_ARCHIVE_MEMBERS) > bounds.MAX_ARCHIVE_MEMBERS:
            raise ArchiveBoundError(bounds.too_many_members())
        archive = zipfile.ZipFile(raw)
        try:
            _check_archive(archive, st.st_size)
        except BaseException:
            archive.close()
            raise
        return _Opened(raw, archive, _stat_key(st))
    except BaseException:
        raw.close()
        raise


def _entry(archive: zipfile.ZipFile, name: str, index: int) -> zipfile.ZipInfo:
    """The member ``name``, at ``index`` of the directory when it is there (two entries may have one name)."""
    infos = archive.infolist()
    if 0 <= index < len(infos) and infos[index].filename == name:
        return infos[index]
    try:
        return archive.getinfo(name)
    except KeyError:
        raise zipfile.BadZipFile(f"no member {name!r}: the archive changed since it was listed") from None


class _Shelf:
    """The archives of one pass (one :func:`find_units`): at most one of them open, the last one read.

    An import reads an archive's members one after another, each twice (its
    hash, then its chunks), then the next archive's: keeping the last
    archive open reads each directory once, and keeping only that one keeps
    one file open however many archives the pass meets.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: weakref.ref[_Archive] | None = None

    def hold(self, archive: _Archive) -> None:
        """``archive`` has just been opened: the one open before it is closed."""
        last = self._last() if self._last is not None else None
        if last is not None and last is not archive:
            last.close()
        self._last = weakref.ref(archive)


class _Archive:
    """A zip archive of a pass, shared by its members' units: opened when first read, and kept open for the next member.

    Before a member is read, the archive's file is stat'ed: if it is not the
    one opened (replaced, grown, rewritten: another device, inode, size,
    mtime or ctime) it is opened again and its new directory read, as it was
    for every member before, so that a changed archive gives its new bytes
    or the error it gives (a member gone, a bad CRC), never the old
    directory's offsets over new bytes.  Closed when another archive of the
    pass is opened, and at the latest when its units are gone.
    """

    __slots__ = ("fs_path", "_shelf", "_opened", "__weakref__")

    def __init__(self, fs_path: Path, shelf: _Shelf | None = None) -> None:
        self.fs_path = fs_path
        self._shelf = shelf if shelf is not None else _Shelf()
        self._opened: _Opened | None = None

    def __reduce__(self) -> tuple[type[_Archive], tuple[Path]]:
        return (_Archive, (self.fs_path,))  # pickled (a unit sent to another process) unopened: a file does not travel

    def __del__(self) -> None:
        self.close()

    def _current(self) -> _Opened:
        """The archive as it is on disk now, opened (again if it changed); called with :data:`_LOCK` held."""
        opened = self._opened
        if opened is not None and opened.key == _stat_key(os.stat(self.fs_path)):
            return opened
        self.close()
        self._opened = _open_archive(self.fs_path)
        self._shelf.hold(self)
        return self._opened

    def directory(self) -> zipfile.ZipFile:
        """The archive opened, its directory read (kept open for its members' reads)."""
        with _LOCK:
            return self._current().zip

    def open(self, name: str, index: int = -1) -> BinaryIO:
        """The member ``name`` (at ``index`` of the directory), read from the archive as opened; the bounds checked again."""
        with _LOCK:
            opened = self._current()
            info = _entry(opened.zip, name, index)
            problem = _member_problem(info)
            if problem is not None:
                raise ArchiveBoundError(problem)
            opened.holders += 1
            hold = _Hold(opened)
            try:
                return _owning(opened.zip.open(info), hold)
            except BaseException:
                hold.close()
                raise

    def close(self) -> None:
        """Let go of the opened archive (its file is closed once no member stream reads it)."""
        with _LOCK:
            opened, self._opened = self._opened, None
        if opened is not None:
            opened.release()


@dataclass(frozen=True, slots=True)
class Unit:
    """One file to read: a plain file, a ``.gz`` file or a member of a ``.zip``."""

    path: str  # files.path
    fs_path: Path
    member: str | None = None  # zip member name
    named: bool = True  # named by the user (a path or a glob match), not found inside a folder or an archive
    member_size: int = 0  # a zip member's size, from the archive's directory
    index: int = -1  # a zip member's place in the archive's directory (two entries may have one name)
    archive: _Archive | None = field(default=None, compare=False, repr=False)  # shared by the members of one archive of a pass

    def open(self) -> BinaryIO:
        """The unit's content; only a regular file is opened, never blocking (:func:`open_regular`).

        A zip member is read from its archive as the pass opened it, not
        from a new opening (:class:`_Archive`); a unit made without one
        opens the archive for this read alone.
        """
        if self.member is not None:
            archive = self.archive if self.archive is not None else _Archive(self.fs_path)
            try:
                member = archive.open(self.member, self.index)
            finally:
                if self.archive is None:
                    archive.close()  # the stream keeps it open until it is closed
            if not self.member.endswith(".gz"):
                return member
            try:
                return _owning(gzip.GzipFile(fileobj=member, mode="rb"), member)
            except BaseException:
                member.close()
                raise
        raw = open_regular(self.fs_path)
        try:
            return _owning(gzip.GzipFile(fileobj=raw, mode="rb"), raw) if self.fs_path.suffix == ".gz" else raw
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


@dataclass(frozen=True, slots=True)
class Member:
    """A zip member to read: the path it is shown and stored as (``archive.zip!name``), its entry, why its name was unsafe."""

    path: str
    info: zipfile.ZipInfo
    unsafe: str | None  # why the name in the archive is unsafe (it is read under a safe one), or None
    index: int = -1  # its place in the archive's directory (``infolist()``)

    @property
    def encrypted(self) -> bool:
        """A member that needs a password: named unreadable, not read."""
        return bool(self.info.flag_bits & 0x1)


ENCRYPTED = "an encrypted zip member (a password is needed): not read"


def zip_members(archive: zipfile.ZipFile, key: str) -> list[Member]:
    """The members of ``archive`` (shown as ``key``) to read, for every import: in name order, folders and hidden names passed by.

    A member with an unsafe name (absolute, ``..`` parts, backslashes) is
    read -- members are never extracted, so reading it is harmless -- under
    the safe name of :func:`safe_member_name`; two names made the same are
    kept apart by the archive's index (``x.txt#3``: the third entry).
    """
    infos = [(place, i) for place, i in enumerate(archive.infolist()) if not i.is_dir()]
    members: list[Member] = []
    used: set[str] = set()
    for index, (place, info) in sorted(enumerate(infos), key=lambda pair: pair[1][1].filename):
        name, unsafe = safe_member_name(info.filename)
        if name.rsplit("/", 1)[-1].startswith("."):
            continue
        if name in used:
            name = f"{name}#{index + 1}"
        used.add(name)
        members.append(Member(f"{key}!{name}", info, unsafe, place))
    return members


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
    shelf = _Shelf()  # the archives of this pass: one open at a time
    seen: set[str] = {str(Path(x).resolve()) for x in exclude}
    for key, named in finder.files:  # real paths: the same file through two links is read once
        if key in seen:
            continue
        seen.add(key)
        fs = Path(key)
        if fs.suffix.lower() == ".zip":
            found.units.extend(_archive_units(_Archive(fs, shelf), display(key), finder.unreadable, found.renamed))
        else:
            found.units.append(Unit(display(key), fs, named=named))
    # shown absolute, as the files are; not resolved (a loop cannot be)
    found.skipped.extend((display(os.path.abspath(path)), why) for path, why in finder.skipped.items())
    found.unreadable.extend((display(os.path.abspath(path)), why) for path, why in finder.unreadable.items())
    return found


def _archive_units(archive: _Archive, key: str, unreadable: dict[str, str], renamed: list[tuple[str, str, str]]) -> list[Unit]:
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
        problem = _member_problem(m.info)
        if problem is not None:
            unreadable[m.path] = problem
            continue
        if m.unsafe is not None:
            renamed.append((m.path, m.info.filename, m.unsafe))
        units.append(Unit(m.path, archive.fs_path, m.info.filename, named=False, member_size=m.info.file_size, index=m.index, archive=archive))
    if not units:
        archive.close()
    return units
