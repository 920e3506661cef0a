"""Runnable: the execution facade every expression has (build, to_app, run, stream, ask, ...).

Each method hands the engine the expression's IR tree and BuildOptions, never the builder.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from adk_fluent.ir.depth import needs_room, recursion_room
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import BuildOptions, CompileTarget, ExecutionConfig
from adk_fluent.run.engine import ENGINE

_T = TypeVar("_T")

if TYPE_CHECKING:
    from adk_fluent.run.events import AgentEvent


class Runnable:
    """Build and run an expression; a builder supplies `to_ir()` and `options`."""

    if TYPE_CHECKING:  # supplied by BuilderBase

        def to_ir(self) -> Node: ...

        @property
        def options(self) -> BuildOptions: ...

        def ir_depth(self) -> int: ...

    # A tree hundreds of levels deep builds and runs wherever a hand-written ADK tree of that
    # depth does (ir/depth.py): a walk without side effects (build, to_app, a diagram) simply
    # runs again with room if it hits the recursion limit; everything that opens a store or
    # runs a turn measures the tree first and runs inside the room (a no-op when shallow).
    def _pure_walk(self, walk: Callable[[Node], _T]) -> _T:
        ir = self.to_ir()
        try:
            return walk(ir)
        except RecursionError:
            with recursion_room(self.ir_depth()):
                return walk(ir)

    def build(self, *, backend: Any = None, target: CompileTarget | None = None) -> Any:
        """Compile to the native ADK root agent (`backend=mock_backend(...)` installs scripted
        models); `target="workflow"` compiles to an ADK 2.x Workflow (docs/workflow.md)."""
        return self._pure_walk(lambda ir: ENGINE.build(ir, self.options, backend, target))

    def to_app(
        self,
        config: ExecutionConfig | None = None,
        *,
        backend: Any = None,
        target: CompileTarget | None = None,
    ) -> Any:
        """Compile to a native ADK `App`: visibility plugin, the config's plugins, resumability,
        compaction and run metadata applied. `target` ("classic" or "workflow") overrides the
        config's and the default (docs/workflow.md)."""
        return self._pure_walk(
            lambda ir: ENGINE.to_app(ir, self.options, config, backend, target=target)
        )

    def to_runner(
        self,
        config: ExecutionConfig | None = None,
        *,
        target: CompileTarget | None = None,
        **services: Any,
    ) -> Any:
        """A native ADK `Runner` for this expression (session/artifact/memory services optional)."""
        ir = self.to_ir()
        with recursion_room(self.ir_depth()):
            return ENGINE.to_runner(ir, self.options, config, target=target, **services)

    async def run(self, prompt: Any, **options: Any) -> list[AgentEvent]:
        """Run one turn; returns every event the client receives, as AgentEvents."""
        ir = self.to_ir()
        with recursion_room(self.ir_depth()):
            return await ENGINE.run(ir, self.options, prompt, **options)

    def stream(self, prompt: Any, **options: Any) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding AgentEvents as they happen; `streaming="sse"` adds the
        models' partial replies as they are produced (`AgentEvent.is_partial`, docs/streaming.md)."""
        ir = self.to_ir()
        events = ENGINE.stream(ir, self.options, prompt, **options)
        depth = self.ir_depth()
        return _with_room(events, depth) if needs_room(depth) else events

    async def ask(self, prompt: Any, **options: Any) -> str:
        """Run one turn; returns the final response text."""
        ir = self.to_ir()
        with recursion_room(self.ir_depth()):
            return await ENGINE.ask(ir, self.options, prompt, **options)

    def ask_sync(self, prompt: Any, **options: Any) -> str:
        """`ask()` for scripts without an event loop."""
        ir = self.to_ir()
        with recursion_room(self.ir_depth()):
            return ENGINE.ask_sync(ir, self.options, prompt, **options)

    async def session(self, session_id: str, *, user_id: str = "user", **options: Any) -> Any:
        """The stored ADK session (events and state), as the session store holds it."""
        ir = self.to_ir()
        with recursion_room(self.ir_depth()):
            return await ENGINE.get_session(
                ir, self.options, session_id, user_id=user_id, **options
            )

    async def rewind(
        self, session_id: str, before_invocation_id: str, *, user_id: str = "user", **options: Any
    ) -> None:
        """Rewind a session to before an invocation (ADK's Runner.rewind_async)."""
        ir = self.to_ir()
        with recursion_room(self.ir_depth()):
            await ENGINE.rewind(
                ir,
                self.options,
                session_id,
                before_invocation_id,
                user_id=user_id,
                **options,
            )

    def to_mermaid(self) -> str:
        """A mermaid flowchart of the tree with data-flow edges (who writes what who reads)."""
        from adk_fluent.analysis.mermaid import to_mermaid

        return self._pure_walk(to_mermaid)

    def visualize(self) -> str:
        """Alias of to_mermaid(), for notebooks and the CLI."""
        return self.to_mermaid()

    def to_agent_card(self, url: str, **options: Any) -> Any:
        """The A2A agent card of this pipeline served at `url`: skills from its agents and
        tools, and the state keys it reads and writes (needs adk-fluent[a2a])."""
        from adk_fluent.remote.cards import agent_card

        return self._pure_walk(lambda ir: agent_card(ir, url, **options))

    def serve(self, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
        """Serve this pipeline over A2A until interrupted (`adk_fluent.remote.serve`)."""
        from adk_fluent.remote.serve import serve

        serve(self, host, port, **options)


async def _with_room(events: AsyncIterator[AgentEvent], depth: int) -> AsyncIterator[AgentEvent]:
    """A deep tree's stream: the room stays while the stream runs (it compiles on first use)."""
    with recursion_room(depth):
        try:
            async for event in events:
                yield event
        finally:  # a caller that breaks out closes the engine's stream too
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()
