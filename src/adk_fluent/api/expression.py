"""How builders compose: the operators (`>> | * //`, `.timeout()`), the composites they make
(Pipeline, FanOut, Loop, Fallback, Timeout), and plain functions or S steps as steps.

Every concrete builder derives from `Expression`.

Operator precedence is Python's: `*` and `//` bind tighter than `>>`, which binds tighter than
`|`. So `a >> b | c >> d` is `(a >> b) | (c >> d)` and `a // b >> c` is `(a // b) >> c`.
`>>` and `|` are associative and flatten: `a >> b >> c` is one Pipeline of three steps.
Only unnamed composites flatten; a composite given `name=` stays a unit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from types import NoneType
from typing import TYPE_CHECKING, Any, NoReturn, Self, TypeVar

from adk_fluent_generated.builder_bases import (
    LoopAgentSetters,
    ParallelAgentSetters,
    SequentialAgentSetters,
)
from adk_fluent_generated.ir_nodes import LoopAgentNode, ParallelAgentNode, SequentialAgentNode

from adk_fluent.adk.native import is_native_agent, native_ir
from adk_fluent.api.builder import BuilderBase, check_name
from adk_fluent.api.declarations import AgentCallbacks, DeclaresState
from adk_fluent.api.running import Runnable
from adk_fluent.arguments import (
    checked_choice,
    checked_count,
    checked_function,
    checked_instance,
    checked_seconds,
)
from adk_fluent.errors import BuildError, EmptyCompositeError, describe_value
from adk_fluent.ir.edges import (
    CHUNK_UNITS,
    EDGES,
    FIRST_COMPLETE,
    JOINS,
    MERGE_MODES,
    TOKEN,
    TOKEN_BUFFER,
    FanOutMerge,
)
from adk_fluent.ir.names import slug
from adk_fluent.ir.nodes import (
    BoundaryNode,
    ChunkedEdgeNode,
    FallbackNode,
    LlmAgentNode,
    Node,
    TimeoutNode,
    TransformNode,
    UntilNode,
    is_queue_url,
)
from adk_fluent.ir.state_keys import check_key
from adk_fluent.ir.steps import FunctionStep, Step


class Expression(BuilderBase, Runnable):
    """A builder that composes. Precedence is Python's: `*` and `//` bind tighter than `>>`,
    which binds tighter than `|`."""

    def __rshift__(self, other: Any) -> Pipeline:
        return _joined(Pipeline, ">>", self, other)

    def __rrshift__(self, other: Any) -> Pipeline:
        return _joined(Pipeline, ">>", other, self)

    def __or__(self, other: Any) -> FanOut:
        return _joined(FanOut, "|", self, other)

    def __ror__(self, other: Any) -> FanOut:
        return _joined(FanOut, "|", other, self)

    def __mul__(self, other: Any) -> Loop:
        return _loop(self, other)

    def __rmul__(self, other: Any) -> Loop:
        return _loop(self, other)

    def __floordiv__(self, other: Any) -> Fallback:
        return _joined(Fallback, "//", self, other)

    def __rfloordiv__(self, other: Any) -> Fallback:
        return _joined(Fallback, "//", other, self)

    def __matmul__(self, other: Any) -> NoReturn:
        # adk-fluent 0.x's `agent @ Schema`; here one spelling says it, .output_schema(Schema)
        shown = getattr(other, "__name__", None) or describe_value(other)
        raise BuildError(
            f"`{self.name} @ {shown}`: adk-fluent has no @ operator",
            agent=self.name,
            field="output_schema",
            hint=f".output_schema({shown}) makes the model answer in that schema (ADK's "
            f"output_schema), and .produces({shown}) tells the contract checker its fields.",
        )

    def timeout(self, seconds: float) -> Timeout:
        """This step under a deadline: cancelled after `seconds`, with an error event saying so."""
        return Timeout(self, seconds)

    def then(
        self,
        next_step: Any,
        *,
        edge: str = "complete",
        by: str | int | None = None,
        key: str | None = None,
        name: str | None = None,
        buffer: int | None = None,
    ) -> Expression:
        """This step, then `next_step`, joined by an edge (docs/streaming.md).

        `edge="complete"` (the default) is `self >> next_step`: the next step starts when this
        one has finished. `edge="chunked"` starts the next step on this one's partial output:
        this step (an LLM agent) writes its reply, and each complete chunk of it (`by`
        "sentence" (the default), "paragraph", "line" or a number of characters, cut at a word
        boundary) is written to state[`key`] (default "chunk") and `next_step` runs on it
        (reading e.g. `{chunk}` in its instruction), in chunk order, while this step is still
        writing. Chunks arrive word by word with `streaming="sse"`; without it, the whole reply
        is chunked when it ends. `name` names the edge (default `chunked__<a>__<b>`).

        `edge="token"` hands `next_step` each piece of text as the model streams it (unstripped:
        the pieces joined are the reply), for a consumer that takes a stream (speech, a
        display). `buffer` is how many chunks may wait for the consumer (a token edge: 16 by
        default, a chunked edge: no bound): when it is full, this step's stream is read no
        further until the consumer takes one, so a slow consumer slows the producer instead of
        growing memory."""
        kind = _edge_kind(edge, self.name)
        try:
            following = as_step(next_step, "then")
        except BuildError as error:  # name the step the edge leaves from
            raise BuildError(
                error.message, agent=self.name, field="next_step", hint=error.hint
            ) from None
        if kind == "complete":
            for option, value in (("by", by), ("key", key), ("name", name), ("buffer", buffer)):
                if value is not None:
                    raise BuildError(
                        f"{option}= applies to a chunked edge, but this edge is complete",
                        agent=self.name,
                        field=option,
                        hint=f"write {self.name}.then(next, edge='chunked', {option}=...), or "
                        f"drop {option}= (a complete edge is {self.name} >> next).",
                    )
            return self >> following
        if kind == TOKEN:
            if by is not None:
                raise BuildError(
                    "by= cuts a chunked edge's text, but a token edge passes each piece the "
                    "model streams as it is",
                    agent=self.name,
                    field="by",
                    hint=f"drop by=, or write {self.name}.then(next, edge='chunked', by=...).",
                )
            return ChunkedEdge(
                self,
                following,
                by=TOKEN,
                key=key,
                name=name,
                buffer=TOKEN_BUFFER if buffer is None else buffer,
            )
        return ChunkedEdge(
            self, following, by="sentence" if by is None else by, key=key, name=name, buffer=buffer
        )

    def execution_boundary(
        self,
        service: str | None = None,
        *,
        url: str = "",
        description: str = "",
        timeout: float = 600.0,
    ) -> Boundary:
        """Mark this step as a service of its own. Run in one process, nothing changes;
        `adk_fluent.remote.to_apps(pipeline)` deploys it apart: called over A2A at `url` (its
        card URL, `<base>/.well-known/agent-card.json`), or, with a queue broker's URL
        (`redis://host:6379/0`), run by a pool of `adk-fluent worker` processes fed by that
        queue. The caller waits at most `timeout` seconds for the service's answer."""
        return Boundary(self, service, url=url, description=description, timeout=timeout)


class StateStep(Expression):
    """A zero-cost step: no model call; compiles to one small ADK agent emitting a state delta."""

    def __init__(self, step: Step, name: str | None = None) -> None:
        super().__init__(name or step.default_name())
        self._step = step

    @property
    def step(self) -> Step:
        """The typed record of what this step does and which keys it reads and writes."""
        return self._step

    def named(self, name: str) -> Self:
        """Rename the step (names show in events and diagrams)."""
        check_name(name, "step")
        return self._copy(_name=name)

    def _build_ir(self) -> TransformNode:
        return TransformNode(name=self._name, step=self._step)


def function_step(fn: Callable[[Any], Any]) -> StateStep:
    """A plain `fn(state) -> dict | None` as a step; the dict is merged into state."""
    checked_function(
        fn,
        getattr(fn, "__name__", None),
        "step",
        takes=1,
        what="a function step",
        hint="a function step takes the state and returns a dict of changes (or None): "
        "def step(state): return {'total': state['a'] + state['b']}.",
    )
    return StateStep(FunctionStep(fn))


def _auto_name(prefix: str, steps: tuple[BuilderBase, ...]) -> str:
    """A deterministic, readable name from the children's names (hashed when long)."""
    names = [s._name for s in steps]
    name = f"{prefix}__" + "__".join(names)
    if len(name) <= 48:
        return name
    digest = hashlib.sha1("|".join(names).encode()).hexdigest()[:8]
    return f"{prefix}__{names[0]}__{names[-1]}__{digest}"


class Native(Expression, DeclaresState):
    """A native ADK agent (any BaseAgent instance) as a step: `Native(MyChecker(name="checker"))`.

    Operators accept native agents directly (`native >> Agent(...)`, `Loop(writer, checker)`,
    `.delegate(native)`, `.tool(native)`); `Native(agent)` is the explicit form, which also
    takes `.reads()` / `.writes()` for the checker. ADK's own agent classes (LlmAgent,
    SequentialAgent, ParallelAgent, LoopAgent) are read field by field into the IR; a custom
    agent (any other subclass) stays as it is and is compiled to a copy of itself."""

    def __init__(self, agent: Any) -> None:
        if isinstance(agent, Native):
            agent = agent.agent
        if not is_native_agent(agent):
            raise BuildError(
                f"Native() needs an ADK agent instance, not {describe_value(agent)}",
                field="agent",
                hint="pass an instance of a BaseAgent subclass, e.g. "
                "Native(MyChecker(name='checker')); adk-fluent builders compose as they are.",
            )
        super().__init__(str(agent.name))
        self._agent = agent

    @property
    def agent(self) -> Any:
        """The native agent (never placed in a compiled tree itself: a copy is)."""
        return self._agent

    def _build_ir(self) -> Node:
        declared = self._declared_fields()
        return native_ir(
            self._agent,
            consumes=declared.get("consumes_type"),
            produces=declared.get("produces_type"),
            reads=declared.get("reads_keys", frozenset()),
            writes=declared.get("writes_keys", frozenset()),
        )

    def __repr__(self) -> str:
        return f"Native({type(self._agent).__name__} {self._name!r})"


def _native(value: Any) -> Expression | None:
    """A native ADK agent as a step (Native), or None for anything else."""
    return Native(value) if is_native_agent(value) else None


def as_step(value: Any, operator: str) -> Expression:
    """A builder, a native ADK agent, or a plain function made a step; anything else is a
    clear error."""
    if isinstance(value, Expression):
        return value
    native = _native(value)
    if native is not None:
        return native
    if callable(value) and not isinstance(value, type):
        return function_step(value)
    if isinstance(value, dict):  # adk-fluent 0.x's `classifier >> {"booking": booker}`
        raise BuildError(
            f"cannot use a dict with `{operator}`: a dict of branches is not a step",
            field="step",
            hint="route on a state value with Route: classifier.outputs('intent') >> "
            "Route('intent').eq('booking', booker).eq('info', info), with .otherwise(helper) "
            "for the rest (docs/control-flow.md).",
        )
    if hasattr(value, "run_async") and hasattr(value, "name"):  # an ADK tool
        raise BuildError(
            f"cannot use the tool {describe_value(value)} with `{operator}`: a tool is called "
            "by an agent's model, not run as a step",
            field="step",
            hint="give it to an agent: Agent('worker').tool(...).",
        )
    raise BuildError(
        f"cannot use {describe_value(value)} with `{operator}`",
        field="step",
        hint="compose Agent, Pipeline, FanOut, Loop or other adk-fluent builders, native ADK "
        "agents, or a function step def step(state): return {...}.",
    )


def as_delegate(value: Any, owner: str) -> Expression:
    """A transfer target: a builder or a native ADK agent."""
    if isinstance(value, Expression):
        return value
    native = _native(value)
    if native is not None:
        return native
    raise BuildError(
        f"can only delegate to agents, got {describe_value(value)}",
        agent=owner,
        field="sub_agents",
        hint="delegate to builders (.delegate(Agent('booker').instruct(...))) or native ADK "
        "agents; a function is a tool: .tool(fn).",
    )


_N = TypeVar("_N", bound=Node)


class _Composite(Expression):
    """Shared by composites: ordered children and an optional explicit name."""

    _PREFIX = "composite"
    _INNER = "_steps"

    def __init__(self, *steps: Any, name: str | None = None) -> None:
        if steps and isinstance(steps[0], str):
            _refuse_name_as_step(type(self).__name__, steps[0], name)
        kind = type(self).__name__
        children = tuple([s if isinstance(s, Expression) else as_step(s, kind) for s in steps])
        if not children:
            named = f", name={name!r}" if name is not None else ""
            raise EmptyCompositeError(
                f"{type(self).__name__} needs at least one step",
                agent=name,
                hint=f"pass agents: {type(self).__name__}(Agent('a'), Agent('b'){named}).",
            )
        if name is not None:
            super().__init__(name)
        else:  # the auto name is computed on first use: `a >> b >> ...` chains stay linear
            self._fields = {}
        self._steps = children
        self._named = name is not None

    @classmethod
    def _of(cls, children: tuple[Expression, ...]) -> Self:
        """An unnamed composite of steps that are already Expressions (what operators make):
        no re-checking, so a chain `a >> b >> ...` of n steps costs O(n), not O(n^2) checks."""
        new = object.__new__(cls)
        new.__dict__.update(_fields={}, _steps=children, _named=False)
        return new

    @classmethod
    def _extended(cls, left: Self, tail: tuple[Expression, ...]) -> Self:
        """`left` (unnamed, of this kind) followed by `tail`, as operators make it, without
        copying `left`'s steps: composites made so are views of one list that only grows (a
        view's steps are its first `count` items, a tuple once asked for), and the view that
        sees the whole list extends it in place. A chain `a >> b >> ...` of n steps then copies
        O(n) steps, not the O(n^2) of a new tuple per step. A view that is changed (named, a
        field set, ...) is copied with its steps as a tuple (`_copy`): holding a list part
        (`_run`) also says a composite is as operators made it."""
        run = left.__dict__.get("_run")
        if run is None:  # the chain's first composite: its steps start the list
            items, count = list(left._steps), len(left._steps)
        else:
            items, count = run
            if len(items) != count:  # a longer view shares the list: this one's part, copied
                items = items[:count]
        items += tail
        end = count + len(tail)
        # the list is this view's if `tail` landed right after its part (another thread may
        # have extended it first; items never change once in the list)
        if items[count:end] != list(tail):  # builders compare by identity
            items = [*items[:count], *tail]
        new = object.__new__(cls)
        new.__dict__ = {"_fields": {}, "_run": (items, end), "_named": False}
        return new

    def _copy(self, **changes: Any) -> Self:
        return _unit(super()._copy(**changes))

    def _set_field(self, field: str, value: Any) -> Self:
        return _unit(super()._set_field(field, value))

    def _missing_attribute(self, attr: str) -> Any:
        if attr == "_name":  # named on first use (see _name_unnamed)
            _name_unnamed(self)
            return self.__dict__["_name"]
        run = self.__dict__.get("_run")
        if attr == "_steps" and run is not None:  # a view's steps, made on first use (_extended)
            items, count = run
            steps = self.__dict__["_steps"] = tuple(items[:count])
            return steps
        return super()._missing_attribute(attr)

    if not TYPE_CHECKING:  # as in BuilderBase: unknown methods stay errors to type checkers
        __getattr__ = _missing_attribute

    @property
    def steps(self) -> tuple[Expression, ...]:
        """The children, in order."""
        return self._steps

    def named(self, name: str) -> Self:
        """Give the composite an explicit name (it then stays a unit under `>>` / `|`)."""
        check_name(name)
        return self._copy(_name=name, _named=True)

    def _child_irs(self) -> tuple[Any, ...]:
        # to_ir made them first (see BuilderBase.to_ir): read, not asked for
        return tuple([step.__dict__.get("_ir") or step.to_ir() for step in self._steps])

    def _node(self, kind: type[_N], children: tuple[Node, ...] | None = None, **extra: Any) -> _N:
        """This composite's IR node: its name, ADK fields, `extra` node fields, its children
        (default: its steps') and its visibility."""
        # setters set known fields only, and `extra` holds node fields: no checking again
        return kind.of(
            self._name,
            {
                **self._fields,
                **extra,
                "children": self._child_irs() if children is None else children,
                "visibility": self._visibility,
            },
        )


_C = TypeVar("_C", bound=_Composite)

# how each composite is written here, for code that names it first and adds steps after it
# (adk-fluent 0.x's `Pipeline("research").step(a)`, docs/from-adk-fluent-0x.md)
_COMPOSED = {
    "Pipeline": ("step", "Pipeline(a, b, name={name!r}), or a >> b"),
    "FanOut": ("branch", "FanOut(a, b, name={name!r}), or a | b"),
    "Loop": ("step", "Loop(a, b, max_iterations=3, name={name!r}), or (a >> b) * 3"),
}


def _refuse_name_as_step(kind: str, given: str, name: str | None) -> NoReturn:
    """A composite made with its name as the first positional argument: a str is not a step."""
    verb, written = _COMPOSED.get(kind, ("step", f"{kind}(a, b, name={{name!r}})"))
    raise BuildError(
        f"cannot use {describe_value(given)} with `{kind}`: a {kind}'s positional arguments "
        "are its steps, and its name is not one",
        agent=name or given[:60],
        field="name",
        hint=f"give the name by keyword and the steps when you make it: "
        f"{written.format(name=given[:40])}. A {kind} has no .{verb}() to add them later "
        "(adk-fluent 0.x's spelling; docs/from-adk-fluent-0x.md maps the others).",
    )


def _name_unnamed(root: _Composite) -> None:
    """Give `root` and the unnamed composites under it their auto names, children first,
    without recursion (a chain of 300 nested Pipelines has 300 names to compute)."""
    stack: list[tuple[_Composite, bool]] = [(root, False)]
    while stack:
        node, children_named = stack.pop()
        if "_name" in node.__dict__:
            continue
        if children_named:
            node.__dict__["_name"] = _auto_name(node._PREFIX, node._steps)
            continue
        stack.append((node, True))
        stack.extend(
            (step, False)
            for step in node._steps
            if isinstance(step, _Composite) and "_name" not in step.__dict__
        )


class Pipeline(_Composite, DeclaresState, AgentCallbacks, SequentialAgentSetters):
    """Run steps one after another (ADK's SequentialAgent). `a >> b` builds one."""

    _ADK_CLASS = "SequentialAgent"
    _PREFIX = "pipeline"
    _SPELT_DIFFERENTLY = {
        "sub_agents": "a pipeline's sub-agents are its steps: Pipeline(a, b) or a >> b.",
        "step": "a Pipeline's steps are given when it is made: Pipeline(a, b, name='research') "
        "or a >> b; a pipeline is a value, so a >> c makes a longer one (docs/builders.md).",
    }

    def __rshift__(self, other: Any) -> Pipeline:
        # `a >> b >> ...` grows here: a view extended by one more step (_joined's answer)
        run = self.__dict__.get("_run")
        if run is not None and isinstance(other, Expression) and type(other) is not Pipeline:
            return _grown(Pipeline, run, other)
        return _joined(Pipeline, ">>", self, other)

    def _build_ir(self) -> SequentialAgentNode:
        return self._node(SequentialAgentNode, **self._declared_fields())


class FanOut(_Composite, DeclaresState, AgentCallbacks, ParallelAgentSetters):
    """Run branches concurrently (ADK's ParallelAgent). `a | b` builds one.

    `join="first_complete"` (or `.first_complete()`) ends the FanOut when its first branch
    finishes, cancelling the others; `.merge(...)` stores the branches' outputs in one key.
    Without either it compiles to ADK's ParallelAgent exactly."""

    _ADK_CLASS = "ParallelAgent"
    _PREFIX = "fanout"
    _SPELT_DIFFERENTLY = {
        "sub_agents": "a FanOut's sub-agents are its branches: FanOut(a, b) or a | b.",
        "branch": "a FanOut's branches are given when it is made: FanOut(a, b, name='research') "
        "or a | b; fanout | c makes a wider one (docs/builders.md).",
        "gather": "collect the branches' outputs with .merge('dict', into='results').",
        "first": "end with the first finished branch: .first_complete().",
    }
    _join: str | None = None  # None: every branch; "first_complete": the first to finish
    _merge: FanOutMerge | None = None

    def __init__(self, *steps: Any, name: str | None = None, join: str | None = None) -> None:
        super().__init__(*steps, name=name)
        if join is not None:
            self._join = _join_kind(join, self._name)

    def __or__(self, other: Any) -> FanOut:
        # `a | b | ...` grows here: a view extended by one more branch (_joined's answer)
        run = self.__dict__.get("_run")
        if run is not None and isinstance(other, Expression) and type(other) is not FanOut:
            return _grown(FanOut, run, other)
        return _joined(FanOut, "|", self, other)

    def first_complete(self) -> Self:
        """End the FanOut when its first branch finishes: the others are cancelled (and
        awaited) and the pipeline goes on. Branches run live on the session, as in any FanOut,
        so what a cancelled branch already stored stays (unlike race(), whose alternatives run
        on private copies and leave nothing). A branch that raises does not finish; if all
        raise, the last error is raised. A branch holding a gate is refused at build."""
        return self._copy(_join=FIRST_COMPLETE)

    def merge(
        self,
        how: str | Callable[[dict[str, Any]], Any],
        *,
        into: str | None = None,
        separator: str | None = None,
    ) -> Self:
        """Store the branches' outputs at state[`into`] after they end (one state delta).

        `how` is "dict" ({branch name: output}), "concat" (the outputs as text in branch
        order, joined by `separator`, default a blank line) or a function of that dict whose
        return value is stored. A branch's output is the value of its `.outputs()` key when it
        has one, else its final reply text (None / left out when it has neither). With
        `.first_complete()`, only the branch that finished is merged."""
        where = self._name
        if self._merge is not None:
            raise BuildError(
                f"FanOut '{where}' already has {self._merge.describe()}",
                agent=where,
                field="merge",
                hint="a FanOut merges once: keep one .merge(...); to store two views, merge "
                "with a function and derive the second with S.compute(...) after it.",
            )
        if into is None:
            raise BuildError(
                ".merge() needs into=, the state key to store the merged outputs at",
                agent=where,
                field="into",
                hint=f".merge({how!r}, into='results')"
                if isinstance(how, str)
                else ".merge(fn, into='best').",
            )
        check_key(
            into,
            ".merge(into=...)",
            agent=where,
            field="into",
            hint="name the key the merged outputs go to, e.g. .merge('dict', into='results').",
        )
        if isinstance(how, str):
            checked_choice(
                how, where, "merge", MERGE_MODES, hint="or merge with a function of the outputs."
            )
            if separator is not None and how != "concat":
                raise BuildError(
                    f"separator= applies to .merge('concat'), not .merge({how!r})",
                    agent=where,
                    field="separator",
                    hint="drop separator=, or merge with 'concat'.",
                )
            hint = "e.g. separator=' | '"
            checked_instance(separator, where, "separator", (str, NoneType), what="text", hint=hint)
            record = FanOutMerge(how, into, "\n\n" if separator is None else separator)
        else:
            checked_function(
                how,
                where,
                "merge",
                takes=1,
                what=".merge() (besides 'dict' and 'concat')",
                hint="the reducer takes one dict {branch name: output}: "
                "def best(outputs): return max(outputs.values(), key=len).",
                classes=False,
            )
            if separator is not None:
                raise BuildError(
                    "separator= applies to .merge('concat'), not to a reducer",
                    agent=where,
                    field="separator",
                    hint="drop separator=; the reducer decides how to combine the outputs.",
                )
            record = FanOutMerge("reducer", into, reducer=how)
        return self._copy(_merge=record)

    def _build_ir(self) -> ParallelAgentNode:
        extra = self._declared_fields()
        if self._join is not None:
            extra["join"] = self._join
        if self._merge is not None:
            extra["merge"] = self._merge
        return self._node(ParallelAgentNode, **extra)


def _edge_kind(edge: Any, agent: str) -> str:
    """`edge` if `.then()` knows it, else a BuildError with a did-you-mean."""
    if edge == FIRST_COMPLETE:
        raise BuildError(
            "first_complete is how a FanOut ends, not an edge between two steps",
            agent=agent,
            field="edge",
            hint="write FanOut(a, b).first_complete() (or FanOut(a, b, join='first_complete')).",
        )
    return checked_choice(edge, agent, "edge", EDGES, hint="'complete' (the default) is >>.")


def _join_kind(join: Any, agent: str | None) -> str | None:
    """A FanOut's join: None for "complete" (every branch), else "first_complete"."""
    kind = checked_choice(
        join, agent, "join", JOINS, hint="'complete' (the default) waits for all."
    )
    return None if kind == "complete" else kind


@dataclass(frozen=True)
class Until:
    """A loop condition: `body * until(pred, max=5)` repeats until `pred(state)` is true."""

    predicate: Callable[[Any], bool]
    max: int | None = 10
    name: str | None = None  # the check step's name (default: '<loop>__until')


def _checked_predicate(predicate: Any, what: str, name: str | None) -> None:
    checked_function(
        predicate,
        name,
        "predicate",
        takes=1,
        what=f"{what}'s predicate",
        hint="the predicate takes the state: lambda state: state.get('done') == 'yes'.",
        classes=False,
    )


def until(
    predicate: Callable[[Any], bool],
    *,
    max: int | None = 10,  # noqa: A002 - the public name (until(pred, max=5))
    name: str | None = None,
) -> Until:
    """Loop condition for `body * until(pred, max=...)`: checked after every iteration.
    `max=None` sets no limit (the loop ends only when the predicate holds or a step escalates);
    `name` names the check step (its events and diagrams show it)."""
    _checked_predicate(predicate, "until()", name)
    if max is not None:
        checked_count(
            max,
            None,
            "max",
            least=1,
            hint="the most iterations to run, e.g. until(pred, max=5); None for no limit.",
        )
    if name is not None:
        check_name(name, "step")
    return Until(predicate, max, name)


class LoopExit(Expression):
    """`exit_when(pred)`: a step anywhere in a loop's body that ends the loop when `pred(state)`
    holds (see `exit_when`)."""

    def __init__(self, predicate: Callable[[Any], bool], name: str | None = None) -> None:
        _checked_predicate(predicate, "exit_when()", name)
        super().__init__(name or "exit_when")
        self._predicate = predicate

    def named(self, name: str) -> Self:
        """Rename the step (names show in events and diagrams)."""
        check_name(name, "step")
        return self._copy(_name=name)

    def _build_ir(self) -> UntilNode:
        return UntilNode(name=self._name, predicate=self._predicate)


def exit_when(predicate: Callable[[Any], bool], *, name: str | None = None) -> LoopExit:
    """A loop step that ends the loop when `predicate(state)` holds, between two steps of an
    iteration: `Loop(writer >> exit_when(lambda s: s["verdict"] == "ok") >> reviser)`.

    It escalates as an ADK agent would (an event with `actions.escalate=True`); ADK's loop stops
    once the loop step containing it finishes, so put it directly in the loop's body (a flat
    `a >> exit_when(...) >> b`), not inside a named sub-pipeline. Outside a loop it is an error."""
    return LoopExit(predicate, name)


def _check_max_iterations(value: Any, loop: str) -> None:
    checked_count(
        value,
        loop,
        "max_iterations",
        least=1,
        hint="e.g. Loop(body, max_iterations=3), or body * 3.",
    )


class Loop(_Composite, DeclaresState, AgentCallbacks, LoopAgentSetters):
    """Repeat a body (ADK's LoopAgent) up to `max_iterations`, until a condition holds, or (with
    neither) until one of its steps escalates: `exit_when(...)`, a native checker agent, or a
    tool such as ADK's `exit_loop`.

    The body's steps are the loop's own sub-agents, as in ADK's idiom: `Loop(a, b)` and
    `(a >> b) * 3` both compile to `LoopAgent(sub_agents=[a, b])`."""

    _ADK_CLASS = "LoopAgent"
    _PREFIX = "loop"
    _SPELT_DIFFERENTLY = {
        "sub_agents": "a loop's sub-agents are its body's steps: Loop(a, b) or (a >> b) * 3.",
        "step": "a Loop's body is given when it is made: Loop(a, b, max_iterations=3, "
        "name='refine') or (a >> b) * 3.",
    }

    def __init__(
        self,
        *body: Any,
        max_iterations: int | None = None,
        until: Until | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(*body, name=name)
        if len(self._steps) == 1:  # `(a >> b) * n`: ADK's loop runs a, b as its own sub-agents
            self._steps = _flatten(Pipeline, self._steps[0])
        checked_instance(
            until,
            self._name,
            "until",
            (Until, NoneType),
            what="a condition made by until(predicate)",
            hint="Loop(body, until=until(lambda state: state.get('done'))).",
        )
        self._until = until
        if until is not None and max_iterations is None:
            max_iterations = until.max
        if max_iterations is not None:
            _check_max_iterations(max_iterations, self._name)
            self._fields = {"max_iterations": max_iterations}

    def show(self, what: str | None = None) -> Self:
        """`.show()`: every agent of the loop is user-facing, in every round. `.show("final")`:
        the rounds stay internal, and when the loop ends (by its maximum or an exit) it presents
        each body agent's latest reply, in the order they came, as the loop's own user-facing
        events; a filtered client then receives the loop's final round and nothing before it
        (the store keeps every round). docs/control-flow.md#loop-in-rounds."""
        if what is None:
            return super().show()
        if what != "final":
            raise BuildError(
                f"Loop.show() takes 'final' or nothing, not {describe_value(what)}",
                agent=self._name,
                field="visibility",
                hint="Loop(...).show('final') presents the final round to the user when the loop "
                "ends; .show() makes every round user-facing.",
            )
        return self._copy(_visibility="final")

    def _set_field(self, field: str, value: Any) -> Self:
        # the generated .max_iterations() setter gets the same check as Loop(max_iterations=n):
        # ADK would loop forever on 0 (1.x) or never run the body (2.x)
        if field == "max_iterations" and value is not None:
            _check_max_iterations(value, self._name)
        return super()._set_field(field, value)

    def _build_ir(self) -> LoopAgentNode:
        children = self._child_irs()
        if self._visibility == "final":
            _refuse_gates_in_final_round(self._name, children)
        if self._until is not None:
            check = UntilNode(
                name=self._until.name or f"{self._name}__until", predicate=self._until.predicate
            )
            children = (*children, check)
        return self._node(LoopAgentNode, children, **self._declared_fields())


def _refuse_gates_in_final_round(loop: str, children: tuple[Node, ...]) -> None:
    """A loop that presents its final round must end within one turn: a gate in it may pause
    the loop until a person answers in a later turn."""
    for child in children:
        gate = next((node for node in child.walk() if node.PAUSES_RUN), None)
        if gate is not None:
            raise BuildError(
                f"gate '{gate.name}' sits inside loop '{loop}', which shows its final round: "
                "the loop presents its final round when it ends, and a gate can pause it until "
                "a later turn",
                agent=loop,
                field="visibility",
                hint="move the gate after the loop, or .show() the agent whose reply the user "
                "should see (every round of it then reaches the user).",
            )


class Fallback(_Composite):
    """Try children in order; the next runs only when the previous raised (`a // b`).

    A failed child's events already streamed stay in the session (ADK persists events as they
    are yielded), and so do the state changes those events carried. If every child fails,
    the last child's error is raised.
    """

    _PREFIX = "fallback"

    def _build_ir(self) -> FallbackNode:
        return self._node(FallbackNode)


# -- operators ---------------------------------------------------------------------------------
def _flattens(kind: type[_Composite], value: Expression) -> bool:
    """Whether `value` is an anonymous composite of `kind` (`a >> b >> c` is one Pipeline);
    a composite with a name, ADK fields, a visibility override, middleware, a join or a merge
    stays a unit."""
    return (
        type(value) is kind
        and not value._named  # type: ignore[attr-defined]
        and not value._fields
        and value._visibility is None
        and not value._middleware
        and (kind is not FanOut or (value._join is None and value._merge is None))  # type: ignore[attr-defined]
    )


def _flatten(kind: type[_Composite], value: Expression) -> tuple[Expression, ...]:
    """The steps of an anonymous composite of `kind` (see `_flattens`), else `(value,)`."""
    if _flattens(kind, value):
        return value.steps  # type: ignore[attr-defined, no-any-return]
    return (value,)


def _grown(kind: type[_C], run: tuple[list[Expression], int], step: Expression) -> _C:
    """_Composite._extended for a view (its `run`) and one step, the most common case."""
    items, count = run
    if len(items) != count:  # a longer view shares the list: this one's part, copied
        items = items[:count]
    items.append(step)
    if items[count] is not step:  # another thread extended the list first
        items = [*items[:count], step]
    new = object.__new__(kind)
    new.__dict__ = {"_fields": {}, "_run": (items, count + 1), "_named": False}
    return new


def _unit(composite: _C) -> _C:
    """A changed composite: its steps a tuple of its own, no longer a view (see _extended)."""
    state = composite.__dict__
    run = state.pop("_run", None)
    if run is not None and "_steps" not in state:
        items, count = run
        state["_steps"] = tuple(items[:count])
    return composite


def _joined(kind: type[_C], operator: str, left: Any, right: Any) -> _C:
    """`left >> right` (or `|`, `//`): one unnamed composite of `kind`, its unnamed operands of
    the same kind flattened into it."""
    a = left if isinstance(left, Expression) else as_step(left, operator)
    b = right if isinstance(right, Expression) else as_step(right, operator)
    # (the type asked first: most operands are agents, not composites of this kind)
    tail = b.steps if type(b) is kind and _flattens(kind, b) else (b,)  # type: ignore[attr-defined]
    # a chain growing on the right: extended, not copied (a view is as operators made it)
    if type(a) is kind and ("_run" in a.__dict__ or _flattens(kind, a)):
        return kind._extended(a, tail)  # type: ignore[arg-type]
    return kind._of((a, *tail))


def _loop(body: Expression, times: Any) -> Loop:
    if isinstance(times, Until):
        return Loop(body, until=times)
    checked_count(  # named after the body: the loop has no name yet
        times,
        body.name,
        "max_iterations",
        least=1,
        hint="e.g. body * 3, or body * until(lambda state: state.get('done')).",
        shown=f"the loop count in `{body.name} * n`",
    )
    return Loop(body, max_iterations=times)


class Timeout(Expression):
    """A deadline around a body; see `timeout()`."""

    def __init__(self, body: Any, seconds: float, name: str | None = None) -> None:
        step = as_step(body, "timeout")
        seconds = checked_seconds(
            seconds,
            step.name,
            "seconds",
            positive=True,
            hint="e.g. step.timeout(30); for no deadline, leave .timeout() out.",
        )
        if name is not None:
            check_name(name, "step")
        super().__init__(name or slug("timeout", step.name))
        self._body, self._seconds = step, seconds

    def _build_ir(self) -> TimeoutNode:
        return TimeoutNode(
            name=self._name,
            seconds=self._seconds,
            children=(self._body.to_ir(),),
            visibility=self._visibility,
        )


class Boundary(Expression):
    """A step deployed as a service of its own; see `Expression.execution_boundary()`."""

    def __init__(
        self,
        body: Any,
        service: str | None = None,
        *,
        url: str = "",
        description: str = "",
        timeout: float = 600.0,
    ) -> None:
        step = as_step(body, "execution_boundary")
        if service is not None:
            check_name(service, "service")
        for field, value in (("url", url), ("description", description)):
            checked_instance(
                value,
                step.name,
                field,
                str,
                what="a str",
                hint="url: the card URL the service will answer at, e.g. "
                "'http://heavy:8001/.well-known/agent-card.json', or a queue broker's URL, "
                "e.g. 'redis://queue:6379/0'.",
            )
        if url and not url.startswith(("http://", "https://")) and not is_queue_url(url):
            raise BuildError(
                f"execution_boundary url={url!r} is neither an http(s) URL nor a queue URL",
                agent=step.name,
                field="url",
                hint="the service's agent card URL, e.g. "
                "'http://heavy:8001/.well-known/agent-card.json', or the queue broker its "
                "workers read, e.g. 'redis://queue:6379/0'.",
            )
        seconds = checked_seconds(
            timeout,
            step.name,
            "timeout",
            positive=True,
            hint="seconds the caller waits for the service's answer, e.g. timeout=120.",
        )
        super().__init__(service or f"{step.name}_service")
        self._body, self._url, self._description = step, url, description
        self._timeout = float(seconds)

    def _build_ir(self) -> BoundaryNode:
        return BoundaryNode(
            name=self._name,
            url=self._url,
            description=self._description,
            timeout=self._timeout,
            children=(self._body.to_ir(),),
            visibility=self._visibility,
        )


class ChunkedEdge(Expression):
    """`producer.then(consumer, edge="chunked", ...)`; see `Expression.then`."""

    def __init__(
        self,
        producer: Any,
        consumer: Any,
        *,
        by: str | int = "sentence",
        key: str | None = "chunk",
        name: str | None = None,
        buffer: int | None = None,
    ) -> None:
        first = as_step(producer, "then")
        second = as_step(consumer, "then")
        where = first.name
        if not isinstance(first.to_ir(), LlmAgentNode):
            raise BuildError(
                f"a chunked edge streams an LLM agent's reply, but '{where}' is a "
                f"{type(first).__name__}",
                agent=where,
                field="edge",
                hint="put the chunked edge after the agent that writes: "
                "a >> writer.then(speaker, edge='chunked'), not (a >> writer).then(...).",
            )
        self._by = TOKEN if by == TOKEN else _chunk_by(by, where)
        self._buffer = (
            None
            if buffer is None
            else checked_count(
                buffer,
                where,
                "buffer",
                least=1,
                hint="the chunks that may wait for the next step, e.g. buffer=16.",
            )
        )
        key = "chunk" if key is None else key
        check_key(
            key,
            "a chunked edge's key=",
            agent=where,
            field="key",
            hint="the state key each chunk is written to, e.g. key='chunk', read as {chunk} "
            "by the next step.",
        )
        if name is not None:
            check_name(name, "edge")
        super().__init__(name or _auto_name("token" if by == TOKEN else "chunked", (first, second)))
        self._producer, self._consumer, self._key = first, second, key

    def named(self, name: str) -> Self:
        """Rename the edge (names show in events and diagrams)."""
        check_name(name, "edge")
        return self._copy(_name=name)

    def _build_ir(self) -> ChunkedEdgeNode:
        return ChunkedEdgeNode(
            name=self._name,
            by=self._by,
            key=self._key,
            buffer=self._buffer,
            children=(self._producer.to_ir(), self._consumer.to_ir()),
            writes_keys=frozenset({self._key}),
            visibility=self._visibility,
        )


def _chunk_by(by: Any, agent: str) -> str | int:
    """`by` if a chunked edge can cut text by it (a unit or a number of characters)."""
    if isinstance(by, int) and not isinstance(by, bool):
        hint = "a positive number of characters (fewer make empty chunks), e.g. by=200."
        return checked_count(by, agent, "by", least=1, hint=hint)
    return checked_choice(by, agent, "by", CHUNK_UNITS, hint="or a number of characters (by=200).")
