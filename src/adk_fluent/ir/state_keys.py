"""State keys: their scopes (`app:`, `user:`, `temp:`, session), declared fields, and the
UNKNOWN type. The one place that knows what a key's prefix means; every room reads it here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, get_origin

from adk_fluent.errors import BuildError, describe_value

# The one table of state-key scopes: scope name -> key prefix (session keys have none).
SCOPE_PREFIX: dict[str, str] = {"app": "app:", "user": "user:", "temp": "temp:"}
SCOPE_PREFIXES: tuple[str, ...] = tuple(SCOPE_PREFIX.values())


def scope_of_key(key: str) -> str:
    """'app', 'user', 'temp' or 'session' for a state key."""
    for prefix in SCOPE_PREFIXES:
        if key.startswith(prefix):
            return prefix[:-1]
    return "session"


def bare_name(key: str) -> str:
    """The key without its scope prefix."""
    for prefix in SCOPE_PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


def key_problem(key: object) -> str | None:
    """Why a name given as a state key would not work (None if it is fine): every API that takes
    a key (S steps, C.from_state, Route, .outputs) refuses the same names for the same reasons."""
    if isinstance(key, str) and key.isidentifier():  # most keys: none of the problems below
        return None
    if not isinstance(key, str):
        return "a key name must be a str"
    if not key.strip():
        return "a key name must not be empty"
    if not bare_name(key):
        return "a scope prefix needs a name after it"
    if key != key.strip() or any(c in key for c in "{}"):
        return "no surrounding spaces or braces (an instruction's {key} could not name it)"
    return None


def check_key(key: object, what: str, *, field: str, hint: str, agent: str | None = None) -> str:
    """`key` if it is a usable state key name, else the one BuildError every API gives for a bad
    key: `what` names the place (e.g. "S.set()", "Route(key)"), then the key and its problem."""
    problem = key_problem(key)
    if problem:
        raise BuildError(
            f"{what} takes non-empty state key names, got {describe_value(key)}: {problem}",
            agent=agent,
            field=field,
            hint=hint,
        )
    return key  # type: ignore[return-value]  # key_problem is None only for a str


def is_session_key(key: str) -> bool:
    """Whether a key is session-scoped (no `app:` / `user:` / `temp:` prefix)."""
    return not key.startswith(SCOPE_PREFIXES)


# Keys adk-fluent keeps for itself in session state (a gate's record, where a paused run stopped).
GATE_KEY_PREFIX = "adk_fluent_gate__"
RESUME_KEY_PREFIX = "adk_fluent_resume__"


def crosses_a2a(key: str) -> bool:
    """Whether a state key may travel to or from another service over A2A: never `temp:` keys
    (one invocation of one process) nor adk-fluent's bookkeeping (a gate belongs to the
    service that asks)."""
    return not key.startswith(("temp:", GATE_KEY_PREFIX, RESUME_KEY_PREFIX))


def gate_state_key(gate_name: str) -> str:
    """The session-state key where a gate keeps the record of its latest instance
    (status 'pending' / 'approved' / 'rejected', the loop iterations it belongs to, and the
    invocations that asked and decided)."""
    return f"{GATE_KEY_PREFIX}{gate_name}"


def gate_resume_key(container_name: str) -> str:
    """The session-state key where the outermost gate-aware container keeps, while a gate waits,
    where each container stopped (so the approval turn resumes there, even after a restart)."""
    return f"{RESUME_KEY_PREFIX}{container_name}"


class _Unknown:
    """The type of a field or value nobody declared (so no type check applies)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


@dataclass(frozen=True)
class Producer:
    """Who a schema field says writes its key (StateSchema's `CapturedBy`): steps, named as the
    checker names their writes (`S.capture(` ...), or one agent by name (any of its writes:
    `.outputs()`, its tools, its callbacks)."""

    shown: str  # as the user wrote it: "C.capture", "agent 'classifier'"
    steps: tuple[str, ...] = ()  # the writes' `via` prefixes, e.g. ("S.capture(", "C.capture(")
    agent: str | None = None

    def wrote(self, node: str, via: str) -> bool:
        """Whether a write (by `node`, described as `via`) is this producer's."""
        if self.agent is not None:
            return node == self.agent
        return via.startswith(self.steps)


@dataclass(frozen=True)
class StateFieldRef:
    """One declared state key: what `.reads()` / `.writes()` take and what a schema exposes."""

    key: str
    name: str
    type: Any = field(default=UNKNOWN, hash=False)
    scope: str = "session"
    schema: Any = field(default=None, compare=False)
    has_default: bool = False
    default: Any = field(default=None, compare=False, hash=False)
    captured_by: Producer | None = field(default=None, compare=False, hash=False)

    @property
    def owner(self) -> str:
        """The declaring schema's name, or '' for a bare key."""
        return getattr(self.schema, "__name__", "")

    def __repr__(self) -> str:
        return f"{self.owner}.{self.name}" if self.owner else repr(self.key)


def type_name(tp: Any) -> str:
    """A short readable name for a type annotation."""
    if tp is UNKNOWN:
        return "?"
    if isinstance(tp, type) and get_origin(tp) is None:
        return tp.__name__
    text = repr(tp).replace("typing.", "")
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class DeclaredState:
    """State keys an agent declares it reads or writes beyond what its instruction and output show
    (tools, callbacks), optionally on top of a `.consumes()` / `.produces()` pydantic model. It
    exposes `model_fields` like a model, so the keys reach the IR's reads_keys / writes_keys."""

    refs: tuple[StateFieldRef, ...] = ()
    model: Any = None

    @property
    def model_fields(self) -> dict[str, Any]:
        """Keys of the wrapped model's fields and of the declared refs (what the IR records)."""
        fields = dict(getattr(self.model, "model_fields", None) or {})
        for ref in self.refs:
            fields[ref.key] = ref
        return fields


def unwrap_declared(value: Any) -> tuple[Any, tuple[StateFieldRef, ...]]:
    """(pydantic model or None, declared refs) of a node's produces_type / consumes_type."""
    if isinstance(value, DeclaredState):
        return value.model, value.refs
    return value, ()
