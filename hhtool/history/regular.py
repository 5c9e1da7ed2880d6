"""Opening a file only if it is a regular file outside a virtual file system: what every read of a hand history opens with.

A FIFO, a device or a socket would hang a read (a FIFO without a writer
never answers, ``/dev/zero`` never ends), and the virtual file systems
(``proc``, ``sysfs``, ...: :data:`VIRTUAL_FS`) hold the system's state, not
histories; :func:`open_regular` opens without blocking and checks the open
file, so that nothing put in a file's place after it was found is read.
The walk (:mod:`hhtool.history.files`) and the archives
(:mod:`hhtool.history.archives`) both stand on it.
"""

from __future__ import annotations

import errno
import os
import stat
from functools import cache
from pathlib import Path
from typing import BinaryIO, Final


VIRTUAL_FS: Final = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "pstore",
    "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "binfmt_misc", "efivarfs", "autofs", "rpc_pipefs",
    "nsfs", "selinuxfs", "devfs", "fdescfs", "procfs", "linprocfs", "linsysfs",
})
"""File systems that show the system's state as files (Linux's and the BSDs' names): never walked or read."""


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


def virtual_fs(st: os.stat_result) -> str | None:
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


def check_regular(st: os.stat_result) -> None:
    """Raise :class:`OSError` unless ``st`` is a regular file's, outside any virtual file system."""
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, f"{kind(st.st_mode)}, not a regular file")
    fs = virtual_fs(st)
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
        check_regular(os.fstat(fd))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
