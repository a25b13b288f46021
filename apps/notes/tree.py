"""A vault's notes as the folders of their paths, each folder with how many notes it holds (its subfolders'
included), for the vault page."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from apps.notes.models import Note


@dataclass
class Folder:
    name: str
    path: str
    depth: int
    folders: list[Folder] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    count: int = 0
    open: bool = False


def folder_tree(notes: Iterable[Note], *, open_depth: int = 1) -> Folder:
    """The root folder of `notes` (sorted by path); folders down to `open_depth` start unfolded."""
    root = Folder(name="", path="", depth=0, open=True)
    index: dict[str, Folder] = {"": root}
    for note in notes:
        parent = root
        parent.count += 1
        parts = note.path.split("/")[:-1]
        for depth, part in enumerate(parts, start=1):
            path = "/".join(parts[:depth])
            folder = index.get(path)
            if folder is None:
                folder = Folder(name=part, path=path, depth=depth, open=depth <= open_depth)
                index[path] = folder
                parent.folders.append(folder)
            folder.count += 1
            parent = folder
        parent.notes.append(note)
    for folder in index.values():
        folder.folders.sort(key=lambda f: f.name.lower())
    return root
