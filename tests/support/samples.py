"""The sample corpus's helpers (tests/behaviour/samples): compare a fluent tree with its native
twin field by field, run both through ADK's Runner on the same scripts, count their lines.

Each sample module defines `SHAPE` (the public sample shape it reproduces), `native()` (the
tree written with ADK's own classes), `fluent()` (the same tree written with adk-fluent),
`TURNS` (what the user says, one string per turn), `SCRIPTS` (each LLM agent's scripted
answers, inner agents of agent tools included) and `AGENTS` (how many agents the native tree
holds). Optional: `hidden_agents()` (the agents tool functions run, which no tree holds),
`fluent_variant()` with `VARIANT` (adk-fluent's own idiom where the sample hand-codes one) and
`XFAIL` ({assertion: reason} for a known adk-fluent defect; see the corpus README).

`python -m tests.support.samples` rewrites tests/behaviour/samples/README.md's line table.
"""

from __future__ import annotations

import importlib
import inspect
import io
import tokenize
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "behaviour" / "samples"
SAMPLES_PACKAGE = "tests.behaviour.samples"
README = SAMPLES_DIR / "README.md"

# every sample module, in the README's order
SAMPLE_NAMES = (
    "code_review",
    "fact_auditor",
    "refinement_loop",
    "parallel_research",
    "portfolio_advisory",
    "config_agency",
    "story_chapters",
    "custom_orchestrator",
    "blog_studio",
    "deep_research",
    "data_science",
    "travel_concierge",
)


def load(name: str) -> ModuleType:
    """A sample module by name."""
    return importlib.import_module(f"{SAMPLES_PACKAGE}.{name}")


# -- building ---------------------------------------------------------------------------------


def build_native(sample: ModuleType) -> Any:
    """The sample's native tree. ADK 2.x warns that Sequential/Parallel/LoopAgent are deprecated
    whenever one is constructed: that one message is silenced, as an ADK 2.x user would."""
    from adk_fluent.adk.compat import quiet_workflow_deprecation

    with quiet_workflow_deprecation():
        return sample.native()


def build_fluent(sample: ModuleType) -> Any:
    """The sample's fluent expression (custom agents constructed in it may build ADK workflow
    agents themselves: the same one warning is silenced)."""
    from adk_fluent.adk.compat import quiet_workflow_deprecation

    with quiet_workflow_deprecation():
        return sample.fluent()


def agents_in(root: Any) -> Iterator[Any]:
    """Every agent of a native tree, each once, depth first: sub-agents, the agents of agent
    tools, and agents a custom agent keeps in its own fields."""
    from adk_fluent.adk.native import agents_inside

    return agents_inside(root, tools=True)


def llm_agent_names(root: Any) -> list[str]:
    """The names of the LLM agents of a native tree."""
    from google.adk.agents.llm_agent import LlmAgent

    return [agent.name for agent in agents_in(root) if isinstance(agent, LlmAgent)]


def install_models(agents: Any, model: Any) -> None:
    """Give every LLM agent found from `agents` (a root or an iterable of roots) the scripted
    model's view for its name."""
    from google.adk.agents.llm_agent import LlmAgent

    roots = agents if isinstance(agents, list | tuple) else [agents]
    for root in roots:
        for agent in agents_in(root):
            if isinstance(agent, LlmAgent):
                agent.model = model.for_agent(agent.name)


# -- field-by-field comparison ----------------------------------------------------------------


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 100 else text[:97] + "..."


def _unwrap(fn: Any) -> Any:
    while hasattr(fn, "__wrapped__"):  # adk-fluent binds some callbacks (functools.wraps)
        fn = fn.__wrapped__
    return fn


def _callbacks(value: Any) -> list[Any]:
    if value is None:
        return []
    return [_unwrap(f) for f in (value if isinstance(value, list) else [value])]


def compare_trees(fluent: Any, native: Any) -> list[str]:
    """The differences between two compiled trees, one readable line each (empty: equal).

    Compared per agent: the class, the name, every pydantic field set on either side (but
    parent_agent), sub-agents recursively, agents held in fields recursively, tools (functions
    by identity, FunctionTools by their function, AgentTools by their options and their agent
    recursively) and callbacks (by identity, through adk-fluent's `__wrapped__` binding; one
    callback equals a list of that one callback, as ADK treats them alike)."""
    differences: list[str] = []
    _compare_agent(fluent, native, native.name, differences)
    return differences


def _compare_agent(fluent: Any, native: Any, path: str, out: list[str]) -> None:
    from google.adk.agents.base_agent import BaseAgent

    if type(fluent) is not type(native):
        out.append(
            f"{path}: class {type(fluent).__qualname__} (fluent) != "
            f"{type(native).__qualname__} (native)"
        )
        return
    if fluent.name != native.name:
        out.append(f"{path}: name {fluent.name!r} (fluent) != {native.name!r} (native)")
    fields = (fluent.model_fields_set | native.model_fields_set) - {"parent_agent", "name"}
    for field in sorted(fields):
        mine, theirs = getattr(fluent, field, None), getattr(native, field, None)
        where = f"{path}.{field}"
        if field == "sub_agents":
            _compare_list(mine, theirs, where, out, _compare_agent, by_name=True)
        elif field == "tools":
            _compare_list(mine, theirs, where, out, _compare_tool, by_name=False)
        elif field.endswith("_callback"):
            a, b = _callbacks(mine), _callbacks(theirs)
            if len(a) != len(b) or any(x is not y for x, y in zip(a, b, strict=False)):
                out.append(f"{where}: {_short(a)} (fluent) != {_short(b)} (native)")
        elif isinstance(mine, BaseAgent) and isinstance(theirs, BaseAgent):
            _compare_agent(mine, theirs, f"{where}:{theirs.name}", out)
        elif mine != theirs:
            out.append(f"{where}: {_short(mine)} (fluent) != {_short(theirs)} (native)")


def _compare_list(
    mine: Any,
    theirs: Any,
    where: str,
    out: list[str],
    compare: Callable[[Any, Any, str, list[str]], None],
    *,
    by_name: bool,
) -> None:
    mine, theirs = list(mine or ()), list(theirs or ())
    if len(mine) != len(theirs):
        out.append(
            f"{where}: {len(mine)} (fluent) != {len(theirs)} (native): "
            f"{[_name(x) for x in mine]} vs {[_name(x) for x in theirs]}"
        )
        return
    for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        compare(a, b, f"{where}[{_name(b) if by_name else index}]", out)


def _name(value: Any) -> str:
    return str(getattr(value, "name", None) or getattr(value, "__name__", type(value).__name__))


def _compare_tool(fluent: Any, native: Any, path: str, out: list[str]) -> None:
    from google.adk.tools.agent_tool import AgentTool
    from google.adk.tools.function_tool import FunctionTool

    if type(fluent) is not type(native):
        out.append(
            f"{path}: tool {type(fluent).__qualname__} {_name(fluent)!r} (fluent) != "
            f"{type(native).__qualname__} {_name(native)!r} (native)"
        )
        return
    if isinstance(native, AgentTool):
        for option in sorted(set(vars(fluent)) | set(vars(native))):
            if option == "agent":
                continue
            a, b = vars(fluent).get(option), vars(native).get(option)
            if a != b:
                out.append(f"{path}.{option}: {_short(a)} (fluent) != {_short(b)} (native)")
        _compare_agent(fluent.agent, native.agent, f"{path}:{native.agent.name}", out)
    elif isinstance(native, FunctionTool):
        if _unwrap(fluent.func) is not _unwrap(native.func):
            out.append(f"{path}: function {_short(fluent.func)} (fluent) != {_short(native.func)}")
    elif fluent is not native and not (callable(native) and _unwrap(fluent) is _unwrap(native)):
        if callable(native) and not hasattr(native, "run_async"):
            out.append(f"{path}: function {_short(fluent)} (fluent) != {_short(native)} (native)")
        elif vars(fluent) != vars(native):
            out.append(f"{path}: {_short(vars(fluent))} (fluent) != {_short(vars(native))}")


# -- running ----------------------------------------------------------------------------------


def _text_of(content: Any) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    for part in (content.parts if content is not None else None) or []:
        if part.text:
            parts.append(("text", part.text))
        if part.function_call is not None:
            parts.append(("call", f"{part.function_call.name}({part.function_call.args})"))
        if part.function_response is not None:
            parts.append(("result", f"{part.function_response.name}"))
    return parts


def in_branch_order(events: list[Any]) -> list[Any]:
    """The events with each run of parallel-branch events grouped by branch (stable): how the
    branches of a ParallelAgent interleave is the event loop's choice, not the tree's."""
    ordered: list[Any] = []
    window: list[Any] = []
    for event in [*events, None]:
        branch = getattr(getattr(event, "raw", None), "branch", None)
        if event is not None and branch:
            window.append(event)
            continue
        ordered += sorted(window, key=lambda e: e.raw.branch)
        window = []
        if event is not None:
            ordered.append(event)
    return ordered


def visible(events: list[Any]) -> list[tuple[Any, ...]]:
    """What a client sees of each event (AgentEvents): author, text, tool calls and results,
    state delta, escalation; parallel branches' events grouped by branch. The events of agent
    tools' runs, which run() passes on and a native Runner does not, are left out."""
    return [
        (
            event.author,
            event.content,
            tuple((c.tool_name, c.args) for c in event.tool_calls),
            tuple((r.tool_name, r.result) for r in event.tool_responses),
            event.state_delta,
            event.escalate,
        )
        for event in in_branch_order(events)
        if getattr(event, "parent_call_id", None) is None
    ]


def requests_seen(model: Any, *, ordered: bool = True) -> dict[str, list[Any]]:
    """What each scripted agent's model was asked: the system instruction and the contents'
    texts, tool calls and tool results (call ids, which are random, left out). `ordered=False`
    compares the contents as a multiset: after a ParallelAgent, the session holds its branches'
    events in the order the event loop ran them."""
    seen: dict[str, list[Any]] = {}
    for agent, request in model.calls:
        config = request.config
        instruction = getattr(config, "system_instruction", None) if config else None
        contents = [(c.role, _text_of(c)) for c in request.contents or []]
        seen.setdefault(agent, []).append(
            (
                str(instruction),
                contents if ordered else sorted(contents, key=repr),
                sorted(getattr(request, "tools_dict", {}) or {}),
            )
        )
    return seen


def has_parallel(root: Any) -> bool:
    """Whether a native tree holds a ParallelAgent."""
    from google.adk.agents import ParallelAgent

    return any(isinstance(agent, ParallelAgent) for agent in agents_in(root))


_ABILITIES: dict[str, bool] = {}


async def _transfers_beside_workflow_agents() -> bool:
    """Probe of the installed ADK, on a native tree: can an LLM agent whose peers include a
    LoopAgent work out where it may transfer? (One release, 2.0.0 in the tide sample, reads
    `.mode` on every peer, which workflow agents do not have, and fails the turn.)"""
    from google.adk.agents import LlmAgent, LoopAgent

    from adk_fluent.adk.compat import quiet_workflow_deprecation
    from adk_fluent.testing import ScriptedModel, call

    model = ScriptedModel(
        {"hub": [call("transfer_to_agent", agent_name="spoke")], "spoke": ["done"]}
    )
    with quiet_workflow_deprecation():
        loop = LoopAgent(name="ring", sub_agents=[LlmAgent(name="inner", model=model)])
    hub = LlmAgent(
        name="hub",
        model=model.for_agent("hub"),
        sub_agents=[LlmAgent(name="spoke", model=model.for_agent("spoke")), loop],
    )
    try:
        await run_native(hub, ["go"])
    except AttributeError:
        return False
    return True


_PROBES = {
    "transfer_beside_workflow_agents": (
        "transfer from an LLM agent whose peers include a workflow agent",
        _transfers_beside_workflow_agents,
    ),
}


async def missing_adk_abilities(sample: ModuleType) -> list[str]:
    """What a sample `NEEDS` of ADK that the installed release cannot do (each probed once)."""
    missing = []
    for need in getattr(sample, "NEEDS", ()):
        what, probe = _PROBES[need]
        if need not in _ABILITIES:
            _ABILITIES[need] = await probe()
        if not _ABILITIES[need]:
            missing.append(what)
    return missing


async def run_native(root: Any, turns: list[str], session_id: str = "s1") -> tuple[list, dict]:
    """Run a native tree through ADK's Runner (in memory): the events as AgentEvents and the
    final session state."""
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from adk_fluent.run.events import AgentEvent

    service = InMemorySessionService()
    runner = Runner(app_name="samples", agent=root, session_service=service)
    await service.create_session(app_name="samples", user_id="user", session_id=session_id)
    events: list[Any] = []
    for turn in turns:
        message = types.Content(role="user", parts=[types.Part(text=turn)])
        async for event in runner.run_async(
            user_id="user", session_id=session_id, new_message=message
        ):
            events.append(AgentEvent.from_adk(event))
    session = await service.get_session(app_name="samples", user_id="user", session_id=session_id)
    return events, dict(session.state)


async def run_fluent(
    expression: Any, turns: list[str], backend: Any, session_id: str = "s1"
) -> tuple[list, dict]:
    """Run a fluent expression (adk-fluent's run(), scripted by `backend`): the events and the
    final session state."""
    events: list[Any] = []
    for turn in turns:
        events += await expression.run(turn, backend=backend, session_id=session_id)
    session = await expression.session(session_id, backend=backend)
    return events, dict(session.state)


# -- line counts ------------------------------------------------------------------------------


def code_lines(fn: Callable[..., Any]) -> int:
    """The lines of a function's body that are code: no blank line, comment or docstring."""
    source = inspect.getsource(fn)
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    lines: set[int] = set()
    docstring = _docstring_lines(fn)
    first_body = _first_body_line(source)
    for token in tokens:
        if token.type in (
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        ):
            continue
        for line in range(token.start[0], token.end[0] + 1):
            if line >= first_body and line not in docstring:
                lines.add(line)
    return len(lines)


def _first_body_line(source: str) -> int:
    import ast

    tree = ast.parse(source)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    return function.body[0].lineno


def _docstring_lines(fn: Callable[..., Any]) -> set[int]:
    import ast

    function = ast.parse(inspect.getsource(fn)).body[0]
    assert isinstance(function, ast.FunctionDef)
    first = function.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return set()


TABLE_START = "<!-- lines table: generated by `python -m tests.support.samples`; do not edit -->"
TABLE_END = "<!-- end of lines table -->"


def line_table() -> str:
    """The README's table: each sample's shape and the code lines of its two builders."""
    rows = [
        "| sample | shape | agents | native lines | fluent lines | fluent / native |",
        "|---|---|---:|---:|---:|---:|",
    ]
    total_native = total_fluent = 0
    for name in SAMPLE_NAMES:
        sample = load(name)
        native, fluent = code_lines(sample.native), code_lines(sample.fluent)
        total_native, total_fluent = total_native + native, total_fluent + fluent
        rows.append(
            f"| `{name}` | {sample.SHAPE} | {sample.AGENTS} | {native} | {fluent} | "
            f"{fluent / native:.2f} |"
        )
    rows.append(
        f"| **all {len(SAMPLE_NAMES)}** | | | **{total_native}** | **{total_fluent}** | "
        f"**{total_fluent / total_native:.2f}** |"
    )
    variants = [
        f"- `{name}.fluent_variant()`, {load(name).VARIANT}: "
        f"{code_lines(load(name).fluent_variant)} lines"
        for name in SAMPLE_NAMES
        if hasattr(load(name), "fluent_variant")
    ]
    xfails = [
        f"- `{name}`, {assertion}: {reason}"
        for name in SAMPLE_NAMES
        for assertion, reason in getattr(load(name), "XFAIL", {}).items()
    ]
    return "\n".join(
        [
            TABLE_START,
            *rows,
            "",
            "Idiomatic variants (run alike, compile to a different tree):",
            "",
            *(variants or ["- none"]),
            "",
            "Strict xfails (known adk-fluent defects; each turns into a failure once fixed):",
            "",
            *(xfails or ["- none"]),
            TABLE_END,
        ]
    )


def readme_with_table(readme: str) -> str:
    """The README text with its table replaced by the current one."""
    start, end = readme.index(TABLE_START), readme.index(TABLE_END) + len(TABLE_END)
    return readme[:start] + line_table() + readme[end:]


if __name__ == "__main__":
    README.write_text(readme_with_table(README.read_text()))
    print(line_table())
