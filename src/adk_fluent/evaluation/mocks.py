"""Tool mocks for evaluation cases: `FluentCase(..., mock_tools={"charge_card": {...}})`.

A case's mocked tools answer with the value given instead of running, so a case whose pipeline
has side effects (a payment, an email, a write to a system of record) runs against a real or
scripted model without touching the world. The model still chooses the call and its arguments,
so trajectory checks see it as it was made; only what the tool returns is the case's.

One middleware (`ToolMocks`) is added to the App of a suite whose cases mock anything; it reads
the running case's mocks from a context variable the inference sets for that case's runs, so
cases with different mocks share one App.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from adk_fluent.errors import EvalError, describe_value, did_you_mean
from adk_fluent.ir.middleware import Middleware
from adk_fluent.ir.nodes import AgentToolSpec, LlmAgentNode, Node, walk
from adk_fluent.ir.options import ExecutionConfig

_MOCKS: ContextVar[Mapping[str, Any] | None] = ContextVar("adk_fluent_tool_mocks", default=None)


def checked_mocks(value: Any, case: str | None) -> Mapping[str, Any] | None:
    """`mock_tools` as a read-only mapping of tool name to the JSON value it answers with."""
    if value is None:
        return None
    hint = "mock_tools={'charge_card': {'status': 'charged', 'id': 'ch_1'}}"
    if not isinstance(value, Mapping) or not value:
        shown = "an empty mapping" if isinstance(value, Mapping) else describe_value(value)
        raise EvalError(
            f"mock_tools takes a tool name -> its reply mapping, got {shown}",
            case=case,
            field="mock_tools",
            hint=hint,
        )
    for name, reply in value.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise EvalError(
                f"mock_tools names tools by their name, not {describe_value(name)}",
                case=case,
                field="mock_tools",
                hint=hint,
            )
        try:
            json.dumps(reply)
        except (TypeError, ValueError):
            raise EvalError(
                f"the reply mocked for {name!r} is {describe_value(reply)}, not a JSON value "
                "(a dict, a list, text, a number, true/false or None)",
                case=case,
                field="mock_tools",
                hint="a mock is data the tool would have returned, so that an exported eval "
                "set can say it; e.g. {'status': 'charged'}.",
            ) from None
    return MappingProxyType(dict(value))


def tool_names(root: Node) -> set[str]:
    """The names the model calls the tree's tools by (function tools by their function name)."""
    names: set[str] = set()
    for node in walk(root):
        if not isinstance(node, LlmAgentNode):
            continue
        tools = node.tools if isinstance(node.tools, list | tuple) else ()
        for tool in tools:
            name: Any = (
                tool.agent.name  # ADK's AgentTool is called by its agent's name
                if isinstance(tool, AgentToolSpec)
                else getattr(tool, "name", None) or getattr(tool, "__name__", None)
            )
            if isinstance(name, str):
                names.add(name)
    return names


def check_mocked_names(root: Node, case: str, mocks: Mapping[str, Any]) -> None:
    """A mocked tool the tree does not have is a mistake (a misspelling would run the real one)."""
    known = tool_names(root)
    for name in mocks:
        if name not in known:
            near = did_you_mean(name, known)
            listed = ", ".join(sorted(known)) or "none"
            raise EvalError(
                f"mock_tools names {name!r}, but no agent of the pipeline has a tool of that "
                f"name (its tools: {listed})",
                case=case,
                field="mock_tools",
                hint=f"did you mean {near!r}?"
                if near
                else "name a tool the pipeline's agents have.",
            )


class ToolMocks(Middleware):
    """Answers the running case's mocked tools with their mocked reply (the tool does not run)."""

    def __init__(self) -> None:
        super().__init__(priority=1000)  # last: other middleware sees the call as it was made

    def before_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any) -> Any:
        mocks = _MOCKS.get()
        if not mocks:
            return None
        name = getattr(tool, "name", None)
        if not isinstance(name, str) or name not in mocks:
            return None
        reply = json.loads(json.dumps(mocks[name]))  # a fresh copy per call
        return reply if isinstance(reply, dict) else {"result": reply}

    def __repr__(self) -> str:
        return "evaluation tool mocks"


def with_mocks(config: Any) -> ExecutionConfig:
    """The config (None: a default one) with `ToolMocks` added, once."""
    base = config if isinstance(config, ExecutionConfig) else ExecutionConfig()
    if any(isinstance(item, ToolMocks) for item in base.middleware):
        return base
    return replace(base, middleware=(*base.middleware, ToolMocks()))


@contextmanager
def mocking(mocks: Mapping[str, Any] | None) -> Iterator[None]:
    """The runs started inside answer `mocks`' tools from them (tasks copy the context)."""
    token = _MOCKS.set(mocks)
    try:
        yield
    finally:
        _MOCKS.reset(token)
