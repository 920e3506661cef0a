"""BuilderBase: immutable builder values, field checks, operators and the execution facade.

Builders never import the backend or the runtime (imports flow one way). Those layers register
themselves in `hooks` when `adk_fluent` is imported; the facade methods call through it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Self

from ._adk import adk_version, installed_fields, versions_with_field
from .errors import BuildError, FieldNotInstalledError, UnknownSetterError, did_you_mean

if TYPE_CHECKING:
    from .config import ExecutionConfig
    from .events import AgentEvent


class _Hooks:
    """Late-bound entry points, filled in by the composites module and the runtime."""

    compose: dict[str, Callable[..., Any]] = {}
    engine: Any = None


hooks = _Hooks()


_COMPOSER_MODULES = {
    "sequence": "composites",
    "parallel": "composites",
    "loop": "composites",
    "fallback": "composites",
    "adapt": "transforms",
    "timeout": "control",
}


def composer(kind: str) -> Callable[..., Any]:
    """The function behind an operator, importing the module that provides it on first use."""
    fn = hooks.compose.get(kind)
    if fn is None:
        import importlib

        importlib.import_module(f"adk_fluent.{_COMPOSER_MODULES[kind]}")
        fn = hooks.compose[kind]
    return fn


def _engine() -> Any:
    if hooks.engine is None:  # only when someone imported a submodule and not the package
        import importlib

        importlib.import_module("adk_fluent.runtime")
    return hooks.engine


def is_valid_name(name: object) -> bool:
    return isinstance(name, str) and name.isidentifier() and name != "user"


class BuilderBase:
    """What every builder shares. Every method returns a new builder; none mutates."""

    _ADK_CLASS: ClassVar[str] = ""
    _KIND: ClassVar[str] = "builder"
    _GENERATED_SETTERS: ClassVar[frozenset[str]] = frozenset()

    _name: str
    _fields: dict[str, Any]

    def __init__(self, name: str) -> None:
        if not is_valid_name(name):
            raise BuildError(
                f"{name!r} is not a valid agent name",
                agent=str(name),
                field="name",
                hint="ADK agent names must be Python identifiers (letters, digits, underscores, "
                "not starting with a digit) and must not be 'user'.",
            )
        self._name = name
        self._fields = {}
        self._meta: dict[str, Any] = {}

    # -- immutability -------------------------------------------------------------------------
    def _copy(self, **changes: Any) -> Self:
        new = object.__new__(type(self))
        state = dict(self.__dict__)
        state.pop("_cache", None)  # compiled apps/runners and the IR belong to one value only
        state.pop("_ir", None)
        state.update(changes)
        new.__dict__.update(state)
        return new

    @property
    def name(self) -> str:
        """The agent's (or composite's) name in the ADK tree."""
        return self._name

    def _with_meta(self, key: str, value: Any) -> Self:
        return self._copy(_meta={**self._meta, key: value})

    # -- field setters used by the generated mixins --------------------------------------------
    def _check_field(self, field: str) -> None:
        if field in installed_fields(self._ADK_CLASS):
            return
        versions = versions_with_field(self._ADK_CLASS, field)
        raise FieldNotInstalledError(
            f"the installed google-adk {adk_version()} has no {self._ADK_CLASS}.{field}",
            agent=self._name,
            field=field,
            hint=(
                f"it exists in google-adk {', '.join(versions)}; upgrade google-adk to use it."
                if versions
                else "no scanned google-adk version has this field."
            ),
        )

    def _set_field(self, field: str, value: Any) -> Self:
        self._check_field(field)
        return self._copy(_fields={**self._fields, field: value})

    def _append_field(self, field: str, items: tuple[Any, ...]) -> Self:
        self._check_field(field)
        return self._copy(_fields={**self._fields, field: (*self._fields.get(field, ()), *items)})

    def _add_callbacks(self, field: str, callbacks: tuple[Callable[..., Any], ...]) -> Self:
        self._check_field(field)
        for callback in callbacks:
            if not callable(callback):
                raise BuildError(
                    f"expected a callable, got {type(callback).__name__}",
                    agent=self._name,
                    field=field,
                    hint="pass a function or coroutine function.",
                )
        return self._copy(
            _fields={**self._fields, field: (*self._fields.get(field, ()), *callbacks)}
        )

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        candidates = [n for n in dir(type(self)) if not n.startswith("_")]
        raise UnknownSetterError(
            f"{type(self).__name__} has no method '{attr}'",
            agent=self.__dict__.get("_name"),
            field=attr,
            hint=did_you_mean(attr, candidates)
            or f"see help({type(self).__name__}) for its methods.",
        )

    # -- composition operators (precedence: * and // bind tighter than >>, which binds tighter than |)
    def __rshift__(self, other: Any) -> Any:
        return composer("sequence")(self, other)

    def __rrshift__(self, other: Any) -> Any:
        return composer("sequence")(other, self)

    def __or__(self, other: Any) -> Any:
        return composer("parallel")(self, other)

    def __ror__(self, other: Any) -> Any:
        return composer("parallel")(other, self)

    def __mul__(self, other: Any) -> Any:
        return composer("loop")(self, other)

    def __rmul__(self, other: Any) -> Any:
        return composer("loop")(self, other)

    def __floordiv__(self, other: Any) -> Any:
        return composer("fallback")(self, other)

    # -- visibility controls ---------------------------------------------------------------
    def show(self) -> Self:
        """Force this agent (or every agent in this composite) to be user-facing."""
        return self._with_meta("visibility", "user")

    def hide(self) -> Self:
        """Force this agent (or every agent in this composite) to be internal."""
        return self._with_meta("visibility", "internal")

    def transparent(self) -> Self:
        """Every agent in this expression speaks to the user (review, debugging, progressive UX)."""
        return self._with_meta("visibility", "user")

    def filtered(self) -> Self:
        """Clients receive only user-facing agents' text (internal text stays in history and state)."""
        return self._with_meta("visibility_mode", "filtered")

    def annotated(self) -> Self:
        """Every event reaches the client, annotated with its visibility (the default)."""
        return self._with_meta("visibility_mode", "annotated")

    def strict(self, *, schema: Any = None, initial_keys: tuple[str, ...] = ()) -> Self:
        """Refuse to build (build / to_app / run) while the contract check finds errors."""
        return self._with_meta("strict", {"schema": schema, "initial_keys": tuple(initial_keys)})

    def timeout(self, seconds: float) -> Any:
        """This step under a deadline: cancelled after `seconds`, with an error event saying so."""
        return composer("timeout")(self, seconds)

    # -- IR and execution facade ---------------------------------------------------------------
    def to_ir(self) -> Any:
        """The frozen IR tree of this expression (computed once per builder value)."""
        ir = self.__dict__.get("_ir")
        if ir is None:
            ir = self._build_ir()
            self.__dict__["_ir"] = ir
        return ir

    def _build_ir(self) -> Any:
        raise TypeError(f"{type(self).__name__} does not define _build_ir()")

    def build(self, *, backend: Any = None) -> Any:
        """Compile to the native ADK root agent (`backend=mock_backend(...)` installs scripted models)."""
        return _engine().build(self, backend)

    def to_app(self, config: ExecutionConfig | None = None, *, backend: Any = None) -> Any:
        """Compile to a native ADK `App`: visibility plugin, the config's plugins, resumability,
        compaction and run metadata applied."""
        return _engine().to_app(self, config, backend)

    def to_runner(self, config: ExecutionConfig | None = None, **services: Any) -> Any:
        """A native ADK `Runner` for this expression (session/artifact/memory services optional)."""
        return _engine().to_runner(self, config, **services)

    async def run(self, prompt: str, **options: Any) -> list[AgentEvent]:
        """Run one turn; returns every event the client receives, as AgentEvents."""
        result: list[AgentEvent] = await _engine().run(self, prompt, **options)
        return result

    def stream(self, prompt: str, **options: Any) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding AgentEvents as they happen."""
        stream: AsyncIterator[AgentEvent] = _engine().stream(self, prompt, **options)
        return stream

    async def ask(self, prompt: str, **options: Any) -> str:
        """Run one turn; returns the final response text."""
        text: str = await _engine().ask(self, prompt, **options)
        return text

    def ask_sync(self, prompt: str, **options: Any) -> str:
        """`ask()` for scripts without an event loop."""
        text: str = _engine().ask_sync(self, prompt, **options)
        return text

    async def session(self, session_id: str, *, user_id: str = "user", **options: Any) -> Any:
        """The stored ADK session (events and state), as the session store holds it."""
        return await _engine().get_session(self, session_id, user_id=user_id, **options)

    async def rewind(
        self, session_id: str, before_invocation_id: str, *, user_id: str = "user", **options: Any
    ) -> None:
        """Rewind a session to before an invocation (ADK's Runner.rewind_async)."""
        await _engine().rewind(self, session_id, before_invocation_id, user_id=user_id, **options)

    def to_mermaid(self) -> str:
        """A mermaid flowchart of the tree with data-flow edges (who writes what who reads)."""
        text: str = _engine().to_mermaid(self)
        return text

    def visualize(self) -> str:
        """Alias of to_mermaid(), for notebooks and the CLI."""
        return self.to_mermaid()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name!r})"
