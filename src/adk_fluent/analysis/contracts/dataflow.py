"""Reads before writes over the whole IR: an abstract run of the pipeline.

At every read it knows whether the key is set on every path (`yes`), on some (`maybe`) or on
none (`no`), who may have set it, who deleted it and why it may be unset. It descends into every
node kind with that kind's semantics:

* sequence: in order. parallel: every branch from the same state, concurrently (a branch never
  relies on a sibling's writes); race: alternatives on private copies, the winner's writes stay.
  A FanOut with first_complete: live branches, one of which finishes (the others are cut off);
  with a merge: its `into` key is written after the branches.
* chunked edge: the consumer runs once per chunk (at least once), while the producer is still
  writing (what the producer writes may not be there yet), with the chunk key set; after the
  edge both have finished and the chunk key is cleared.
* route: one branch, or none when no rule matches and there is no `.otherwise()`.
* fallback: the next alternative runs after the previous one failed part-way.
* timeout: the body may be cut off at any point. gate: the rest runs in a later turn, so `temp:`
  values are gone. loop: the first iteration starts from the state before the loop; later ones
  from the end of the previous iteration (a fixed point). map_over: like a loop that may run zero
  times, with the item key set inside and cleared after.
* an LLM agent: its before_agent callbacks, its instruction, before_model callbacks, then
  tools (what a tool writes is set only when the model calls it: `maybe`, and `soft`, since
  only the model's choice leaves it unset), after_model callbacks, its reply, after_agent
  callbacks. Agent tools: the tool's tree runs from the caller's state at call time, and its
  writes come back as a tool's do. Delegates: it either answers itself or transfers to one of
  them, who see what its callbacks and tools wrote (its reply only from an earlier turn).
* a custom agent (NativeAgentNode): its `.reads()` / `.writes()` and what its code shows.
* a composite's `.reads()` / `.writes()` and before_agent callbacks hold at its start, its
  after_agent callbacks at its end.

Tools, callbacks and custom agents are read from their source (source.py). Function steps, and
code whose keys cannot be read, are opaque: they may write any key, so a read they might satisfy
is reported as unverifiable rather than as an error. Nothing here imports google.adk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from adk_fluent.analysis.contracts.effects import (
    CodeUnit,
    Read,
    StepEffects,
    Write,
    agent_code,
    agent_reads,
    agent_writes,
    declared_reads,
    declared_writes,
    is_set,
    model_fields,
    node_code,
    step_effects,
)
from adk_fluent.ir import nodes as ir
from adk_fluent.ir.nodes import body_output_key, final_replier
from adk_fluent.ir.state_keys import UNKNOWN, scope_of_key

YES, MAYBE, NO = "yes", "maybe", "no"
_COMPOSITES = (ir.SequentialAgentNode, ir.ParallelAgentNode, ir.LoopAgentNode)
RANK = {NO: 0, MAYBE: 1, YES: 2}
MAX_PASSES = 6  # loop fixed points settle in two or three passes; this bounds pathological ones


@dataclass(frozen=True)
class Writer:
    """Who wrote a key, and how."""

    node: str
    path: str
    via: str
    kind: str
    type: Any = field(default=UNKNOWN, compare=False, hash=False)
    value: Any = field(default=UNKNOWN, compare=False, hash=False)
    text: bool = False  # an agent's reply: it reaches later agents through history too


INITIAL_WRITER = Writer("initial state", "", "initial_keys", "initial")


@dataclass(frozen=True)
class Fact:
    """What is known about one key at one point of the run."""

    status: str
    writers: tuple[Writer, ...] = ()
    deleters: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # why it may be unset
    turn_break: str | None = None  # the gate across which this temp: value is lost
    # `maybe` only because a model may choose otherwise (not call a tool, transfer before it
    # answered): sample code relies on it every day, so a read of it is advice, not a warning
    soft: bool = False


ABSENT = Fact(NO)


@dataclass(frozen=True)
class Opaque:
    """A step that may write keys the checker cannot name."""

    step: str  # the node
    label: str  # for messages: "function step 'f'", "tool 'save' of 'a' (why)"
    function_step: bool = False  # a plain function step (S.set / S.compute can replace it)


@dataclass(frozen=True)
class Unseen:
    """An LLM reply kept only in history (no output key) that no later agent has seen yet."""

    path: str
    hidden_by: tuple[tuple[str, str], ...] = ()  # (agent, its view) that left the reply out


@dataclass(frozen=True)
class View:
    """Which earlier agents' replies an LLM agent sees in its conversation history."""

    history: (
        str  # default | none | user_only | from_agents | exclude_agents | last_n_turns | adk_none
    )
    agents: tuple[str, ...] = ()
    label: str = "the default history"

    def shows(self, agent: str, latest: frozenset[str]) -> bool:
        """Whether a reply by `agent` reaches this view (`latest`: the most recent speakers)."""
        if self.history in ("default", "last_n_turns"):
            return True
        if self.history == "adk_none":  # ADK keeps what follows the latest other agent's reply
            return agent in latest
        if self.history == "from_agents":
            return agent in self.agents
        if self.history == "exclude_agents":
            return agent not in self.agents
        return False


def _quoted(names: tuple[str, ...]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def view_of(node: ir.LlmAgentNode) -> View:
    """The history view an LLM agent compiles to (its C spec, or include_contents)."""
    spec = node.context
    history = getattr(spec, "history", None)
    if history is None:
        if node.include_contents == "none":
            return View("adk_none", label="include_contents='none'")
        return View("default")
    agents = tuple(getattr(spec, "agents", ()))
    keys = tuple(getattr(spec, "state_keys", ()))
    if history == "none" and keys and not getattr(spec, "history_set", True):
        label = f"C.from_state({_quoted(keys)})"
    elif history in ("from_agents", "exclude_agents"):
        label = f"C.{history}({_quoted(agents)})"
    elif history == "last_n_turns":
        label = f"C.last_n_turns({getattr(spec, 'turns', 0)})"
    else:
        label = f"C.{history}()"
    return View(history, agents, label)


@dataclass(frozen=True)
class Sibling:
    """A concurrent branch that writes the key being read."""

    kind: str  # parallel | race
    scope: str  # the FanOut / race node
    branch: str
    via: str


@dataclass
class ReadRecord:
    """One read, with the worst state of its key seen over every pass."""

    node: str
    path: str
    kind: str  # agent | route | map_over | step | node
    read: Read
    fact: Fact
    order: int
    opaque: tuple[Opaque, ...] = ()  # steps that may have written the key unseen
    siblings: tuple[Sibling, ...] = ()
    first_iteration_of: str | None = None  # loop/map_over whose first iteration reads too early
    concurrent_items: bool = False  # map_over items on private copies
    handles_missing: bool = False  # a Route with .otherwise(): a missing key is a branch
    view: View | None = None
    speakers: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Conflict:
    """Concurrent branches that write one key: the last writer wins, in no fixed order."""

    node: str
    path: str
    key: str
    branches: tuple[tuple[str, str], ...]  # (branch, via)


@dataclass(frozen=True)
class Clobber:
    """A map_over whose item key overwrites (and then clears) a key written before it."""

    node: str
    path: str
    key: str
    writers: tuple[str, ...]


@dataclass
class Env:
    """The abstract state at one point of the run."""

    facts: dict[str, Fact]
    opaque: tuple[Opaque, ...] = ()  # opaque steps on some path so far: they may write any key
    unseen: dict[str, Unseen] = field(default_factory=dict)
    speakers: frozenset[str] = frozenset()  # LLM agents whose reply is the latest

    def copy(self) -> Env:
        """A copy the caller may change (Facts themselves are immutable and shared)."""
        return Env(dict(self.facts), self.opaque, dict(self.unseen), self.speakers)

    def same(self, other: Env) -> bool:
        """Whether two states are equal (a loop's fixed point is reached)."""
        return (
            self.facts == other.facts
            and self.opaque == other.opaque
            and self.unseen == other.unseen
            and self.speakers == other.speakers
        )


def _union(*groups: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(item for group in groups for item in group))


def _either(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]


def join(labeled: list[tuple[str, Env]], where: str) -> Env:
    """The state after one of several paths (labelled for messages) was taken."""
    if len(labeled) == 1:
        return labeled[0][1]
    envs = [env for _, env in labeled]
    base = envs[0].facts
    differing: set[str] = set()
    for env in envs[1:]:  # paths share most Fact objects: find the keys where they differ
        other = env.facts
        if other is base:
            continue
        differing.update(k for k, f in other.items() if base.get(k) is not f)
        differing.update(base.keys() - other.keys())
    facts = dict(base)
    for key in sorted(differing):
        found = [env.facts.get(key, ABSENT) for env in envs]
        first = found[0]
        if all(f == first for f in found[1:]):
            continue
        statuses = {f.status for f in found}
        status = YES if statuses == {YES} else NO if statuses == {NO} else MAYBE
        notes = _union(*(f.notes for f in found))
        soft = status == MAYBE and all(f.status == YES or f.soft for f in found)
        if status == MAYBE:
            set_on = [
                label for (label, _), f in zip(labeled, found, strict=True) if f.status == YES
            ]
            unset_on = [
                label for (label, _), f in zip(labeled, found, strict=True) if f.status != YES
            ]
            if set_on:  # this join's own explanation replaces earlier ones from the same place
                notes = tuple(n for n in notes if not n.startswith(f"{where}:"))
                notes = _union(notes, (f"{where}: set {_either(set_on)}, not {_either(unset_on)}",))
        facts[key] = Fact(
            status,
            _union(*(f.writers for f in found)),
            _union(*(f.deleters for f in found)),
            notes,
            next((f.turn_break for f in found if f.turn_break), None),
            soft,
        )
    unseen: dict[str, Unseen] = {}
    for env in envs:
        for name, item in env.unseen.items():
            if name in unseen:
                item = replace(item, hidden_by=_union(unseen[name].hidden_by, item.hidden_by))
            unseen[name] = item
    return Env(
        facts,
        _union(*(env.opaque for env in envs)),
        unseen,
        frozenset().union(*(env.speakers for env in envs)),
    )


@dataclass(frozen=True)
class EndlessLoop:
    """A loop with no maximum and no step that can end it."""

    node: str
    path: str


@dataclass(frozen=True)
class Way:
    """One way a subtree may write (or delete) a key."""

    via: str
    delete: bool = False
    maybe: bool = False  # only when a model calls a tool (a tool, an agent tool's tree)
    kind: str = "step"  # the Write's kind


@dataclass
class _LoopFrame:
    label: str
    body_keys: frozenset[str]
    first: bool = True
    concurrent_items: bool = False


@dataclass
class DataflowResult:
    """Everything the checks need from one abstract run."""

    records: list[ReadRecord]
    writers: dict[str, list[Writer]]  # every key written anywhere, and by whom
    read_keys: set[str]
    opaque_readers: list[str]
    conflicts: list[Conflict]
    clobbers: list[Clobber]
    unseen: dict[str, Unseen]
    agents: dict[str, ir.LlmAgentNode]
    paths: dict[str, str]  # node name -> path of its first occurrence
    output_schema_fields: dict[str, list[str]]  # field -> agents whose output_schema has it
    endless_loops: list[EndlessLoop] = field(default_factory=list)
    opaque_writers: list[str] = field(default_factory=list)  # steps that may write any key
    # the state when the run ends: what the next turn of the same session starts from
    final: dict[str, Fact] = field(default_factory=dict)


class At(NamedTuple):
    """Where a case of Flow is: the state before the node runs, its path, that path joined."""

    env: Env
    path: tuple[str, ...]
    p: str


class Flow(ir.NodeVisitor[At, Env]):
    """One abstract run over an IR tree: one case per node type, each from the state before it
    runs (`at`) to the state after."""

    def __init__(self, root: ir.Node, initial_keys: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.initial_keys = initial_keys
        self.records: dict[tuple[str, str, str], ReadRecord] = {}
        self.writers: dict[str, dict[tuple[str, str], Writer]] = {}
        self.read_keys: set[str] = set()
        self.opaque_readers: dict[str, str] = {}
        self.conflicts: dict[tuple[str, str], Conflict] = {}
        self.clobbers: dict[tuple[str, str], Clobber] = {}
        self.scopes: list[dict[str, list[Sibling]]] = []
        self.loops: list[_LoopFrame] = []
        self.endless: dict[str, EndlessLoop] = {}
        self.opaque_writers: dict[str, None] = {}  # labels of every opaque step, anywhere
        self._bounded = 0  # inside a timeout or race: a loop there ends when it is cut off
        self._subtree: dict[int, dict[str, list[Way]]] = {}
        self._effects: dict[int, Any] = {}  # per node: its reads / writes, computed once
        self._code: dict[int, tuple[CodeUnit, ...]] = {}
        self._declared: dict[int, tuple[list[Read], list[Write]]] = {}
        self._escalates: dict[int, bool] = {}
        self._delegates: dict[int, dict[str, list[tuple[ir.Node, Writer, bool]]]] = {}
        self._handoffs: dict[int, tuple[Env, Env]] = {}  # per agent: (handoff, with all writes)

    def run(self) -> DataflowResult:
        """Run the whole tree from the initial state."""
        facts = {key: Fact(YES, (INITIAL_WRITER,)) for key in sorted(self.initial_keys)}
        end = self.visit_at(self.root, Env(facts), ())
        agents: dict[str, ir.LlmAgentNode] = {}
        paths: dict[str, str] = {}
        schema_fields: dict[str, list[str]] = {}
        stack: list[tuple[ir.Node, tuple[str, ...]]] = [(self.root, ())]
        while stack:
            node, parent = stack.pop()
            path = (*parent, node.name)
            paths.setdefault(node.name, "/".join(path))
            if isinstance(node, ir.LlmAgentNode):
                agents.setdefault(node.name, node)
                if is_set(node.output_schema):
                    for name in model_fields(node.output_schema):
                        schema_fields.setdefault(name, []).append(node.name)
            stack.extend((tree, path) for tree in reversed(node.attached))
            stack.extend((child, path) for child in reversed(node.children))
        return DataflowResult(
            records=sorted(self.records.values(), key=lambda r: r.order),
            writers={key: list(found.values()) for key, found in self.writers.items()},
            read_keys=self.read_keys,
            opaque_readers=list(self.opaque_readers.values()),
            conflicts=list(self.conflicts.values()),
            clobbers=list(self.clobbers.values()),
            unseen=end.unseen,
            agents=agents,
            paths=paths,
            output_schema_fields=schema_fields,
            endless_loops=list(self.endless.values()),
            opaque_writers=list(self.opaque_writers),
            final=end.facts,
        )

    # -- traversal -----------------------------------------------------------------------------
    def visit_at(self, node: ir.Node, env: Env, parent: tuple[str, ...]) -> Env:
        """The state after `node` runs from `env`."""
        path = (*parent, node.name)
        return self.visit(node, At(env, path, "/".join(path)))

    def visit_sequential_agent(self, node: ir.SequentialAgentNode, at: At) -> Env:
        return self._composite(node, self._sequence, *at)

    def visit_parallel_agent(self, node: ir.ParallelAgentNode, at: At) -> Env:
        return self._composite(node, self._parallel, *at)

    def visit_loop_agent(self, node: ir.LoopAgentNode, at: At) -> Env:
        return self._composite(node, self._loop, *at)

    def visit_tap(self, node: ir.TapNode, at: At) -> Env:
        return self._opaque_reader(node, *at)

    def visit_until(self, node: ir.UntilNode, at: At) -> Env:
        return self._opaque_reader(node, *at)

    def visit_boundary(self, node: ir.BoundaryNode, at: At) -> Env:
        return self._seq(node.children, at.env, at.path)

    def _seq(self, children: tuple[ir.Node, ...], env: Env, path: tuple[str, ...]) -> Env:
        for child in children:
            env = self.visit_at(child, env, path)
        return env

    def _sequence(self, node: ir.Node, env: Env, path: tuple[str, ...], p: str) -> Env:
        return self._seq(node.children, env, path)

    # -- writes and reads ----------------------------------------------------------------------
    def _write(self, env: Env, node: ir.Node, p: str, write: Write) -> None:
        """Apply one write to `env` (which the caller owns)."""
        writer = Writer(node.name, p, write.via, write.kind, write.type, write.value, write.text)
        old = env.facts.get(write.key, ABSENT)
        if write.delete:
            env.facts[write.key] = Fact(
                NO, old.writers, _union(old.deleters, (write.via,)), old.notes
            )
            return
        self.writers.setdefault(write.key, {}).setdefault((p, write.via), writer)
        env.facts[write.key] = Fact(YES, (writer,))

    def _maybe_write(
        self,
        env: Env,
        writer: Writer,
        key: str,
        note: str,
        *,
        delete: bool = False,
        register: bool = True,
    ) -> None:
        """A write (or delete) that happens only if a model chooses so (it calls a tool)."""
        if register and not delete:
            self.writers.setdefault(key, {}).setdefault((writer.path, writer.via), writer)
        old = env.facts.get(key, ABSENT)
        if delete:
            if old.status != NO:
                env.facts[key] = Fact(
                    MAYBE,
                    old.writers,
                    _union(old.deleters, (writer.via,)),
                    _union(old.notes, (note,)),
                    old.turn_break,
                    old.status == YES or old.soft,
                )
            return
        if old.status == YES:
            env.facts[key] = replace(old, writers=_union(old.writers, (writer,)))
        elif old.status == MAYBE:
            env.facts[key] = replace(
                old, writers=_union(old.writers, (writer,)), notes=_union(old.notes, (note,))
            )
        else:
            env.facts[key] = Fact(MAYBE, (writer,), old.deleters, (note,), old.turn_break, True)

    def _read(
        self,
        node: ir.Node,
        kind: str,
        p: str,
        read: Read,
        env: Env,
        *,
        view: View | None = None,
        handles_missing: bool = False,
        opaque: tuple[Opaque, ...] = (),
    ) -> None:
        if read.channel not in ("S.drop", "S.pick"):  # deleting a key is not using it
            self.read_keys.add(read.key)
        fact = env.facts.get(read.key, ABSENT)
        siblings = tuple(s for scope in self.scopes for s in scope.get(read.key, ()))
        frame = next((f for f in reversed(self.loops) if f.first and read.key in f.body_keys), None)
        ident = (p, read.key, read.channel)
        old = self.records.get(ident)
        if (
            old is not None
            and RANK[fact.status] >= RANK[old.fact.status]
            and not (fact.status == old.fact.status == MAYBE and old.fact.soft and not fact.soft)
        ):
            return
        self.records[ident] = ReadRecord(
            node=node.name,
            path=p,
            kind=kind,
            read=read,
            fact=fact,
            order=old.order if old is not None else len(self.records),
            opaque=_union(env.opaque, opaque),
            siblings=siblings,
            first_iteration_of=frame.label if frame is not None else None,
            concurrent_items=frame.concurrent_items if frame is not None else False,
            handles_missing=handles_missing,
            view=view,
            speakers=env.speakers,
        )

    # -- node kinds ----------------------------------------------------------------------------
    def _agent_effects(self, node: ir.LlmAgentNode) -> tuple[View, list[Read], list[Write]]:
        cached = self._effects.get(id(node))
        if cached is None:
            reads = agent_reads(node, is_root=node is self.root)
            cached = (view_of(node), reads, agent_writes(node))
            self._effects[id(node)] = cached
        return cached  # type: ignore[no-any-return]

    def _step_effects(self, node: ir.TransformNode) -> StepEffects:
        cached = self._effects.get(id(node))
        if cached is None:
            cached = self._effects[id(node)] = step_effects(node)
        return cached  # type: ignore[no-any-return]

    def _code_of(self, node: ir.Node) -> tuple[CodeUnit, ...]:
        """The tools, callbacks and own code of a node, read from their source (once)."""
        cached = self._code.get(id(node))
        if cached is None:
            if isinstance(node, ir.LlmAgentNode):
                cached = agent_code(node, is_root=node is self.root)
            elif isinstance(node, (ir.NativeAgentNode, *_COMPOSITES)):
                cached = node_code(node)
            else:
                cached = ()
            self._code[id(node)] = cached
        return cached

    def _declarations(self, node: ir.Node) -> tuple[list[Read], list[Write]]:
        """A composite's or custom agent's `.reads()` / `.writes()` (once)."""
        cached = self._declared.get(id(node))
        if cached is None:
            cached = self._declared[id(node)] = (declared_reads(node), declared_writes(node))
        return cached

    def _run_code(
        self,
        node: ir.Node,
        p: str,
        units: tuple[CodeUnit, ...],
        stage: str,
        env: Env,
        *,
        declared: bool,
        kind: str = "agent",
    ) -> Env:
        """Run the code of one stage (in order, each seeing the writes before it): its reads
        are checked, its writes hold from then on. With `declared` (the node's `.reads()` /
        `.writes()`), code the checker cannot read is taken to do no more than declared."""
        copied = False
        for unit in units:
            if unit.stage != stage:
                continue
            effects = unit.effects
            itself: tuple[Opaque, ...] = ()
            if effects.opaque_write and not declared:  # it may have written what it reads
                itself = (Opaque(node.name, unit.opaque_label(node.name)),)
            for read in unit.reads():
                self._read(node, kind, p, read, env, opaque=itself)
            if not copied:
                env, copied = env.copy(), True
            for write in unit.writes(node.name):
                self._write(env, node, p, write)
            self._opaque_code(env, node, p, unit, declared)
        return env

    def _opaque_code(self, env: Env, node: ir.Node, p: str, unit: CodeUnit, declared: bool) -> None:
        """Record what an opaque function may do (env is the caller's own copy)."""
        if declared:
            return
        if unit.effects.opaque_read:
            self.opaque_readers.setdefault(f"{p}#{unit.label}", node.name)
        if unit.effects.opaque_write:
            entry = Opaque(node.name, unit.opaque_label(node.name))
            self.opaque_writers.setdefault(entry.label)
            if entry not in env.opaque:
                env.opaque = (*env.opaque, entry)

    def visit_llm_agent(self, node: ir.LlmAgentNode, at: At) -> Env:
        env, path, p = at
        view, reads, writes = self._agent_effects(node)
        units = self._code_of(node)
        declared = any(r.channel == "declared" for r in reads) or any(
            w.kind == "declared" for w in writes
        )
        # before_agent callbacks run before ADK renders the instruction: their writes count
        env = self._run_code(node, p, units, "before_agent", env, declared=declared)
        for read in reads:
            self._read(node, "agent", p, read, env, view=view)
        env = self._run_code(node, p, units, "instruction", env, declared=declared)
        # before_model callbacks run after ADK rendered the instruction (on the first call)
        env = self._run_code(node, p, units, "before_model", env, declared=declared)
        env = env.copy()
        for name, item in list(env.unseen.items()):
            if name == node.name:
                continue
            if view.shows(name, env.speakers):
                del env.unseen[name]
            else:
                hidden = _union(item.hidden_by, ((node.name, view.label),))
                env.unseen[name] = replace(item, hidden_by=hidden)
        called = self._tool_calls(node, units, env, path, p, declared)
        called = self._run_code(node, p, units, "after_model", called, declared=declared)
        answered = called.copy()
        for write in writes:
            self._write(answered, node, p, write)
        if not writes:  # its reply is all it passes on, and only through the conversation
            answered.unseen[node.name] = Unseen(p)
        answered.speakers = frozenset({node.name})
        answered = self._run_code(node, p, units, "after_agent", answered, declared=declared)
        if not node.children:
            return answered
        handoff = called.copy()  # what a delegate sees: the callbacks' and tools' writes
        for write in writes:
            if write.kind == "declared":
                self._write(handoff, node, p, write)
            elif not write.delete:
                writer = Writer(node.name, p, write.via, write.kind, write.type, write.value)
                note = (
                    f"{write.via} stores a reply only when '{node.name}' answers itself, so "
                    "when it transfers, only a reply from an earlier turn is there"
                )
                self._maybe_write(handoff, writer, write.key, note, register=False)
        ends = [(f"when '{node.name}' answers itself", answered)]
        for delegate in node.children:
            out = self.visit_at(delegate, self._earlier_turns(node, delegate, handoff, p), path)
            out = self._run_code(node, p, units, "after_agent", out, declared=declared)
            ends.append((f"when '{node.name}' transfers to '{delegate.name}'", out))
        return join(ends, f"agent '{node.name}'")

    def _earlier_turns(self, node: ir.LlmAgentNode, delegate: ir.Node, handoff: Env, p: str) -> Env:
        """What a delegate may find from earlier turns: its fellow delegates' writes (the
        conversation went to them before, or one transferred to it), as `maybe`. The state
        with every delegate's writes is made once; each delegate's own keys are then redone
        without its own writes (linear in the number of delegates)."""
        by_key = self._delegate_writes(node, p)
        if not by_key:
            return handoff
        note = (
            f"another delegate of '{node.name}' writes it when the conversation went to it "
            "first (an earlier turn, or a transfer)"
        )
        cached = self._handoffs.get(id(node))
        if cached is None or cached[0] is not handoff:
            everyone = handoff.copy()
            for key, entries in by_key.items():
                self._credit(everyone, key, entries, note)
            cached = self._handoffs[id(node)] = (handoff, everyone)
        start = cached[1].copy()
        for key in self._subtree_writes(delegate):
            entries = by_key.get(key, [])
            others = [entry for entry in entries if entry[0] is not delegate]
            if len(others) == len(entries):
                continue
            start.facts.pop(key, None)
            if key in handoff.facts:
                start.facts[key] = handoff.facts[key]
            if others:
                self._credit(start, key, others, note)
        return start

    @staticmethod
    def _credit(
        env: Env, key: str, entries: Sequence[tuple[ir.Node, Writer, bool]], note: str
    ) -> None:
        """Apply other delegates' writes of one key to `env`, as `maybe` (soft)."""
        writers = tuple(w for _, w, delete in entries if not delete)
        old = env.facts.get(key, ABSENT)
        if writers:  # a write by one wins over a delete by another: the key may be set
            if old.status == YES:
                env.facts[key] = replace(old, writers=_union(old.writers, writers))
            elif old.status == MAYBE:
                env.facts[key] = replace(
                    old, writers=_union(old.writers, writers), notes=_union(old.notes, (note,))
                )
            else:
                env.facts[key] = Fact(MAYBE, writers, old.deleters, (note,), old.turn_break, True)
        elif old.status != NO:
            env.facts[key] = replace(old, status=MAYBE, notes=_union(old.notes, (note,)))

    def _delegate_writes(
        self, node: ir.LlmAgentNode, p: str
    ) -> dict[str, list[tuple[ir.Node, Writer, bool]]]:
        """Every key an agent's delegates may write: {key: [(delegate, writer, is_delete)]}."""
        cached = self._delegates.get(id(node))
        if cached is not None:
            return cached
        by_key: dict[str, list[tuple[ir.Node, Writer, bool]]] = {}
        if len(node.children) > 1:
            for delegate in node.children:
                where = f"{p}/{delegate.name}"
                for key, ways in self._subtree_writes(delegate).items():
                    for way in ways:
                        writer = Writer(delegate.name, where, way.via, way.kind)
                        by_key.setdefault(key, []).append((delegate, writer, way.delete))
        self._delegates[id(node)] = by_key
        return by_key

    def _tool_calls(
        self,
        node: ir.LlmAgentNode,
        units: tuple[CodeUnit, ...],
        env: Env,
        path: tuple[str, ...],
        p: str,
        declared: bool,
    ) -> Env:
        """The state while (and after) the model calls tools: every tool's and agent tool's
        writes may have happened (`maybe`); each tool's reads and each agent tool's tree are
        checked against it."""
        tools = [unit for unit in units if unit.maybe]
        trees = node.attached
        if not tools and not trees:
            return env
        called = env.copy()
        for unit in tools:
            note = f"{unit.label} of '{node.name}' writes it only when the model calls " + (
                "that tool" if unit.label.startswith("tool ") else "a tool"
            )
            for write in unit.writes(node.name):
                writer = Writer(node.name, p, write.via, "code")
                self._maybe_write(called, writer, write.key, note, delete=write.delete)
            self._opaque_code(called, node, p, unit, declared)
        for tree in trees:
            note = (
                f"agent tool '{tree.name}' of '{node.name}' writes it only when the model calls it"
            )
            for key, ways in self._subtree_writes(tree).items():
                for way in ways:  # credited to the caller: its .writes() would declare them
                    writer = Writer(node.name, p, way.via, "code")
                    self._maybe_write(called, writer, key, note, delete=way.delete, register=False)
        for unit in tools:
            itself: tuple[Opaque, ...] = ()
            if unit.effects.opaque_write and not declared:
                itself = (Opaque(node.name, unit.opaque_label(node.name)),)
            for read in unit.reads():
                self._read(node, "agent", p, read, called, opaque=itself)
        for tree in trees:  # a sub-run on a copy of the caller's state, with its own history
            start = Env(dict(called.facts), called.opaque)
            out = self.visit_at(tree, start, path)
            for entry in out.opaque:
                if entry not in called.opaque:
                    called.opaque = (*called.opaque, entry)
        return called

    def visit_transform(self, node: ir.TransformNode, at: At) -> Env:
        env, path, p = at
        effects = self._step_effects(node)
        for read in effects.reads:
            self._read(node, "step", p, read, env)
        if effects.opaque_read:
            self.opaque_readers.setdefault(p, node.name)
        env = env.copy()
        if effects.opaque_write:
            entry = Opaque(node.name, f"function step '{node.name}'", function_step=True)
            self.opaque_writers.setdefault(entry.label)
            if entry not in env.opaque:
                env.opaque = (*env.opaque, entry)
        if effects.keep_only is not None:
            via = f"S.pick({_quoted(effects.keep_only)})"
            for key, fact in list(env.facts.items()):
                if (
                    key not in effects.keep_only
                    and scope_of_key(key) == "session"
                    and fact.status != NO
                ):
                    env.facts[key] = Fact(
                        NO, fact.writers, _union(fact.deleters, (via,)), fact.notes
                    )
        for old, new in effects.renames:
            via = f'S.rename({old}="{new}")'
            moved = env.facts.get(old, ABSENT)
            writer = Writer(node.name, p, via, "step")
            self.writers.setdefault(new, {}).setdefault((p, via), writer)
            env.facts[new] = Fact(
                moved.status,
                (writer,),
                notes=moved.notes
                + ((f'{via} moves it only when "{old}" is set',) if moved.status != YES else ()),
                turn_break=moved.turn_break,
            )
            if moved.status != NO:
                env.facts[old] = Fact(NO, moved.writers, _union(moved.deleters, (via,)))
        for write in effects.writes:
            self._write(env, node, p, write)
        return env

    def visit_native_agent(self, node: ir.NativeAgentNode, at: At) -> Env:
        """A custom agent: what it declares (`.reads()` / `.writes()`) and what its code and
        callbacks show; code the checker cannot read may read or write anything, unless the
        agent declares what it does."""
        env, path, p = at
        reads, writes = self._declarations(node)
        declared = bool(reads or writes)
        for read in reads:
            self._read(node, "node", p, read, env)
        units = self._code_of(node)
        env = self._run_code(node, p, units, "before_agent", env, declared=declared)
        env = self._run_code(node, p, units, "code", env, declared=declared)
        if writes:
            env = env.copy()
            for write in writes:
                self._write(env, node, p, write)
        return self._run_code(node, p, units, "after_agent", env, declared=declared)

    def visit_remote_agent(self, node: ir.RemoteAgentNode, at: At) -> Env:
        """An agent served elsewhere: the keys it is sent must be set before it runs (they
        travel with the request); the keys it sends back hold after it."""
        env, path, p = at
        _, writes = self._declarations(node)
        for key in sorted(node.reads_keys):
            self._read(node, "agent", p, Read(key, "A2A", True), env)
        if not writes:
            return env
        env = env.copy()
        for write in writes:
            self._write(env, node, p, write)
        return env

    def _composite(
        self,
        node: ir.Node,
        body: Callable[[Any, Env, tuple[str, ...], str], Env],
        env: Env,
        path: tuple[str, ...],
        p: str,
    ) -> Env:
        """A Pipeline / FanOut / Loop: its declared reads are checked and its declared writes
        and before_agent callbacks' writes hold when it starts; after_agent callbacks at its end."""
        reads, writes = self._declarations(node)
        units = self._code_of(node)
        if not (reads or writes or units):
            return body(node, env, path, p)
        declared = bool(reads or writes)
        for read in reads:
            self._read(node, "node", p, read, env)
        env = self._run_code(node, p, units, "before_agent", env, declared=declared, kind="node")
        if writes:
            env = env.copy()
            for write in writes:
                self._write(env, node, p, write)
        out = body(node, env, path, p)
        return self._run_code(node, p, units, "after_agent", out, declared=declared, kind="node")

    def _opaque_reader(self, node: ir.Node, env: Env, path: tuple[str, ...], p: str) -> Env:
        self.opaque_readers.setdefault(p, node.name)
        return env

    def visit_gate(self, node: ir.GateNode, at: At) -> Env:
        env, path, p = at
        self.opaque_readers.setdefault(p, node.name)
        env = env.copy()
        for key, fact in list(env.facts.items()):
            if scope_of_key(key) == "temp" and fact.status != NO:
                env.facts[key] = replace(
                    fact,
                    status=MAYBE,
                    turn_break=node.name,
                    notes=_union(
                        fact.notes,
                        (
                            f"gate '{node.name}': when it asks for approval, what follows runs "
                            "in a later turn, and temp: values do not outlive a turn",
                        ),
                    ),
                )
        return env

    def _subtree_writes(self, node: ir.Node) -> dict[str, list[Way]]:
        """Every key a subtree may write or delete, and how; writes of tools and of agent
        tools' trees are `maybe`."""
        cached = self._subtree.get(id(node))
        if cached is not None:
            return cached
        found: dict[str, list[Way]] = {}

        def add(
            key: str, via: str, delete: bool = False, maybe: bool = False, kind: str = "step"
        ) -> None:
            found.setdefault(key, []).append(Way(via, delete, maybe, kind))

        stack: list[tuple[ir.Node, bool]] = [(node, False)]
        while stack:
            item, maybe = stack.pop()
            if isinstance(item, ir.LlmAgentNode):
                for write in self._agent_effects(item)[2]:
                    add(write.key, write.via, write.delete, maybe, write.kind)
            elif isinstance(item, (ir.NativeAgentNode, *_COMPOSITES)):
                for write in self._declarations(item)[1]:
                    add(write.key, write.via, write.delete, maybe, write.kind)
            elif isinstance(item, ir.TransformNode):
                effects = self._step_effects(item)
                for write in effects.writes:
                    add(write.key, write.via, write.delete, maybe)
                for old, new in effects.renames:
                    add(new, f'S.rename({old}="{new}")', False, maybe)
                    add(old, f'S.rename({old}="{new}")', True, maybe)
            elif isinstance(item, ir.MapOverNode):
                add(item.output_key, f'map_over("{item.list_key}") output', False, maybe)
                add(item.item_key, f'map_over("{item.list_key}") item', False, maybe)
            elif isinstance(item, ir.ChunkedEdgeNode):
                add(item.key, _chunk_via(item), False, maybe, "chunk")
            if isinstance(item, ir.ParallelAgentNode) and item.merge is not None:
                add(item.merge.into, _merge_via(item), False, maybe, "merge")
            for unit in self._code_of(item):
                for write in unit.writes(item.name):
                    add(write.key, write.via, write.delete, maybe or unit.maybe, "code")
            stack.extend((tree, True) for tree in reversed(item.attached))
            stack.extend((child, maybe) for child in reversed(item.children))
        self._subtree[id(node)] = found
        return found

    def _may_escalate(self, node: ir.Node) -> bool:
        """Whether a subtree may end the loop around it: an until / exit_when step, a custom
        agent, an agent tool, a gate (it stops the run), or a tool or callback that escalates
        or cannot be read."""
        cached = self._escalates.get(id(node))
        if cached is not None:
            return cached
        found = False
        for item in node.walk():
            if (
                isinstance(item, ir.UntilNode | ir.NativeAgentNode)
                or item.attached
                or item.PAUSES_RUN
                or any(u.effects.escalates or u.effects.opaque_write for u in self._code_of(item))
            ):
                found = True
            if found:
                break
        self._escalates[id(node)] = found
        return found

    def _concurrent(
        self,
        node: ir.Node,
        kind: str,
        env: Env,
        path: tuple[str, ...],
        conflicts: bool = True,
    ) -> list[Env]:
        """Each child from `env`, knowing which keys its siblings write at the same time
        (`conflicts`: whether two of them writing one key is a conflict)."""
        children = node.children
        writes = [self._subtree_writes(child) for child in children]
        outs = []
        for index, child in enumerate(children):
            siblings: dict[str, list[Sibling]] = {}
            for other, (sibling, keys) in enumerate(zip(children, writes, strict=True)):
                if other == index:
                    continue
                for key, ways in keys.items():
                    siblings.setdefault(key, []).extend(
                        Sibling(kind, node.name, sibling.name, way.via) for way in ways
                    )
            self.scopes.append(siblings)
            try:
                outs.append(self.visit_at(child, env, path))
            finally:
                self.scopes.pop()
        if kind == "parallel" and conflicts:
            self._find_conflicts(node, "/".join(path), children, writes)
        return outs

    def _find_conflicts(
        self,
        node: ir.Node,
        p: str,
        children: tuple[ir.Node, ...],
        writes: list[dict[str, list[Way]]],
    ) -> None:
        keys = dict.fromkeys(k for branch in writes for k in branch)
        for key in keys:
            branches = [  # a tool's write happens only if the model calls it: no conflict
                (child.name, ways)
                for child, branch in zip(children, writes, strict=True)
                if (ways := [way for way in branch.get(key, ()) if not way.maybe])
            ]
            if len(branches) < 2 or all(way.delete for _, ways in branches for way in ways):
                continue
            listed = tuple((name, way.via) for name, ways in branches for way in ways)
            self.conflicts.setdefault((p, key), Conflict(node.name, p, key, listed))

    def _parallel(self, node: ir.ParallelAgentNode, env: Env, path: tuple[str, ...], p: str) -> Env:
        if not node.children:
            return env
        if node.join is not None:
            out = self._first_complete(node, env, path)
        else:
            out = self._all_branches(node, self._concurrent(node, "parallel", env, path), env)
        if node.merge is not None:
            out = out.copy()
            self._write(
                out,
                node,
                p,
                Write(
                    node.merge.into,
                    _merge_via(node),
                    node.merge.value_type or UNKNOWN,
                    kind="merge",
                ),
            )
        return out

    def _first_complete(self, node: ir.ParallelAgentNode, env: Env, path: tuple[str, ...]) -> Env:
        """Live branches, one of which finishes first and cuts the others off: the state after
        joins "each one finished first" (what a cut-off branch wrote before may be there too,
        which that join already allows). Branches that all write one key are the point of it
        (whichever answers first), so that is no conflict."""
        self._bounded += 1  # the first to finish ends the others (a loop among them too)
        try:
            outs = self._concurrent(node, "parallel", env, path, conflicts=False)
        finally:
            self._bounded -= 1
        ends = [
            (f"when '{child.name}' finishes first", out)
            for child, out in zip(node.children, outs, strict=True)
        ]
        return join(ends, f"FanOut '{node.name}' (first_complete)")

    def _all_branches(self, node: ir.ParallelAgentNode, outs: list[Env], env: Env) -> Env:
        """The state after every branch has ended."""
        merged = env.copy()
        for key in dict.fromkeys(k for out in outs for k in out.facts):
            base = env.facts.get(key)
            changed = [out.facts.get(key, ABSENT) for out in outs if out.facts.get(key) is not base]
            if not changed:
                continue
            if len(changed) == 1:
                merged.facts[key] = changed[0]
                continue
            statuses = {f.status for f in changed}
            status = YES if statuses == {YES} else NO if statuses == {NO} else MAYBE
            merged.facts[key] = Fact(
                status,
                _union(*(f.writers for f in changed)),
                _union(*(f.deleters for f in changed)),
                _union(*(f.notes for f in changed))
                + (
                    (f"FanOut '{node.name}': its branches write and delete it concurrently",)
                    if status == MAYBE
                    else ()
                ),
            )
        merged.opaque = _union(env.opaque, *(out.opaque for out in outs))
        unseen = {
            name: item
            for name, item in env.unseen.items()
            if all(name in out.unseen for out in outs)
        }
        for out in outs:
            for name, item in out.unseen.items():
                if name not in env.unseen:
                    unseen[name] = item
        merged.unseen = unseen
        merged.speakers = frozenset().union(*(out.speakers for out in outs))
        return merged

    def visit_chunked_edge(self, node: ir.ChunkedEdgeNode, at: At) -> Env:
        """The consumer runs on each chunk (at least once) while the producer writes: it starts
        from the state before the producer or after it (its writes may be there or not), on a
        branch of its own (the producer's reply reaches it through the chunk key, not in its
        history). Afterwards both have finished and the chunk key is cleared."""
        env, path, p = at
        producer, consumer = node.children
        where = f"chunked edge '{node.name}'"
        produced = self.visit_at(producer, env, path)
        during = join(
            [
                (f"while '{producer.name}' is still writing", env),
                (f"after '{producer.name}' finished", produced),
            ],
            where,
        )
        during.unseen = dict(env.unseen)
        during.speakers = env.speakers
        # the consumer's branch hides the producer's reply: its writes reach it as state only
        for key, fact in during.facts.items():
            if any(w.text and w.node == producer.name for w in fact.writers):
                writers = tuple(
                    replace(w, text=False) if w.node == producer.name else w for w in fact.writers
                )
                during.facts[key] = replace(fact, writers=writers)
        chunk = Write(node.key, _chunk_via(node), str, kind="chunk")

        def one_chunk(state: Env) -> Env:
            state = state.copy()
            self._write(state, node, p, chunk)
            return self.visit_at(consumer, state, path)

        frame = _LoopFrame(f"{where} (its first chunk)", frozenset(self._subtree_writes(consumer)))
        self.loops.append(frame)
        try:
            ends = one_chunk(during)
            frame.first = False
            ends, _ = self._iterate(one_chunk, ends, where)
        finally:
            self.loops.pop()
        result = ends.copy()
        consumer_keys = self._subtree_writes(consumer)
        for key, fact in produced.facts.items():  # the producer has finished by now
            if key != node.key and key not in consumer_keys and env.facts.get(key) != fact:
                result.facts[key] = fact
        result.opaque = _union(result.opaque, produced.opaque)
        result.unseen = {k: v for k, v in result.unseen.items() if k != producer.name}
        for name, item in produced.unseen.items():  # earlier replies the producer did not see
            if name != producer.name and name in env.unseen:
                result.unseen.setdefault(name, item)
        result.speakers = result.speakers | produced.speakers
        old = result.facts.get(node.key, ABSENT)
        result.facts[node.key] = Fact(
            NO, old.writers, _union(old.deleters, (f"{where} (it clears its chunk key when done)",))
        )
        return result

    def visit_race(self, node: ir.RaceNode, at: At) -> Env:
        env, path, p = at
        if not node.children:
            return env
        self._bounded += 1  # the first to finish ends the others (a loop among them too)
        try:
            outs = self._concurrent(node, "race", env, path)
        finally:
            self._bounded -= 1
        ends = [
            (f"when '{child.name}' wins", out)
            for child, out in zip(node.children, outs, strict=True)
        ]
        return join(ends, f"race '{node.name}'")

    def visit_fallback(self, node: ir.FallbackNode, at: At) -> Env:
        env, path, p = at
        where = f"fallback '{node.name}'"
        entry, ends = env, []
        for index, child in enumerate(node.children):
            out = self.visit_at(child, entry, path)
            ends.append((f"when '{child.name}' succeeds", out))
            if index < len(node.children) - 1:  # the next one runs after this one failed
                entry = join(
                    [
                        (f"if '{child.name}' failed after writing it", out),
                        (f"if '{child.name}' failed before writing it", entry),
                    ],
                    where,
                )
        return join(ends, where) if ends else env

    def visit_timeout(self, node: ir.TimeoutNode, at: At) -> Env:
        env, path, p = at
        self._bounded += 1  # the time limit ends the body (a loop in it too)
        try:
            out = self._seq(node.children, env, path)
        finally:
            self._bounded -= 1
        return join(
            [("when the body finishes in time", out), ("when it times out", env)],
            f"timeout '{node.name}'",
        )

    def visit_route(self, node: ir.RouteNode, at: At) -> Env:
        env, path, p = at
        if any(rule.op == "when" for rule in node.rules):
            self.opaque_readers.setdefault(p, node.name)
        # a missing key skips the value rules, but .when() predicates still decide: a route
        # of predicates only does not need its key at all
        needs_key = not node.rules or any(rule.op != "when" for rule in node.rules)
        self._read(
            node,
            "route",
            p,
            Read(node.key, "route", needs_key),
            env,
            handles_missing=node.has_otherwise,
        )
        ends = [
            (f"in branch '{child.name}'", self.visit_at(child, env, path))
            for child in node.children
        ]
        if not node.has_otherwise:
            ends.append(("when no rule matches", env))
        return join(ends, f'Route("{node.key}")')

    def _iterate(self, step: Callable[[Env], Env], first: Env, where: str) -> tuple[Env, Env]:
        """(the join of every iteration's end, the end of a later iteration) for a loop body."""
        ends, out = first, first
        for _ in range(MAX_PASSES):
            out = step(ends)
            grown = join([("after the first iteration", ends), ("after a later one", out)], where)
            if grown.same(ends):
                break
            ends = grown
        return ends, out

    def _loop(self, node: ir.LoopAgentNode, env: Env, path: tuple[str, ...], p: str) -> Env:
        """The loop ends after its last iteration (with a maximum) or after a step that
        escalates (an until / exit_when, a custom agent, an escalating tool), in any
        iteration: the state after it joins every such exit; steps after an exit point may not
        have run in the final iteration."""
        children = node.children
        where = f"loop '{node.name}'"
        exits = [self._may_escalate(child) for child in children]
        limit = node.max_iterations if isinstance(node.max_iterations, int) else None
        if limit is None and not any(exits) and not self._bounded and children:
            self.endless.setdefault(p, EndlessLoop(node.name, p))
        body_keys = frozenset(k for child in children for k in self._subtree_writes(child))
        frame = _LoopFrame(where, body_keys)
        stops: list[tuple[str, Env]] = []

        def iteration(state: Env, which: str) -> Env:
            stops[:] = [s for s in stops if not s[0].endswith(which)]
            for child, exits_here in zip(children, exits, strict=True):
                state = self.visit_at(child, state, path)
                if exits_here:
                    stops.append((f"when it stops after '{child.name}' in {which}", state))
            return state

        self.loops.append(frame)
        try:
            first = iteration(env, "the first iteration")
            if limit == 1:
                return join([*stops, ("after its one iteration", first)], where)
            frame.first = False
            ends, later = self._iterate(
                lambda state: iteration(state, "a later iteration"), first, where
            )
        finally:
            self.loops.pop()
        if not any(exits[:-1]):  # no exit before the body's end: the join of iteration ends
            return ends if limit is None or exits[-1:] == [True] else later
        return join([*stops, *([("after its last iteration", later)] if limit else [])], where)

    def visit_map_over(self, node: ir.MapOverNode, at: At) -> Env:
        env, path, p = at
        where = f"map_over '{node.name}'"
        self._read(node, "map_over", p, Read(node.list_key, "map_over", True), env)
        before = env.facts.get(node.item_key, ABSENT)
        if before.status != NO and any(w.node != node.name for w in before.writers):
            self.clobbers.setdefault(
                (p, node.item_key),
                Clobber(node.name, p, node.item_key, tuple(w.via for w in before.writers)),
            )
        item = Write(node.item_key, f'map_over("{node.list_key}") item', kind="map_over_item")

        def with_item(state: Env) -> Env:
            state = state.copy()
            self._write(state, node, p, item)
            return state

        after = env
        if node.children:
            body = node.children[0]
            collected = body_output_key(body)
            if collected is not None:  # the map reads it after each item, into its output
                self.read_keys.add(collected)
            frame = _LoopFrame(
                where,
                frozenset(self._subtree_writes(body)),
                concurrent_items=node.concurrency > 1,
            )
            replier = final_replier(body) if collected is None else None

            def one_item(state: Env) -> Env:
                out = self.visit_at(body, with_item(state), path)
                if replier is not None and replier in out.unseen:
                    out = out.copy()  # the map collects this agent's reply into its output
                    del out.unseen[replier]
                return out

            self.loops.append(frame)
            try:
                ends = one_item(env)
                if node.concurrency == 1:  # items run in order, each seeing the previous ones
                    frame.first = False
                    ends, _ = self._iterate(one_item, ends, where)
            finally:
                self.loops.pop()
            after = join([("after the items", ends), ("when the list is empty", env)], where)
        result = after.copy()
        self._write(
            result,
            node,
            p,
            Write(node.output_key, f'map_over("{node.list_key}") output', list, kind="map_over"),
        )
        if env.facts.get(node.list_key, ABSENT).status == MAYBE:
            fact = result.facts[node.output_key]
            result.facts[node.output_key] = replace(
                fact,
                status=MAYBE,
                notes=(f'{where} writes it only when "{node.list_key}" is a list',),
            )
        old = result.facts.get(node.item_key, ABSENT)
        result.facts[node.item_key] = Fact(
            NO, old.writers, _union(old.deleters, (f"{where} (it clears its item key when done)",))
        )
        return result


def _chunk_via(node: ir.ChunkedEdgeNode) -> str:
    producer, consumer = node.children
    return f'{producer.name}.then({consumer.name}, edge="chunked", key="{node.key}")'


def _merge_via(node: ir.ParallelAgentNode) -> str:
    return f"FanOut '{node.name}'.{node.merge.describe()}"


def analyse(root: ir.Node, initial_keys: frozenset[str] = frozenset()) -> DataflowResult:
    """Run the abstract interpretation over `root`."""
    return Flow(root, initial_keys).run()
