"""tool_approval: a person approves (or rejects) a tool call before it runs, through ADK's own
tool-confirmation flow, so any ADK client (adk web, api_server, a plain Runner) can answer it.

How it works, the same on every supported ADK release (1.25 .. 2.x):

1. `before_tool_callback` sees a call that needs approval (the tool is listed, and `policy`, if
   given, says yes) and no answer yet: it calls `tool_context.request_confirmation(hint=...)`
   and returns a placeholder result instead of running the tool. ADK turns the request into an
   `adk_request_confirmation` function call event (long-running) and the turn ends there; the
   request and the original call are in the session store like any event.
2. The client answers with a user message holding a FunctionResponse named
   `adk_request_confirmation` (its id: the request's id) whose response is a ToolConfirmation
   (`{"confirmed": true}`, or ADK's own client's `{"response": "<json>"}` wrapper).
3. ADK's request_confirmation processor finds the request in the stored history (a request made
   from a callback counts: it is recorded in the placeholder's `requested_tool_confirmations`)
   and calls the tool again with `tool_context.tool_confirmation` set: the callback lets an
   approved call run (once) and answers a rejected one with a rejection result, so the model
   learns it did not run.

Everything the resume needs is in the stored session, so a new Runner (a restarted server) over
the same store resumes it; no `ResumabilityConfig` (ExecutionConfig(resumable=True)) is needed
on either ADK end. An answer delivered twice (a client retry) runs the call once: ADK 1.x would
run it again for the second delivery, so a call that already has a result after an answer gets
that result back instead of running; where ADK fails on a retried answer instead (2.5.0 to
2.6.0 raise "Tool ... does not require confirmation": the probe
`confirmation_redelivery_accepted`), the retried turn ends before the agent runs, with an empty
reply, as newer releases end it.

Inside a pipeline, what follows the asking agent is ADK's to decide and differs by release:
the turn ends at the request on 2.x and on 1.x with resumable=True, but on 1.x without it the
agents after it run in the same turn (before anyone answered); after the answer, only the asking
agent finishes, except on 2.x with resumable=True, where the rest of the pipeline runs too.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from google.genai import types

from adk_fluent.adk.compat import confirmation_redelivery_accepted
from adk_fluent.adk.plugins.middleware import sync_callback
from adk_fluent.arguments import checked_callable, checked_some, checked_text
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.middleware import Middleware

NAME = "tool_approval"
CONFIRMATION = "adk_request_confirmation"  # ADK's name for the request and its answer
PENDING = "This tool call needs a person's approval; it has not run. Wait for the answer."


def _tool_name(tool: Any) -> str | None:
    """A tool's name as ADK calls it: the string itself, a tool object's `name`, a function's
    `__name__` (ADK names a FunctionTool after its function)."""
    if isinstance(tool, str):
        return tool or None
    name = getattr(tool, "name", None)
    if isinstance(name, str) and name:
        return name
    name = getattr(tool, "__name__", None)
    return name if isinstance(name, str) and name and name != "<lambda>" else None


def _tool_names(tools: Any) -> frozenset[str] | None:
    if tools is None:
        return None
    items: Iterable[Any] = (
        (tools,) if isinstance(tools, str) or not isinstance(tools, Iterable) else tools
    )
    items = checked_some(
        list(items),
        NAME,
        "tools",
        shown="tool_approval(tools)",
        items="tool",
        hint="name the tools that need approval, e.g. tool_approval(['refund']), or leave "
        "tools out to ask about every tool.",
    )
    names = set()
    for item in items:
        name = _tool_name(item)
        if name is None and getattr(item, "__name__", None) == "<lambda>":
            raise BuildError(
                "a lambda in tools has no name ADK could call it by",
                agent=NAME,
                field="tools",
                hint="give the tool's name ('refund') or the named function the agent uses.",
            )
        if name is None:
            raise BuildError(
                f"cannot tell which tool {describe_value(item)} is",
                agent=NAME,
                field="tools",
                hint="give tool names ('refund'), ADK tool objects or named functions.",
            )
        names.add(name)
    return frozenset(names)


async def _value(result: Any) -> Any:
    return await result if inspect.isawaitable(result) else result


class ToolApproval(Middleware):
    """Asks a person to approve tool calls (ADK's tool confirmation) before they run."""

    name = NAME

    def __init__(
        self,
        tools: frozenset[str] | None = None,
        *,
        policy: Callable[[str, dict[str, Any]], Any] | None = None,
        hint: str | Callable[[str, dict[str, Any]], Any] | None = None,
        scope: str | tuple[str, ...] | None = None,
        priority: int = -80,
    ) -> None:
        super().__init__(scope=scope, priority=priority)
        self.tools = tools
        self.policy = policy
        self.hint = hint

    def covers(self, tool_name: str) -> bool:
        """Whether calls of this tool are asked about (before `policy`)."""
        return self.tools is None or tool_name in self.tools

    async def _hint(self, tool_name: str, args: dict[str, Any]) -> str:
        if callable(self.hint):
            return str(await _value(self.hint(tool_name, dict(args))))
        if isinstance(self.hint, str):
            return self.hint
        return (
            f"Approve or reject the call {tool_name}({_shown(args)}) by answering with a "
            "FunctionResponse for adk_request_confirmation holding a ToolConfirmation "
            '({"confirmed": true} or {"confirmed": false}).'
        )

    @sync_callback
    def before_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any
    ) -> Any:
        name = getattr(tool, "name", "")
        if not self.covers(name):
            return None
        return self._asked(name, tool_args, tool_context)

    async def _asked(
        self, name: str, tool_args: dict[str, Any], tool_context: Any
    ) -> dict[str, Any] | None:
        """A call of a covered tool: the answer decides, or the policy, or a person is asked."""
        confirmation = getattr(tool_context, "tool_confirmation", None)
        if confirmation is not None:
            # This call was asked about: the answer decides (never the policy again).
            earlier = _earlier_result(tool_context, name)
            if earlier is not None:
                # The answer came again (a client retry): ADK 1.x would run the call once per
                # delivery; the call already ran (or was rejected), so its result stands.
                return earlier
            if confirmation.confirmed:
                return None  # approved: the tool runs
            return {
                "error": f"A person rejected this call to {name}; it did not run. "
                "Do not retry it unless the user asks again."
            }
        if self.policy is not None and not await _value(self.policy(name, dict(tool_args))):
            return None
        tool_context.request_confirmation(hint=await self._hint(name, tool_args))
        # the placeholder is no answer: the model is not asked to summarise it
        tool_context.actions.skip_summarization = True
        return {"error": PENDING}

    @sync_callback
    def before_agent_callback(self, *, agent: Any, callback_context: Any) -> Any:
        # A retried answer (the same confirmation delivered again) makes some releases' ADK
        # fail before any callback of ours runs (2.6: "Tool ... does not require
        # confirmation"). The call ran (or was rejected) at the first delivery, so the retried
        # turn ends here, with nothing run again, as newer releases end it.
        if confirmation_redelivery_accepted():
            return None
        if not _answers_again(callback_context.session.events):
            return None
        return types.Content(role="model", parts=[])


def _answers_again(events: list[Any]) -> bool:
    """Whether the latest user message answers only confirmation requests an earlier user
    message already answered (the message is stored before any agent runs). Read from the
    session: some releases give a resumed agent no `user_content`."""
    answers = [
        {
            response.id
            for response in event.get_function_responses()
            if response.name == CONFIRMATION and response.id
        }
        for event in events
        if event.author == "user"
    ]
    if not answers or not answers[-1]:
        return False
    return answers[-1] <= set().union(*answers[:-1])


def _earlier_result(tool_context: Any, tool_name: str) -> dict[str, Any] | None:
    """The result this call (by its function call id) already had after an answer: the
    stored response that is not the placeholder; None when there is none."""
    call_id = getattr(tool_context, "function_call_id", None)
    session = getattr(tool_context, "session", None)
    if not call_id or session is None:
        return None
    for event in reversed(session.events):
        for response in event.get_function_responses():
            if (
                response.id == call_id
                and response.name == tool_name
                and response.response != {"error": PENDING}
            ):
                return dict(response.response or {})
    return None


def _shown(args: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in args.items())


def tool_approval(
    tools: Any = None,
    *,
    policy: Callable[[str, dict[str, Any]], Any] | None = None,
    hint: str | Callable[[str, dict[str, Any]], Any] | None = None,
    scope: str | tuple[str, ...] | None = None,
    priority: int = -80,
) -> ToolApproval:
    """A person approves each call of `tools` (names, tool objects or functions; None: every
    tool) before it runs; `policy(tool_name, args) -> bool` decides per call whether to ask."""
    names = _tool_names(tools)
    if policy is not None:
        checked_callable(
            policy,
            NAME,
            "policy",
            "policy=lambda tool, args: args.get('amount', 0) > 100 (True: ask a person).",
        )
    if isinstance(hint, str):
        checked_text(
            hint,
            NAME,
            "hint",
            hint="say what the person is approving, or leave hint out for the default.",
        )
    elif hint is not None and (not callable(hint) or isinstance(hint, type)):
        raise BuildError(
            f"hint must be text or a function (tool_name, args) -> text, not "
            f"{describe_value(hint)}",
            agent=NAME,
            field="hint",
            hint="hint='Refunds need a manager' or hint=lambda tool, args: f'Refund "
            '{args["amount"]}?\'.',
        )
    return ToolApproval(names, policy=policy, hint=hint, scope=scope, priority=priority)
