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
was not read.  The rules are in docs/format-notes.md ("Files an import
reads").
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Final

MAX_LINK_DEPTH: Final = 16
"""Links to folders followed, at most, from a folder named to any folder under it."""

_GLOB_CHARS: Final = re.compile(r"[*?\[]")

DirId = tuple[int, int]  # (st_dev, st_ino) of a folder


class NoSuchPath(Exception):
    """A path from the command line that does not exist or matches nothing (a usage error)."""


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


def check_regular(path: Path) -> None:
    """Raise :class:`OSError` unless ``path`` is a regular file (checked again just before a file is opened)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, f"{kind(mode)}, not a regular file")


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
                    regular = entry.is_file()  # from the directory listing, without a stat, for most files
                    link = entry.is_symlink()
                except OSError:
                    regular = False
                if regular:
                    self.files.append((os.path.realpath(entry.path) if link else os.path.join(real, entry.name), False))
                else:
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
                if cid in chain or (link and cid in _real_ancestors(folder)):
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
