"""The rooms of the core depend downward only, read from the sources: a room can then be read,
tested and changed knowing only the rooms below it, and ADK's internals stay in one room.

Reads the source of src/adk_fluent and generated/adk_fluent_generated with the standard
library's `ast` (no import-linter needed) and checks, module by module:

  - no import cycle, counting imports inside functions (a lazy import that closes a cycle is
    still a cycle) and imports under `if TYPE_CHECKING:` (they never run, but a reader still
    follows them: an annotation-only import that closes a circle or points up is a knot);
    the one designed exception is the generated visitor naming the hand-written nodes;
  - no room imports a room above it: cli > api | testing > middleware > run > adk > analysis > ir >
    adk_fluent_generated | errors (`|`: the same level, and neither imports the other);
  - only adk/, run/, middleware/ and testing/ import google.adk; no module imports the generator's tools
    (jinja2, libcst, typer, ruff, deepdiff).

Every failure names the importer, the imported module and the file:line of the import. The
run-time side (imports in a fresh interpreter, lint-imports) is in
tests/integration/architecture/test_layers_process.py.
"""

from __future__ import annotations

from tests.support.import_graph import (
    Import,
    all_imports,
    internal_imports,
    one_cycle,
    strongly_connected,
)
from tests.support.rooms import (
    ADK_ROOMS,
    CODEGEN_TOOLS,
    FACADE,
    REPO,
    ROOMS,
    room_of,
    source_modules,
)


def test_the_scan_sees_the_rooms():
    """Guards the scanner itself: it finds the modules and a known lazy import."""
    modules = source_modules()
    assert "adk_fluent.ir.nodes" in modules and "adk_fluent_generated.visitor" in modules
    assert any(
        edge.importer == "adk_fluent.adk.compile"
        and edge.imported == "adk_fluent.adk.custom_agents.flow"
        and edge.lazy
        for edge in all_imports()
    ), "the scan lost function-level imports"
    assert not any(
        edge.importer == "adk_fluent_generated.visitor" and edge.imported.startswith("adk_fluent.")
        for edge in all_imports()
    ), "the scan counted a TYPE_CHECKING-only import"


def test_every_module_belongs_to_a_room():
    homeless = [
        f"{name} ({path.relative_to(REPO)})"
        for name, (path, _) in source_modules().items()
        if name != FACADE and room_of(name) is None
    ]
    assert not homeless, (
        "modules in no room; give the new room its level in ROOMS here and in .importlinter:\n  "
        + "\n  ".join(homeless)
    )


def test_no_import_cycles_even_through_lazy_or_annotation_imports():
    graph: dict[str, set[str]] = {}
    lines: dict[tuple[str, str], list[Import]] = {}
    for edge in internal_imports(typing=True):
        graph.setdefault(edge.importer, set()).add(edge.imported)
        graph.setdefault(edge.imported, set())
        lines.setdefault((edge.importer, edge.imported), []).append(edge)
    problems = []
    for component in strongly_connected(graph):
        cycle = one_cycle(component[0], set(component), graph)
        steps = [
            "; ".join(str(edge) for edge in lines[(a, b)])
            for a, b in zip(cycle, cycle[1:], strict=False)
        ]
        problems.append(
            f"import cycle ({len(component)} modules lie on cycles together; one cycle):\n    "
            + "\n    ".join(steps)
        )
    assert not problems, "\n".join(problems)


def test_no_room_imports_a_room_above_it():
    problems = []
    for edge in internal_imports(typing=True):
        if edge.importer == FACADE:
            continue  # its imports are TYPE_CHECKING-only; the subprocess test below checks it
        importer_room, imported_room = room_of(edge.importer), room_of(edge.imported)
        if importer_room is None or imported_room is None or importer_room == imported_room:
            continue
        below, above = ROOMS[importer_room], ROOMS[imported_room]
        if below < above:
            problems.append(f"{importer_room} imports the higher room {imported_room}: {edge}")
        elif below == above:
            problems.append(
                f"{importer_room} imports {imported_room}, a room it must stay independent "
                f"of: {edge}"
            )
    assert not problems, "imports against the layer order:\n  " + "\n  ".join(problems)


def test_only_adk_run_and_testing_import_google_adk():
    problems = [
        f"{edge} (only {', '.join(ADK_ROOMS)} may import google.adk)"
        for edge in all_imports()
        if (edge.imported == "google.adk" or edge.imported.startswith("google.adk."))
        and room_of(edge.importer) not in ADK_ROOMS
    ]
    assert not problems, "\n  ".join(["google.adk imported outside its rooms:", *problems])


def test_no_module_imports_the_generators_tools():
    """jinja2, libcst, typer, ruff, deepdiff are the `codegen` extra: no module of adk_fluent
    or adk_fluent_generated imports them, not even inside a function."""
    problems = [str(edge) for edge in all_imports() if edge.imported.split(".")[0] in CODEGEN_TOOLS]
    assert not problems, "\n  ".join(["the generator's tools imported at run time:", *problems])
