"""Content contracts (docs/contracts.md, "ContentSpec"): the modalities each agent is shown.

The rule: an agent that declared `.accepts(...)` must not be shown a reply carrying a modality
it does not accept (text, structured text and code are always accepted). Who is shown what is
the content flow (analysis/contracts/content.py): a producer's reply reaches every later agent whose view
shows it (its C spec, or include_contents). Only declared consumers are checked: an agent that
declared nothing accepts anything, so pipelines without declarations get no diagnostic.

* `modality-mismatch`: an error when the consumer is shown the reply in the same turn; a
  warning when only a later turn of the same session shows it (from earlier history).
* `modality-dropped`: an agent tool whose reply carries media: ADK's AgentTool hands the
  calling agent the text of that reply only.
* `token-budget`: a consumer's declared input bound below the sum of the declared output bounds
  of the replies it is shown in one turn (bounds nobody declared count as nothing).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.content import Consumer, Sighting, content_flow, declares_accepts
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.ir.content import MEDIA, Modality, content_spec_of, names, ordered


def _declared_anything(root: Any) -> bool:
    return any(content_spec_of(node) is not None for node in root.walk())


@register_check("modality", codes=("modality-mismatch", "modality-dropped", "token-budget"))
def check_modality(ctx: Any) -> Iterator[Issue]:
    """Replies carrying a modality an agent declared it does not accept; media agent tools drop."""
    if not _declared_anything(ctx.root):
        return
    flow = content_flow(ctx.root)
    if declares_accepts(ctx.root):
        for consumer in flow.consumers:
            speakers = dict.fromkeys(speaker for speaker, _ in consumer.seen)
            for speaker in speakers:  # this turn's replies first; else what history shows later
                for earlier in (False, True):
                    sighting = consumer.shown(speaker, earlier=earlier)
                    refused = consumer.unaccepted(sighting) if sighting else ()
                    if sighting and refused:
                        yield _mismatch(ctx, consumer, sighting, refused)
                        break
    for consumer in flow.consumers:
        issue = _budget(ctx, consumer)
        if issue is not None:
            yield issue
    for dropped in flow.dropped:
        media = ordered(m for reply in dropped.speakers for m in reply.modalities if m in MEDIA)
        who = " and ".join(f"'{reply.speaker}'" for reply in dropped.speakers)
        yield ctx.issue(
            "warning",
            "modality-dropped",
            dropped.caller,
            None,
            f"agent tool '{dropped.tool}' of {dropped.caller} replies with {names(media)}",
            f"{who} produce{'s' if len(dropped.speakers) == 1 else ''} {names(media)}, but "
            f"ADK's AgentTool hands '{dropped.caller}' only the text of the tool's last reply: "
            f"the {names(media)} never reach{'es' if len(media) == 1 else ''} it.",
            f"Make '{dropped.tool}' a step of the pipeline (a >> b), so its reply stays in the "
            f"conversation '{dropped.caller}' sees, or save the media as an artifact in the tool "
            "(callback_context.save_artifact) and load it where it is needed.",
            path=dropped.caller_path,
        )


def _mismatch(
    ctx: Any, consumer: Consumer, sighting: Sighting, refused: tuple[Modality, ...]
) -> Issue:
    reply, node = sighting.reply, consumer.node
    accepted = names((consumer.spec.accepts or frozenset()) | {Modality.TEXT})
    producer = reply.speaker
    when = (
        "in a later turn of the same session, where its earlier replies are history"
        if sighting.earlier
        else "in the same turn"
    )
    listed = ", ".join(
        f'"{m.value}"' for m in ordered((consumer.spec.accepts or frozenset()) | set(refused))
    )
    found: Issue = ctx.issue(
        "warning" if sighting.earlier else "error",
        "modality-mismatch",
        node,
        None,
        f"{node.name} is shown {names(refused)} from {producer}",
        f"'{producer}' produces {names(reply.modalities)} and '{node.name}' sees its replies "
        f"({consumer.view_label}) {when}, but '{node.name}' accepts only {accepted}: its "
        f"model would be sent {names(refused)} content it cannot read.",
        f"If {node.name}'s model reads {names(refused)}, declare it: .accepts({listed}). "
        f"Otherwise keep {producer}'s replies out of its view (e.g. .context(C.exclude_agents("
        f'"{producer}")), or C.from_agents(...) without it) and hand over a text description '
        f'instead (.outputs("...") on an agent that describes it, read with C.from_state).',
        path=consumer.path,
    )
    return found


def _budget(ctx: Any, consumer: Consumer) -> Issue | None:
    bound = consumer.spec.max_input_tokens
    if bound is None:
        return None
    bounded = sorted(
        (s.reply for s in consumer.seen.values() if not s.earlier and s.reply.max_tokens),
        key=lambda reply: reply.speaker,
    )  # this turn's replies with a declared bound (the user's message has none)
    total = sum(reply.max_tokens or 0 for reply in bounded)
    if total <= bound:
        return None
    listed = " + ".join(f"{reply.speaker} {reply.max_tokens}" for reply in bounded)
    node = consumer.node
    found: Issue = ctx.issue(
        "warning",
        "token-budget",
        node,
        None,
        f"{node.name} accepts at most {bound} input tokens",
        f"The replies '{node.name}' is shown in one turn ({consumer.view_label}) may be "
        f"{total} tokens long ({listed}, their declared output bounds), more than the {bound} "
        "tokens it declared it takes, before its instruction and the user's message.",
        f"Show it fewer replies (a C view such as C.from_agents(...)), lower the producers' "
        f"bounds, or raise its own: .accepts(..., max_tokens={total * 2}).",
        path=consumer.path,
    )
    return found
