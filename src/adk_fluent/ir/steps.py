"""One typed record per zero-cost state step (S.*, C.capture*, plain functions).

Each record carries both halves of what a step is:

* `apply(state, run, step)`: what it does at run time, a pure function from a read-only state
  to a state delta (a dict; writing None deletes, since ADK has no delete);
* `effects()`: what it reads and writes, as the contract checker sees it.

Keeping both on one record is what keeps them in step: a new kind of step is one new class here.
Keys scoped `app:`, `user:` or `temp:` are never touched by `pick` (it only clears session keys);
`drop` clears exactly the keys it names. A key whose value is None is a deleted key: every step
reads it as missing (`_missing`).

A step that cannot do its work raises `StepFailed` (a StateStepError with a stable `code`); the
ADK agent that runs it turns that, and any exception from a user's function, into one error
event that ends the run (adk/custom_agents/steps.py). Constants are written as fresh copies each run,
and every value a step writes is checked against `ir/values.py` before anything is written.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from adk_fluent.errors import StateWriteError, StepFailed
from adk_fluent.ir.effects import Read, StepEffects, Write
from adk_fluent.ir.names import slug
from adk_fluent.ir.state_keys import is_session_key, key_problem
from adk_fluent.ir.values import fresh, frozen

LOGGER_NAME = "adk_fluent.state"

Pairs = tuple[tuple[str, Any], ...]

# The error codes of a failed step (the `error_code` of its error event).
KEY_MISSING = "STATE_KEY_MISSING"
GUARD_FAILED = "STATE_GUARD_FAILED"
STEP_RAISED = "STATE_STEP_RAISED"
BAD_RESULT = "STATE_STEP_BAD_RESULT"
NOT_STORABLE = "STATE_VALUE_NOT_STORABLE"


def _missing(state: Mapping[str, Any], key: str) -> bool:
    """Whether a key is absent or deleted: writing None is how a step deletes (ADK has no delete)."""
    return state.get(key) is None


class RunView(Protocol):
    """What a step may see of the run besides state (the ADK agent that runs it provides it)."""

    @property
    def user_text(self) -> str | None: ...  # the text of the message that started this turn

    @property
    def events(self) -> Sequence[Any]: ...  # the session's events so far


@dataclass(frozen=True)
class Step(ABC):
    """A state step's record. Subclasses say what it does (`apply`) and touches (`effects`)."""

    kind: ClassVar[str]  # the S / C name: "set", "capture_turns", ...

    @abstractmethod
    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        """The state delta this step emits (`step` is its name in the tree, for errors)."""

    @abstractmethod
    def effects(self) -> StepEffects:
        """What the checker should assume this step reads and writes."""

    def default_name(self) -> str:
        """A readable default name, e.g. `set_tier` (a step may be renamed with `.named()`)."""
        return slug(self.kind, *self.name_parts())

    def name_parts(self) -> tuple[str, ...]:
        return ()

    @property
    def reads_keys(self) -> frozenset[str]:
        """Keys it reads (for diagrams)."""
        return frozenset(read.key for read in self.effects().reads)

    @property
    def writes_keys(self) -> frozenset[str]:
        """Keys it writes, deletes excluded (for diagrams)."""
        effects = self.effects()
        return frozenset(w.key for w in effects.writes if not w.delete) | frozenset(
            new for _, new in effects.renames
        )


@dataclass(frozen=True)
class SetValues(Step):
    """`S.set(k=v)`: write constant values."""

    kind: ClassVar[str] = "set"
    values: Pairs

    def name_parts(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.values)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        # a fresh copy each run: no two sessions (nor a session and the builder) share a list
        return {k: fresh(v) for k, v in self.values}

    def effects(self) -> StepEffects:
        return StepEffects(
            writes=tuple(Write(k, f"S.set({k}=...)", type(v), value=v) for k, v in self.values)
        )


@dataclass(frozen=True)
class SetDefaults(Step):
    """`S.default(k=v)`: write values only where the key is missing (or None)."""

    kind: ClassVar[str] = "default"
    values: Pairs

    def name_parts(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.values)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        return {k: fresh(v) for k, v in self.values if _missing(state, k)}

    def effects(self) -> StepEffects:
        return StepEffects(
            reads=tuple(Read(k, "S.default", False) for k, _ in self.values),
            writes=tuple(Write(k, f"S.default({k}=...)", type(v), value=v) for k, v in self.values),
        )


@dataclass(frozen=True)
class Merge(Step):
    """`S.merge(*keys, into=, fn=)`: combine keys into one (`fn(*values)`, else a dict)."""

    kind: ClassVar[str] = "merge"
    keys: tuple[str, ...]
    into: str
    fn: Callable[..., Any] | None = None

    def name_parts(self) -> tuple[str, ...]:
        return (*self.keys, "into", self.into)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        missing = [k for k in self.keys if _missing(state, k)]
        if missing:
            raise StepFailed(
                KEY_MISSING,
                f"step '{step}': S.merge needs {', '.join(map(repr, missing))} in state, and "
                "state has none. Write it earlier (S.set, S.default or an agent's .outputs()).",
            )
        values = [state[k] for k in self.keys]
        merged = (
            self.fn(*values) if self.fn is not None else dict(zip(self.keys, values, strict=True))
        )
        return {self.into: merged}

    def effects(self) -> StepEffects:
        return StepEffects(
            reads=tuple(Read(k, "S.merge", True) for k in self.keys),
            writes=(Write(self.into, f'S.merge(..., into="{self.into}")'),),
        )


@dataclass(frozen=True)
class Pick(Step):
    """`S.pick(*keys)`: keep only these session keys; every other unscoped key is set to None."""

    kind: ClassVar[str] = "pick"
    keys: tuple[str, ...]

    def name_parts(self) -> tuple[str, ...]:
        return self.keys

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        keep = set(self.keys)
        return {
            k: None for k in state if is_session_key(k) and k not in keep and state[k] is not None
        }

    def effects(self) -> StepEffects:
        return StepEffects(
            reads=tuple(Read(k, "S.pick", False) for k in self.keys), keep_only=self.keys
        )


@dataclass(frozen=True)
class Drop(Step):
    """`S.drop(*keys)`: delete these keys (write None)."""

    kind: ClassVar[str] = "drop"
    keys: tuple[str, ...]

    def name_parts(self) -> tuple[str, ...]:
        return self.keys

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        return {k: None for k in self.keys if not _missing(state, k)}

    def effects(self) -> StepEffects:
        return StepEffects(
            reads=tuple(Read(k, "S.drop", False) for k in self.keys),
            writes=tuple(Write(k, f'S.drop("{k}")', delete=True) for k in self.keys),
        )


@dataclass(frozen=True)
class Rename(Step):
    """`S.rename(old="new")`: write new=old's value and delete old."""

    kind: ClassVar[str] = "rename"
    pairs: tuple[tuple[str, str], ...]

    def name_parts(self) -> tuple[str, ...]:
        return tuple(old for old, _ in self.pairs)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        delta: dict[str, Any] = {}
        for old, new in self.pairs:
            if not _missing(state, old):
                delta[new] = state[old]
                delta.setdefault(old, None)
        return delta

    def effects(self) -> StepEffects:
        return StepEffects(
            reads=tuple(Read(old, "S.rename", False) for old, _ in self.pairs),
            renames=self.pairs,
        )


@dataclass(frozen=True)
class Transform(Step):
    """`S.transform(key, fn)`: replace state[key] with fn(state[key]) (the key must exist)."""

    kind: ClassVar[str] = "transform"
    key: str
    fn: Callable[[Any], Any]

    def name_parts(self) -> tuple[str, ...]:
        return (self.key,)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        if _missing(state, self.key):
            raise StepFailed(
                KEY_MISSING,
                f"step '{step}': S.transform('{self.key}', ...) but state has no "
                f"'{self.key}'. Write it earlier (S.set, S.default or an agent's .outputs()).",
            )
        return {self.key: self.fn(state[self.key])}

    def effects(self) -> StepEffects:
        return StepEffects(
            reads=(Read(self.key, "S.transform", True),),
            writes=(Write(self.key, f'S.transform("{self.key}", ...)'),),
        )


@dataclass(frozen=True)
class Compute(Step):
    """`S.compute(k=fn)`: write fn(state) for each key."""

    kind: ClassVar[str] = "compute"
    fns: tuple[tuple[str, Callable[[Any], Any]], ...]

    def name_parts(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.fns)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        return {key: fn(state) for key, fn in self.fns}

    def effects(self) -> StepEffects:
        return StepEffects(
            writes=tuple(Write(k, f"S.compute({k}=...)") for k, _ in self.fns), opaque_read=True
        )


@dataclass(frozen=True)
class Guard(Step):
    """`S.guard(pred, msg)`: stop the run with an error unless pred(state) holds."""

    kind: ClassVar[str] = "guard"
    predicate: Callable[[Any], bool]
    message: str = "guard failed"

    def default_name(self) -> str:
        return "guard"

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        if not self.predicate(state):
            raise StepFailed(GUARD_FAILED, f"step '{step}': guard failed: {self.message}")
        return {}

    def effects(self) -> StepEffects:
        return StepEffects(opaque_read=True)


@dataclass(frozen=True)
class Log(Step):
    """`S.log(*keys)`: log these keys (or the whole state) to the 'adk_fluent.state' logger."""

    kind: ClassVar[str] = "log"
    keys: tuple[str, ...] = ()
    level: int = logging.INFO

    def name_parts(self) -> tuple[str, ...]:
        return self.keys

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        shown = {k: state.get(k) for k in self.keys} if self.keys else dict(state)
        logging.getLogger(LOGGER_NAME).log(self.level, "%s: %r", step, shown)
        return {}

    def effects(self) -> StepEffects:
        return StepEffects(
            reads=tuple(Read(k, "S.log", False) for k in self.keys), opaque_read=not self.keys
        )


@dataclass(frozen=True)
class Capture(Step):
    """`S.capture(key)` / `C.capture(key)`: the user's latest message text into state[key]."""

    kind: ClassVar[str] = "capture"
    key: str

    def name_parts(self) -> tuple[str, ...]:
        return (self.key,)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        return {self.key: run.user_text or ""}

    def effects(self) -> StepEffects:
        return StepEffects(writes=(Write(self.key, f'S.capture("{self.key}")', str),))


@dataclass(frozen=True)
class CaptureTurns(Step):
    """`C.capture_turns(key, n)`: the last n turns, as 'author: text' lines, into state[key]."""

    kind: ClassVar[str] = "capture_turns"
    key: str
    turns: int = 5

    def name_parts(self) -> tuple[str, ...]:
        return (self.key,)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        events = list(run.events)
        starts = [i for i, e in enumerate(events) if e.author == "user"]
        window = events[starts[-self.turns] :] if len(starts) >= self.turns else events
        lines: list[str] = []
        for event in window:
            parts = (event.content.parts if event.content else None) or []
            text = "".join(p.text for p in parts if p.text)
            if text and not event.partial:
                lines.append(f"{event.author}: {text}")
        return {self.key: "\n".join(lines)}

    def effects(self) -> StepEffects:
        return StepEffects(writes=(Write(self.key, f'C.capture_turns("{self.key}")', str),))


@dataclass(frozen=True)
class FunctionStep(Step):
    """A plain `fn(state) -> dict | None` as a step; the dict is merged into state."""

    kind: ClassVar[str] = "function"
    fn: Callable[[Any], Any]

    def default_name(self) -> str:
        name = getattr(self.fn, "__name__", "fn")
        return "fn_step" if name == "<lambda>" else slug(name)

    def apply(self, state: Mapping[str, Any], run: RunView, step: str) -> dict[str, Any]:
        result = self.fn(state)
        if result is None:
            return {}
        if not isinstance(result, Mapping):
            raise StepFailed(
                BAD_RESULT,
                f"step '{step}': a function step must return a dict of state changes (or None), "
                f"got {type(result).__name__}",
            )
        for key in result:  # checked here, or ADK's EventActions fails with a pydantic trace
            problem = key_problem(key)
            if problem is not None:
                raise StepFailed(
                    BAD_RESULT,
                    f"step '{step}': the function step returned the state key {key!r:.60}: "
                    f"{problem}. Return a dict whose keys are state key names.",
                )
        return dict(result)

    def effects(self) -> StepEffects:
        return StepEffects(opaque_read=True, opaque_write=True)


class ReadOnlyState(Mapping[str, Any]):
    """A view of state that refuses writes with a clear error (what taps, steps and predicates
    receive). It is deep: a list or dict read from it refuses writes too (`s["cart"].append(1)`
    raises StateWriteError), so nothing a step does to it can change what later agents see."""

    def __init__(self, data: Mapping[str, Any], step: str, owner: str | None = None) -> None:
        self._data = data  # callers pass a snapshot of state they own
        self._step = step
        self._owner = owner or f"tap '{step}'"
        self._views: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        try:
            return self._views[key]
        except KeyError:
            view = self._views[key] = frozen(self._data[key], self._owner)
            return view

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise StateWriteError(
            f"{self._owner} tried to change state; what it receives is read-only. "
            "Use S.set(...), S.compute(...) or a function step returning a dict to write state."
        )

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = _refuse

    def __repr__(self) -> str:
        return f"ReadOnlyState({self._data!r})"
