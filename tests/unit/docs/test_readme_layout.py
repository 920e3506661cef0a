"""The README's Layout block names only paths that exist, and every room of src/adk_fluent is in
it: a map that names a folder nobody can find (or leaves out a room) misleads the first reader."""

from __future__ import annotations

import re

from tests.support.rooms import REPO

_ENTRY = re.compile(r"^(?P<indent> *)(?P<path>[\w./-]+)(?:\s|$)")


def _layout_paths() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    parents: list[tuple[int, str]] = []  # (indent, folder) of the entries above
    paths = []
    for line in block.splitlines():
        match = _ENTRY.match(line)
        if not match:
            continue
        indent = len(match["indent"])
        while parents and parents[-1][0] >= indent:
            parents.pop()
        path = "".join(folder for _, folder in parents) + match["path"]
        paths.append(path)
        if match["path"].endswith("/"):
            parents.append((indent, match["path"]))
    return paths


def test_every_path_in_the_layout_exists():
    paths = _layout_paths()
    assert len(paths) > 20, f"the Layout block was not read: {paths}"
    missing = [path for path in paths if not (REPO / path).exists()]
    assert not missing, f"README Layout names paths that do not exist: {missing}"


def test_every_room_of_the_core_is_in_the_layout():
    named = set(_layout_paths())
    core = REPO / "src" / "adk_fluent"
    rooms = [
        f"src/adk_fluent/{child.name}{'/' if child.is_dir() else ''}"
        for child in sorted(core.iterdir())
        if (child.is_dir() and (child / "__init__.py").exists())
        or (child.suffix == ".py" and child.name != "__init__.py")
    ]
    absent = [room for room in rooms if room not in named]
    assert not absent, f"rooms of src/adk_fluent missing from README's Layout: {absent}"
