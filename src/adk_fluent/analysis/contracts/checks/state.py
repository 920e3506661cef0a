"""State contracts (channel 2): every read finds its key, on every path, at the right time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from adk_fluent_generated.behaviours import first_release_where

from adk_fluent.analysis.contracts.checks.common import (
    consequence,
    read_subject,
    reader_name,
    ways,
    with_suggestion,
    write_fix,
)
from adk_fluent.analysis.contracts.effects import REF_CHANNELS
from adk_fluent.analysis.contracts.flow_state import ABSENT, NO, YES, ReadRecord, Writer
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.errors import with_article
from adk_fluent.ir.state_keys import bare_name, scope_of_key

READ_CODES = (
    "read-before-write",
    "maybe-unset",
    "read-after-delete",
    "from-state-unset",
    "consumes-missing-field",
    "read-unverified",
    "scoped-key-external",
    "temp-key-not-carried",
    "parallel-sibling-read",
    "parallel-race",
    "optional-never-written",
    "model-dependent-read",
    "tool-read-unverified",
    "tool-read-unset",
    "unset-on-first-turn",
)


@register_check("reads", codes=READ_CODES)
def check_reads(ctx: Any) -> Iterator[Issue]:
    """Reads before writes: templates, C specs, Route keys, S steps, consumes, .reads(), and
    the code of tools, callbacks and custom agents."""
    for record in ctx.flow.records:
        if record.read.channel in REF_CHANNELS:
            continue
        issue = _judge(ctx, record)
        if issue is not None:
            yield issue


def _judge(ctx: Any, record: ReadRecord) -> Issue | None:
    key, fact = record.read.key, record.fact
    scope = scope_of_key(key)
    if _wrong_scope(ctx, key):
        return None  # the schema check names the scope the schema expects
    if scope in ("app", "user") and fact.status != YES:
        return _scoped(ctx, record)
    if scope == "temp" and fact.status != NO:
        temp = _temp(ctx, record)
        if temp is not None:
            return temp
    if record.read.code == "tool":
        return _tool_read(ctx, record)
    if record.siblings:
        concurrent = _concurrent(ctx, record)
        if concurrent is not None:
            return concurrent
    if not record.read.required:
        return _optional(ctx, record)
    if fact.status == YES:
        return None
    if fact.status == NO:
        return _missing(ctx, record)
    if record.handles_missing:
        return None
    return _maybe(ctx, record)


def _wrong_scope(ctx: Any, key: str) -> bool:
    if ctx.schema is None or key in ctx.schema_keys:
        return False
    ref = ctx.schema.field_refs().get(bare_name(key))
    return ref is not None and ref.key != key


def _issue(
    ctx: Any, severity: str, code: str, record: ReadRecord, message: str, hint: str
) -> Issue:
    found: Issue = ctx.issue(
        severity,
        code,
        record.node,
        record.read.key,
        read_subject(record),
        message,
        hint,
        path=record.path,
    )
    return found


def _written_elsewhere(ctx: Any, key: str) -> str:
    writers = ctx.flow.writers.get(key)
    if not writers:
        return "no step in the pipeline writes it"
    return f"it is written only by {ways(writers)}, which never runs before this read"


def _unverified(ctx: Any, record: ReadRecord) -> Issue:
    """A missing key that only code the checker cannot read might have written."""
    key, who = record.read.key, reader_name(record)
    if all(entry.function_step for entry in record.opaque):
        steps = ", ".join(f"'{entry.step}'" for entry in record.opaque)
        return _issue(
            ctx,
            "info",
            "read-unverified",
            record,
            f'No declared step writes "{key}" before {who}; function step(s) {steps} might '
            "(a function step is opaque to the checker).",
            f"Declare the write with S.set({key}=...) / S.compute({key}=...) instead of a "
            f'function step, or pass initial_keys=["{key}"] if the app sets it.',
        )
    labels = [entry.label for entry in record.opaque]
    shown = "; ".join(labels[:3]) + (f"; and {len(labels) - 3} more" if len(labels) > 3 else "")
    step = next(entry.step for entry in record.opaque if not entry.function_step)
    return _issue(
        ctx,
        "info",
        "read-unverified",
        record,
        f'No step the checker can read writes "{key}" before {who}, but code it cannot read '
        f"might: {shown}.",
        f"If it does, declare it: .writes(\"{key}\") on '{step}' (the checker then counts it as "
        f'written); if the app sets it, pass initial_keys=["{key}"].',
    )


def _missing(ctx: Any, record: ReadRecord) -> Issue:
    key, fact, channel = record.read.key, record.fact, record.read.channel
    who = reader_name(record)
    if record.opaque and not fact.deleters:
        return _unverified(ctx, record)
    if fact.deleters and fact.writers:
        deleted = " and ".join(fact.deleters)
        return _issue(
            ctx,
            "error",
            "read-after-delete",
            record,
            f'"{key}" is written by {ways(fact.writers)} but deleted by {deleted} before {who} '
            f"reads it, so {consequence(record)}.",
            "Read it before the deletion, or stop deleting it"
            + (
                " (map_over clears its item key when done: read the item inside the body)"
                if any("map_over" in d for d in fact.deleters)
                else ""
            )
            + ".",
        )
    suggestion = ctx.suggest(key)
    fix = write_fix(key, channel)
    if record.first_iteration_of is not None:
        body = ways(ctx.flow.writers.get(key, ()))
        if record.concurrent_items:
            message = (
                f"In {record.first_iteration_of}, items run concurrently on private copies of the "
                f'state, so no item sees "{key}" written by {body} for another item.'
            )
            hint = "Compute it before the map_over, or collect it from the map's output key."
        else:
            message = (
                f'In the first iteration of {record.first_iteration_of}, "{key}" is not set yet: '
                f"it is written later in the body by {body}, so {consequence(record)}."
            )
            hint = (
                f"Initialise it before the loop, e.g. S.default({key}=...), or read it as "
                f"{{{key}?}}."
            )
        return _issue(ctx, "error", "read-before-write", record, message, hint)
    earlier = _earlier_reply(ctx, record)
    if earlier is not None:
        return _first_turn(ctx, record, earlier)
    if channel == "C.from_state":
        return _issue(
            ctx,
            "error",
            "from-state-unset",
            record,
            f'Nothing writes "{key}" before {who}: {_written_elsewhere(ctx, key)}; '
            f"{consequence(record)}.",
            with_suggestion(suggestion, fix),
        )
    if channel == "consumes":
        producers = _producers(ctx)
        return _issue(
            ctx,
            "error",
            "consumes-missing-field",
            record,
            f'No step before {who} produces "{key}", a required field of '
            f"{record.read.source.split('.')[0]}"
            + (f"; upstream producers declare {producers}" if producers else "")
            + ".",
            with_suggestion(
                suggestion,
                f"add the field to the producer's model (.produces(...)), or give it a default "
                f"in {record.read.source.split('.')[0]}",
            ),
        )
    late = [w for w in ctx.flow.writers.get(key, ()) if "before_model_callback" in w.via]
    if late and record.node in {w.node for w in late} and record.kind == "agent":
        fix = (
            f"ADK renders the instruction before it calls the before_model callbacks, so "
            f"{late[0].via} sets it too late for the first model call: write it in a "
            f"before_agent callback instead (.before_agent(...)), or read it as {{{key}?}}"
        )
    schema_fields = ctx.flow.output_schema_fields.get(key)
    if schema_fields and not ctx.flow.writers.get(key):
        owners = ", ".join(f"'{name}'" for name in schema_fields)
        fix = (
            f'"{key}" is a field of the output_schema of {owners}, but ADK stores the whole '
            "object in state[output_key], not each field: read the output key instead, or "
            ".produces(Model) on an agent whose callback writes the fields"
        )
    return _issue(
        ctx,
        "error",
        "read-before-write",
        record,
        f'Nothing writes "{key}" before {who}: {_written_elsewhere(ctx, key)}; '
        f"{consequence(record)}.",
        with_suggestion(suggestion, fix),
    )


def _earlier_reply(ctx: Any, record: ReadRecord) -> Writer | None:
    """The reply of an LLM agent that is still running when this read happens (the read is in
    its own instruction, its callbacks, one of its agent tools or delegates), when that reply
    writes the key and the key outlives the run: then the read finds that agent's reply from the
    previous turn of the session (a conversation), and only a session's first turn lacks it."""
    key = record.read.key
    if scope_of_key(key) != "session" or record.fact.deleters or record.opaque:
        return None
    if ctx.flow.final.get(key, ABSENT).status == NO:  # deleted before the run ends
        return None
    for writer in ctx.flow.writers.get(key, ()):
        if writer.kind not in ("outputs", "produces") or writer.node not in ctx.flow.agents:
            continue
        if record.path == writer.path or record.path.startswith(writer.path + "/"):
            return cast(Writer, writer)
    return None


def _first_turn(ctx: Any, record: ReadRecord, writer: Writer) -> Issue:
    """A read that fails on a session's first turn and finds the previous reply from then on."""
    key, owner = record.read.key, writer.node
    agent = ctx.flow.agents[owner]
    inner = record.path[len(writer.path) + 1 :].split("/")[0] if record.path != writer.path else ""
    later = (
        f" If it should see this turn's reply, make it a step after '{owner}' "
        f"({owner} >> {inner}) instead."
    )
    if not inner:
        where, later = f"'{owner}' reads it itself, before it replies", ""
    elif inner in {tree.name for tree in agent.attached}:
        where = f"'{inner}' is an agent tool of '{owner}', so it runs before '{owner}' replies"
    elif inner in {child.name for child in agent.children}:
        where = f"'{inner}' is a delegate of '{owner}', so it runs instead of '{owner}' replying"
    else:
        where = f"'{record.node}' runs inside '{owner}', before it replies"
    templates = ("instruction", "global instruction", "C.template")
    optional = (
        f"read it as {{{key}?}} (empty on the first turn), "
        if record.read.channel in templates
        else ""
    )
    return _issue(
        ctx,
        "warning",
        "unset-on-first-turn",
        record,
        f'"{key}" is written only by {ways(ctx.flow.writers.get(key, ()))}, and {where}: on '
        f"a session's first turn it is not set yet, so {consequence(record)}; from the second "
        f"turn on it holds the reply '{owner}' gave the turn before.",
        f"If the previous reply is what {reader_name(record)} should see, make the first turn "
        f"work too: {optional}give it a value first (S.default({key}=...) before '{owner}'), or "
        f'pass initial_keys=["{key}"] if the app sets it when the session starts.{later}',
    )


def _producers(ctx: Any) -> str:
    seen = []
    for writers in ctx.flow.writers.values():
        for writer in writers:
            if writer.kind == "produces" and writer.via not in seen:
                seen.append(writer.via)
    return ", ".join(seen[:3])


def _maybe(ctx: Any, record: ReadRecord) -> Issue:
    key, fact = record.read.key, record.fact
    why = "; ".join(fact.notes) if fact.notes else "it is not written on every path"
    if fact.soft:
        return _model_dependent(ctx, record, why)
    if record.read.channel == "route":
        hint = f"Add .otherwise(...) to handle a missing value, or S.default({key}=...) before the route."
    else:
        hint = (
            f"Write it on every path (e.g. S.default({key}=...) before {reader_name(record)})"
            + (f", or read it as {{{key}?}}" if record.read.channel != "C.from_state" else "")
            + "."
        )
    return _issue(
        ctx,
        "warning",
        "maybe-unset",
        record,
        f'"{key}" may be unset when {reader_name(record)} reads it ({why}); then '
        f"{consequence(record)}.",
        hint,
    )


def _declare_hint(key: str, writers: Any, channel: str) -> str:
    """'.writes("k") on 'a'' for the writer the model may skip, and the other ways out."""
    owners = list(dict.fromkeys(w.node for w in writers if w.kind != "initial"))
    declare = (
        f"If it is always set before this read, declare it: .writes(\"{key}\") on '{owners[0]}' "
        "(the checker then counts it as written); otherwise "
        if owners
        else "Otherwise "
    )
    optional = f"read it as {{{key}?}}, " if channel in ("instruction", "C.template") else ""
    return (
        f"{declare}{optional}give it a default first (S.default({key}=...)), or pass "
        f'initial_keys=["{key}"] if the app sets it.'
    )


def _model_dependent(ctx: Any, record: ReadRecord, why: str) -> Issue:
    """A key set only if a model chooses so (it calls a tool, it answered itself earlier)."""
    key, writers = record.read.key, record.fact.writers
    replies = [w for w in writers if w.kind in ("outputs", "produces")]
    if replies and len(replies) == len([w for w in writers if w.kind != "initial"]):
        owner = replies[0].node
        optional = f"read it as {{{key}?}}, " if record.read.channel == "instruction" else ""
        hint = (
            f"It is there once '{owner}' has answered, in an earlier turn. If "
            f"{reader_name(record)} may run first, {optional}give it a default before "
            f"(S.default({key}=...)), or have the coordinator store it before it transfers (a "
            "tool or a before_agent callback)."
        )
    else:
        hint = _declare_hint(key, writers, record.read.channel)
    return _issue(
        ctx,
        "info",
        "model-dependent-read",
        record,
        f'"{key}" is set before {reader_name(record)} reads it only if a model chooses so '
        f"({why}); when it did not, {consequence(record)}.",
        hint,
    )


def _tool_read(ctx: Any, record: ReadRecord) -> Issue | None:
    """A read inside a tool (or a tool callback): it runs whenever the model calls the tool,
    maybe in a later turn, so only a required key that nothing anywhere writes is a warning."""
    key, fact = record.read.key, record.fact
    if not record.read.required:
        return _optional(ctx, record)
    if fact.status == YES:
        return None
    who = reader_name(record)
    written = ctx.flow.writers.get(key)
    anywhere = record.opaque or ctx.flow.opaque_writers  # opaque code may write it, any turn
    if fact.status == NO and not written and not anywhere and key not in ctx.known_keys:
        return _issue(
            ctx,
            "warning",
            "tool-read-unset",
            record,
            f'No step in the pipeline writes "{key}", and {who} reads it as state["{key}"]: '
            "each call raises KeyError.",
            with_suggestion(
                ctx.suggest(key),
                f'read it with .get("{key}") and handle None, write it upstream (S.default('
                f'{key}=...), .outputs("{key}")), declare .writes("{key}") on the step whose '
                f'code writes it, or pass initial_keys=["{key}"] if the app sets it',
            ),
        )
    if fact.status == NO and not written:
        if record.opaque:
            return _unverified(ctx, record)
        why = "no step writes it" + (
            f"; code the checker cannot read might: {ctx.flow.opaque_writers[0]}"
            if ctx.flow.opaque_writers
            else ""
        )
    elif fact.status == NO:
        why = f"it is written only by {ways(written or ())}, which does not run before it"
    else:
        why = "; ".join(fact.notes) if fact.notes else "it is not written on every path"
    hint = _declare_hint(key, fact.writers or written or (), record.read.channel)
    return _issue(
        ctx,
        "info",
        "tool-read-unverified",
        record,
        f'"{key}" may be unset when the model calls {who} ({why}); then '
        f"{consequence(record)}. A later turn may find it set.",
        f'Read it with .get("{key}") if it may be missing. {hint}',
    )


def _scoped(ctx: Any, record: ReadRecord) -> Issue | None:
    key = record.read.key
    if ctx.schema is not None and key not in ctx.schema_keys:
        return _missing(ctx, record) if record.read.required else _optional(ctx, record)
    if not record.read.required:
        return None
    scope = scope_of_key(key)
    declared = f" ({ctx.schema.__name__} declares it)" if ctx.schema is not None else ""
    return _issue(
        ctx,
        "info",
        "scoped-key-external",
        record,
        f'No step in this pipeline writes "{key}"; {with_article(scope)}: key may come from an earlier '
        f"session{declared}. On a first run it is missing and {consequence(record)}.",
        f'If it must exist from the first run, pass initial_keys=["{key}"] (the app sets it) '
        f"or write it with S.default(...) first"
        + (f'; did you mean "{bare_name(key)}"?' if bare_name(key) in ctx.known_keys else "."),
    )


def _temp(ctx: Any, record: ReadRecord) -> Issue | None:
    key, fact = record.read.key, record.fact
    others = [w for w in fact.writers if w.node != record.node and w.kind != "initial"]
    if others and not ctx.behaves("temp_keys_carry_over"):
        since = first_release_where("temp_keys_carry_over", True)
        return _issue(
            ctx,
            "warning",
            "temp-key-not-carried",
            record,
            f"On {ctx.version_label}, a temp: key written by one agent is not visible to the "
            f'next: {ways(others)} writes "{key}", and {reader_name(record)} runs as another '
            "agent, so it finds the key missing"
            + (
                f" (google-adk {since} and newer carry temp: keys within an invocation)."
                if since
                else "."
            ),
            f'Use a session key ("{bare_name(key)}", with S.drop("{bare_name(key)}") when done)'
            + (f", or require google-adk {since} or newer." if since else "."),
        )
    if fact.turn_break is not None:
        return _issue(
            ctx,
            "warning",
            "temp-key-not-carried",
            record,
            f"\"{key}\" is written by {ways(fact.writers)} before gate '{fact.turn_break}'; when "
            f"the gate asks for approval, {reader_name(record)} runs in a later turn, and temp: "
            "values do not outlive a turn.",
            f'Use a session key ("{bare_name(key)}"), or write it after the gate.',
        )
    return None


def _concurrent(ctx: Any, record: ReadRecord) -> Issue | None:
    key = record.read.key
    sibling = record.siblings[0]
    where = "FanOut" if sibling.kind == "parallel" else "race"
    if record.fact.status != YES:
        if sibling.kind == "race":
            why = "race alternatives run on private copies of the state: one never sees another's writes"
        else:
            why = "branches start from the same state, so it cannot rely on a sibling's writes"
        return _issue(
            ctx,
            "error",
            "parallel-sibling-read",
            record,
            f"{reader_name(record)} runs concurrently with '{sibling.branch}' ({where} "
            f"'{sibling.scope}'), which writes \"{key}\" ({sibling.via}); {why}.",
            f"Run '{sibling.branch}' before the {where} (e.g. {sibling.branch} >> ({where} ...)), "
            f'or read "{key}" after the {where}.',
        )
    if sibling.kind == "parallel":
        return _issue(
            ctx,
            "warning",
            "parallel-race",
            record,
            f"\"{key}\" is set before FanOut '{sibling.scope}', but '{sibling.branch}' overwrites "
            f"it concurrently ({sibling.via}): {reader_name(record)} may see the old or the new "
            "value.",
            f"Read it after the FanOut, or have '{sibling.branch}' write another key.",
        )
    return None


def _optional(ctx: Any, record: ReadRecord) -> Issue | None:
    key = record.read.key
    if record.fact.status != NO or key in ctx.known_keys:
        return None
    suggestion = ctx.suggest(key)
    if suggestion is None:
        return None
    return _issue(
        ctx,
        "info",
        "optional-never-written",
        record,
        f'No step writes "{key}", so this optional read always finds it missing.',
        with_suggestion(suggestion, "drop the read, or write the key upstream"),
    )


@register_check("parallel-writes", codes=("parallel-write-conflict",))
def check_parallel_writes(ctx: Any) -> Iterator[Issue]:
    """Concurrent branches writing one key: the last to finish wins, in no fixed order."""
    for conflict in ctx.flow.conflicts:
        parts = " and ".join(f"'{branch}' ({via})" for branch, via in conflict.branches)
        branches = list(dict.fromkeys(branch for branch, _ in conflict.branches))
        yield ctx.issue(
            "error",
            "parallel-write-conflict",
            conflict.node,
            conflict.key,
            f"FanOut '{conflict.node}' branches all write \"{conflict.key}\"",
            f'{parts} write "{conflict.key}" concurrently; the last to finish wins, in no fixed '
            "order.",
            f'Give each branch its own key (e.g. .outputs("{conflict.key}_{branches[0]}")) and '
            f'combine them after the FanOut with S.merge(..., into="{conflict.key}").',
            path=conflict.path,
        )


_STEP_EFFECT = {
    "S.drop": "it deletes nothing",
    "S.pick": "meanwhile every other session key is deleted",
    "S.rename": "nothing moves, and the new key is never set",
    "S.log": "it logs None",
}


@register_check("step-keys", codes=("unknown-key-in-step", "map-over-item-clobbers"))
def check_step_keys(ctx: Any) -> Iterator[Issue]:
    """S.drop / S.pick / S.rename / S.log naming keys nobody writes; map_over item keys that clobber."""
    for record in ctx.flow.records:
        channel, key = record.read.channel, record.read.key
        if channel not in REF_CHANNELS or key in ctx.known_keys:
            continue
        if scope_of_key(key) in ("app", "user"):
            continue
        writes = sorted(k for k in ctx.flow.writers if k != key)
        yield ctx.issue(
            "info" if channel == "S.log" else "warning",
            "unknown-key-in-step",
            record.node,
            key,
            read_subject(record),
            f'No step in the pipeline writes "{key}", so {_STEP_EFFECT[channel]}.',
            with_suggestion(
                ctx.suggest(key),
                "check the spelling"
                + (f"; keys written in this pipeline: {', '.join(writes[:8])}" if writes else ""),
            ),
            path=record.path,
        )
    for clobber in ctx.flow.clobbers:
        yield ctx.issue(
            "warning",
            "map-over-item-clobbers",
            clobber.node,
            clobber.key,
            f"map_over '{clobber.node}' item key \"{clobber.key}\"",
            f'"{clobber.key}" is written before the map_over by {" and ".join(clobber.writers)}; '
            "the map_over overwrites it with each item and deletes it when done.",
            f'Choose another item key, e.g. item_key="{clobber.key}_item".',
            path=clobber.path,
        )
