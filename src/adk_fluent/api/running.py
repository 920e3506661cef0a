"""Runnable: the execution facade every expression has (build, to_app, run, stream, ask, ...).

Each method hands the engine the expression's IR tree and BuildOptions, never the builder.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict, Unpack

from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import BuildOptions, CompileTarget, ExecutionConfig
from adk_fluent.run.engine import DEFAULT_USER, ENGINE, Backend

if TYPE_CHECKING:
    from google.adk.agents.run_config import RunConfig
    from google.adk.apps import App
    from google.adk.artifacts import BaseArtifactService
    from google.adk.auth.credential_service.base_credential_service import (
        BaseCredentialService,
    )
    from google.adk.memory import BaseMemoryService
    from google.adk.runners import Runner
    from google.adk.sessions import BaseSessionService, Session
    from google.genai.types import Content, Part

    from adk_fluent.run.events import AgentEvent
    from adk_fluent.run.live import LiveSession

    # The user's message: text, a google.genai Content, or text and Parts (images, files).
    Prompt: TypeAlias = str | Content | Sequence[str | Part]


class SessionOptions(TypedDict, total=False):
    """Where a conversation lives: `session()` and `rewind()` take these (pass the ones the
    turns ran with, which choose the store and the app name the session is under); every
    turn takes them too (`TurnOptions`).

    Attributes:
        user_id: Whose conversation: with the session id, it names the session in the store.
            Default `"user"`.
        config: App-level settings (app name, middleware, plugins, max_llm_calls, ...). The
            app name chooses the conversation; the rest changes how turns run.
        session_store: Where sessions live: None or `"memory"` (in this process), a database
            URL (`"sqlite:///sessions.db"`, `"postgresql+asyncpg://..."`), or an ADK session
            service.
        backend: Models to run on instead of the agents' own, e.g.
            `adk_fluent.testing.mock_backend({...})`; compared by identity (the in-memory store
            of a pipeline run on a backend is that backend's).
        session_service: An ADK session service to use (instead of `session_store`).
        artifact_service: ADK's artifact service for the tools and agents.
        memory_service: ADK's memory service for the tools and agents.
        credential_service: ADK's credential service for the tools.
    """

    user_id: str
    config: ExecutionConfig | None
    session_store: str | BaseSessionService | None
    backend: Backend | None
    session_service: BaseSessionService | None
    artifact_service: BaseArtifactService | None
    memory_service: BaseMemoryService | None
    credential_service: BaseCredentialService | None


class TurnOptions(SessionOptions, total=False):
    """The options of one turn: `run()`, `stream()`, `ask()` and `ask_sync()` take the same,
    `SessionOptions` and these.

    Attributes:
        session_id: The conversation to continue, or to start under this id when the store
            has none (up to 128 characters). None: a new one-turn session under a fresh id;
            pass an id of your own to continue a conversation later.
        state: State to set with this turn: a dict of state keys (`app:` / `user:` prefixes
            allowed, `temp:` not) to JSON values. It goes with the user's message, so the
            agents (and `{key}` in instructions) see it from this turn on, every store keeps
            it, and a rewind to before this turn undoes it.
        run_config: ADK's RunConfig for this turn, as it is (instead of the one built from
            `config` and `streaming`).
        streaming: `"sse"` streams the models' partial replies (`AgentEvent.is_partial`),
            `"none"` does not; None: the config's `streaming_mode`.
        lifecycle: True adds an event when each agent starts and when it ends
            (`AgentEvent.agent_state`, with the agent's depth and path), in the events
            returned or streamed only, never stored. Default False.
    """

    session_id: str | None
    state: Mapping[str, Any] | None
    run_config: RunConfig | None
    streaming: Literal["sse", "none"] | None
    lifecycle: bool


class Runnable:
    """Build and run an expression; a builder supplies `to_ir()` and `options`."""

    if TYPE_CHECKING:  # supplied by BuilderBase

        def to_ir(self) -> Node: ...

        @property
        def options(self) -> BuildOptions: ...

    def build(self, *, backend: Any = None, target: CompileTarget | None = None) -> Any:
        """Compile to the native ADK root agent (`backend=mock_backend(...)` installs scripted
        models); `target="workflow"` compiles to an ADK 2.x Workflow (docs/workflow.md)."""
        return ENGINE.build(self.to_ir(), self.options, backend, target)

    def to_app(
        self,
        config: ExecutionConfig | None = None,
        *,
        backend: Any = None,
        target: CompileTarget | None = None,
    ) -> App:
        """Compile to a native ADK `App`: visibility plugin, the config's plugins, resumability,
        compaction and run metadata applied. `target` ("classic" or "workflow") overrides the
        config's and the default (docs/workflow.md)."""
        config = _telemetry(config)
        app: App = ENGINE.to_app(self.to_ir(), self.options, config, backend, target=target)
        return app

    def to_runner(
        self,
        config: ExecutionConfig | None = None,
        *,
        target: CompileTarget | None = None,
        **services: Any,
    ) -> Runner:
        """A native ADK `Runner` for this expression (session/artifact/memory services optional)."""
        ir = self.to_ir()
        config = _telemetry(config)
        runner: Runner = ENGINE.to_runner(ir, self.options, config, target=target, **services)
        return runner

    async def run(self, prompt: Prompt, **options: Unpack[TurnOptions]) -> list[AgentEvent]:
        """Run one turn and return every event the client receives.

        A step that fails while running ends the turn with one error event, which is among
        the events returned (`event.is_error`, docs/errors.md).

        Args:
            prompt: The user's message: text, a google.genai `Content`, or a list of text
                and google.genai `Part`s (images, files).
            **options: The turn's options (`TurnOptions`: user_id, session_id, state, config,
                session_store, backend, run_config, streaming and ADK's services). A
                misspelt one raises BuildError with a did-you-mean; type checkers reject it.

        Returns:
            The turn's events in order, as AgentEvents (`.raw` is ADK's Event).

        Raises:
            BuildError: A mistake known before the turn runs (the prompt, an id, `state`, an
                option, the tree itself): nothing is stored then.
        """
        return await ENGINE.run(self.to_ir(), self.options, prompt, **_with_telemetry(options))

    def stream(self, prompt: Prompt, **options: Unpack[TurnOptions]) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding its events as they happen.

        The arguments are checked when `stream()` is called; the turn starts on the first
        iteration. `streaming="sse"` adds the models' partial replies as they are produced
        (`AgentEvent.is_partial`, docs/streaming.md). Leaving the loop early (`break`) ends
        the turn where it was. `prompt` and `**options` are `run()`'s.

        Returns:
            An async iterator of the turn's AgentEvents.

        Raises:
            BuildError: A mistake known before the turn runs (the prompt, an id, `state`, an
                option, the tree itself): nothing is stored then.
        """
        return ENGINE.stream(self.to_ir(), self.options, prompt, **_with_telemetry(options))

    async def ask(self, prompt: Prompt, **options: Unpack[TurnOptions]) -> str:
        """Run one turn and return its final reply's text. `prompt` and `**options` are
        `run()`'s.

        Returns:
            The text of the turn's last final response ("" when there is none).

        Raises:
            BuildError: A mistake known before the turn runs (the prompt, an id, `state`, an
                option, the tree itself): nothing is stored then.
            RunError: The turn ended with an error event (a failed step): its code,
                message and author.
        """
        return await ENGINE.ask(self.to_ir(), self.options, prompt, **_with_telemetry(options))

    def live(
        self,
        *,
        user_id: str = DEFAULT_USER,
        session_id: str | None = None,
        modalities: tuple[str, ...] | list[str] | str = ("TEXT",),
        config: ExecutionConfig | None = None,
        session_store: Any = None,
        backend: Any = None,
        run_config: Any = None,
        **services: Any,
    ) -> LiveSession:
        """A live (bidirectional) session over ADK's `run_live`: `async with
        pipeline.live(...) as live:` then `await live.send(text)`, `live.send_audio(pcm)`,
        `live.activity_start()` / `activity_end()`, and iterate the events (or
        `live.until_turn_complete()`). `modalities` is what the model answers in ("TEXT",
        "AUDIO"); `run_config` replaces the RunConfig built from it (docs/live.md).

        Raises:
            BuildError: the tree has a step that cannot run live (named), or a bad option;
                nothing is started then.
        """
        from adk_fluent.run.live import open_live

        return open_live(
            ENGINE,
            self.to_ir(),
            self.options,
            user_id=user_id,
            session_id=session_id,
            config=config,  # a TelemetryConfig is refused there, before any exporter is set
            session_store=session_store,
            backend=backend,
            run_config=run_config,
            modalities=(modalities,) if isinstance(modalities, str) else tuple(modalities),
            services=services,
        )

    def ask_sync(self, prompt: Prompt, **options: Unpack[TurnOptions]) -> str:
        """`ask()` for scripts without an event loop (it runs one with `asyncio.run`).
        `prompt` and `**options` are `run()`'s.

        Returns:
            The text of the turn's last final response ("" when there is none).

        Raises:
            BuildError: A mistake known before the turn runs (the prompt, an id, `state`, an
                option, the tree itself), or ask_sync inside a running event loop.
            RunError: The turn ended with an error event (a failed step).
        """
        return ENGINE.ask_sync(self.to_ir(), self.options, prompt, **_with_telemetry(options))

    async def session(self, session_id: str, **options: Unpack[SessionOptions]) -> Session | None:
        """The stored ADK session (its events and state), as the session store holds it.

        Args:
            session_id: The session's id.
            **options: The store, config and backend the turns ran with (`SessionOptions`):
                they choose the store and the app name the session is under. A misspelt one
                raises BuildError with a did-you-mean; type checkers reject it.

        Returns:
            ADK's Session (`.state`, `.events`), or None when the store has no such session.

        Raises:
            BuildError: An id or an option is not usable.
        """
        session: Session | None = await ENGINE.get_session(
            self.to_ir(), self.options, session_id, **_with_telemetry(options)
        )
        return session

    async def rewind(
        self, session_id: str, before_invocation_id: str, **options: Unpack[SessionOptions]
    ) -> None:
        """Rewind a session to before one of its turns (ADK's `Runner.rewind_async`): the
        state goes back to what it was then; the events stay, and later turns see the session
        as it was.

        Args:
            session_id: The session's id.
            before_invocation_id: The turn to undo, with every turn after it: an event's
                `invocation_id` (from `run()`'s events or the stored session).
            **options: The store, config and backend the turns ran with (`SessionOptions`),
                as for `session()`.

        Raises:
            BuildError: An id or an option is not usable.
        """
        await ENGINE.rewind(
            self.to_ir(), self.options, session_id, before_invocation_id, **_with_telemetry(options)
        )

    def to_mermaid(self, *, cost: Any = False, actual: Any = None) -> str:
        """A mermaid flowchart of the tree with data-flow edges (who writes what who reads).

        Args:
            cost: True, a `TrafficAssumptions` or a `CostModel` of this tree: each LLM agent's
                box says its estimated cost and model calls for one run (`estimate_cost`;
                True estimates with the default assumptions).
            actual: Recorded runs (a `UsageReport`, `run()`'s events or a stored session,
                with `cost_attribution()` in the middleware): each LLM agent's box says what
                it did per run on average, beside the estimate.

        Raises:
            BuildError: `cost` is none of those, or an estimate of another tree.
        """
        from adk_fluent.analysis.mermaid import to_mermaid

        root = self.to_ir()
        model = None if cost is False or cost is None else _cost_model(root, cost)
        return to_mermaid(root, model, None if actual is None else _per_run(actual))

    def visualize(self) -> str:
        """Alias of to_mermaid(), for notebooks and the CLI."""
        return self.to_mermaid()

    def to_agent_card(self, url: str, **options: Any) -> Any:
        """The A2A agent card of this pipeline served at `url`: skills from its agents and
        tools, and the state keys it reads and writes (needs adk-fluent[a2a])."""
        from adk_fluent.remote.cards import agent_card

        return agent_card(self.to_ir(), url, **options)

    def serve(self, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
        """Serve this pipeline over A2A until interrupted (`adk_fluent.remote.serve`)."""
        from adk_fluent.remote.serve import serve

        serve(self, host, port, **_with_telemetry(options))


def _telemetry(config: Any) -> Any:
    """The config with its TelemetryConfig's middleware (telemetry/runtime.py); any other value
    as it is (the engine checks it)."""
    if config.__class__ is ExecutionConfig and config.telemetry is not None:
        from adk_fluent.telemetry.runtime import with_telemetry

        return with_telemetry(config)
    return config


def _with_telemetry(options: Any) -> Any:
    """A turn's options with its config's telemetry made real; the same dict without one (a
    turn without TelemetryConfig does no more than this lookup)."""
    config = options.get("config")
    if config is not None and config.__class__ is ExecutionConfig and config.telemetry is not None:
        from adk_fluent.telemetry.runtime import with_telemetry

        options["config"] = with_telemetry(config)
    return options


def _cost_model(root: Node, cost: Any) -> Any:
    """The CostModel `to_mermaid(cost=)` draws: the one given, or an estimate of `root`."""
    from adk_fluent.analysis.cost import CostModel, TrafficAssumptions, estimate_cost

    if isinstance(cost, CostModel):
        return cost
    if cost is True or isinstance(cost, TrafficAssumptions):
        return estimate_cost(root, None if cost is True else cost)
    from adk_fluent.errors import BuildError, describe_value

    raise BuildError(
        f"to_mermaid(cost=) takes True, TrafficAssumptions or a CostModel, "
        f"not {describe_value(cost)}",
        agent=root.name,
        field="cost",
        hint="to_mermaid(cost=True) estimates with the default assumptions; for "
        "named scenarios pass one of estimate_cost(...)'s CostModels.",
    )


def _per_run(actual: Any) -> dict[str, tuple[float, float]]:
    """{agent path: (model calls, USD)} per recorded run, from a UsageReport or what usage()
    reads (events, a session)."""
    from adk_fluent.telemetry.usage import UsageReport, usage

    report = actual if isinstance(actual, UsageReport) else usage(actual)
    runs = len(report.by_invocation()) or 1
    return {
        path: (agent.calls / runs, agent.cost_usd / runs)
        for path, agent in report.by_agent().items()
    }
