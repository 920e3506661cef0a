"""Runnable: the execution facade every expression has (build, to_app, run, stream, ask, ...).

Each method hands the engine the expression's IR tree and BuildOptions, never the builder.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import BuildOptions, ExecutionConfig
from adk_fluent.run.engine import ENGINE

if TYPE_CHECKING:
    from adk_fluent.run.events import AgentEvent


class Runnable:
    """Build and run an expression; a builder supplies `to_ir()` and `options`."""

    if TYPE_CHECKING:  # supplied by BuilderBase

        def to_ir(self) -> Node: ...

        @property
        def options(self) -> BuildOptions: ...

    def build(self, *, backend: Any = None) -> Any:
        """Compile to the native ADK root agent (`backend=mock_backend(...)` installs scripted models)."""
        return ENGINE.build(self.to_ir(), self.options, backend)

    def to_app(self, config: ExecutionConfig | None = None, *, backend: Any = None) -> Any:
        """Compile to a native ADK `App`: visibility plugin, the config's plugins, resumability,
        compaction and run metadata applied."""
        return ENGINE.to_app(self.to_ir(), self.options, config, backend)

    def to_runner(self, config: ExecutionConfig | None = None, **services: Any) -> Any:
        """A native ADK `Runner` for this expression (session/artifact/memory services optional)."""
        return ENGINE.to_runner(self.to_ir(), self.options, config, **services)

    async def run(self, prompt: Any, **options: Any) -> list[AgentEvent]:
        """Run one turn; returns every event the client receives, as AgentEvents."""
        return await ENGINE.run(self.to_ir(), self.options, prompt, **options)

    def stream(self, prompt: Any, **options: Any) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding AgentEvents as they happen."""
        return ENGINE.stream(self.to_ir(), self.options, prompt, **options)

    async def ask(self, prompt: Any, **options: Any) -> str:
        """Run one turn; returns the final response text."""
        return await ENGINE.ask(self.to_ir(), self.options, prompt, **options)

    def ask_sync(self, prompt: Any, **options: Any) -> str:
        """`ask()` for scripts without an event loop."""
        return ENGINE.ask_sync(self.to_ir(), self.options, prompt, **options)

    async def session(self, session_id: str, *, user_id: str = "user", **options: Any) -> Any:
        """The stored ADK session (events and state), as the session store holds it."""
        return await ENGINE.get_session(
            self.to_ir(), self.options, session_id, user_id=user_id, **options
        )

    async def rewind(
        self, session_id: str, before_invocation_id: str, *, user_id: str = "user", **options: Any
    ) -> None:
        """Rewind a session to before an invocation (ADK's Runner.rewind_async)."""
        await ENGINE.rewind(
            self.to_ir(),
            self.options,
            session_id,
            before_invocation_id,
            user_id=user_id,
            **options,
        )

    def to_mermaid(self) -> str:
        """A mermaid flowchart of the tree with data-flow edges (who writes what who reads)."""
        from adk_fluent.analysis.mermaid import to_mermaid

        return to_mermaid(self.to_ir())

    def visualize(self) -> str:
        """Alias of to_mermaid(), for notebooks and the CLI."""
        return self.to_mermaid()
