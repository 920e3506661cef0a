"""VisibilityPlugin: annotates every event with visibility and depth; in filtered mode keeps
internal agents' text from the client without losing it.

Why not just strip content in `on_event_callback`? Because ADK changed, inside 1.x, when that
callback runs (docs/visibility.md; decided by the probe `adk.compat.plugin_edits_are_stored`):

* store-then-plugin (1.25 .. 1.30; docs/compatibility.md has the exact releases): the Runner stores the event, then calls the plugin; a
  stripped copy hides the text from the client while the store keeps the original.
* plugin-then-store (1.31+ and 2.x): the plugin runs first and its result is what is stored AND
  streamed; a stripped event would be stripped in the store too.

So the mechanism is:

1. Annotations are put on model responses in `after_model_callback`, before ADK turns them into
   events, so the stored event carries them on every release (a reloaded history can be
   filtered exactly as the live stream was). `on_event_callback` annotates every other event;
   on store-then-plugin releases that is too late for the store, so the plugin also keeps the
   annotations of the agent running now in the invocation's run metadata
   (`RunConfig.custom_metadata`, which ADK copies onto every event before storing it, the
   event's own keys first): tool results and adk-fluent's own steps are stored annotated too.
2. adk-fluent's own `run` / `stream` filter on the client side, after the Runner has stored the
   event whole: the engine builds its App with an annotate-only plugin.
3. A plain Runner (adk web, api_server), store-then-plugin: the plugin returns a stripped copy.
4. A plain Runner, plugin-then-store: the plugin keeps the content where no client receives it
   and leaves in the event only where: `custom_metadata["adk_fluent.hidden_ref"]`. That is a
   session artifact (ADK's artifact service: never streamed; the event's `artifact_delta` is
   left alone so no UI renders it) when the Runner's artifact store lasts as long as its session
   store; otherwise (no artifact service, artifacts in memory beside a database, a failed save)
   a companion session in the session store itself (artifact_content.companion_app), which
   lasts exactly as long as the session. Before each agent runs the plugin puts the text back
   into the in-memory session the agent's request is built from, so later agents' model
   requests are what they would be without filtering, after a restart too.
   `restore_content()` gives the full event back.

Error events, tool confirmation and auth requests, tool calls and responses, and every
state / artifact delta always reach the client.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from typing import Any

from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent.adk import resources
from adk_fluent.adk.artifact_content import (
    artifacts_last_as_long,
    companion_app,
    companion_contents,
    content_as_part,
    content_from_part,
    keep_in_companion,
)
from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import invocation_of, plugin_edits_are_stored
from adk_fluent.adk.event_visibility import (
    AGENT_STATES,
    HIDDEN_CONTENT,
    HIDDEN_REF,
    PARENT_CALL,
    TOOL_CALL,
    VISIBILITY,
    SubRunEvent,
    client_content,
    has_hidden_content,
    hidden_artifact_name,
    should_hide,
    visibility_metadata,
)
from adk_fluent.analysis.visibility import NodeVisibility
from adk_fluent.errors import AdkFluentError

logger = logging.getLogger("adk_fluent.visibility")
_CACHED_CONTENTS = 1024  # hidden texts kept in memory, so each turn does not reload them all
_TRACKED_RUNS = 256  # invocations whose running agents are tracked (one that never ends goes)
_KEYS = frozenset(visibility_metadata(NodeVisibility("user", 0, "")))  # the annotation keys


async def restore_content(
    event: Any, *, artifact_service: Any = None, session: Any = None, session_service: Any = None
) -> Any:
    """The event with the content filtered mode set aside put back (unchanged otherwise).

    For replays and audits of a session stored through a plain Runner on an ADK that stores what
    plugins return. The stored `session` the event belongs to is needed, with the Runner's
    `artifact_service` for text kept in an artifact, or its `session_service` for text kept in a
    companion session. Text an older adk-fluent kept in the event's metadata needs neither.
    """
    if not has_hidden_content(event):
        return event
    from google.genai import types

    metadata = event.custom_metadata or {}
    hidden = metadata.get(HIDDEN_CONTENT)
    if hidden is not None:
        return event.model_copy(update={"content": types.Content.model_validate(hidden)})
    ref = metadata[HIDDEN_REF]
    if "artifact" not in ref:
        return await _from_companion(event, ref, session, session_service)
    if artifact_service is None or session is None:
        raise AdkFluentError(
            f"event {event.id} by '{event.author}': its text is in artifact {ref['artifact']!r}."
            "\n  hint: await restore_content(event, artifact_service=runner.artifact_service, "
            "session=session)."
        )
    part = await artifact_service.load_artifact(
        app_name=session.app_name,
        user_id=session.user_id,
        session_id=session.id,
        filename=ref["artifact"],
        version=ref.get("version"),
    )
    if part is None:
        raise AdkFluentError(
            f"event {event.id} by '{event.author}': artifact {ref['artifact']!r} "
            f"(version {ref.get('version')}) is not in this artifact service."
            "\n  hint: pass the artifact service the Runner that stored the session used."
        )
    return event.model_copy(update={"content": content_from_part(part)})


async def _from_companion(event: Any, ref: dict[str, Any], session: Any, service: Any) -> Any:
    if service is None or session is None:
        raise AdkFluentError(
            f"event {event.id} by '{event.author}': its text is in the session store, in "
            f"app {ref.get('session')!r}."
            "\n  hint: await restore_content(event, session_service=runner.session_service, "
            "session=session)."
        )
    contents = await companion_contents(service, session.app_name, session.user_id, session.id)
    content = contents.get(event.id)
    if content is None:
        raise AdkFluentError(
            f"event {event.id} by '{event.author}': its text is not in app "
            f"{ref.get('session')!r} of this session service."
            "\n  hint: pass the session service the Runner that stored the session used."
        )
    return event.model_copy(update={"content": content})


class VisibilityPlugin(BasePlugin):
    """Annotates events with `adk_fluent.visibility`, `.is_user_facing`, `.depth`, `.path`."""

    def __init__(
        self, table: dict[str, NodeVisibility], mode: str = "annotated", *, filters: bool = True
    ) -> None:
        super().__init__(name="adk_fluent_visibility")
        self.table = table
        self.mode = mode
        # False when the caller filters what it streams itself (adk-fluent's engine): then
        # the plugin only annotates, and the store keeps every event whole on every ADK.
        self.filters = filters and mode == "filtered"
        self._contents: OrderedDict[tuple[str, ...], Any] = OrderedDict()
        # store-then-plugin releases: per invocation, how many runs of each agent are under
        # way (see _running)
        self._runs: OrderedDict[str, dict[str, list[tuple[Any, Any]]]] = OrderedDict()
        # agent name -> whether events of others may come while it runs and none of its
        # sub-agents does (a composite's; an LLM agent's own events are its own: see _running)
        self._composites: dict[str, bool] = {}
        self._parents: dict[str, str | None] = {}  # agent name -> its parent's
        self._annotations: dict[str, dict[str, Any]] = {}  # author -> its annotations, made once
        # the running agents' names -> the annotations their events share (see _running)
        self._shared: OrderedDict[frozenset[str], dict[str, Any]] = OrderedDict()

    def info(self, author: str) -> NodeVisibility:
        # Authors we did not compile (the user, a custom agent) are treated as user-facing.
        return self.table.get(author) or NodeVisibility("user", 0, author)

    def _annotated(self, author: str) -> dict[str, Any]:
        """The author's annotations (shared: callers copy them into a dict of their own)."""
        annotations = self._annotations.get(author)
        if annotations is None:
            annotations = self._annotations[author] = visibility_metadata(self.info(author))
        return annotations

    # -- annotations ------------------------------------------------------------------------

    async def before_run_callback(self, *, invocation_context: Any) -> None:
        if plugin_edits_are_stored():
            return None  # what on_event_callback returns is stored: nothing more to do
        from google.adk.agents.run_config import RunConfig

        # A run config of the invocation's own: the annotations written into it below must
        # never reach a RunConfig the caller shares between runs or sessions.
        run_config = invocation_context.run_config or RunConfig()
        invocation_context.run_config = run_config.model_copy(
            update={"custom_metadata": dict(run_config.custom_metadata or {})}
        )
        return None

    def _running(self, ctx: Any, agent: Any, starts: bool) -> None:
        """On store-then-plugin releases: ADK copies the run metadata onto each event it stores
        (the event's own keys first), so the plugin keeps there the annotations of the agent
        whose events come now: events no model response built (tool results, adk-fluent's own
        steps, agent state) are then stored annotated too.

        "The agent whose events come now" is the one running agent none of whose sub-agents
        runs. Where several run at once (a FanOut's branches), only the annotations they share
        are kept (no path); where that agent is a composite whose children have ended (a race
        committing its winner's events), none: a wrong annotation would be worse than none."""
        if ctx is None or plugin_edits_are_stored() or ctx.run_config is None:
            return
        running = self._runs.get(ctx.invocation_id)
        if running is None:
            running = {}
            remember(self._runs, ctx.invocation_id, running, _TRACKED_RUNS)
        task = asyncio.current_task()
        branch = getattr(ctx, "branch", None)
        if starts:
            # An agent that ended without its after_agent (cancelled by a timeout or a race,
            # or ended by a failed step) is not running: its task is done, or the agent now
            # starting runs after it in the same task and branch without descending from it.
            for name, runs in running.items():
                if (task, branch) in runs and not self._descends(agent.name, name):
                    runs[:] = [r for r in runs if r != (task, branch)]
            running.setdefault(agent.name, []).append((task, branch))
        else:
            runs = running.get(agent.name, [])
            if (task, branch) in runs:
                runs.remove((task, branch))
            elif runs:
                runs.pop()
        alive = frozenset(
            name
            for name, runs in running.items()
            if any(t is None or not t.done() for t, _ in runs)
        )
        shared = self._shared.get(alive)
        if shared is None:
            shared = self._shared_annotations(alive)
            remember(self._shared, alive, shared, _TRACKED_RUNS)
        metadata = ctx.run_config.custom_metadata
        if metadata and not metadata.keys() <= _KEYS:  # the caller's own run metadata stays
            shared = {**{k: v for k, v in metadata.items() if k not in _KEYS}, **shared}
        ctx.run_config.custom_metadata = dict(shared)

    def _shared_annotations(self, alive: frozenset[str]) -> dict[str, Any]:
        """The annotations the events of the running agents `alive` get (see `_running`)."""
        busy = {self._parents.get(name) for name in alive}
        leaves = [name for name in alive if name not in busy]
        if not leaves or any(self._composites.get(name) for name in leaves):
            return {}
        annotations = [self._annotated(name) for name in leaves]
        return {
            key: value
            for key, value in annotations[0].items()
            if all(other.get(key) == value for other in annotations[1:])
        }

    def _descends(self, name: str, ancestor: str) -> bool:
        parent = self._parents.get(name)
        while parent is not None:
            if parent == ancestor:
                return True
            parent = self._parents.get(parent)
        return False

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        if agent.name not in self._composites:
            from google.adk.agents import LlmAgent

            # an LLM agent with delegates authors its own events (a transfer's call and
            # result) while none of them runs; each delegate runs as an agent of its own
            self._composites[agent.name] = bool(getattr(agent, "sub_agents", None)) and (
                not isinstance(agent, LlmAgent)
            )
            parent = getattr(agent, "parent_agent", None)
            self._parents[agent.name] = parent.name if parent is not None else None
        ctx = invocation_of(callback_context)
        self._running(ctx, agent, starts=True)
        self._note("started", agent.name, callback_context, ctx)
        if not self.filters or not plugin_edits_are_stored():
            return None
        events = callback_context.session.events
        for index, event in enumerate(events):
            if has_hidden_content(event):
                # In memory only: the agent's request is built from this list; nothing is written.
                events[index] = await self._restored(event, callback_context)
        return None

    async def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        self._running(invocation_of(callback_context), agent, starts=False)
        self._note("ended", agent.name, callback_context)
        return None

    def _note(self, state: str, name: str, callback_context: Any, ctx: Any = None) -> None:
        """An agent's start or end, for a client of adk-fluent's engine that asked for them
        (`AgentStates.lifecycle`): once per agent run, nothing per event. An agent of an agent
        tool's run is noted with the call that started it, in the turn's invocation."""
        states = AGENT_STATES.get()
        if states is not None and states.open and states.lifecycle:
            if ctx is not None and ctx.end_invocation:
                return  # halted (HaltPlugin): ADK stops the agent before it runs
            annotations = self._annotated(name)
            invocation = callback_context.invocation_id
            call = TOOL_CALL.get()
            if call is not None:
                annotations = {**annotations, PARENT_CALL: call[0]}
                invocation = call[1]
            states.notes.append((state, name, annotations, invocation, time.time()))
            if call is not None and states.wake is not None:
                states.wake()

    # -- agent tools' runs, for a turn of adk-fluent's engine --------------------------------

    async def before_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any) -> None:
        """An agent tool called during an engine's turn: its run's events will be the turn's
        too, marked with this call. ADK runs each call (this callback, the tool's Runner and
        the after-tool callbacks) in a copy of the context, on every release: the value set
        here never reaches the calling agent's own events (a behaviour test holds ADK to it)."""
        if AGENT_STATES.get() is None:
            return None  # a plain Runner: ADK streams none of a tool's events to its client
        from google.adk.tools.agent_tool import AgentTool

        if isinstance(tool, AgentTool):
            outer = TOOL_CALL.get()
            turn = outer[1] if outer is not None else tool_context.invocation_id
            TOOL_CALL.set((tool_context.function_call_id or "", turn))
        return None

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        self._runs.pop(invocation_context.invocation_id, None)
        if resources.holding_invocations():  # per_invocation resources of this run
            await resources.end_invocations((invocation_context.invocation_id,))
        return None

    async def on_run_error_callback(self, *, invocation_context: Any, error: Any) -> None:
        # ADK releases that notify a failed run (2.x) let its per_invocation resources go too
        self._runs.pop(invocation_context.invocation_id, None)
        if resources.holding_invocations():
            await resources.end_invocations((invocation_context.invocation_id,))
        return None

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        # Set on the response, the annotations are in the event ADK builds from it, before it
        # is stored: on store-then-plugin releases on_event_callback comes too late for that.
        annotations = self._annotated(callback_context.agent_name)
        llm_response.custom_metadata = {**(llm_response.custom_metadata or {}), **annotations}
        return None  # in place: later plugins and the agent's own callbacks still run

    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
        annotations = self._annotated(event.author)
        call = TOOL_CALL.get()
        if call is not None and not event.partial:
            # an event of an agent tool's run: the engine's turn passes it on (the tool's run
            # is unary: ADK runs it without streaming, so a partial chunk is not expected)
            states = AGENT_STATES.get()
            if states is not None and states.open:
                metadata = {**(event.custom_metadata or {}), **annotations, PARENT_CALL: call[0]}
                states.notes.append(SubRunEvent(event, metadata, call[1]))
                if states.wake is not None:
                    states.wake()
        existing = event.custom_metadata
        # inside an agent tool's sub-run (include_plugins) the tool's answer is read from these
        # events: never filter there (a plain Runner streams none of them to its client; the
        # engine's turn, noted above, filters what it passes on itself)
        hides = (
            self.filters
            and not self.info(event.author).in_tool
            and should_hide(event, annotations[VISIBILITY], self.mode)
        )
        if not hides and existing and all(existing.get(k) == v for k, v in annotations.items()):
            return None  # annotated already (a model reply, in after_model_callback): no copy
        metadata = {**(existing or {}), **annotations}
        update: dict[str, Any] = {"custom_metadata": metadata}
        if hides:
            # Partial chunks are never stored: dropping their text loses nothing.
            if not event.partial and plugin_edits_are_stored():
                metadata[HIDDEN_REF] = await self._set_aside(invocation_context, event)
            update["content"] = client_content(event)  # tool calls beside the text stay
        return event.model_copy(update=update)

    # -- hidden text ------------------------------------------------------------------------

    async def _set_aside(self, ctx: Any, event: Any) -> dict[str, Any]:
        """Keep the event's content where no client receives it and where it lasts as long as
        the session; the reference the stored event keeps instead."""
        artifacts = getattr(ctx, "artifact_service", None)
        sessions = ctx.session_service
        if artifacts is not None and artifacts_last_as_long(artifacts, sessions):
            filename = hidden_artifact_name(event.id)
            try:
                version = await artifacts.save_artifact(
                    app_name=ctx.app_name,
                    user_id=ctx.user_id,
                    session_id=ctx.session.id,
                    filename=filename,
                    artifact=content_as_part(event.content),
                )
            except Exception:  # never lose the text: the session store keeps it instead
                logger.exception(
                    "adk-fluent filtered mode: saving the text of '%s' as artifact %s failed; "
                    "the session store keeps it instead (app %r).",
                    event.author,
                    filename,
                    companion_app(ctx.app_name),
                )
            else:
                key = (ctx.app_name, ctx.user_id, ctx.session.id, filename, str(version))
                self._remember(key, event.content)
                return {"artifact": filename, "version": version}
        try:
            await keep_in_companion(sessions, ctx.session, event)
        except Exception as failure:
            # Neither store took the text: storing the event without it would lose it and
            # sending it would leak it, so the run stops here with the reason.
            raise AdkFluentError(
                f"filtered mode: the text of '{event.author}' could be kept neither in the "
                f"artifact service nor in the session store ({failure!r})."
                "\n  hint: give the Runner a durable artifact service (adk api_server / adk "
                "web: --artifact_service_uri file://<dir> or gs://<bucket>)."
            ) from failure
        self._remember((ctx.app_name, ctx.user_id, ctx.session.id, event.id), event.content)
        return {"session": companion_app(ctx.app_name)}

    def _remember(self, key: tuple[str, ...], content: Any) -> None:
        self._contents[key] = content
        self._contents.move_to_end(key)
        if len(self._contents) > _CACHED_CONTENTS:
            self._contents.popitem(last=False)

    async def _restored(self, event: Any, callback_context: Any) -> Any:
        metadata = event.custom_metadata or {}
        ref = metadata.get(HIDDEN_REF)
        if ref is None:  # kept in metadata by an older adk-fluent
            return await restore_content(event)
        session = callback_context.session
        where = (session.app_name, session.user_id, session.id)
        if "artifact" in ref:
            key: tuple[str, ...] = (*where, ref["artifact"], str(ref["version"]))
        else:
            key = (*where, event.id)
        content = self._contents.get(key)
        if content is not None:
            self._contents.move_to_end(key)
            return event.model_copy(update={"content": content})
        if "artifact" in ref:
            part = await callback_context.load_artifact(ref["artifact"], ref.get("version"))
            content = content_from_part(part) if part is not None else None
        else:
            # one read of the companion session brings back every text it keeps
            ctx = invocation_of(callback_context)
            kept = await companion_contents(ctx.session_service, *where)
            for event_id, text in kept.items():
                self._remember((*where, event_id), text)
            content = kept.get(event.id)
        if content is None:
            logger.warning(
                "adk-fluent filtered mode: the text of '%s' (%s) is missing; later agents "
                "will not see it.",
                event.author,
                ref,
            )
            return event
        self._remember(key, content)
        return event.model_copy(update={"content": content})
