"""``--rooms DIR``, the folder of room files the importing commands replay hands under (``import``, ``serve``, ``spark-import``).

A room file (docs/rooms.md) governs the hands whose header names one of
its sites, played under its base profile; the folder is read and every
file checked before anything is imported (:func:`hhtool.game.room.load_rooms`),
so a folder with a bad file is a usage error (exit 2) naming every
problem, and nothing is imported under half of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from hhtool.cli_output import fail

if TYPE_CHECKING:
    from hhtool.game.room import Rooms

RoomsOption = Annotated[
    Optional[Path],
    typer.Option(
        "--rooms",
        metavar="DIR",
        help="The room files (*.toml, docs/rooms.md) hands are replayed under, each by its sites "
        "(default: $HHTOOL_ROOMS, else ~/.config/hhtool/rooms; none there: every hand under the profile its header names).",
    ),
]


def rooms_or_fail(folder: Path | None) -> Rooms:
    """The rooms of ``folder`` (default: :func:`hhtool.game.room.default_rooms_dir`), every file checked; a usage error otherwise.

    A folder named that does not exist is an error; the default folder
    missing is no rooms (``$HHTOOL_ROOMS`` naming a missing one is an error).
    """
    from hhtool.game.room import RoomError, load_rooms

    try:
        return load_rooms(folder, required=folder is not None)
    except RoomError as e:
        n = len(e.problems)
        listed = "\n".join(f"  {p}" for p in e.problems)
        raise fail(f"--rooms: the room files cannot be used ({'1 problem' if n == 1 else f'{n} problems'}):\n{listed}") from None
