"""Control-flow steps: map_over, loop_until, gate, tap, timeout, race."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adk_fluent.api.expression import Expression, Loop, Timeout, as_step, until
from adk_fluent.errors import BuildError
from adk_fluent.ir.names import slug
from adk_fluent.ir.nodes import GateNode, MapOverNode, RaceNode, TapNode


class MapOver(Expression):
    """Run `body` once per item of state[list_key]; store the list of its outputs at output_key."""

    def __init__(
        self,
        list_key: str,
        body: Any,
        *,
        item_key: str = "item",
        output_key: str = "results",
        concurrency: int = 1,
        name: str | None = None,
    ) -> None:
        for label, key in (
            ("list_key", list_key),
            ("item_key", item_key),
            ("output_key", output_key),
        ):
            if not isinstance(key, str) or not key:
                raise BuildError(f"map_over needs {label} to be a state key name", field=label)
        super().__init__(name or slug("map", list_key))
        _refuse_key_collisions(self._name, list_key, item_key, output_key)
        self._list_key, self._item_key, self._output_key = list_key, item_key, output_key
        self._body = as_step(body, "map_over")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise BuildError(
                f"map_over concurrency must be a positive int, got {concurrency!r}",
                agent=self._name,
                field="concurrency",
            )
        self._concurrency = concurrency

    def _build_ir(self) -> MapOverNode:
        body = self._body.to_ir()
        return MapOverNode(
            name=self._name,
            list_key=self._list_key,
            item_key=self._item_key,
            output_key=self._output_key,
            concurrency=self._concurrency,
            visibility=self._visibility,
            children=(body,),
            reads_keys=frozenset({self._list_key}),
            writes_keys=frozenset({self._output_key, self._item_key}),
        )


def _refuse_key_collisions(name: str, list_key: str, item_key: str, output_key: str) -> None:
    """map_over clears item_key when done and writes output_key at the end: sharing a key
    with another role would drop the results or delete the input list."""
    clashes = {
        (item_key, output_key): "the results would be cleared with the last item",
        (item_key, list_key): "the input list would be overwritten by its own items and deleted",
        (output_key, list_key): "the results would replace the input list",
    }
    for (first, second), what in clashes.items():
        if first == second:
            roles = [
                role
                for role, key in (
                    ("list_key", list_key),
                    ("item_key", item_key),
                    ("output_key", output_key),
                )
                if key == first
            ]
            raise BuildError(
                f"map_over uses '{first}' as both {' and '.join(roles)}: {what}",
                agent=name,
                field=roles[-1],
                hint="give each role its own state key, e.g. "
                "map_over('docs', body, item_key='doc', output_key='summaries').",
            )


def map_over(
    list_key: str,
    body: Any,
    *,
    item_key: str = "item",
    output_key: str = "results",
    concurrency: int = 1,
    name: str | None = None,
) -> MapOver:
    """`map_over("docs", summariser, item_key="doc", output_key="summaries")`.

    The body reads the current item from state[item_key] (e.g. `{doc}` in its instruction); its
    output is its `.outputs()` value when it has one, else its final reply text. With
    `concurrency=n`, up to n items run at once, each on a private copy of the session; their
    events reach the session in item order.
    """
    return MapOver(
        list_key, body, item_key=item_key, output_key=output_key, concurrency=concurrency, name=name
    )


def loop_until(predicate: Callable[[Any], bool], body: Any, *, max_iterations: int = 10) -> Loop:
    """Repeat `body` until `predicate(state)` holds after an iteration, at most max_iterations times."""
    return Loop(as_step(body, "loop_until"), until=until(predicate, max=max_iterations))


class Gate(Expression):
    """A human approval point; see `gate()`."""

    def __init__(
        self,
        predicate: Callable[[Any], bool],
        message: str,
        name: str,
        approve: frozenset[str] = frozenset(),
        reject: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__(name)
        self._predicate, self._message = predicate, message
        self._approve, self._reject = approve, reject

    def hide(self) -> Gate:
        """Refused: a gate's question must reach the person who approves."""
        raise BuildError(
            "a gate cannot be hidden: its question is what the person approving answers",
            agent=self._name,
            field="visibility",
            hint="hide the agents around it instead; a gate inside a hidden composite still "
            "asks the user.",
        )

    def _build_ir(self) -> GateNode:
        return GateNode(
            name=self._name,
            predicate=self._predicate,
            message=self._message,
            approve_words=self._approve,
            reject_words=self._reject,
        )


def gate(
    predicate: Callable[[Any], bool] | bool = True,
    message: str = "Approval required.",
    *,
    name: str = "approval_gate",
    approve: tuple[str, ...] | None = None,
    reject: tuple[str, ...] | None = None,
) -> Gate:
    """Pause for a person's approval when `predicate(state)` is true.

    The gate replies with `message`; nothing after it runs in this turn. In a later turn the
    user's 'approve' continues from the gate (steps before it are not re-run) and 'reject' ends
    the run with the message. Status is kept in session state, so it survives restarts.
    `approve=` / `reject=` replace the accepted replies (compared case-insensitively, without
    trailing punctuation); by default approve / yes / ok / confirm and reject / no / cancel / stop.
    """
    words: dict[str, frozenset[str]] = {}
    for label, given in (("approve", approve), ("reject", reject)):
        if given is None:
            words[label] = frozenset()
            continue
        if (
            isinstance(given, str)
            or not given
            or not all(isinstance(w, str) and w.strip() for w in given)
        ):
            raise BuildError(
                f"gate({label}=...) needs a non-empty tuple of words",
                agent=name,
                field=label,
                hint=f"e.g. {label}=('yes', 'ship it')",
            )
        words[label] = frozenset(w.strip().casefold() for w in given)
    if words["approve"] & words["reject"]:
        raise BuildError(
            "a word cannot both approve and reject",
            agent=name,
            field="reject",
            hint=f"remove {sorted(words['approve'] & words['reject'])} from one of them.",
        )
    if isinstance(predicate, bool):
        always = predicate
        predicate = lambda state: always  # noqa: E731
    if not callable(predicate):
        raise BuildError(
            "gate(predicate, message) needs a callable predicate taking the state", agent=name
        )
    return Gate(predicate, message, name, words["approve"], words["reject"])


class Tap(Expression):
    """A read-only observer; see `tap()`."""

    def __init__(self, fn: Callable[[Any], Any], name: str | None = None) -> None:
        if not callable(fn):
            raise BuildError("tap(fn) needs a callable taking the state")
        fn_name = getattr(fn, "__name__", "tap")
        super().__init__(name or ("tap" if fn_name == "<lambda>" else slug("tap", fn_name)))
        self._fn = fn

    def _build_ir(self) -> TapNode:
        return TapNode(name=self._name, fn=self._fn)


def tap(fn: Callable[[Any], Any], *, name: str | None = None) -> Tap:
    """Call fn(state) with a read-only view (for logging, metrics, assertions); writes raise."""
    return Tap(fn, name)


def timeout(body: Any, seconds: float, *, name: str | None = None) -> Timeout:
    """Cancel `body` after `seconds`; an error event says which step timed out after how long."""
    return Timeout(body, seconds, name)


class Race(Expression):
    """Concurrent alternatives; see `race()`."""

    def __init__(self, *bodies: Any, name: str | None = None) -> None:
        steps = tuple(as_step(b, "race") for b in bodies)
        if len(steps) < 2:
            raise BuildError(
                "race() needs at least two alternatives", hint="race(fast_agent, careful_agent)"
            )
        super().__init__(name or slug("race", *(s.name for s in steps))[:48])
        self._steps = steps

    def _build_ir(self) -> RaceNode:
        return RaceNode(
            name=self._name,
            children=tuple(s.to_ir() for s in self._steps),
            visibility=self._visibility,
        )


def race(*bodies: Any, name: str | None = None) -> Race:
    """Run alternatives concurrently; the first to finish wins and the others are cancelled.

    Each runs against a private copy of the session, so only the winner's events, output and
    state changes reach the real session.
    """
    return Race(*bodies, name=name)
