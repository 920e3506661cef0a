"""A pipeline's A2A agent card, made from its IR: who it is, what it can do (a skill per LLM
agent and per tool), and which state keys cross the boundary (adk-fluent's card extension).

The keys are what the contract checker finds: `reads` are the keys the tree reads before
anything in it writes them (a caller must send them), `writes` every key it writes (it sends
them back). adk-fluent's own bookkeeping keys (a gate's record, where a run paused) and
`temp:` keys, which live for one invocation of one process, never cross.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from adk_fluent.ir.a2a_card import STATE_EXTENSION_URI
from adk_fluent.ir.nodes import LlmAgentNode, Node
from adk_fluent.ir.state_keys import crosses_a2a

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
    from adk_fluent.analysis.contracts.dataflow import YES, analyse

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


def _first_line(text: Any) -> str:
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
        described = _first_line(node.description) or _first_line(node.instruction)
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
            doc = _first_line(getattr(tool, "description", None)) or _first_line(
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
) -> Any:
    """The a2a-sdk AgentCard for a pipeline served at `url` (the A2A endpoint, e.g.
    `http://127.0.0.1:8001/`); it declares the keys of `interface` (by default the
    pipeline's own)."""
    from a2a.types import AgentCard

    root: Node = pipeline if isinstance(pipeline, Node) else pipeline.to_ir()
    interface = interface or state_interface(root)
    text = description or _first_line(getattr(root, "description", None))
    data = {
        "name": name or root.name,
        "description": text or f"adk-fluent pipeline {root.name}",
        "url": url,
        "version": version,
        "capabilities": {
            "streaming": streaming,
            "extensions": [
                {
                    "uri": STATE_EXTENSION_URI,
                    "description": "state keys this agent reads from the request metadata "
                    "and writes back (adk-fluent)",
                    "required": False,
                    "params": {
                        "reads": list(interface.reads),
                        "writes": list(interface.writes),
                        "reads_any": interface.reads_any,
                    },
                }
            ],
        },
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": _skills(root)
        or [{"id": root.name, "name": root.name, "description": text or root.name, "tags": []}],
    }
    return AgentCard.model_validate(data)
