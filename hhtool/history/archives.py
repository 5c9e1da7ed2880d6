"""Zip archives read within bounds, each opened once a pass, and the streams of their members.

A zip archive is opened once for all its members (:class:`Archive`):
opening it reads its central directory, an entry a member, so reopening it
for each member read made an archive's cost quadratic in its members (8,000
members took 210 s).  It is read within the bounds of
:mod:`hhtool.history.bounds` (its entries, a member's size, how much it
expands: a zip bomb); past one, the archive or the member is unreadable
with a message naming the bound, and the rest is read.  Members are listed
under safe names (:func:`zip_members`, also the Spark import's).
"""

from __future__ import annotations

import gzip
import io
import lzma
import os
import re
import struct
import threading
import weakref
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO, Final, Protocol, cast

from hhtool.history import bounds
from hhtool.history.regular import open_regular


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


def owning(stream: IO[bytes] | gzip.GzipFile, *owned: _Closable) -> BinaryIO:
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


def member_problem(info: zipfile.ZipInfo) -> str | None:
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
    total = sum(i.file_size for i in infos if not i.is_dir() and member_problem(i) is None)
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


class Shelf:
    """The archives of one pass (one :func:`find_units`): at most one of them open, the last one read.

    An import reads an archive's members one after another, each twice (its
    hash, then its chunks), then the next archive's: keeping the last
    archive open reads each directory once, and keeping only that one keeps
    one file open however many archives the pass meets.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: weakref.ref[Archive] | None = None

    def hold(self, archive: Archive) -> None:
        """``archive`` has just been opened: the one open before it is closed."""
        last = self._last() if self._last is not None else None
        if last is not None and last is not archive:
            last.close()
        self._last = weakref.ref(archive)


class Archive:
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

    def __init__(self, fs_path: Path, shelf: Shelf | None = None) -> None:
        self.fs_path = fs_path
        self._shelf = shelf if shelf is not None else Shelf()
        self._opened: _Opened | None = None

    def __reduce__(self) -> tuple[type[Archive], tuple[Path]]:
        return (Archive, (self.fs_path,))  # pickled (a unit sent to another process) unopened: a file does not travel

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
            problem = member_problem(info)
            if problem is not None:
                raise ArchiveBoundError(problem)
            opened.holders += 1
            hold = _Hold(opened)
            try:
                return owning(opened.zip.open(info), hold)
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
