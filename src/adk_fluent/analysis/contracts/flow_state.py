"""The abstract state of the data flow (dataflow.py): what is known about each key at one point
of a run (set on every path, on some, on none; who wrote it, who deleted it, why it may be
unset), the state itself, and how the states at the ends of several paths join.

Also what the checks read from a run: each read with the worst state of its key, concurrent
writes, and the history views that decide which replies an agent is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from adk_fluent.analysis.contracts.effects import Read
from adk_fluent.ir import nodes as ir
from adk_fluent.ir.state_keys import UNKNOWN

YES, MAYBE, NO = "yes", "maybe", "no"
RANK = {NO: 0, MAYBE: 1, YES: 2}


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


def quoted(names: tuple[str, ...]) -> str:
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
        label = f"C.from_state({quoted(keys)})"
    elif history in ("from_agents", "exclude_agents"):
        label = f"C.{history}({quoted(agents)})"
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


def union(*groups: tuple[Any, ...]) -> tuple[Any, ...]:
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
        notes = union(*(f.notes for f in found))
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
                notes = union(notes, (f"{where}: set {_either(set_on)}, not {_either(unset_on)}",))
        facts[key] = Fact(
            status,
            union(*(f.writers for f in found)),
            union(*(f.deleters for f in found)),
            notes,
            next((f.turn_break for f in found if f.turn_break), None),
            soft,
        )
    unseen: dict[str, Unseen] = {}
    for env in envs:
        for name, item in env.unseen.items():
            if name in unseen:
                item = replace(item, hidden_by=union(unseen[name].hidden_by, item.hidden_by))
            unseen[name] = item
    return Env(
        facts,
        union(*(env.opaque for env in envs)),
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
