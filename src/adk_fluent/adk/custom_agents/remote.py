"""The two ends of an A2A call that carries state, on ADK's own A2A agents.

ADK sends neither the caller's session state to an A2A peer nor the peer's state changes back
(#6854: 2.x logs "Ignoring a session state delta from a remote A2A peer"). adk-fluent carries
exactly the declared keys, in channels every supported release passes through untouched:

* request: the keys a RemoteAgent sends ride in the A2A request's metadata, with the keys it
  wants back (`{"adk_fluent": {"state": {...}, "receives": [...]}}`, through RemoteA2aAgent's
  `a2a_request_meta_provider`); ADK's executor hands request metadata to the served run as
  `run_config.custom_metadata["a2a_metadata"]`, where `ServedRootAgent` reads it and stores the
  keys it accepts with one state-delta event before the pipeline runs.
* response: `ServedRootAgent` puts the keys the caller asked for (those its card lists as
  writes), as JSON text, in the custom metadata of each reply. ADK's executor copies an event's
  custom metadata into the A2A task's metadata (JSON text on 2.x, Python's repr on 1.x: both
  are read), and RemoteA2aAgent records the task on its event as
  `custom_metadata["a2a:response"]`, where `FluentRemoteAgent` finds the keys and turns them
  into its event's state delta.
* nothing else: the served app's event converter (`served_executor_config`) strips what ADK
  would copy from every event into the response (its state and artifact deltas, its custom
  metadata: the request echoed back, visibility records, an internal agent's hidden text), and
  the caller strips the recorded response of whatever an older or foreign peer still sent.

A served app streams (`message/stream` runs the pipeline with SSE, so partial replies reach the
client as working status updates) and can be cancelled (`tasks/cancel`) on every release.
Failures become one error event with a code (docs/errors.md) that ends the invocation, where
ADK yields an error message without a code and the pipeline carries on; a `retry=` policy calls
again first when the failure may pass.
"""

from __future__ import annotations

import ast
import inspect
import json
import logging
import re
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.events import Event, EventActions
from pydantic import PrivateAttr

from adk_fluent.adk.compat import remote_a2a_agent_class, to_a2a_takes_executor_factory
from adk_fluent.adk.custom_agents.halt import halted
from adk_fluent.adk.custom_agents.steps import (
    STATE_NOT_SENDABLE,
    failure,
    json_values,
    state_of,
)
from adk_fluent.errors import BuildError
from adk_fluent.ir.a2a_card import A2A_1X_HINT, REQUEST_KEY, is_a2a_1x_card
from adk_fluent.ir.state_keys import crosses_a2a

LOGGER = logging.getLogger("adk_fluent.remote")

RESPONSE_KEY = "adk_fluent_state"  # in the served event's custom metadata: JSON text
_A2A_RESPONSE = "a2a:response"  # where RemoteA2aAgent records the A2A task it received
_A2A_STATUS_CODE = "a2a:status_code"  # where it records the HTTP status of a failed request
_TASK_METADATA_KEY = "adk_custom_metadata"  # where ADK's executor copies custom metadata
_ACTIONS_KEY = "adk_actions"  # where it copies the event's actions (its state delta among them)

_MISSING = object()

# The error codes of a remote call (docs/errors.md).
UNREACHABLE = "REMOTE_UNREACHABLE"
UNAUTHORIZED = "REMOTE_UNAUTHORIZED"
CARD_INVALID = "REMOTE_CARD_INVALID"
REQUEST_FAILED = "REMOTE_REQUEST_FAILED"
TASK_FAILED = "REMOTE_TASK_FAILED"

# HTTP answers that say "not now" rather than "no": a retry policy calls again after them.
_REFUSED = frozenset({401, 403})
_PASSING = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class CallFailure:
    """Why a remote call failed: its code, the message, and whether calling again may help."""

    code: str
    message: str
    transient: bool = False


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
    message = (response.get("status") or {}).get("message") or {}
    for candidate in (response.get("metadata") or {}, message.get("metadata") or {}):
        custom = _decode_mapping(candidate.get(_TASK_METADATA_KEY))
        if custom and isinstance(custom.get(RESPONSE_KEY), str):
            try:
                value = json.loads(custom[RESPONSE_KEY])
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def declared_metadata(metadata: Any, receives: frozenset[str] | None = None) -> Any:
    """A2A metadata with nothing of the served run but what crosses: without the event's
    actions (its state and artifact deltas) and with its custom metadata cut down to the
    returned state, itself cut down to `receives` when given. Other entries (the served
    session's ids, the author, usage) stay."""
    if not isinstance(metadata, dict):
        return metadata
    kept = {k: v for k, v in metadata.items() if k not in (_ACTIONS_KEY, _TASK_METADATA_KEY)}
    custom = _decode_mapping(metadata.get(_TASK_METADATA_KEY))
    returned = custom.get(RESPONSE_KEY) if custom else None
    if isinstance(returned, str):
        if receives is not None:
            try:
                values = json.loads(returned)
            except ValueError:
                values = {}
            values = values if isinstance(values, dict) else {}
            returned = json.dumps({k: v for k, v in values.items() if k in receives})
        kept[_TASK_METADATA_KEY] = json.dumps({RESPONSE_KEY: returned})
    return kept


def _declared_response(response: Any, receives: frozenset[str]) -> Any:
    """A recorded A2A task (or message), as a dict, holding no metadata but what crosses."""

    def declared(item: Any) -> Any:
        if not isinstance(item, dict) or "metadata" not in item:
            return item
        return {**item, "metadata": declared_metadata(item["metadata"], receives)}

    if not isinstance(response, dict):
        return response
    kept = dict(declared(response))
    status = kept.get("status")
    if isinstance(status, dict) and isinstance(status.get("message"), dict):
        kept["status"] = {**status, "message": declared(status["message"])}
    for field in ("history", "artifacts"):
        if isinstance(kept.get(field), list):
            kept[field] = [declared(item) for item in kept[field]]
    return kept


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


async def diagnose_card(source: str, timeout: float, client: Any = None) -> CallFailure:
    """Why the agent card at `source` could not be used. Asked only after ADK failed to
    initialise the client, whose own message carries no code; `client` is the httpx client
    the agent calls with (its headers carry the credentials), else a fresh one is used."""
    import httpx

    if not source.startswith(("http://", "https://")):
        try:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as error:
            return CallFailure(
                CARD_INVALID, f"the agent card file {source!r} cannot be read ({error})"
            )
        return CallFailure(CARD_INVALID, _card_problem(source, text))
    try:
        if client is not None:
            response = await client.get(source)
        else:
            async with httpx.AsyncClient(timeout=min(timeout, 10.0)) as fresh:
                response = await fresh.get(source)
    except httpx.HTTPError as error:
        return CallFailure(
            UNREACHABLE,
            f"no A2A peer answers at {source} ({type(error).__name__}: {error or 'no reply'}); "
            "is the remote agent's server running and is the URL right?",
            transient=True,
        )
    status = response.status_code
    if status in _REFUSED:
        return CallFailure(UNAUTHORIZED, _refused(source, status))
    if status != 200:
        return CallFailure(
            UNREACHABLE,
            f"{source} answered HTTP {status} instead of an agent card; check the URL (ADK "
            "serves cards at <base>/.well-known/agent-card.json)",
            transient=status in _PASSING,
        )
    return CallFailure(CARD_INVALID, _card_problem(source, response.text))


def _refused(where: str, status: int) -> str:
    return (
        f"{where} refused the call (HTTP {status}): the peer needs credentials this agent did "
        "not send, or refused them; give RemoteAgent(..., bearer_token=...) or headers={...}"
    )


def request_failure(message: str, status: int | None) -> CallFailure:
    """What a failed A2A request (ADK's error message, the HTTP status when it recorded one)
    means: refused, unreachable (for now), or failed."""
    if status is None:
        found = re.search(r"HTTP Error (\d{3})", message)
        status = int(found.group(1)) if found else None
    if status in _REFUSED:
        return CallFailure(UNAUTHORIZED, _refused("the peer", status) + f" ({message})")
    if "timed out" in message.lower() or "timeout" in message.lower():
        # the peer may still be running the task: calling again could run it twice
        return CallFailure(REQUEST_FAILED, message)
    if status in _PASSING or any(
        hint in message for hint in ("ConnectError", "Connection refused", "connect")
    ):
        return CallFailure(UNREACHABLE, message, transient=True)
    return CallFailure(REQUEST_FAILED, message)


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


def _http_client(agent: str, connection: Any, timeout: float) -> Any:
    """The httpx client a RemoteAgent with credentials calls through (None without: ADK makes
    its own): the connection's factory's, or a new one, with its headers and `timeout`."""
    headers = dict(getattr(connection, "headers", ()) or ())
    factory = getattr(connection, "httpx_client_factory", None)
    if not headers and factory is None:
        return None
    import httpx

    client = factory() if factory is not None else httpx.AsyncClient()
    if not isinstance(client, httpx.AsyncClient):
        raise BuildError(
            f"httpx_client_factory returned {type(client).__name__}, not an httpx.AsyncClient",
            agent=agent,
            field="httpx_client_factory",
            hint="return httpx.AsyncClient(...): A2A calls are async (httpx.Client is not).",
        )
    client.timeout = httpx.Timeout(timeout)  # RemoteAgent(timeout=...) bounds every request
    client.headers.update(headers)
    return client


class FluentRemoteAgent(remote_a2a_agent_class()):  # type: ignore[misc]
    """ADK's RemoteA2aAgent with declared state crossing both ways, credentials, retries and
    coded failures."""

    def __init__(
        self,
        *,
        sends: tuple[str, ...] = (),
        receives: tuple[str, ...] = (),
        card_source: str = "",
        connection: Any = None,
        **kwargs: Any,
    ) -> None:
        timeout = float(kwargs.get("timeout", 600.0))
        client = _http_client(str(kwargs.get("name", "")), connection, timeout)
        if client is not None:  # every release's RemoteA2aAgent takes an httpx client
            kwargs["httpx_client"] = client
        super().__init__(a2a_request_meta_provider=self._request_metadata, **kwargs)
        self._sends = sends
        self._receives = frozenset(receives)
        self._card_source = card_source
        self._timeout_seconds = timeout
        self._client = client
        self._retry = getattr(connection, "retry", None)

    _sends: tuple[str, ...] = PrivateAttr(())
    _receives: frozenset[str] = PrivateAttr(frozenset())
    _card_source: str = PrivateAttr("")
    _timeout_seconds: float = PrivateAttr(600.0)
    _client: Any = PrivateAttr(None)
    _retry: Any = PrivateAttr(None)

    def _request_metadata(self, ctx: Any, message: Any) -> dict[str, Any]:
        state = state_of(ctx)  # _run_async_impl checked these are JSON before the call
        sent = {key: state[key] for key in self._sends if key in state}
        return {REQUEST_KEY: {"state": sent, "receives": sorted(self._receives)}}

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        state = state_of(ctx)
        _, problem = json_values({k: state[k] for k in self._sends if k in state}, self.name)
        if problem is not None:
            yield failure(ctx, self.name, STATE_NOT_SENDABLE, problem)
            return
        attempt = 1
        while True:
            failed: CallFailure | None = None
            answered = False  # once an event went out, calling again would repeat it
            applied: dict[str, Any] = {}  # what the events so far brought back
            async with aclosing(super()._run_async_impl(ctx)) as events:
                async for event in events:
                    if event.error_message and not event.error_code:
                        failed = await self._failure(event)
                        break
                    reason = _task_failed(event)
                    if reason is not None:
                        message = f"remote agent '{self.name}' failed: {reason}"
                        failed = CallFailure(TASK_FAILED, message)
                        break
                    self._receive(event, applied)
                    answered = True
                    yield event
                    if halted(ctx):
                        return
            if failed is None:
                return
            retry = self._retry
            if failed.transient and not answered and retry and attempt < retry.max_attempts:
                LOGGER.warning(
                    "remote agent '%s': attempt %d of %d failed (%s); calling again",
                    self.name,
                    attempt,
                    retry.max_attempts,
                    failed.code,
                )
                waited = retry.sleep(retry.delay(attempt))
                if inspect.isawaitable(waited):
                    await waited
                attempt += 1
                continue
            tried = f" (after {attempt} attempts)" if attempt > 1 else ""
            yield failure(ctx, self.name, failed.code, failed.message + tried)
            return

    def _receive(self, event: Event, applied: dict[str, Any]) -> None:
        """Turn the declared keys the peer sent back into the event's state delta, and cut the
        recorded A2A response down to them: the caller's store keeps nothing undeclared."""
        values = returned_state(event)
        custom = event.custom_metadata or {}
        if _A2A_RESPONSE in custom:
            custom[_A2A_RESPONSE] = _declared_response(custom[_A2A_RESPONSE], self._receives)
        if values is None:
            return
        # a streamed task repeats what it carried: only changes make a delta
        delta = {
            k: v for k, v in values.items() if k in self._receives and applied.get(k, _MISSING) != v
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

    async def _failure(self, event: Event) -> CallFailure:
        message = str(event.error_message)
        if "initialize remote A2A agent" in message:
            if not self._card_source:
                return CallFailure(CARD_INVALID, f"remote agent '{self.name}': {message}")
            found = await diagnose_card(self._card_source, self._timeout_seconds, self._client)
        else:
            status = str((event.custom_metadata or {}).get(_A2A_STATUS_CODE) or "")
            found = request_failure(message, int(status) if status.isdigit() else None)
        return CallFailure(
            found.code, f"remote agent '{self.name}': {found.message}", found.transient
        )


class ServedRootAgent(BaseAgent):
    """The root of an App served over A2A: stores the keys a caller sent (those it `accepts`),
    runs the pipeline, and sends back the keys the caller asked for among those it `returns`
    (a caller that asks for none gets none).

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
        request = _incoming_request(ctx)
        incoming = request.get("state")
        incoming = dict(incoming) if isinstance(incoming, dict) else {}
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
        asked = request.get("receives")
        asked = {k for k in asked if isinstance(k, str)} if isinstance(asked, list) else set()
        wanted = tuple(k for k in self.returns if k in asked)
        unknown = sorted(asked - set(self.returns))
        if unknown:
            LOGGER.warning(
                "served pipeline '%s' was asked for state keys it does not write: %s",
                self.name,
                unknown,
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
                sent = self._returned(after, wanted)
                if sent is not None:
                    event.custom_metadata = {**(event.custom_metadata or {}), RESPONSE_KEY: sent}
                last = event
            yield event
        if last is None or halted(ctx):
            return
        final = self._returned(state_of(ctx), wanted)
        if final is not None and final != sent:
            yield Event(
                author=last.author,
                invocation_id=ctx.invocation_id,
                branch=last.branch,
                content=last.content.model_copy(deep=True) if last.content else None,
                partial=True,
                custom_metadata={RESPONSE_KEY: final},
            )

    def _returned(self, state: dict[str, Any], wanted: tuple[str, ...]) -> str | None:
        if not wanted:
            return None
        values, problem = json_values({k: state[k] for k in wanted if k in state}, self.name)
        if problem is not None:
            LOGGER.error("%s; the caller receives no state", problem)
            return None
        return json.dumps(values, sort_keys=True)


def _incoming_request(ctx: Any) -> dict[str, Any]:
    """What a RemoteAgent put in the A2A request's metadata: {"state": ..., "receives": ...}."""
    run_config = getattr(ctx, "run_config", None)
    custom = getattr(run_config, "custom_metadata", None) or {}
    metadata = custom.get("a2a_metadata")
    request = metadata.get(REQUEST_KEY) if isinstance(metadata, dict) else None
    return request if isinstance(request, dict) else {}


# -- the served app ----------------------------------------------------------------------------
def _streams_when_asked(convert: Callable[..., Any]) -> Callable[..., Any]:
    """ADK's request converter, running the pipeline with SSE for `message/stream`: partial
    replies then reach the client as working status updates (a `message/send` task keeps
    none of them in its history)."""

    def converted(request: Any, *args: Any, **kwargs: Any) -> Any:
        run_request = convert(request, *args, **kwargs)
        call = getattr(request, "call_context", None)
        method = (getattr(call, "state", None) or {}).get("method")
        if method == "message/stream" and run_request.run_config is not None:
            from google.adk.agents.run_config import StreamingMode

            run_request.run_config = run_request.run_config.model_copy(
                update={"streaming_mode": StreamingMode.SSE}
            )
        return run_request

    return converted


def _declared_events(convert: Callable[..., Any]) -> Callable[..., Any]:
    """ADK's event converter, with every A2A event's metadata cut down to what crosses, and
    without the empty status updates ADK 2.x's newer executor makes of events that only change
    state (they would carry nothing but the name of the step, which may name the key)."""

    def converted(*args: Any, **kwargs: Any) -> Any:
        events = [e for e in convert(*args, **kwargs) if not _says_nothing(e)]
        for a2a_event in events:
            _declare(a2a_event)
        return events

    return converted


def _says_nothing(a2a_event: Any) -> bool:
    status = getattr(a2a_event, "status", None)
    message = getattr(status, "message", None)
    return (
        status is not None
        and not getattr(a2a_event, "final", False)
        and message is not None
        and not getattr(message, "parts", None)
        and str(getattr(status.state, "value", status.state)) == "working"
    )


def _declare(a2a_event: Any) -> None:
    holders = [a2a_event, getattr(a2a_event, "artifact", None)]
    status = getattr(a2a_event, "status", None)
    holders.append(getattr(status, "message", None))
    for holder in holders:
        metadata = getattr(holder, "metadata", None)
        if isinstance(metadata, dict):
            holder.metadata = declared_metadata(metadata)


def served_executor_config() -> Any:
    """ADK's A2A executor configuration with adk-fluent's request and event converters around
    ADK's own (both executors of ADK 2.x use them: the default one and the one a client asks
    for with ADK's integration extension)."""
    from google.adk.a2a.executor.a2a_agent_executor import A2aAgentExecutorConfig

    defaults = A2aAgentExecutorConfig()
    changes: dict[str, Any] = {
        "request_converter": _streams_when_asked(defaults.request_converter),
        "event_converter": _declared_events(defaults.event_converter),
    }
    if "adk_event_converter" in type(defaults).model_fields:
        changes["adk_event_converter"] = _declared_events(defaults.adk_event_converter)
    return A2aAgentExecutorConfig(**changes)


def served_executor(runner: Any) -> Any:
    """ADK's A2A executor for a served App, with `served_executor_config` and cancellation."""
    from google.adk.a2a.executor.a2a_agent_executor import A2aAgentExecutor

    class ServedExecutor(A2aAgentExecutor):  # type: ignore[misc, valid-type]
        """Cancels on every release: ADK 1.x's executor raises NotImplementedError."""

        async def cancel(self, context: Any, event_queue: Any) -> None:
            try:
                await super().cancel(context, event_queue)
            except NotImplementedError:  # a2a-sdk's handler stops the run; say it was canceled
                from a2a.types import TaskState, TaskStatus, TaskStatusUpdateEvent

                status = TaskStatus(
                    state=TaskState.canceled, timestamp=datetime.now(UTC).isoformat()
                )
                await event_queue.enqueue_event(
                    TaskStatusUpdateEvent(
                        task_id=context.task_id,
                        context_id=context.context_id,
                        status=status,
                        final=True,
                    )
                )

    return ServedExecutor(runner=runner, config=served_executor_config())


def served_starlette(root: Any, runner: Any, card: Any, *, host: str, port: int) -> Any:
    """The Starlette app serving `runner`'s App over A2A with `card`: ADK's `to_a2a` with
    adk-fluent's executor where it takes an executor factory (ADK 2.x), else a2a-sdk's own app
    around that executor, as ADK 1.x's `to_a2a` builds it."""
    if to_a2a_takes_executor_factory():
        from google.adk.a2a.utils.agent_to_a2a import to_a2a

        return to_a2a(
            root,
            host=host,
            port=port,
            agent_card=card,
            runner=runner,
            agent_executor_factory=served_executor,
        )
    from a2a.server.apps import A2AStarletteApplication
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.tasks import InMemoryTaskStore

    handler = DefaultRequestHandler(
        agent_executor=served_executor(runner), task_store=InMemoryTaskStore()
    )
    return A2AStarletteApplication(agent_card=card, http_handler=handler).build()
