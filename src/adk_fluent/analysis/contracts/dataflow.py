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
is reported as unverifiable rather than as an error. The state it carries is flow_state.py's,
what each node and subtree may do summaries.py's. Nothing here imports google.adk.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from adk_fluent.analysis.contracts.effects import CodeUnit, Read, Write, is_set, model_fields
from adk_fluent.analysis.contracts.flow_state import (
    ABSENT,
    INITIAL_WRITER,
    MAYBE,
    NO,
    RANK,
    YES,
    Clobber,
    Conflict,
    DataflowResult,
    EndlessLoop,
    Env,
    Fact,
    Opaque,
    ReadRecord,
    Sibling,
    Unseen,
    View,
    Way,
    Writer,
    join,
    quoted,
    union,
)
from adk_fluent.analysis.contracts.summaries import Summaries, chunk_via, merge_via
from adk_fluent.ir import nodes as ir
from adk_fluent.ir.nodes import Walk, body_output_key, final_replier
from adk_fluent.ir.state_keys import UNKNOWN, scope_of_key

MAX_PASSES = 6  # loop fixed points settle in two or three passes; this bounds pathological ones


@dataclass
class _LoopFrame:
    """A loop (or map_over, or a chunked edge's consumer) around a read: in its first
    iteration, a key its body writes may not be written yet."""

    label: str
    body_keys: frozenset[str]
    first: bool = True
    concurrent_items: bool = False


class At(NamedTuple):
    """Where a case of Flow is: the state before the node runs, its path (and that path
    joined), and what is around it: the keys concurrent siblings write, the loops it runs in,
    and whether a time limit or a race may cut it off (a loop there ends when it is)."""

    env: Env
    path: tuple[str, ...]
    p: str
    siblings: tuple[dict[str, list[Sibling]], ...] = ()
    loops: tuple[_LoopFrame, ...] = ()
    bounded: bool = False

    def into(self, child: ir.Node, env: Env) -> tuple[ir.Node, At]:
        """What a case yields to run `child` from `env` under this node."""
        path = (*self.path, child.name)
        return child, At(env, path, "/".join(path), self.siblings, self.loops, self.bounded)


class Flow(ir.NodeVisitor[At, Env]):
    """One abstract run over an IR tree: one case per node type, each from the state before it
    runs (`at`) to the state after; what it finds is kept on the instance."""

    def __init__(self, root: ir.Node, initial_keys: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.initial_keys = initial_keys
        self.nodes = Summaries(root)
        self.records: dict[tuple[str, str, str], ReadRecord] = {}
        self.writers: dict[str, dict[tuple[str, str], Writer]] = {}
        self.read_keys: set[str] = set()
        self.opaque_readers: dict[str, str] = {}
        self.conflicts: dict[tuple[str, str], Conflict] = {}
        self.clobbers: dict[tuple[str, str], Clobber] = {}
        self.endless: dict[str, EndlessLoop] = {}
        self.opaque_writers: dict[str, None] = {}  # labels of every opaque step, anywhere
        self._handoffs: dict[int, tuple[Env, Env]] = {}  # per agent: (handoff, with all writes)

    def run(self) -> DataflowResult:
        """Run the whole tree from the initial state."""
        facts = {key: Fact(YES, (INITIAL_WRITER,)) for key in sorted(self.initial_keys)}
        root = self.root
        end = self.visit(root, At(Env(facts), (root.name,), root.name))
        agents: dict[str, ir.LlmAgentNode] = {}
        paths: dict[str, str] = {}
        schema_fields: dict[str, list[str]] = {}
        for path, node in ir.iter_paths(root):
            paths.setdefault(node.name, "/".join(path))
            if isinstance(node, ir.LlmAgentNode):
                agents.setdefault(node.name, node)
                if is_set(node.output_schema):
                    for name in model_fields(node.output_schema):
                        schema_fields.setdefault(name, []).append(node.name)
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

    # -- writes and reads ----------------------------------------------------------------------
    def _write(self, env: Env, node: ir.Node, p: str, write: Write) -> None:
        """Apply one write to `env` (which the caller owns)."""
        writer = Writer(node.name, p, write.via, write.kind, write.type, write.value, write.text)
        old = env.facts.get(write.key, ABSENT)
        if write.delete:
            env.facts[write.key] = Fact(
                NO, old.writers, union(old.deleters, (write.via,)), old.notes
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
                    union(old.deleters, (writer.via,)),
                    union(old.notes, (note,)),
                    old.turn_break,
                    old.status == YES or old.soft,
                )
            return
        if old.status == YES:
            env.facts[key] = replace(old, writers=union(old.writers, (writer,)))
        elif old.status == MAYBE:
            env.facts[key] = replace(
                old, writers=union(old.writers, (writer,)), notes=union(old.notes, (note,))
            )
        else:
            env.facts[key] = Fact(MAYBE, (writer,), old.deleters, (note,), old.turn_break, True)

    def _read(
        self,
        node: ir.Node,
        kind: str,
        at: At,
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
        siblings = tuple(s for scope in at.siblings for s in scope.get(read.key, ()))
        frame = next((f for f in reversed(at.loops) if f.first and read.key in f.body_keys), None)
        ident = (at.p, read.key, read.channel)
        old = self.records.get(ident)
        if (
            old is not None
            and RANK[fact.status] >= RANK[old.fact.status]
            and not (fact.status == old.fact.status == MAYBE and old.fact.soft and not fact.soft)
        ):
            return
        self.records[ident] = ReadRecord(
            node=node.name,
            path=at.p,
            kind=kind,
            read=read,
            fact=fact,
            order=old.order if old is not None else len(self.records),
            opaque=union(env.opaque, opaque),
            siblings=siblings,
            first_iteration_of=frame.label if frame is not None else None,
            concurrent_items=frame.concurrent_items if frame is not None else False,
            handles_missing=handles_missing,
            view=view,
            speakers=env.speakers,
        )

    def _run_code(
        self,
        node: ir.Node,
        at: At,
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
        for unit in self.nodes.code_of(node):
            if unit.stage != stage:
                continue
            effects = unit.effects
            itself: tuple[Opaque, ...] = ()
            if effects.opaque_write and not declared:  # it may have written what it reads
                itself = (Opaque(node.name, unit.opaque_label(node.name)),)
            for read in unit.reads():
                self._read(node, kind, at, read, env, opaque=itself)
            if not copied:
                env, copied = env.copy(), True
            for write in unit.writes(node.name):
                self._write(env, node, at.p, write)
            self._opaque_code(env, node, at.p, unit, declared)
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

    # -- agents --------------------------------------------------------------------------------
    def visit_llm_agent(self, node: ir.LlmAgentNode, at: At) -> Walk[At, Env]:
        env, p = at.env, at.p
        view, reads, writes = self.nodes.agent_effects(node)
        declared = any(r.channel == "declared" for r in reads) or any(
            w.kind == "declared" for w in writes
        )
        # before_agent callbacks run before ADK renders the instruction: their writes count
        env = self._run_code(node, at, "before_agent", env, declared=declared)
        for read in reads:
            self._read(node, "agent", at, read, env, view=view)
        env = self._run_code(node, at, "instruction", env, declared=declared)
        # before_model callbacks run after ADK rendered the instruction (on the first call)
        env = self._run_code(node, at, "before_model", env, declared=declared)
        env = env.copy()
        for name, item in list(env.unseen.items()):
            if name == node.name:
                continue
            if view.shows(name, env.speakers):
                del env.unseen[name]
            else:
                hidden = union(item.hidden_by, ((node.name, view.label),))
                env.unseen[name] = replace(item, hidden_by=hidden)
        called = yield from self._tool_calls(node, at, env, declared)
        called = self._run_code(node, at, "after_model", called, declared=declared)
        answered = called.copy()
        for write in writes:
            self._write(answered, node, p, write)
        if not writes:  # its reply is all it passes on, and only through the conversation
            answered.unseen[node.name] = Unseen(p)
        answered.speakers = frozenset({node.name})
        answered = self._run_code(node, at, "after_agent", answered, declared=declared)
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
            out = yield at.into(delegate, self._earlier_turns(node, delegate, handoff, p))
            out = self._run_code(node, at, "after_agent", out, declared=declared)
            ends.append((f"when '{node.name}' transfers to '{delegate.name}'", out))
        return join(ends, f"agent '{node.name}'")

    def _earlier_turns(self, node: ir.LlmAgentNode, delegate: ir.Node, handoff: Env, p: str) -> Env:
        """What a delegate may find from earlier turns: its fellow delegates' writes (the
        conversation went to them before, or one transferred to it), as `maybe`. The state
        with every delegate's writes is made once; each delegate's own keys are then redone
        without its own writes (linear in the number of delegates)."""
        by_key = self.nodes.delegate_writes(node, p)
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
                _credit(everyone, key, entries, note)
            cached = self._handoffs[id(node)] = (handoff, everyone)
        start = cached[1].copy()
        for key in self.nodes.subtree_writes(delegate):
            entries = by_key.get(key, [])
            others = [entry for entry in entries if entry[0] is not delegate]
            if len(others) == len(entries):
                continue
            start.facts.pop(key, None)
            if key in handoff.facts:
                start.facts[key] = handoff.facts[key]
            if others:
                _credit(start, key, others, note)
        return start

    def _tool_calls(self, node: ir.LlmAgentNode, at: At, env: Env, declared: bool) -> Walk[At, Env]:
        """The state while (and after) the model calls tools: every tool's and agent tool's
        writes may have happened (`maybe`); each tool's reads and each agent tool's tree are
        checked against it."""
        p = at.p
        tools = [unit for unit in self.nodes.code_of(node) if unit.maybe]
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
            for key, ways in self.nodes.subtree_writes(tree).items():
                for way in ways:  # credited to the caller: its .writes() would declare them
                    writer = Writer(node.name, p, way.via, "code")
                    self._maybe_write(called, writer, key, note, delete=way.delete, register=False)
        for unit in tools:
            itself: tuple[Opaque, ...] = ()
            if unit.effects.opaque_write and not declared:
                itself = (Opaque(node.name, unit.opaque_label(node.name)),)
            for read in unit.reads():
                self._read(node, "agent", at, read, called, opaque=itself)
        for tree in trees:  # a sub-run on a copy of the caller's state, with its own history
            out = yield at.into(tree, Env(dict(called.facts), called.opaque))
            for entry in out.opaque:
                if entry not in called.opaque:
                    called.opaque = (*called.opaque, entry)
        return called

    def visit_native_agent(self, node: ir.NativeAgentNode, at: At) -> Env:
        """A custom agent: what it declares (`.reads()` / `.writes()`) and what its code and
        callbacks show; code the checker cannot read may read or write anything, unless the
        agent declares what it does."""
        env = at.env
        reads, writes = self.nodes.declarations(node)
        declared = bool(reads or writes)
        for read in reads:
            self._read(node, "node", at, read, env)
        env = self._run_code(node, at, "before_agent", env, declared=declared)
        env = self._run_code(node, at, "code", env, declared=declared)
        if writes:
            env = env.copy()
            for write in writes:
                self._write(env, node, at.p, write)
        return self._run_code(node, at, "after_agent", env, declared=declared)

    def visit_remote_agent(self, node: ir.RemoteAgentNode, at: At) -> Env:
        """An agent served elsewhere: the keys it is sent must be set before it runs (they
        travel with the request); the keys it sends back hold after it."""
        env = at.env
        _, writes = self.nodes.declarations(node)
        for key in sorted(node.reads_keys):
            self._read(node, "agent", at, Read(key, "A2A", True), env)
        if not writes:
            return env
        env = env.copy()
        for write in writes:
            self._write(env, node, at.p, write)
        return env

    # -- steps ---------------------------------------------------------------------------------
    def visit_transform(self, node: ir.TransformNode, at: At) -> Env:
        env, p = at.env, at.p
        effects = self.nodes.step_effects(node)
        for read in effects.reads:
            self._read(node, "step", at, read, env)
        if effects.opaque_read:
            self.opaque_readers.setdefault(p, node.name)
        env = env.copy()
        if effects.opaque_write:
            entry = Opaque(node.name, f"function step '{node.name}'", function_step=True)
            self.opaque_writers.setdefault(entry.label)
            if entry not in env.opaque:
                env.opaque = (*env.opaque, entry)
        if effects.keep_only is not None:
            via = f"S.pick({quoted(effects.keep_only)})"
            for key, fact in list(env.facts.items()):
                if (
                    key not in effects.keep_only
                    and scope_of_key(key) == "session"
                    and fact.status != NO
                ):
                    env.facts[key] = Fact(
                        NO, fact.writers, union(fact.deleters, (via,)), fact.notes
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
                env.facts[old] = Fact(NO, moved.writers, union(moved.deleters, (via,)))
        for write in effects.writes:
            self._write(env, node, p, write)
        return env

    def _opaque_reader(self, node: ir.Node, at: At) -> Env:
        """A tap or a loop check: a function that may read any key, and writes none."""
        self.opaque_readers.setdefault(at.p, node.name)
        return at.env

    visit_tap = visit_until = _opaque_reader

    def visit_gate(self, node: ir.GateNode, at: At) -> Env:
        self.opaque_readers.setdefault(at.p, node.name)
        env = at.env.copy()
        for key, fact in list(env.facts.items()):
            if scope_of_key(key) == "temp" and fact.status != NO:
                env.facts[key] = replace(
                    fact,
                    status=MAYBE,
                    turn_break=node.name,
                    notes=union(
                        fact.notes,
                        (
                            f"gate '{node.name}': when it asks for approval, what follows runs "
                            "in a later turn, and temp: values do not outlive a turn",
                        ),
                    ),
                )
        return env

    # -- composites ----------------------------------------------------------------------------
    def _composite(
        self, node: ir.Node, at: At, body: Callable[[Env], Walk[At, Env]]
    ) -> Walk[At, Env]:
        """A Pipeline / FanOut / Loop: its declared reads are checked and its declared writes
        and before_agent callbacks' writes hold when it starts; after_agent callbacks at its end."""
        reads, writes = self.nodes.declarations(node)
        if not (reads or writes or self.nodes.code_of(node)):
            return (yield from body(at.env))
        declared = bool(reads or writes)
        for read in reads:
            self._read(node, "node", at, read, at.env)
        env = self._run_code(node, at, "before_agent", at.env, declared=declared, kind="node")
        if writes:
            env = env.copy()
            for write in writes:
                self._write(env, node, at.p, write)
        out = yield from body(env)
        return self._run_code(node, at, "after_agent", out, declared=declared, kind="node")

    def _in_order(self, node: ir.Node, at: At, env: Env) -> Walk[At, Env]:
        for child in node.children:
            env = yield at.into(child, env)
        return env

    def visit_sequential_agent(self, node: ir.SequentialAgentNode, at: At) -> Walk[At, Env]:
        return self._composite(node, at, lambda env: self._in_order(node, at, env))

    def visit_boundary(self, node: ir.BoundaryNode, at: At) -> Walk[At, Env]:
        return self._in_order(node, at, at.env)

    def _concurrent(
        self, node: ir.Node, kind: str, at: At, env: Env, conflicts: bool = True
    ) -> Generator[tuple[ir.Node, At], Env, list[Env]]:
        """Each child from `env`, knowing which keys its siblings write at the same time
        (`conflicts`: whether two of them writing one key is a conflict)."""
        children = node.children
        writes = [self.nodes.subtree_writes(child) for child in children]
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
            among = at._replace(siblings=(*at.siblings, siblings))
            outs.append((yield among.into(child, env)))
        if kind == "parallel" and conflicts:
            self._find_conflicts(node, at.p, children, writes)
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

    def visit_parallel_agent(self, node: ir.ParallelAgentNode, at: At) -> Walk[At, Env]:
        return self._composite(node, at, lambda env: self._parallel(node, at, env))

    def _parallel(self, node: ir.ParallelAgentNode, at: At, env: Env) -> Walk[At, Env]:
        if not node.children:
            return env
        if node.join is not None:
            out = yield from self._first_complete(node, at, env)
        else:
            outs = yield from self._concurrent(node, "parallel", at, env)
            out = _all_branches(node, outs, env)
        if node.merge is not None:
            out = out.copy()
            into = node.merge.into
            merged = Write(into, merge_via(node), node.merge.value_type or UNKNOWN, kind="merge")
            self._write(out, node, at.p, merged)
        return out

    def _first_complete(self, node: ir.ParallelAgentNode, at: At, env: Env) -> Walk[At, Env]:
        """Live branches, one of which finishes first and cuts the others off: the state after
        joins "each one finished first" (what a cut-off branch wrote before may be there too,
        which that join already allows). Branches that all write one key are the point of it
        (whichever answers first), so that is no conflict."""
        cut_off = at._replace(bounded=True)  # the first to finish ends the others
        outs = yield from self._concurrent(node, "parallel", cut_off, env, conflicts=False)
        ends = [
            (f"when '{child.name}' finishes first", out)
            for child, out in zip(node.children, outs, strict=True)
        ]
        return join(ends, f"FanOut '{node.name}' (first_complete)")

    def visit_race(self, node: ir.RaceNode, at: At) -> Walk[At, Env]:
        if not node.children:
            return at.env
        cut_off = at._replace(bounded=True)  # the first to finish ends the others
        outs = yield from self._concurrent(node, "race", cut_off, at.env)
        ends = [
            (f"when '{child.name}' wins", out)
            for child, out in zip(node.children, outs, strict=True)
        ]
        return join(ends, f"race '{node.name}'")

    def visit_fallback(self, node: ir.FallbackNode, at: At) -> Walk[At, Env]:
        where = f"fallback '{node.name}'"
        entry, ends = at.env, []
        for index, child in enumerate(node.children):
            out = yield at.into(child, entry)
            ends.append((f"when '{child.name}' succeeds", out))
            if index < len(node.children) - 1:  # the next one runs after this one failed
                entry = join(
                    [
                        (f"if '{child.name}' failed after writing it", out),
                        (f"if '{child.name}' failed before writing it", entry),
                    ],
                    where,
                )
        return join(ends, where) if ends else at.env

    def visit_timeout(self, node: ir.TimeoutNode, at: At) -> Walk[At, Env]:
        # the time limit ends the body (a loop in it too)
        out = yield from self._in_order(node, at._replace(bounded=True), at.env)
        return join(
            [("when the body finishes in time", out), ("when it times out", at.env)],
            f"timeout '{node.name}'",
        )

    def visit_route(self, node: ir.RouteNode, at: At) -> Walk[At, Env]:
        env = at.env
        if any(rule.op == "when" for rule in node.rules):
            self.opaque_readers.setdefault(at.p, node.name)
        # a missing key skips the value rules, but .when() predicates still decide: a route
        # of predicates only does not need its key at all
        needs_key = not node.rules or any(rule.op != "when" for rule in node.rules)
        read = Read(node.key, "route", needs_key)
        self._read(node, "route", at, read, env, handles_missing=node.has_otherwise)
        ends = []
        for child in node.children:
            ends.append((f"in branch '{child.name}'", (yield at.into(child, env))))
        if not node.has_otherwise:
            ends.append(("when no rule matches", env))
        return join(ends, f'Route("{node.key}")')

    # -- repeats -------------------------------------------------------------------------------
    def _iterate(
        self, step: Callable[[Env], Walk[At, Env]], first: Env, where: str
    ) -> Generator[tuple[ir.Node, At], Env, tuple[Env, Env]]:
        """(the join of every iteration's end, the end of a later iteration) for a loop body."""
        ends, out = first, first
        for _ in range(MAX_PASSES):
            out = yield from step(ends)
            grown = join([("after the first iteration", ends), ("after a later one", out)], where)
            if grown.same(ends):
                break
            ends = grown
        return ends, out

    def visit_loop_agent(self, node: ir.LoopAgentNode, at: At) -> Walk[At, Env]:
        return self._composite(node, at, lambda env: self._loop(node, at, env))

    def _loop(self, node: ir.LoopAgentNode, at: At, env: Env) -> Walk[At, Env]:
        """The loop ends after its last iteration (with a maximum) or after a step that
        escalates (an until / exit_when, a custom agent, an escalating tool), in any
        iteration: the state after it joins every such exit; steps after an exit point may not
        have run in the final iteration."""
        children = node.children
        where = f"loop '{node.name}'"
        exits = [self.nodes.may_escalate(child) for child in children]
        limit = node.max_iterations if isinstance(node.max_iterations, int) else None
        if limit is None and not any(exits) and not at.bounded and children:
            self.endless.setdefault(at.p, EndlessLoop(node.name, at.p))
        body_keys = frozenset(k for child in children for k in self.nodes.subtree_writes(child))
        frame = _LoopFrame(where, body_keys)
        inside = at._replace(loops=(*at.loops, frame))
        stops: list[tuple[str, Env]] = []

        def iteration(state: Env, which: str) -> Walk[At, Env]:
            stops[:] = [s for s in stops if not s[0].endswith(which)]
            for child, exits_here in zip(children, exits, strict=True):
                state = yield inside.into(child, state)
                if exits_here:
                    stops.append((f"when it stops after '{child.name}' in {which}", state))
            return state

        first = yield from iteration(env, "the first iteration")
        if limit == 1:
            return join([*stops, ("after its one iteration", first)], where)
        frame.first = False
        ends, later = yield from self._iterate(
            lambda state: iteration(state, "a later iteration"), first, where
        )
        if not any(exits[:-1]):  # no exit before the body's end: the join of iteration ends
            return ends if limit is None or exits[-1:] == [True] else later
        return join([*stops, *([("after its last iteration", later)] if limit else [])], where)

    def visit_map_over(self, node: ir.MapOverNode, at: At) -> Walk[At, Env]:
        env, p = at.env, at.p
        where = f"map_over '{node.name}'"
        self._read(node, "map_over", at, Read(node.list_key, "map_over", True), env)
        before = env.facts.get(node.item_key, ABSENT)
        if before.status != NO and any(w.node != node.name for w in before.writers):
            self.clobbers.setdefault(
                (p, node.item_key),
                Clobber(node.name, p, node.item_key, tuple(w.via for w in before.writers)),
            )
        after = env
        if node.children:
            ends = yield from self._items(node, at)
            after = join([("after the items", ends), ("when the list is empty", env)], where)
        result = after.copy()
        output = Write(
            node.output_key, f'map_over("{node.list_key}") output', list, kind="map_over"
        )
        self._write(result, node, p, output)
        if env.facts.get(node.list_key, ABSENT).status == MAYBE:
            fact = result.facts[node.output_key]
            result.facts[node.output_key] = replace(
                fact,
                status=MAYBE,
                notes=(f'{where} writes it only when "{node.list_key}" is a list',),
            )
        old = result.facts.get(node.item_key, ABSENT)
        result.facts[node.item_key] = Fact(
            NO, old.writers, union(old.deleters, (f"{where} (it clears its item key when done)",))
        )
        return result

    def _items(self, node: ir.MapOverNode, at: At) -> Walk[At, Env]:
        """The join of the ends of a map_over's items: in order, each sees the ones before;
        concurrent, each starts from the state before the map."""
        body = node.children[0]
        collected = body_output_key(body)
        if collected is not None:  # the map reads it after each item, into its output
            self.read_keys.add(collected)
        frame = _LoopFrame(
            f"map_over '{node.name}'",
            frozenset(self.nodes.subtree_writes(body)),
            concurrent_items=node.concurrency > 1,
        )
        inside = at._replace(loops=(*at.loops, frame))
        replier = final_replier(body) if collected is None else None
        item = Write(node.item_key, f'map_over("{node.list_key}") item', kind="map_over_item")

        def one_item(state: Env) -> Walk[At, Env]:
            state = state.copy()
            self._write(state, node, at.p, item)
            out = yield inside.into(body, state)
            if replier is not None and replier in out.unseen:
                out = out.copy()  # the map collects this agent's reply into its output
                del out.unseen[replier]
            return out

        ends = yield from one_item(at.env)
        if node.concurrency == 1:  # items run in order, each seeing the previous ones
            frame.first = False
            ends, _ = yield from self._iterate(one_item, ends, frame.label)
        return ends

    def visit_chunked_edge(self, node: ir.ChunkedEdgeNode, at: At) -> Walk[At, Env]:
        """The consumer runs on each chunk (at least once) while the producer writes: it starts
        from the state before the producer or after it (its writes may be there or not), on a
        branch of its own (the producer's reply reaches it through the chunk key, not in its
        history). Afterwards both have finished and the chunk key is cleared."""
        env = at.env
        producer, consumer = node.children
        where = f"chunked edge '{node.name}'"
        produced = yield at.into(producer, env)
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
        chunk = Write(node.key, chunk_via(node), str, kind="chunk")
        consumer_keys = self.nodes.subtree_writes(consumer)
        frame = _LoopFrame(f"{where} (its first chunk)", frozenset(consumer_keys))
        inside = at._replace(loops=(*at.loops, frame))

        def one_chunk(state: Env) -> Walk[At, Env]:
            state = state.copy()
            self._write(state, node, at.p, chunk)
            return (yield inside.into(consumer, state))

        ends = yield from one_chunk(during)
        frame.first = False
        ends, _ = yield from self._iterate(one_chunk, ends, where)
        result = ends.copy()
        for key, fact in produced.facts.items():  # the producer has finished by now
            if key != node.key and key not in consumer_keys and env.facts.get(key) != fact:
                result.facts[key] = fact
        result.opaque = union(result.opaque, produced.opaque)
        result.unseen = {k: v for k, v in result.unseen.items() if k != producer.name}
        for name, item in produced.unseen.items():  # earlier replies the producer did not see
            if name != producer.name and name in env.unseen:
                result.unseen.setdefault(name, item)
        result.speakers = result.speakers | produced.speakers
        old = result.facts.get(node.key, ABSENT)
        result.facts[node.key] = Fact(
            NO, old.writers, union(old.deleters, (f"{where} (it clears its chunk key when done)",))
        )
        return result


def _credit(env: Env, key: str, entries: Sequence[tuple[ir.Node, Writer, bool]], note: str) -> None:
    """Apply other delegates' writes of one key to `env`, as `maybe` (soft)."""
    writers = tuple(w for _, w, delete in entries if not delete)
    old = env.facts.get(key, ABSENT)
    if writers:  # a write by one wins over a delete by another: the key may be set
        if old.status == YES:
            env.facts[key] = replace(old, writers=union(old.writers, writers))
        elif old.status == MAYBE:
            env.facts[key] = replace(
                old, writers=union(old.writers, writers), notes=union(old.notes, (note,))
            )
        else:
            env.facts[key] = Fact(MAYBE, writers, old.deleters, (note,), old.turn_break, True)
    elif old.status != NO:
        env.facts[key] = replace(old, status=MAYBE, notes=union(old.notes, (note,)))


def _all_branches(node: ir.ParallelAgentNode, outs: list[Env], env: Env) -> Env:
    """The state after every branch of a FanOut has ended."""
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
            union(*(f.writers for f in changed)),
            union(*(f.deleters for f in changed)),
            union(*(f.notes for f in changed))
            + (
                (f"FanOut '{node.name}': its branches write and delete it concurrently",)
                if status == MAYBE
                else ()
            ),
        )
    merged.opaque = union(env.opaque, *(out.opaque for out in outs))
    unseen = {
        name: item for name, item in env.unseen.items() if all(name in out.unseen for out in outs)
    }
    for out in outs:
        for name, item in out.unseen.items():
            if name not in env.unseen:
                unseen[name] = item
    merged.unseen = unseen
    merged.speakers = frozenset().union(*(out.speakers for out in outs))
    return merged


def analyse(root: ir.Node, initial_keys: frozenset[str] = frozenset()) -> DataflowResult:
    """Run the abstract interpretation over `root`."""
    return Flow(root, initial_keys).run()
