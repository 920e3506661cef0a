"""The two ends of an A2A call that carries state, on ADK's own A2A agents.

ADK sends neither the caller's session state to an A2A peer nor the peer's state changes back
(#6854: 2.x logs "Ignoring a session state delta from a remote A2A peer"). adk-fluent carries
exactly the declared keys, in channels every supported release passes through untouched:

* request: the keys a RemoteAgent sends ride in the A2A request's metadata
  (`{"adk_fluent": {"state": {...}}}`, through RemoteA2aAgent's `a2a_request_meta_provider`);
  ADK's executor hands request metadata to the served run as
  `run_config.custom_metadata["a2a_metadata"]`, where `ServedRootAgent` reads it and stores the
  keys it accepts with one state-delta event before the pipeline runs.
* response: `ServedRootAgent` holds back each event of the pipeline until the next one comes,
  and puts the keys it returns, as JSON text, in the custom metadata of the last event that
  has content. ADK's executor copies an event's custom metadata into the A2A task's metadata
  (JSON text on 2.x, Python's repr on 1.x: both are read), and RemoteA2aAgent records the task
  on its event as `custom_metadata["a2a:response"]`, where `FluentRemoteAgent` finds the keys
  and turns them into its event's state delta.

Failures become one error event with a code (docs/errors.md) that ends the invocation, where
ADK yields an error message without a code and the pipeline carries on.
"""

from __future__ import annotations

import ast
import json
import logging
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.events import Event, EventActions
from pydantic import PrivateAttr

from adk_fluent.adk.compat import remote_a2a_agent_class
from adk_fluent.adk.custom_agents.halt import halted
from adk_fluent.adk.custom_agents.steps import failure, state_of
from adk_fluent.ir.a2a_card import A2A_1X_HINT, is_a2a_1x_card
from adk_fluent.ir.state_keys import crosses_a2a

LOGGER = logging.getLogger("adk_fluent.remote")

REQUEST_KEY = "adk_fluent"  # in the A2A request's metadata: {"state": {...}}
RESPONSE_KEY = "adk_fluent_state"  # in the served event's custom metadata: JSON text
_A2A_RESPONSE = "a2a:response"  # where RemoteA2aAgent records the A2A task it received
_TASK_METADATA_KEY = "adk_custom_metadata"  # where ADK's executor copies custom metadata

_MISSING = object()

# The error codes of a remote call (docs/errors.md).
UNREACHABLE = "REMOTE_UNREACHABLE"
CARD_INVALID = "REMOTE_CARD_INVALID"
REQUEST_FAILED = "REMOTE_REQUEST_FAILED"
TASK_FAILED = "REMOTE_TASK_FAILED"
STATE_NOT_SENDABLE = "REMOTE_STATE_NOT_SENDABLE"


def json_values(values: dict[str, Any], owner: str) -> tuple[dict[str, Any], str | None]:
    """`values` as JSON would carry them, or a message naming the first key it cannot carry."""
    for key, value in values.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError) as error:
            return {}, (
                f"'{owner}' cannot send state key '{key}' over A2A: its value "
                f"({type(value).__name__}) is not JSON ({error}). Fix: store plain JSON "
                "values (str, int, float, bool, None, lists, dicts) under keys that cross."
            )
    return json.loads(json.dumps(values)), None


def _decode_mapping(text: Any) -> dict[str, Any] | None:
    """A dict written by ADK's executor: already a dict, JSON text (2.x) or a repr (1.x)."""
    if isinstance(text, dict):
        return text
    if not isinstance(text, str):
        return None
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError, TypeError):
            continue
        if isinstance(value, dict):
            return value
    return None


def returned_state(event: Event) -> dict[str, Any] | None:
    """The state a served adk-fluent pipeline sent back with this A2A response, if any."""
    response = (event.custom_metadata or {}).get(_A2A_RESPONSE)
    if not isinstance(response, dict):
        return None
    metadata = response.get("metadata") or {}
    for candidate in (metadata, *_status_metadata(response)):
        custom = _decode_mapping(candidate.get(_TASK_METADATA_KEY))
        if custom and isinstance(custom.get(RESPONSE_KEY), str):
            try:
                value = json.loads(custom[RESPONSE_KEY])
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def _status_metadata(response: dict[str, Any]) -> list[dict[str, Any]]:
    message = (response.get("status") or {}).get("message") or {}
    return [message.get("metadata") or {}]


def _task_failed(event: Event) -> str | None:
    """The peer's own error, when the A2A task it answered with failed: its state is `failed`,
    or the status message carries the served pipeline's error code (some releases, 2.4.0 seen,
    hand the client the task while its state still says `working`)."""
    response = (event.custom_metadata or {}).get(_A2A_RESPONSE)
    if not isinstance(response, dict):
        return None
    status = response.get("status") or {}
    message = status.get("message") or {}
    state = status.get("state", "")
    # ADK records the task as a python dump: the state is a2a-sdk's TaskState (a str enum
    # whose str() is "TaskState.failed"), or its JSON value after a reload from a database.
    failed = str(getattr(state, "value", state)).lower() in ("failed", "task_state_failed")
    code = (message.get("metadata") or {}).get("adk_error_code") or (
        response.get("metadata") or {}
    ).get("adk_error_code")
    if not failed and not code:
        return None
    texts = [
        part.get("text", "") for part in (message.get("parts") or []) if isinstance(part, dict)
    ]
    detail = " ".join(t for t in texts if t) or "no message"
    return f"{code}: {detail}" if code else detail


async def diagnose_card(source: str, timeout: float) -> tuple[str, str]:
    """Why the agent card at `source` could not be used: (code, message). Asked only after
    ADK failed to initialise the client, whose own message carries no code."""
    import httpx

    if not source.startswith(("http://", "https://")):
        try:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as error:
            return CARD_INVALID, f"the agent card file {source!r} cannot be read ({error})"
        return CARD_INVALID, _card_problem(source, text)
    try:
        async with httpx.AsyncClient(timeout=min(timeout, 10.0)) as client:
            response = await client.get(source)
    except httpx.HTTPError as error:
        return UNREACHABLE, (
            f"no A2A peer answers at {source} ({type(error).__name__}: {error or 'no reply'}); "
            "is the remote agent's server running and is the URL right?"
        )
    if response.status_code != 200:
        return UNREACHABLE, (
            f"{source} answered HTTP {response.status_code} instead of an agent card; "
            "check the URL (ADK serves cards at <base>/.well-known/agent-card.json)"
        )
    return CARD_INVALID, _card_problem(source, response.text)


def _card_problem(source: str, text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return f"the agent card at {source} is not JSON"
    from a2a.types import AgentCard

    try:
        AgentCard.model_validate(data)
    except Exception as error:  # noqa: BLE001 - pydantic's message is the diagnosis
        problem = str(error).splitlines()[0]
    else:
        return f"the agent card at {source} was read, but ADK could not use it"
    if is_a2a_1x_card(data):
        return f"the agent card at {source}: {A2A_1X_HINT}"
    return f"the agent card at {source} is not a valid A2A card ({problem})"


class FluentRemoteAgent(remote_a2a_agent_class()):  # type: ignore[misc]
    """ADK's RemoteA2aAgent with declared state crossing both ways and coded failures."""

    def __init__(
        self,
        *,
        sends: tuple[str, ...] = (),
        receives: tuple[str, ...] = (),
        card_source: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(a2a_request_meta_provider=self._request_metadata, **kwargs)
        self._sends = sends
        self._receives = frozenset(receives)
        self._card_source = card_source
        self._timeout_seconds = float(kwargs.get("timeout", 600.0))

    _sends: tuple[str, ...] = PrivateAttr(())
    _receives: frozenset[str] = PrivateAttr(frozenset())
    _card_source: str = PrivateAttr("")
    _timeout_seconds: float = PrivateAttr(600.0)

    def _request_metadata(self, ctx: Any, message: Any) -> dict[str, Any]:
        state = state_of(ctx)  # _run_async_impl checked these are JSON before the call
        return {REQUEST_KEY: {"state": {key: state[key] for key in self._sends if key in state}}}

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        state = state_of(ctx)
        _, problem = json_values({k: state[k] for k in self._sends if k in state}, self.name)
        if problem is not None:
            yield failure(ctx, self.name, STATE_NOT_SENDABLE, problem)
            return
        applied: dict[str, Any] = {}  # what the events so far brought back
        async for event in super()._run_async_impl(ctx):
            if event.error_message and not event.error_code:
                yield await self._failure(ctx, event.error_message)
                return
            reason = _task_failed(event)
            if reason is not None:
                yield failure(
                    ctx, self.name, TASK_FAILED, f"remote agent '{self.name}' failed: {reason}"
                )
                return
            values = returned_state(event)
            if values is not None:
                # a streamed task repeats what it carried: only changes make a delta
                delta = {
                    k: v
                    for k, v in values.items()
                    if k in self._receives and applied.get(k, _MISSING) != v
                }
                applied.update(delta)
                ignored = sorted(set(values) - self._receives)
                if ignored:
                    LOGGER.warning(
                        "remote agent '%s' sent back undeclared keys %s; they were not stored "
                        "(declare them with RemoteAgent(..., receives=[...]))",
                        self.name,
                        ignored,
                    )
                event.actions = event.actions or EventActions()
                event.actions.state_delta.update(delta)
            yield event
            if halted(ctx):
                return

    async def _failure(self, ctx: Any, message: str) -> Event:
        if "initialize remote A2A agent" in message and self._card_source:
            code, why = await diagnose_card(self._card_source, self._timeout_seconds)
        elif "initialize remote A2A agent" in message:
            code, why = CARD_INVALID, message
        elif any(
            hint in message for hint in ("ConnectError", "Connection refused", "connect", "503")
        ):
            code, why = UNREACHABLE, message
        else:
            code, why = REQUEST_FAILED, message
        return failure(ctx, self.name, code, f"remote agent '{self.name}': {why}")


class ServedRootAgent(BaseAgent):
    """The root of an App served over A2A: stores the keys a caller sent (those it `accepts`),
    runs the pipeline, and sends back the keys it `returns`.

    Every reply (a stored event with content) carries the returned keys as they stand after it;
    the A2A task keeps the last reply's. Holding a reply back until the next one would delay
    its state delta while the pipeline goes on, so nothing is held. When state steps after the
    last reply change a returned key, the last reply is sent once more with the final values,
    as a partial event: ADK stores no partial event, so the served session's history stays as
    the pipeline wrote it, and the A2A task's result is still the last reply."""

    accepts: tuple[str, ...] = ()
    returns: tuple[str, ...] = ()
    # some step reads keys the checker cannot name (a function step, a guard, a tap): every key
    # a caller chose to send is then stored, except those that never cross (crosses_a2a)
    accept_any: bool = False

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        incoming = _incoming_state(ctx)
        accepted = {
            k: v
            for k, v in incoming.items()
            if k in self.accepts or (self.accept_any and crosses_a2a(k))
        }
        refused = sorted(set(incoming) - set(accepted))
        if refused:
            LOGGER.warning(
                "served pipeline '%s' ignored state keys it does not read: %s", self.name, refused
            )
        if accepted:
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                branch=ctx.branch,
                actions=EventActions(state_delta=accepted),
            )
        sent: str | None = None  # the returned values the last reply carried
        last: Event | None = None  # the last reply
        async for event in self.sub_agents[0].run_async(ctx):
            if event.content and event.content.parts and not event.partial:
                after = {**state_of(ctx), **(event.actions.state_delta or {})}
                sent = self._returned(after)
                if sent is not None:
                    event.custom_metadata = {**(event.custom_metadata or {}), RESPONSE_KEY: sent}
                last = event
            yield event
        if last is None or halted(ctx):
            return
        final = self._returned(state_of(ctx))
        if final is not None and final != sent:
            yield Event(
                author=last.author,
                invocation_id=ctx.invocation_id,
                branch=last.branch,
                content=last.content.model_copy(deep=True) if last.content else None,
                partial=True,
                custom_metadata={RESPONSE_KEY: final},
            )

    def _returned(self, state: dict[str, Any]) -> str | None:
        values, problem = json_values({k: state[k] for k in self.returns if k in state}, self.name)
        if problem is not None:
            LOGGER.error("%s; the caller receives no state", problem)
            return None
        return json.dumps(values, sort_keys=True)


def _incoming_state(ctx: Any) -> dict[str, Any]:
    run_config = getattr(ctx, "run_config", None)
    custom = getattr(run_config, "custom_metadata", None) or {}
    request = (custom.get("a2a_metadata") or {}).get(REQUEST_KEY) or {}
    state = request.get("state") if isinstance(request, dict) else None
    return dict(state) if isinstance(state, dict) else {}
