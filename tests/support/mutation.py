"""Planting state and context bugs in correct trees, to measure what the contract checker catches.

Each operator makes one mistake people make when they edit a pipeline, on the IR of a tree that
checks clean, and only where the mistake is a real bug by construction (the key it breaks is read
by a step that needs it, and nothing else provides it):

* `misspell-read`: an agent's instruction reads `{intnet}` for `{intent}`;
* `misspell-write`: an agent stores its reply under `.outputs("intnet")` for the key read later;
* `drop-outputs`: an agent whose reply a later step reads loses its `.outputs()`;
* `drop-step`: a state step (S.set, S.capture, S.compute, ...) that alone writes a key read later
  is removed;
* `reorder`: a step that reads a key is moved before the step that writes it;
* `parallelise`: a step and the next one, which reads what it writes, are put side by side in a
  FanOut (the reader races its writer);
* `drop-tool` / `drop-callback`: a function tool or a callback whose code alone writes a key
  read later is taken off its agent (the checker reads their source);
* `route-key`: a Route reads a misspelt key;
* `map-over-key`: a map_over reads its list from a misspelt key.

The trees: the samples (shapes of public ADK samples), the checker corpus's correct pipelines,
and every tree the README's and docs' python blocks build that checks clean. A mutant is caught
when the checker reports, on the mutated tree, an error or a warning about the key the mutation
broke that it did not report on the original. `python -m tests.support.mutation` prints the
figures with their counts, then the shares docs/contracts.md quotes ("How much it catches");
tests/integration/contracts/test_catch_rate.py fails when the share falls under 90%, when a tree
known to be correct is flagged, or when the shares in the docs are not the ones measured.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from adk_fluent import check_contracts
from adk_fluent.adk.compat import adk_version
from adk_fluent.analysis.contracts.dataflow import analyse
from adk_fluent.api.builder import BuilderBase
from adk_fluent.ir.nodes import (
    LlmAgentNode,
    MapOverNode,
    Node,
    ParallelAgentNode,
    RouteNode,
    TransformNode,
)

FLAGGING = ("error", "warning")
OPERATORS = (
    "misspell-read",
    "misspell-write",
    "drop-outputs",
    "drop-step",
    "reorder",
    "parallelise",
    "drop-tool",
    "drop-callback",
    "route-key",
    "map-over-key",
)


@dataclass(frozen=True)
class Base:
    """One correct tree to plant bugs in, with the checker options it is checked with."""

    name: str
    root: Node
    options: dict[str, Any] = field(default_factory=dict)

    def report(self, root: Node | None = None) -> Any:
        return check_contracts(root if root is not None else self.root, **self.options)


@dataclass(frozen=True)
class Mutant:
    base: str
    operator: str
    where: str  # the path of the node changed
    keys: frozenset[str]  # an issue about one of these keys catches it
    tree: Node


@dataclass
class Outcome:
    """What the checker made of the corpus."""

    bases: int = 0  # trees known to be correct (samples, corpus) and clean docs trees
    known_correct: int = 0  # of those, the samples' and the corpus's
    false_positives: list[str] = field(default_factory=list)  # known-correct trees it flags
    caught: Counter[str] = field(default_factory=Counter)
    planted: Counter[str] = field(default_factory=Counter)
    missed: list[Mutant] = field(default_factory=list)

    @property
    def rate(self) -> float:
        total = sum(self.planted.values())
        return sum(self.caught.values()) / total if total else 0.0

    def table(self, counts: bool = True) -> str:
        """The figures per operator; without `counts`, the shares only (what the docs quote:
        a docs page that adds a pipeline adds bugs to plant, not a change to the figures)."""
        head = "| operator | planted | caught | share |" if counts else "| operator | caught |"
        lines = [head, "|---|---:|---:|---:|" if counts else "|---|---:|"]
        for operator in OPERATORS:
            planted, caught = self.planted[operator], self.caught[operator]
            if planted:
                share = f"{caught / planted:.0%}"
                lines.append(
                    f"| `{operator}` | {planted} | {caught} | {share} |"
                    if counts
                    else f"| `{operator}` | {share} |"
                )
        total, caught = sum(self.planted.values()), sum(self.caught.values())
        lines.append(
            f"| **all** | **{total}** | **{caught}** | **{self.rate:.1%}** |"
            if counts
            else f"| **all** | **{self.rate:.1%}** |"
        )
        lines.append("")
        fp = len(self.false_positives)
        flagged = "none" if not fp else f"{fp}"
        lines.append(
            (f"Bugs planted in {self.bases} trees. " if counts else "")
            + f"False positives: {flagged} of the trees known to be correct flagged unmutated. "
            + f"Measured with google-adk {adk_version()}."
        )
        return "\n".join(lines)


# -- the trees ----------------------------------------------------------------------------------
def sample_bases() -> list[Base]:
    """The fluent trees of tests/behaviour/samples (shapes of public ADK samples)."""
    from tests.support.samples import SAMPLE_NAMES, load

    found = []
    for name in SAMPLE_NAMES:
        module = load(name)
        found.append(Base(f"sample:{name}", module.fluent().to_ir()))
        variant = getattr(module, "fluent_variant", None)
        if variant is not None:
            found.append(Base(f"sample:{name}:variant", variant().to_ir()))
    return found


def corpus_bases() -> list[Base]:
    """The checker corpus's correct pipelines (tests/unit/contracts/corpus/correct.py)."""
    from tests.unit.contracts.corpus import content, edges, turns  # noqa: F401 - they add cases
    from tests.unit.contracts.corpus.correct import CORRECT

    return [
        Base(f"corpus:{name}", case.build().to_ir(), dict(case.options))
        for name, case in sorted(CORRECT.items())
    ]


def doc_bases() -> list[Base]:
    """Every expression the README's and docs' python blocks build (each block run offline as
    the docs test runs it) that the checker finds nothing wrong with: the docs also show broken
    trees on purpose, and those are no base to plant a bug in."""
    from tests.support.doc_blocks import all_blocks, run_block

    found: dict[str, Base] = {}
    for block in all_blocks():
        if block.skipped:
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # what the blocks print
                scope = asyncio.run(run_block(block))
        except BaseException:  # noqa: BLE001 - a failing block is the docs test's to report
            continue
        for name, value in scope.items():
            if isinstance(value, BuilderBase) and not name.startswith("_"):
                try:
                    root = value.to_ir()
                    flagged = _flagged(check_contracts(root))
                except Exception:  # noqa: BLE001 - an expression the docs show failing
                    continue
                if not flagged:  # the same tree in several blocks counts once
                    found.setdefault(repr(root), Base(f"doc:{block.id}:{name}", root))
    return list(found.values())


# -- the operators --------------------------------------------------------------------------------
def misspelt(key: str) -> str:
    """A typo a person makes: two letters swapped in the middle, else one letter doubled."""
    prefix, _, bare = key.rpartition(":")
    head = f"{prefix}:" if prefix else ""
    if len(bare) >= 4:
        i = len(bare) // 2
        swapped = bare[: i - 1] + bare[i] + bare[i - 1] + bare[i + 1 :]
        if swapped != bare:
            return head + swapped
    return head + bare + bare[-1]


def _paths(root: Node) -> Iterator[tuple[tuple[int, ...], str, Node]]:
    """Every node with its index path and its name path."""
    stack: list[tuple[tuple[int, ...], str, Node]] = [((), root.name, root)]
    while stack:
        index, path, node = stack.pop()
        yield index, path, node
        for i, child in reversed(list(enumerate(node.children))):
            stack.append(((*index, i), f"{path}/{child.name}", child))


def _replaced(root: Node, index: tuple[int, ...], fn: Callable[[Node], Node | None]) -> Node:
    """The tree with the node at `index` replaced by fn(node) (None removes it)."""
    if not index:
        new = fn(root)
        assert new is not None
        return new
    children = list(root.children)
    head, rest = index[0], index[1:]
    if rest:
        children[head] = _replaced(children[head], rest, fn)
    else:
        new = fn(children[head])
        if new is None:
            del children[head]
        else:
            children[head] = new
    return root.replace(children=tuple(children))


def _has_siblings(root: Node, index: tuple[int, ...]) -> bool:
    """Whether the node at `index` has a parent with other children (removing it leaves one)."""
    if not index:
        return False
    parent = root
    for i in index[:-1]:
        parent = parent.children[i]
    return len(parent.children) > 1


def _required_reads(root: Node, initial: frozenset[str]) -> dict[str, list[Any]]:
    """key -> the read records of steps that need it (a template without `?`, a Route key, ...)."""
    reads: dict[str, list[Any]] = {}
    for record in analyse(root, initial).records:
        if record.read.required:
            reads.setdefault(record.read.key, []).append(record)
    return reads


def _sole_writer(flow: Any, key: str, path: str) -> bool:
    writers = flow.writers.get(key, ())
    return bool(writers) and all(writer.path == path for writer in writers)


_TEMPLATE = r"\{{{key}\}}"  # `{key}`, not `{key?}`


def mutants(base: Base) -> Iterator[Mutant]:
    """Every mutant of one base tree, by every operator."""
    initial = frozenset(base.options.get("initial_keys", ()))
    flow = analyse(base.root, initial)
    reads = _required_reads(base.root, initial)
    keys_written = set(flow.writers) | initial
    for index, path, node in list(_paths(base.root)):
        if isinstance(node, LlmAgentNode):
            yield from _agent_mutants(base, index, path, node, flow, reads, keys_written)
        if isinstance(node, TransformNode):
            for key in sorted(node.writes_keys):
                if (
                    key in reads
                    and _sole_writer(flow, key, path)
                    and _has_siblings(base.root, index)
                ):
                    tree = _replaced(base.root, index, lambda _: None)
                    yield Mutant(base.name, "drop-step", path, frozenset({key}), tree)
                    break
        if isinstance(node, RouteNode) and node.key in keys_written:
            wrong = misspelt(node.key)
            tree = _replaced(base.root, index, lambda n, w=wrong: n.replace(key=w))
            yield Mutant(base.name, "route-key", path, frozenset({wrong}), tree)
        if isinstance(node, MapOverNode) and node.list_key in keys_written:
            wrong = misspelt(node.list_key)
            tree = _replaced(base.root, index, lambda n, w=wrong: n.replace(list_key=w))
            yield Mutant(base.name, "map-over-key", path, frozenset({wrong}), tree)
        if node.CHILDREN == "sequence":
            yield from _reorders(base, index, path, node, flow, reads)
            yield from _parallelised(base, index, path, node, flow, reads)
        if isinstance(node, LlmAgentNode):
            yield from _tool_drops(base, index, path, node, reads, initial)


def _agent_mutants(
    base: Base,
    index: tuple[int, ...],
    path: str,
    node: LlmAgentNode,
    flow: Any,
    reads: dict[str, list[Any]],
    keys_written: set[str],
) -> Iterator[Mutant]:
    instruction = node.instruction if isinstance(node.instruction, str) else ""
    for key in sorted(keys_written):
        pattern = _TEMPLATE.format(key=re.escape(key))
        if re.search(pattern, instruction):
            wrong = misspelt(key)
            text = re.sub(pattern, "{" + wrong + "}", instruction, count=1)
            still = re.search(pattern, text) is not None
            reads_keys = (node.reads_keys - ({key} if not still else set())) | {wrong}

            def typo(n: Node, t: str = text, r: frozenset[str] = frozenset(reads_keys)) -> Node:
                return n.replace(instruction=t, reads_keys=r)

            tree = _replaced(base.root, index, typo)
            yield Mutant(base.name, "misspell-read", path, frozenset({wrong}), tree)
            break  # one per agent
    key = node.output_key if isinstance(node.output_key, str) else None
    if key and key in reads and _sole_writer(flow, key, path):
        wrong = misspelt(key)
        renamed = (node.writes_keys - {key}) | {wrong}
        dropped = node.writes_keys - {key}
        tree = _replaced(
            base.root, index, lambda n: n.replace(output_key=wrong, writes_keys=renamed)
        )
        yield Mutant(base.name, "misspell-write", path, frozenset({key}), tree)
        tree = _replaced(
            base.root, index, lambda n: n.replace(output_key=None, writes_keys=dropped)
        )
        yield Mutant(base.name, "drop-outputs", path, frozenset({key}), tree)


def _tool_drops(
    base: Base,
    index: tuple[int, ...],
    path: str,
    node: LlmAgentNode,
    reads: dict[str, list[Any]],
    initial: frozenset[str],
) -> Iterator[Mutant]:
    """Each function tool, and each callback, without which a key read later has no writer."""
    tools = tuple(node.tools) if isinstance(node.tools, list | tuple) else ()
    for i, tool in enumerate(tools):
        if not callable(tool) or hasattr(tool, "to_ir"):
            continue
        kept = tools[:i] + tools[i + 1 :]
        tree = _replaced(base.root, index, lambda n, k=kept: n.replace(tools=k))
        lost = _keys_left_unwritten(base.root, tree, reads, initial)
        if lost:
            yield Mutant(base.name, "drop-tool", path, frozenset(lost), tree)
    for name, value in node.set_fields().items():
        if not name.endswith("_callback") or value is None:
            continue
        tree = _replaced(base.root, index, lambda n, f=name: n.replace(**{f: None}))
        lost = _keys_left_unwritten(base.root, tree, reads, initial)
        if lost:
            yield Mutant(base.name, "drop-callback", path, frozenset(lost), tree)


def _keys_left_unwritten(
    before: Node, after: Node, reads: dict[str, list[Any]], initial: frozenset[str]
) -> set[str]:
    """Keys read by a step that needs them which `after` no longer writes anywhere."""
    had, has = analyse(before, initial).writers, analyse(after, initial).writers
    return {key for key in reads if had.get(key) and not has.get(key) and key not in initial}


def _handovers(
    path: str, node: Node, flow: Any, reads: dict[str, list[Any]], *, adjacent: bool
) -> Iterator[tuple[int, int, str]]:
    """(writer, reader, key) for children of a sequence where child `reader` reads a key that
    only child `writer` (before it; the next one only, with `adjacent`) writes."""
    prefixes = [f"{path}/{child.name}" for child in node.children]
    for i in range(len(prefixes)):
        for key in sorted(_written_under(flow, prefixes[i])):
            if not all(w.path.startswith(prefixes[i]) for w in flow.writers.get(key, ())):
                continue
            for j in range(i + 1, min(i + 2, len(prefixes)) if adjacent else len(prefixes)):
                if any(r.path.startswith(prefixes[j]) for r in reads.get(key, ())):
                    yield i, j, key
                    break


def _parallelised(
    base: Base,
    index: tuple[int, ...],
    path: str,
    node: Node,
    flow: Any,
    reads: dict[str, list[Any]],
) -> Iterator[Mutant]:
    """The first pair of adjacent children where the second reads what only the first writes,
    put side by side in a FanOut."""
    children = node.children
    for i, j, key in _handovers(path, node, flow, reads, adjacent=True):
        pair = ParallelAgentNode.of(f"side_by_side_{i}", {"children": (children[i], children[j])})
        moved = (*children[:i], pair, *children[j + 1 :])
        tree = _replaced(base.root, index, lambda n, m=moved: n.replace(children=m))
        yield Mutant(base.name, "parallelise", f"{path}/{children[j].name}", frozenset({key}), tree)
        return


def _reorders(
    base: Base,
    index: tuple[int, ...],
    path: str,
    node: Node,
    flow: Any,
    reads: dict[str, list[Any]],
) -> Iterator[Mutant]:
    """The first reader of a key that one earlier child alone writes, moved before that child."""
    for i, j, key in _handovers(path, node, flow, reads, adjacent=False):
        moved = list(node.children)
        reader = moved.pop(j)
        moved.insert(i, reader)
        tree = _replaced(base.root, index, lambda n, m=tuple(moved): n.replace(children=m))
        yield Mutant(base.name, "reorder", f"{path}/{reader.name}", frozenset({key}), tree)
        return


def _written_under(flow: Any, prefix: str) -> set[str]:
    return {
        key
        for key, writers in flow.writers.items()
        if any(w.path == prefix or w.path.startswith(prefix + "/") for w in writers)
    }


# -- the measurement --------------------------------------------------------------------------
def _flagged(report: Any) -> set[tuple[str, str | None, str]]:
    return {(i.code, i.key, i.node) for i in report.issues if i.severity in FLAGGING}


def measure(bases: list[Base]) -> Outcome:
    outcome = Outcome(bases=len(bases))
    for base in bases:
        before = _flagged(base.report())
        if not base.name.startswith("doc:"):
            outcome.known_correct += 1
        if before:
            outcome.false_positives.append(base.name)
            continue
        for mutant in mutants(base):
            outcome.planted[mutant.operator] += 1
            try:
                after = _flagged(base.report(mutant.tree))
            except Exception:  # noqa: BLE001 - a tree the checker refuses outright is caught
                outcome.caught[mutant.operator] += 1
                continue
            if any(key in mutant.keys for _, key, _ in after - before):
                outcome.caught[mutant.operator] += 1
            else:
                outcome.missed.append(mutant)
    return outcome


def all_bases(docs: bool = True) -> list[Base]:
    """The samples, the corpus's correct pipelines, and (with `docs`) the docs' clean trees."""
    return sample_bases() + corpus_bases() + (doc_bases() if docs else [])


def main(argv: list[str]) -> int:
    outcome = measure(all_bases(docs="--no-docs" not in argv))
    print(outcome.table())
    print()
    print(outcome.table(counts=False))
    for mutant in outcome.missed:
        print(
            f"missed: {mutant.operator} at {mutant.where} ({sorted(mutant.keys)}) in {mutant.base}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
