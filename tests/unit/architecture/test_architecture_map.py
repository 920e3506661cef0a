"""docs/architecture.md draws the rooms and their imports; the drawing must be the code's: every
arrow between rooms is an import in the code, and every import between rooms is drawn (the floor
every room imports, errors.py, arguments.py and the generated package, is left out on purpose)."""

from __future__ import annotations

import re

from tests.support.import_graph import internal_imports
from tests.support.rooms import REPO, room_of

FLOOR = {"adk_fluent_generated", "adk_fluent.errors", "adk_fluent.arguments"}
_ARROW = re.compile(r"^\s*(\w+) --> (\w+)\s*$", re.MULTILINE)


def _drawn() -> set[tuple[str, str]]:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    diagram = page.split("```mermaid", 1)[1].split("```", 1)[0]
    return {(a, b) for a, b in _ARROW.findall(diagram) if b not in ("gen", "floor")}


def _in_the_code() -> set[tuple[str, str]]:
    edges = set()
    for edge in internal_imports(typing=True):
        importer, imported = room_of(edge.importer), room_of(edge.imported)
        if (
            importer
            and imported
            and importer != imported
            and FLOOR.isdisjoint({imported, importer})
        ):
            edges.add((importer.rpartition(".")[2], imported.rpartition(".")[2]))
    return edges


def test_the_architecture_diagram_draws_the_imports_between_rooms():
    drawn, code = _drawn(), _in_the_code()
    assert len(drawn) > 10, "the diagram's arrows were not read"
    assert not drawn - code, f"drawn but not in the code: {sorted(drawn - code)}"
    assert not code - drawn, f"imports between rooms not drawn: {sorted(code - drawn)}"
