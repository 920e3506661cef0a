"""Control-flow steps: map_over, loop_until, gate, tap, timeout, race."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from adk_fluent.api.builder import check_name
from adk_fluent.api.expression import Expression, Loop, Timeout, as_step, until
from adk_fluent.arguments import (
    checked_count,
    checked_function,
    checked_instance,
    checked_some,
    checked_text,
)
from adk_fluent.errors import BuildError, did_you_mean
from adk_fluent.ir.names import slug
from adk_fluent.ir.nodes import (
    DEFAULT_APPROVE_WORDS,
    DEFAULT_REJECT_WORDS,
    GateNode,
    MapOverNode,
    RaceNode,
    TapNode,
)


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
        roles = {"list_key": list_key, "item_key": item_key, "output_key": output_key}
        for label, key in roles.items():
            checked_text(
                key,
                name,
                label,
                what="a state key name",
                hint="pass a non-empty string, e.g. map_over('docs', body, item_key='doc').",
                shown=f"map_over's {label}",
            )
        super().__init__(name or slug("map", list_key))
        _refuse_key_collisions(self._name, roles)
        self._list_key, self._item_key, self._output_key = list_key, item_key, output_key
        self._body = as_step(body, "map_over")
        self._concurrency = checked_count(
            concurrency,
            self._name,
            "concurrency",
            least=1,
            hint="concurrency=1 runs items one by one; n > 1 runs up to n at once.",
        )

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


def _refuse_key_collisions(name: str, roles: dict[str, str]) -> None:
    """map_over clears item_key when done and writes output_key at the end: sharing a key
    with another role would drop the results or delete the input list."""
    clashes = {
        ("item_key", "output_key"): "the results would be cleared with the last item",
        ("item_key", "list_key"): "the input list would be overwritten by its own items "
        "and deleted",
        ("output_key", "list_key"): "the results would replace the input list",
    }
    for (first, second), what in clashes.items():
        key = roles[first]
        if key == roles[second]:
            shared = [role for role, other in roles.items() if other == key]
            raise BuildError(
                f"map_over uses '{key}' as both {' and '.join(shared)}: {what}",
                agent=name,
                field=shared[-1],
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
        approve: tuple[str, ...] = (),
        reject: tuple[str, ...] = (),
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


def _gate_words(label: str, given: Any, name: str) -> tuple[str, ...]:
    """The accepted replies as given (stripped, in order, without repeats)."""
    if given is None:
        return ()
    hint = (
        f"e.g. {label}=('yes', 'ship it'); a single word needs a trailing comma: "
        f"{label}=('ship it',)"
    )
    collections = (tuple, list, set, frozenset)
    checked_instance(given, name, label, collections, what="a tuple of words", hint=hint)
    hint = (
        f"e.g. {label}=('yes',), or leave {label} out for the defaults (an empty one accepts "
        "no reply at all)."
    )
    checked_some(given, name, label, shown=f"gate({label}=...)", items="word", hint=hint)
    words: list[str] = []
    for word in given:
        clean = " ".join(word.split()).strip(".!'\"") if isinstance(word, str) else ""
        if not clean:
            raise BuildError(
                f"gate({label}=...) holds {word!r:.40}, which no reply can match",
                agent=name,
                field=label,
                hint=f"use non-empty text words, e.g. {label}=('yes', 'ship it')",
            )
        if clean.casefold() not in {w.casefold() for w in words}:
            words.append(clean)
    return tuple(words)


def gate(
    predicate: Callable[[Any], bool] | bool = True,
    message: str = "Approval required.",
    *,
    name: str = "approval_gate",
    approve: tuple[str, ...] | None = None,
    reject: tuple[str, ...] | None = None,
    **unknown: Any,
) -> Gate:
    """Pause for a person's approval when `predicate(state)` is true.

    The gate replies with `message` and names the accepted replies; nothing after it runs in
    this turn, wherever the gate sits (pipeline, loop, FanOut branch, Route branch). In a later
    turn the user's 'approve' continues exactly from the gate (nothing that ran is re-run) and
    'reject' ends the run with a message (the turn after starts from the top); any other reply
    asks again. Status is kept in session state, so it survives restarts.
    `approve=` / `reject=` each replace one list of accepted replies (a list not given keeps
    its defaults), compared case-insensitively without surrounding quotes or trailing `.` / `!`.
    By default approve, yes, approved, y, ok, okay, confirm and go ahead approve; reject, no,
    rejected, n, deny, cancel and stop reject. The prompt names the first two words of each
    default list, or every word of a list given.
    """
    if unknown:
        _refuse_gate_options(unknown, name)
    check_name(name, "gate")
    checked_text(
        message,
        name,
        "message",
        what="the question to ask",
        hint="e.g. gate(pred, 'Send this refund email?'): it is what the person approves.",
    )
    approve_words = _gate_words("approve", approve, name)
    reject_words = _gate_words("reject", reject, name)
    both = {w.casefold() for w in approve_words or DEFAULT_APPROVE_WORDS} & {
        w.casefold() for w in reject_words or DEFAULT_REJECT_WORDS
    }
    if both:
        raise BuildError(
            f"the reply {sorted(both)[0]!r} would both approve and reject",
            agent=name,
            field="reject",
            hint=f"remove {sorted(both)} from one of approve= / reject= (the defaults are "
            f"approve {DEFAULT_APPROVE_WORDS[:4]} and reject {DEFAULT_REJECT_WORDS[:4]}).",
        )
    if isinstance(predicate, bool):
        always = predicate
        predicate = lambda state: always  # noqa: E731
    checked_function(
        predicate,
        name,
        "predicate",
        takes=1,
        what="gate(predicate, ...)",
        hint="it takes the state: gate(lambda state: state['amount'] > 100, 'Approve?')",
    )
    return Gate(predicate, message, name, approve_words, reject_words)


def _refuse_gate_options(unknown: dict[str, Any], name: Any) -> NoReturn:
    """gate() given a keyword it does not take (0.x's gate_key=, a misspelling)."""
    option = next(iter(unknown))
    agent = name if isinstance(name, str) else None
    if option == "gate_key":  # adk-fluent 0.x: the state key of the gate's status
        raise BuildError(
            "gate() takes no gate_key=: a gate keeps its status in session state under its name",
            agent=agent,
            field="gate_key",
            hint="name the gate instead, e.g. gate(pred, 'Approve?', name='refund_approval') "
            "(its status is in state['adk_fluent_gate__refund_approval']).",
        )
    close = did_you_mean(option, ("predicate", "message", "name", "approve", "reject"))
    raise BuildError(
        f"gate() takes no {option}=",
        agent=agent,
        field=option,
        hint=close or "gate(predicate, message, name=..., approve=(...), reject=(...)).",
    )


class Tap(Expression):
    """A read-only observer; see `tap()`."""

    def __init__(self, fn: Callable[[Any], Any], name: str | None = None) -> None:
        fn_name = getattr(fn, "__name__", "tap")
        label = name or ("tap" if fn_name == "<lambda>" else slug("tap", str(fn_name)))
        if name is not None:
            check_name(name, "tap")
        checked_function(
            fn, label, "fn", takes=1, what="tap(fn)", hint="tap(lambda state: print(state))"
        )
        super().__init__(label)
        self._fn = fn

    def _build_ir(self) -> TapNode:
        return TapNode(name=self._name, fn=self._fn)


def tap(fn: Callable[[Any], Any], *, name: str | None = None) -> Tap:
    """Call fn(state) with a read-only view (for logging, metrics, assertions); writes raise."""
    return Tap(fn, name)


def timeout(body: Any, seconds: float, *, name: str | None = None) -> Timeout:
    """Cancel `body` after `seconds`; an error event says which step timed out after how long.
    A body holding a gate is refused (a clock cannot wait across turns for a person's reply)."""
    return Timeout(body, seconds, name)


class Race(Expression):
    """Concurrent alternatives; see `race()`."""

    def __init__(self, *bodies: Any, name: str | None = None) -> None:
        steps = tuple(as_step(b, "race") for b in bodies)
        hint = "race(fast, careful)"
        checked_some(steps, None, "bodies", shown="race()", items="alternative", least=2, hint=hint)
        if name is not None:
            check_name(name, "race")
        super().__init__(name or slug("race", *(s.name for s in steps))[:48])
        for step in steps:
            gates = [n.name for n in step.to_ir().walk() if n.PAUSES_RUN]
            if gates:
                raise BuildError(
                    f"gate '{gates[0]}' sits inside race '{self._name}': race runs each "
                    "alternative on a private copy of the session and discards the losers",
                    agent=self._name,
                    field="gate",
                    hint="move the gate out of the race: put it before or after it in a pipeline.",
                )
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
