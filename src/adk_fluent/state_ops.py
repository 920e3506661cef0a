"""What each zero-cost state step computes: a pure function from state to a state delta.

Deltas are plain dicts; writing None deletes a key (ADK has no delete). Keys scoped `app:`,
`user:` or `temp:` are never touched by `pick` (it only clears session keys); `drop` clears
exactly the keys it names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .errors import StateStepError, StateWriteError

SCOPES = ("app:", "user:", "temp:")
LOGGER_NAME = "adk_fluent.state"


def is_session_key(key: str) -> bool:
    return not key.startswith(SCOPES)


def _set(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    return dict(args[0])


def _default(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    return {k: v for k, v in args[0] if state.get(k) is None}


def _merge(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    keys, into, fn = args
    missing = [k for k in keys if k not in state]
    if missing:
        raise StateStepError(
            f"step '{step}': S.merge needs {', '.join(map(repr, missing))} in state"
        )
    values = [state[k] for k in keys]
    return {into: fn(*values) if fn is not None else {k: state[k] for k in keys}}


def _pick(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    keep = set(args)
    return {k: None for k in state if is_session_key(k) and k not in keep and state[k] is not None}


def _drop(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    return {k: None for k in args if k in state and state[k] is not None}


def _rename(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    for old, new in args:
        if old in state and state[old] is not None:
            delta[new] = state[old]
            delta.setdefault(old, None)
    return delta


def _transform(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    key, fn = args
    if key not in state:
        raise StateStepError(
            f"step '{step}': S.transform('{key}', ...) but state has no '{key}'",
        )
    return {key: fn(state[key])}


def _compute(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    return {key: fn(state) for key, fn in args}


def _guard(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    predicate, message = args
    if not predicate(state):
        raise StateStepError(f"step '{step}': guard failed: {message}")
    return {}


def _log(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    keys, level = args
    shown = {k: state.get(k) for k in keys} if keys else dict(state)
    import logging

    logging.getLogger(LOGGER_NAME).log(level, "%s: %r", step, shown)
    return {}


def _capture(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    (key,) = args
    return {key: user_text or ""}


def _function(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    (fn,) = args
    result = fn(state)
    if result is None:
        return {}
    if not isinstance(result, Mapping):
        raise StateStepError(
            f"step '{step}': a function step must return a dict of state changes (or None), "
            f"got {type(result).__name__}"
        )
    return dict(result)


def _capture_turns(
    state: Mapping[str, Any],
    args: tuple[Any, ...],
    user_text: str | None,
    step: str,
    events: Any = (),
) -> dict[str, Any]:
    key, turns = args
    lines: list[str] = []
    starts = [i for i, e in enumerate(events) if e.author == "user"]
    window = events[starts[-turns] :] if len(starts) >= turns else events
    for event in window:
        text = "".join(
            p.text for p in (event.content.parts if event.content else None) or [] if p.text
        )
        if text and not event.partial:
            lines.append(f"{event.author}: {text}")
    return {key: "\n".join(lines)}


OPS: dict[str, Callable[..., dict[str, Any]]] = {
    "set": _set,
    "default": _default,
    "merge": _merge,
    "pick": _pick,
    "drop": _drop,
    "rename": _rename,
    "transform": _transform,
    "compute": _compute,
    "guard": _guard,
    "log": _log,
    "capture": _capture,
    "capture_turns": _capture_turns,
    "function": _function,
}


class ReadOnlyState(Mapping[str, Any]):
    """A view of state that refuses writes with a clear error (what taps receive)."""

    def __init__(self, data: Mapping[str, Any], step: str) -> None:
        self._data = data  # callers pass a snapshot of state they own (native_agents.state_of)
        self._step = step

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise StateWriteError(
            f"tap '{self._step}' tried to change state; taps are read-only. "
            "Use S.set(...), S.compute(...) or a function step returning a dict to write state."
        )

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = _refuse

    def __repr__(self) -> str:
        return f"ReadOnlyState({self._data!r})"
