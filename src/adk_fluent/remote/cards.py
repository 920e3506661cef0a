"""A pipeline's A2A agent card, made from its IR: who it is, what it can do (a skill per LLM
agent and per tool), and which state keys cross the boundary (adk-fluent's card extension).

The keys are what the contract checker finds: `reads` are the keys the tree reads before
anything in it writes them (a caller must send them), `writes` every key it writes (it sends
them back). adk-fluent's own bookkeeping keys (a gate's record, where a run paused) and
`temp:` keys, which live for one invocation of one process, never cross.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adk_fluent.arguments import checked_instance
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.a2a_card import STATE_EXTENSION_URI
from adk_fluent.ir.nodes import LlmAgentNode, Node
from adk_fluent.ir.state_keys import crosses_a2a
from adk_fluent.remote.directory import error_summary

CARD_VERSION = "1.0.0"  # the served pipeline's version unless one is given


@dataclass(frozen=True)
class StateInterface:
    """The state keys that cross a pipeline's boundary: sent with a request, sent back after."""

    reads: tuple[str, ...]
    writes: tuple[str, ...]
    # a step reads keys the checker cannot name (a function step, S.guard, tap): the served
    # pipeline then stores any key a caller chooses to send (except those that never cross)
    reads_any: bool = False


def state_interface(tree: Any) -> StateInterface:
    """The keys a pipeline (a builder or its IR) needs from a caller and gives back."""
    from adk_fluent.analysis.contracts.dataflow import analyse
    from adk_fluent.analysis.contracts.flow_state import YES

    root: Node = tree if isinstance(tree, Node) else tree.to_ir()
    result = analyse(root)
    reads = sorted(
        {
            record.read.key
            for record in result.records
            if record.fact.status != YES and crosses_a2a(record.read.key)
        }
    )
    writes = sorted(key for key in result.writers if crosses_a2a(key))
    return StateInterface(tuple(reads), tuple(writes), reads_any=bool(result.opaque_readers))


def first_line(text: Any) -> str:
    """The first non-blank line of a str, stripped ("" for anything else)."""
    if not isinstance(text, str):
        return ""
    return next((line.strip() for line in text.strip().splitlines() if line.strip()), "")


def _skills(root: Node) -> list[dict[str, Any]]:
    skills: list[dict[str, Any]] = []
    seen: set[str] = set()
    for node in root.walk():
        if not isinstance(node, LlmAgentNode) or node.name in seen:
            continue
        seen.add(node.name)
        described = first_line(node.description) or first_line(node.instruction)
        skills.append(
            {
                "id": node.name,
                "name": node.name,
                "description": described or f"agent {node.name}",
                "tags": ["llm"],
            }
        )
        for tool in node.tools if isinstance(node.tools, tuple | list) else ():
            tool_name = getattr(tool, "name", None) or getattr(tool, "__name__", None)
            if not tool_name or getattr(tool, "agent", None) is not None:
                continue
            doc = first_line(getattr(tool, "description", None)) or first_line(
                inspect.getdoc(tool) if callable(tool) else None
            )
            skills.append(
                {
                    "id": f"{node.name}.{tool_name}",
                    "name": str(tool_name),
                    "description": doc or f"tool {tool_name} of {node.name}",
                    "tags": ["tool", node.name],
                }
            )
    return skills


def agent_card(
    pipeline: Any,
    url: str,
    *,
    name: str | None = None,
    description: str | None = None,
    version: str = CARD_VERSION,
    streaming: bool = False,
    interface: StateInterface | None = None,
    skills: Sequence[Any] | None = None,
    provider: Any = None,
    capabilities: Any = None,
) -> Any:
    """The a2a-sdk AgentCard for a pipeline served at `url` (the A2A endpoint, e.g.
    `http://127.0.0.1:8001/`); it declares the keys of `interface` (by default the
    pipeline's own).

    `streaming` says whether the server answers `message/stream`: `serve` and `a2a_app`
    publish True (they stream on every release); the default here, False, is what any server
    can answer. `skills` amends the skills made from the pipeline (an entry whose `id` is one of
    them changes the fields it gives, e.g. `{"id": "refunder", "tags": [...], "examples":
    [...]}`) or adds one (with `name` and `description`); `provider` is
    `{"organization": ..., "url": ...}`; `capabilities` adds A2A extensions of your own
    (`{"extensions": [...]}`) beside adk-fluent's. Each may be a2a-sdk's object or its JSON."""
    from a2a.types import AgentCard

    root: Node = pipeline if isinstance(pipeline, Node) else pipeline.to_ir()
    interface = interface or state_interface(root)
    text = description or first_line(getattr(root, "description", None))
    hint = "streaming=False publishes a card without message/stream (the server then refuses it)."
    checked_instance(streaming, root.name, "streaming", bool, what="True or False", hint=hint)
    extension = {
        "uri": STATE_EXTENSION_URI,
        "description": "state keys this agent reads from the request metadata (adk_fluent.state) "
        "and writes back when asked (adk_fluent.receives) (adk-fluent)",
        "required": False,
        "params": {
            "reads": list(interface.reads),
            "writes": list(interface.writes),
            "reads_any": interface.reads_any,
        },
    }
    generated = _skills(root) or [
        {"id": root.name, "name": root.name, "description": text or root.name, "tags": []}
    ]
    data = {
        "name": name or root.name,
        "description": text or f"adk-fluent pipeline {root.name}",
        "url": url,
        "version": version,
        "capabilities": {
            **_capabilities(root.name, capabilities, extension),
            "streaming": streaming,
        },
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": _amended_skills(root.name, generated, skills),
    }
    if provider is not None:
        data["provider"] = _provider(root.name, provider)
    return AgentCard.model_validate(data)


def _as_json(value: Any) -> Any:
    """An a2a-sdk model as its JSON (by alias), anything else as it is."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


def _amended_skills(
    agent: str, generated: list[dict[str, Any]], given: Any
) -> list[dict[str, Any]]:
    from a2a.types import AgentSkill

    hint = (
        "skills=[{'id': 'refunder', 'tags': ['refunds'], 'examples': ['Refund order A-1']}] "
        "amends a skill of the card; a new id needs 'name' and 'description' too."
    )
    if given is None:
        return generated
    if isinstance(given, str | bytes | Mapping) or not isinstance(given, Sequence):
        raise BuildError(
            f"skills= takes a list of skills, got {describe_value(given)}",
            agent=agent,
            field="skills",
            hint=hint,
        )
    skills = {skill["id"]: dict(skill) for skill in generated}
    for index, entry in enumerate(given):
        entry = _as_json(entry)
        skill_id = entry.get("id") if isinstance(entry, Mapping) else None
        if not isinstance(skill_id, str) or not skill_id:
            raise BuildError(
                f"skill {index + 1} of skills= has no 'id'",
                agent=agent,
                field="skills",
                hint=f"the card's skills: {', '.join(skills)}. {hint}",
            )
        merged = {**skills.get(skill_id, {"tags": []}), **dict(entry)}
        try:
            AgentSkill.model_validate(merged)
        except Exception as error:  # noqa: BLE001 - pydantic's message is the diagnosis
            raise BuildError(
                f"the skill {skill_id!r} of skills= is not an A2A skill "
                f"({error_summary(error, 'skill')})",
                agent=agent,
                field="skills",
                hint=hint,
            ) from None
        skills[skill_id] = merged
    return list(skills.values())


def _provider(agent: str, given: Any) -> dict[str, Any]:
    from a2a.types import AgentProvider

    data = _as_json(given)
    try:
        return dict(AgentProvider.model_validate(data).model_dump(mode="json", by_alias=True))
    except Exception:  # noqa: BLE001 - the hint says what a provider is
        raise BuildError(
            f"provider= must name an organization and its URL, got {describe_value(given)}",
            agent=agent,
            field="provider",
            hint="provider={'organization': 'Payments team', 'url': 'https://payments.example'}.",
        ) from None


def _capabilities(agent: str, given: Any, extension: dict[str, Any]) -> dict[str, Any]:
    """The card's capabilities: adk-fluent's state extension, and the caller's extensions."""
    from a2a.types import AgentCapabilities

    hint = "capabilities={'extensions': [{'uri': 'urn:example:my-extension'}]}."
    data = _as_json(given) if given is not None else {}
    checked_instance(data, agent, "capabilities", Mapping, what="a mapping", hint=hint)
    data = {k: v for k, v in data.items() if v is not None}
    if "streaming" in data:
        raise BuildError(
            "capabilities= gives 'streaming'",
            agent=agent,
            field="capabilities",
            hint="say it with streaming=True / False (the served app streams on every release).",
        )
    if data.get("pushNotifications") or data.get("push_notifications"):
        raise BuildError(
            "capabilities= claims push notifications, which the served app does not send",
            agent=agent,
            field="capabilities",
            hint="leave pushNotifications out; clients poll with tasks/get or stream instead.",
        )
    own = data.get("extensions") or []
    try:
        checked = AgentCapabilities.model_validate({**data, "extensions": [extension, *own]})
    except Exception as error:  # noqa: BLE001 - pydantic's message is the diagnosis
        raise BuildError(
            f"capabilities= is not A2A capabilities ({error_summary(error, 'capabilities')})",
            agent=agent,
            field="capabilities",
            hint=hint,
        ) from None
    if any(getattr(e, "uri", None) == STATE_EXTENSION_URI for e in (checked.extensions or [])[1:]):
        raise BuildError(
            f"capabilities= repeats adk-fluent's own extension {STATE_EXTENSION_URI}",
            agent=agent,
            field="capabilities",
            hint="leave it out: the card declares the state keys itself.",
        )
    return dict(checked.model_dump(mode="json", by_alias=True, exclude_none=True))
