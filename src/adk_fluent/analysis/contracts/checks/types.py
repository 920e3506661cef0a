"""Typed contracts: a StateSchema's keys, scopes and types, and produces / consumes models."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.checks.common import read_subject, with_suggestion
from adk_fluent.analysis.contracts.flow_state import NO, ReadRecord, Writer
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.analysis.contracts.typecompat import compatible, is_known, value_fits
from adk_fluent.ir.state_keys import UNKNOWN, bare_name, type_name


def _fits(writer: Writer, expected: Any) -> bool:
    if writer.value is not UNKNOWN:
        return value_fits(writer.value, expected)
    return compatible(writer.type, expected)


def _written_as(writer: Writer) -> str:
    if writer.value is not UNKNOWN:
        return f"{type(writer.value).__name__} {writer.value!r:.40}"
    return type_name(writer.type)


def _typed(writer: Writer) -> bool:
    return writer.value is not UNKNOWN or is_known(writer.type)


@register_check("types", codes=("type-mismatch",))
def check_types(ctx: Any) -> Iterator[Issue]:
    """Typed writers against typed readers (produces/consumes, .writes/.reads) and the schema."""
    schema = ctx.schema
    if schema is not None:
        for key, writers in ctx.flow.writers.items():
            ref = schema.field_for_key(key)
            if ref is None or not is_known(ref.type):
                continue
            for writer in writers:
                if _typed(writer) and not _fits(writer, ref.type):
                    yield ctx.issue(
                        "error",
                        "type-mismatch",
                        writer.node,
                        key,
                        f"{writer.via} vs {schema.__name__}.{ref.name}",
                        f'{writer.via} writes "{key}" as {_written_as(writer)}, but '
                        f"{schema.__name__} declares {ref.name}: {type_name(ref.type)}.",
                        "Make the declarations agree (change the writer's type or the schema "
                        "field), or convert the value in a step in between.",
                        path=writer.path,
                    )
    for record in ctx.flow.records:
        expected = record.read.type
        if not is_known(expected) or record.fact.status == NO:
            continue
        if schema is not None:
            ref = schema.field_for_key(record.read.key)
            if ref is not None and is_known(ref.type) and not compatible(ref.type, expected):
                yield _reader_issue(
                    ctx,
                    record,
                    f"{schema.__name__} declares {ref.name}: {type_name(ref.type)}",
                )
                continue
        for writer in record.fact.writers:
            if _typed(writer) and not _fits(writer, expected):
                yield _reader_issue(ctx, record, f"{writer.via} writes it as {_written_as(writer)}")


def _reader_issue(ctx: Any, record: ReadRecord, provided: str) -> Issue:
    found: Issue = ctx.issue(
        "error",
        "type-mismatch",
        record.node,
        record.read.key,
        read_subject(record),
        f'{record.node} expects "{record.read.key}" as {type_name(record.read.type)}, but '
        f"{provided}.",
        "Make the declarations agree (the producer's model, the consumer's model or the schema), "
        "or convert the value in a step in between.",
        path=record.path,
    )
    return found


@register_check("schema", codes=("schema-unknown-key", "scope-mismatch"))
def check_schema(ctx: Any) -> Iterator[Issue]:
    """Keys the StateSchema does not declare, and keys used in the wrong scope."""
    schema = ctx.schema
    if schema is None:
        return
    keys = ctx.schema_keys
    by_name = {ref.name: ref for ref in schema.field_refs().values()}
    uses: dict[str, tuple[str, str, str]] = {}  # key -> (node, path, how it is used)
    for key, writers in ctx.flow.writers.items():
        for writer in writers:
            if writer.kind != "initial":
                uses.setdefault(key, (writer.node, writer.path, f"{writer.via} writes"))
    for record in ctx.flow.records:
        uses.setdefault(record.read.key, (record.node, record.path, read_subject(record)))
    for key, (node, path, how) in uses.items():
        if key in keys:
            continue
        ref = by_name.get(bare_name(key))
        if ref is not None:
            yield ctx.issue(
                "error",
                "scope-mismatch",
                node,
                key,
                f'{how} "{key}"' if how.endswith("writes") else how,
                f'"{key}" is {_scope_words(key)}, but {schema.__name__}.{ref.name} is '
                f'{ref.scope}-scoped (state key "{ref.key}").',
                f'Use {schema.__name__}.{ref.name} (key "{ref.key}"), or change its scope in '
                f"{schema.__name__}.",
                path=path,
            )
            continue
        yield ctx.issue(
            "warning",
            "schema-unknown-key",
            node,
            key,
            f'{how} "{key}"' if how.endswith("writes") else how,
            f'{schema.__name__} does not declare "{key}".',
            with_suggestion(
                ctx.suggest(key, keys),
                f"declare it in {schema.__name__}, or use one of its keys",
            ),
            path=path,
        )


def _scope_words(key: str) -> str:
    scope = key.split(":", 1)[0] if ":" in key else "session"
    return f"{scope}-scoped"


@register_check("producers", codes=("captured-by-other", "captured-by-missing"))
def check_producers(ctx: Any) -> Iterator[Issue]:
    """A schema field's `CapturedBy(...)` against the tree: its key written by another step or
    agent, or read while nothing of the named producer writes it."""
    schema = ctx.schema
    if schema is None:
        return
    for ref in schema.field_refs().values():
        producer = ref.captured_by
        if producer is None:
            continue
        declared = f"{schema.__name__}.{ref.name} is CapturedBy({producer.shown})"
        writers = ctx.flow.writers.get(ref.key, ())
        others = [w for w in writers if not producer.wrote(w.node, w.via)]
        for writer in others:
            yield ctx.issue(
                "warning",
                "captured-by-other",
                writer.node,
                ref.key,
                f"{writer.via} vs CapturedBy({producer.shown})",
                f'{writer.via} writes "{ref.key}", but {declared}.',
                f"Let only {producer.shown} write it, or change the schema's CapturedBy to what "
                "writes it now.",
                path=writer.path,
            )
        if len(others) < len(writers):
            continue  # the producer writes it
        readers = [record for record in ctx.flow.records if record.read.key == ref.key]
        if not readers:
            continue  # the tree does not use the field
        first = readers[0]
        if producer.agent is not None:
            missing = f"agent '{producer.agent}' does not write it in this tree"
            fix = (
                f'Add .outputs("{ref.key}") (or a tool that writes it) to agent '
                f"'{producer.agent}', and run it before {first.node}."
            )
        else:
            missing = f"no {producer.shown} step in this tree writes it"
            fix = f'Add a {producer.shown} step that writes "{ref.key}" before {first.node}.'
        yield ctx.issue(
            "warning",
            "captured-by-missing",
            first.node,
            ref.key,
            read_subject(first),
            f'{declared}, but {missing}; {first.node} reads "{ref.key}".',
            fix,
            path=first.path,
        )
