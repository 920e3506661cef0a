"""Which replies each agent may be shown, with the modalities they carry: the content flow that
the modality contract (checks/modality.py) and the prompt guard read.

An abstract run over the IR, one visitor case per node type:

* every LLM agent's reply is in the conversation after it (what it declared with
  `.produces_modality()`, else text; structured text with an output_schema). A custom or
  remote agent counts as text (it declares nothing). The user's message is there from the
  start (its modalities are known only at run time: `prompt_problem`).
* an agent is shown a reply when its view shows the speaker: ADK's default history and
  `C.last_n_turns` show every reply; `C.from_agents(...)` the named agents', `C.exclude_agents(...)`
  the others'; `C.user_only()`, `C.none()` and `C.from_state(...)` none (but the user's message);
  `include_contents='none'` only what follows the latest reply (the user's message when the
  agent runs first). Every adk-fluent view shows this turn's user message.
* sequence: in order; branches (FanOut, race, route, timeout, boundary) each from the same
  state, since ADK shows no branch its sibling's events; fallback: each alternative after the
  failed ones; loop and map_over bodies: again after themselves until nothing changes;
  delegates: from the state before the delegating agent's reply; a gate: the rest may run in a
  later turn. An agent tool's tree is a sub-run of its own (ADK gives it a fresh session).
* a second pass runs the pipeline again as the next turn of the same session: what the first
  turn said is now earlier history, which `C.none()`, `C.user_only()`, `include_contents='none'`
  and `C.last_n_turns(1)` leave out.

An agent never counts as seeing its own replies (a model is not stopped by what it produced).
Nothing here imports google.adk.
"""

from __future__ import annotations

import functools
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from adk_fluent.analysis.contracts.flow_state import View, view_of
from adk_fluent.errors import BuildError
from adk_fluent.ir import nodes as ir
from adk_fluent.ir.content import (
    MEDIA,
    ContentSpec,
    Modality,
    content_spec_of,
    names,
    ordered,
    parts_modalities,
    produced_modalities,
)
from adk_fluent.ir.nodes import LlmAgentNode, Node, Walk

USER = "user"  # ADK's author of the user's messages
_LOOP_PASSES = 4  # the spoken set only grows: a body settles after its second run


@dataclass(frozen=True)
class Reply:
    """A message that may be in the conversation: who said it and what it carries."""

    speaker: str  # an agent's name, or "user"
    path: str  # the speaker's path from the root ('' for the user)
    modalities: frozenset[Modality]
    max_tokens: int | None = None  # the speaker's declared output bound
    earlier: bool = False  # said in an earlier turn of the session
    branch: str = ""  # the branch it was said on (ADK's `Event.branch`; '' for none)


@dataclass
class _State:
    """The conversation at one point of the run: every reply that may be in it, and the
    speakers whose reply may be the latest (what include_contents='none' starts from)."""

    spoken: dict[tuple[str, bool], Reply]
    latest: frozenset[str]

    def same(self, other: _State) -> bool:
        return self.spoken == other.spoken and self.latest == other.latest

    def said(self, reply: Reply) -> _State:
        """The state after `reply` is the latest message."""
        spoken = dict(self.spoken)
        spoken[(reply.speaker, reply.earlier)] = reply
        return _State(spoken, frozenset({reply.speaker}))


def _merged(held: Reply | None, reply: Reply) -> Reply:
    """One speaker's replies on several paths (or a user's messages in several turns) as one:
    whatever any of them carries, and the largest declared bound."""
    if held is None or held == reply:
        return reply
    bounds = [b for b in (held.max_tokens, reply.max_tokens) if b is not None]
    return replace(
        held,
        modalities=held.modalities | reply.modalities,
        max_tokens=max(bounds) if bounds else None,
    )


def _join(states: Iterable[_State]) -> _State:
    states = list(states)
    spoken: dict[tuple[str, bool], Reply] = {}
    for state in states:
        for key, reply in state.spoken.items():
            spoken[key] = _merged(spoken.get(key), reply)
    return _State(spoken, frozenset().union(*(s.latest for s in states)))


@dataclass(frozen=True)
class Sighting:
    """A reply an agent that declared a ContentSpec may be shown."""

    reply: Reply
    earlier: bool  # shown as earlier history (in a later turn of the session), not this turn


@dataclass
class Consumer:
    """An agent that declared what it accepts, and the replies it may be shown."""

    node: LlmAgentNode
    path: str
    spec: ContentSpec
    view_label: str
    # by (speaker, shown as earlier history): what this turn shows and what a later turn does
    seen: dict[tuple[str, bool], Sighting] = field(default_factory=dict)

    def see(self, reply: Reply) -> None:
        """Record a reply this agent may be shown."""
        key = (reply.speaker, reply.earlier)
        held = self.seen.get(key)
        self.seen[key] = Sighting(_merged(held.reply if held else None, reply), reply.earlier)

    def shown(self, speaker: str, *, earlier: bool) -> Sighting | None:
        """What this agent may be shown of `speaker` this turn (or, `earlier`, from history)."""
        return self.seen.get((speaker, earlier))

    def unaccepted(self, sighting: Sighting) -> tuple[Modality, ...]:
        """The modalities of a reply this consumer does not accept."""
        return ordered(m for m in sighting.reply.modalities if not self.spec.takes(m))


@dataclass(frozen=True)
class DroppedMedia:
    """An agent tool whose reply carries media: ADK's AgentTool passes on only its text."""

    caller: str
    caller_path: str
    tool: str
    speakers: tuple[Reply, ...]


@dataclass
class ContentFlow:
    """What the content flow found: the consumers (in tree order) and dropped media."""

    consumers: list[Consumer]
    dropped: list[DroppedMedia]


def _on_branch(current: str, said_on: str) -> bool:
    """Whether an event said on branch `said_on` reaches a model request on `current` (ADK's
    rule, which adk-fluent's views follow: a branch and those below it see their ancestors')."""
    return not current or not said_on or current == said_on or current.startswith(f"{said_on}.")


def _shows(
    node: LlmAgentNode, view: View, reply: Reply, latest: frozenset[str], branch: str
) -> bool:
    """Whether `node`'s view shows `reply` (`latest`: who may have spoken last; `branch`: the
    branch `node` runs on)."""
    if not _on_branch(branch, reply.branch):
        return False
    history = view.history
    if reply.speaker == USER:
        if reply.earlier:
            return history in ("default", "from_agents", "exclude_agents", "user_only") or (
                history == "last_n_turns" and _turns(node) >= 2
            )
        return history != "adk_none" or USER in latest
    if reply.earlier and (
        history in ("none", "user_only", "adk_none")
        or (history == "last_n_turns" and _turns(node) < 2)
    ):
        return False
    if history == "adk_none":
        return reply.speaker in latest
    return view.shows(reply.speaker, latest)


def _turns(node: LlmAgentNode) -> int:
    turns = getattr(node.context, "turns", 0)
    return turns if isinstance(turns, int) else 0


class _Here(NamedTuple):
    """Where a case of the content flow is: the conversation before the node runs, its
    parent's path, and the branch it runs on (ADK's `Event.branch`)."""

    state: _State
    parent: tuple[str, ...]
    branch: str


class _ContentFlow(ir.NodeVisitor[_Here, _State]):
    """One case per node type, each from the conversation before the node to the one after."""

    def __init__(self) -> None:
        self.consumers: dict[str, Consumer] = {}
        self.dropped: dict[tuple[str, str], DroppedMedia] = {}

    def run(self, root: Node, start: _State, path: tuple[str, ...] = ()) -> _State:
        return self.visit(root, _Here(start, path, ""))

    def visit_llm_agent(self, node: LlmAgentNode, here: _Here) -> Walk[_Here, _State]:
        state, parent, branch = here
        path = (*parent, node.name)
        where = "/".join(path)
        spec = content_spec_of(node)
        if spec is not None and (spec.accepts is not None or spec.max_input_tokens is not None):
            view = view_of(node)
            consumer = self.consumers.setdefault(node.name, Consumer(node, where, spec, view.label))
            for reply in state.spoken.values():
                if reply.speaker != node.name and _shows(node, view, reply, state.latest, branch):
                    consumer.see(reply)
        for tree in node.attached:  # a sub-run with a session of its own
            yield from self._tool(node, where, tree, path)
        produced = produced_modalities(node)
        bound = spec.max_output_tokens if spec is not None else None
        answered = state.said(Reply(node.name, where, produced, bound, branch=branch))
        if not node.children:
            return answered
        # a delegate takes over before this agent's reply (it sees that only from earlier turns)
        ends = [answered]
        for child in node.children:
            ends.append((yield child, _Here(state, path, branch)))
        return _join(ends)

    def _tool(
        self, caller: LlmAgentNode, where: str, tree: Node, path: tuple[str, ...]
    ) -> Generator[tuple[Node, _Here], _State, None]:
        # the tool's input is text the calling model wrote: its first agents see text only
        end = yield tree, _Here(_State({}, frozenset({USER})), path, "")
        media = tuple(
            reply
            for (speaker, _), reply in sorted(end.spoken.items())
            if speaker in end.latest and reply.modalities & MEDIA
        )
        if media:
            key = (caller.name, tree.name)
            self.dropped.setdefault(key, DroppedMedia(caller.name, where, tree.name, media))

    def _speaks_text(self, node: Node, here: _Here) -> _State:
        """A custom or remote agent: it declares nothing, so its reply counts as text."""
        path = "/".join((*here.parent, node.name))
        text = frozenset({Modality.TEXT})
        return here.state.said(Reply(node.name, path, text, branch=here.branch))

    visit_native_agent = visit_remote_agent = _speaks_text

    def visit_gate(self, node: ir.GateNode, here: _Here) -> _State:
        """The rest may run in a later turn, after the person's reply."""
        return _join([here.state, _next_turn(here.state, USER)])

    def _passes(self, node: Node, here: _Here) -> _State:
        """A state step, a tap or a loop check: nothing is said."""
        return here.state

    visit_transform = visit_tap = visit_until = _passes

    def _in_order(self, node: Node, here: _Here, branching: bool = False) -> Walk[_Here, _State]:
        state = here.state
        for child in node.children:
            state = yield child, self._into(node, child, state, here, branching)
        return state

    visit_sequential_agent = _in_order

    def visit_chunked_edge(self, node: ir.ChunkedEdgeNode, here: _Here) -> Walk[_Here, _State]:
        """The consumer reads the producer's chunks from state, not from history."""
        return self._in_order(node, here, branching=True)

    def visit_fallback(self, node: ir.FallbackNode, here: _Here) -> Walk[_Here, _State]:
        """Each alternative after the failed ones."""
        state, outs = here.state, []
        for child in node.children:
            state = yield child, self._into(node, child, state, here)
            outs.append(state)
        return _join(outs or [state])

    def _branches(
        self, node: Node, here: _Here, *, optional: bool = False, branching: bool = False
    ) -> Walk[_Here, _State]:
        """Each child from the same state (`optional`: or none of them runs)."""
        outs = []
        for child in node.children:
            outs.append((yield child, self._into(node, child, here.state, here, branching)))
        return _join([*outs, here.state] if optional or not outs else outs)

    def visit_parallel_agent(self, node: ir.ParallelAgentNode, here: _Here) -> Walk[_Here, _State]:
        """ADK's ParallelAgent runs each branch on a branch of its own."""
        return self._branches(node, here, branching=True)

    visit_race = visit_boundary = _branches

    def visit_route(self, node: ir.RouteNode, here: _Here) -> Walk[_Here, _State]:
        return self._branches(node, here, optional=not node.has_otherwise)

    def visit_timeout(self, node: ir.TimeoutNode, here: _Here) -> Walk[_Here, _State]:
        return self._branches(node, here, optional=True)

    def _repeat(self, node: Node, here: _Here) -> Walk[_Here, _State]:
        """A loop or map_over body: again after itself until nothing changes."""
        seen = [here.state]
        current = here.state
        for _ in range(_LOOP_PASSES):
            for child in node.children:
                current = yield child, self._into(node, child, current, here)
            if any(current.same(earlier) for earlier in seen):
                break
            seen.append(current)
        return _join([*seen, current])

    visit_loop_agent = visit_map_over = _repeat

    @staticmethod
    def _into(
        node: Node, child: Node, state: _State, here: _Here, branching: bool = False
    ) -> _Here:
        """A child's place: under `node`, on a branch of its own when `node` is branching (a
        branch's events never reach its siblings' model requests)."""
        branch = here.branch
        if branching:
            own = f"{node.name}.{child.name}"
            branch = f"{branch}.{own}" if branch else own
        return _Here(state, (*here.parent, node.name), branch)


def _next_turn(state: _State, speaker: str) -> _State:
    """The state when a new turn starts: everything said so far is earlier history, and the
    new user message (text, as far as the checker knows) is the latest."""
    spoken: dict[tuple[str, bool], Reply] = {}
    for reply in state.spoken.values():
        key = (reply.speaker, True)
        spoken[key] = _merged(spoken.get(key), replace(reply, earlier=True))
    fresh = Reply(speaker, "", frozenset({Modality.TEXT}))
    spoken[(speaker, False)] = fresh
    return _State(spoken, frozenset({speaker}))


def content_flow(
    root: Node, user: frozenset[Modality] = frozenset(), *, turns: int = 2
) -> ContentFlow:
    """Run the content flow over `root`: the user's first message carries `user` (text when
    empty); `turns=2` also runs the next turn of the same session."""
    flow = _ContentFlow()
    first = Reply(USER, "", user or frozenset({Modality.TEXT}))
    end = flow.run(root, _State({(USER, False): first}, frozenset({USER})))
    if turns > 1:
        flow.run(root, _next_turn(end, USER))
    order = {node.name: index for index, node in enumerate(root.walk())}
    consumers = sorted(flow.consumers.values(), key=lambda c: order.get(c.node.name, len(order)))
    return ContentFlow(consumers, list(flow.dropped.values()))


def declares_accepts(root: Node) -> bool:
    """Whether any agent in the tree declared what it accepts (else nothing can mismatch)."""
    return any(
        (spec := content_spec_of(node)) is not None and spec.accepts is not None
        for node in root.walk()
    )


def prompt_problem(root: Node, parts: Any) -> BuildError | None:
    """Why the user's message `parts` (google.genai Parts) must not be sent to `root`, or None:
    an agent that declared what it accepts would be shown a modality of the message that it
    does not accept (its model would be sent, say, an image it cannot read). Text never is.

    Asked by the engine when a turn starts; a message without media costs a scan of its parts,
    and the answer for a tree and a set of media is remembered."""
    media = parts_modalities(parts) & MEDIA
    if not media:
        return None
    try:
        refusal = _refusal(root, media)
    except TypeError:  # a tree holding an unhashable value: answer without remembering
        refusal = _refusal.__wrapped__(root, media)
    if refusal is None:
        return None
    agent, message, hint = refusal
    return BuildError(message, agent=agent, field="prompt", hint=hint)


@functools.lru_cache(maxsize=128)
def _refusal(root: Node, media: frozenset[Modality]) -> tuple[str, str, str] | None:
    """(agent, message, hint) of the first agent shown media of the message it does not accept."""
    if not declares_accepts(root):
        return None
    flow = content_flow(root, media | {Modality.TEXT}, turns=1)
    for consumer in flow.consumers:
        sighting = consumer.shown(USER, earlier=False)
        if sighting is None:
            continue
        refused = consumer.unaccepted(sighting)
        if not refused:
            continue
        accepted = consumer.spec.accepts or frozenset()
        message = (
            f"the user's message carries {names(refused)} content, which "
            f"'{consumer.node.name}' sees ({consumer.view_label}) but does not accept (it "
            f"accepts {names(accepted | {Modality.TEXT})}): its model cannot read it"
        )
        return consumer.node.name, message, _prompt_hint(consumer, refused)
    return None


def _prompt_hint(consumer: Consumer, refused: tuple[Modality, ...]) -> str:
    declared = ordered((consumer.spec.accepts or frozenset()) | set(refused))
    listed = ", ".join(f'"{m.value}"' for m in declared)
    return (
        f"if its model reads {names(refused)}, declare it: .accepts({listed}); otherwise send "
        "this pipeline text only, or keep the message out of the agent's view: an agent that "
        'runs after another one and has .include_contents("none") sees only the latest reply.'
    )
