"""Streaming contracts: chunked edges and FanOut merges (docs/streaming.md).

A chunked edge (`producer.then(consumer, edge="chunked")`) runs the consumer on pieces of the
producer's reply while the producer is still writing, so:

* the producer's reply must be text: an `output_schema` makes it one JSON object, whose pieces
  are not sentences (`chunked-producer-structured`, error);
* the consumer cannot begin by routing: a Route decides on a state value once per chunk, and
  what the producer writes is not there until it has finished (`chunked-consumer-route`, error);
* the consumer should read the chunk (`chunked-key-unread`, warning): otherwise it runs once
  per chunk on something else;
* nothing inside the edge may write the chunk key itself (`chunked-key-clash`, error).

A merging FanOut writes `into` after its branches: a branch writing that key too is
overwritten, or races the merge (`merge-into-clash`, error).

A gate inside a chunked edge, a merging FanOut or a first_complete FanOut is refused when the
tree is built (adk/compile.py), like a gate inside a race.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.effects import is_set
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.ir.edges import describe_by
from adk_fluent.ir.nodes import (
    ChunkedEdgeNode,
    LlmAgentNode,
    Node,
    ParallelAgentNode,
    RouteNode,
    SequentialAgentNode,
    iter_paths,
)

CODES = (
    "chunked-producer-structured",
    "chunked-consumer-route",
    "chunked-key-unread",
    "chunked-key-clash",
    "merge-into-clash",
)


def _leading_route(node: Node, path: str) -> tuple[RouteNode, str] | None:
    """The Route a step begins with (itself, or the first step of a nested pipeline), and
    its path."""
    while isinstance(node, SequentialAgentNode) and node.children:
        node = node.children[0]
        path = f"{path}/{node.name}"
    return (node, path) if isinstance(node, RouteNode) else None


def _edges(root: Node) -> Iterator[tuple[str, Node]]:
    """(path, node) of every chunked edge and merging FanOut."""
    for path, node in iter_paths(root):
        if isinstance(node, ChunkedEdgeNode) or (
            isinstance(node, ParallelAgentNode) and node.merge is not None
        ):
            yield "/".join(path), node


@register_check("streaming", codes=CODES)
def check_streaming(ctx: Any) -> Iterator[Issue]:
    """Chunked edges that cannot chunk, consumers that cannot run on a chunk, merges that clash."""
    for path, node in _edges(ctx.root):
        if isinstance(node, ChunkedEdgeNode):
            yield from _chunked(ctx, node, path)
        elif isinstance(node, ParallelAgentNode):
            yield from _merge(ctx, node, path)


def _inside(writer_path: str, path: str) -> bool:
    return writer_path.startswith(f"{path}/")


def _chunked(ctx: Any, node: ChunkedEdgeNode, path: str) -> Iterator[Issue]:
    producer, consumer = node.children
    key, by = node.key, describe_by(node.by)
    if isinstance(producer, LlmAgentNode) and is_set(producer.output_schema):
        schema = getattr(producer.output_schema, "__name__", "an output_schema")
        yield ctx.issue(
            "error",
            "chunked-producer-structured",
            node,
            key,
            f"chunked edge '{node.name}': {producer.name} has output_schema {schema}",
            f"{producer.name}'s reply is one JSON object ({schema}), not text: cut by {by}, "
            f'each chunk in "{key}" would be a piece of JSON that {consumer.name} cannot use.',
            f"Use a complete edge ({producer.name} >> {consumer.name}) to pass the whole "
            f"object, or drop the output_schema so {producer.name} writes text.",
            path=path,
        )
    consumer_path = f"{path}/{consumer.name}"
    leading = _leading_route(consumer, consumer_path)
    if leading is not None:
        route, route_path = leading
        yield ctx.issue(
            "error",
            "chunked-consumer-route",
            route,
            route.key,
            f"chunked edge '{node.name}' runs Route(\"{route.key}\") on each chunk",
            f'Route("{route.key}") decides once per chunk of {producer.name}\'s reply, while '
            f"{producer.name} is still writing: what {producer.name} writes is not in state "
            f'until it has finished, so "{route.key}" is missing or stale for the early chunks.',
            f"Route after the edge (or with a complete edge: {producer.name} >> "
            f'Route("{route.key}")...), and let the chunked consumer be an agent.',
            path=route_path,
        )
    reads = [
        record
        for record in ctx.flow.records
        if record.read.key == key
        and (record.path == consumer_path or _inside(record.path, consumer_path))
    ]
    inner = {n.name for n in consumer.walk()}
    opaque = any(name in inner for name in ctx.flow.opaque_readers)
    if not reads and not opaque and leading is None:  # a leading Route is reported above
        yield ctx.issue(
            "warning",
            "chunked-key-unread",
            consumer,
            key,
            f'{consumer.name} never reads the chunk "{key}"',
            f"chunked edge '{node.name}' writes each chunk of {producer.name}'s reply to \"{key}\" "
            f"and runs {consumer.name} once per chunk, but nothing in {consumer.name} reads "
            f'"{key}": it runs {"" if by.endswith("characters") else "once per " + by + " "}'
            "without seeing the text.",
            f'Read it, e.g. "{{{key}}}" in {consumer.name}\'s instruction (or C.from_state("{key}")).',
            path=consumer_path,
        )
    for writer in ctx.flow.writers.get(key, ()):
        if writer.node != node.name and _inside(writer.path, path):
            yield ctx.issue(
                "error",
                "chunked-key-clash",
                writer.node,
                key,
                f'{writer.via} writes the chunk key "{key}"',
                f"chunked edge '{node.name}' writes each chunk to \"{key}\"; {writer.via} inside "
                "it overwrites the chunk, so the next run of "
                f"{consumer.name} may see the wrong text (and the edge clears the key at the end).",
                f'Give the chunks another key (.then(..., edge="chunked", key="{key}_part")) '
                f"or store {writer.node}'s value elsewhere.",
                path=writer.path,
            )


def _merge(ctx: Any, node: ParallelAgentNode, path: str) -> Iterator[Issue]:
    into = node.merge.into
    for writer in ctx.flow.writers.get(into, ()):
        if writer.node == node.name or not _inside(writer.path, path):
            continue
        branch = writer.path[len(path) + 1 :].split("/", 1)[0]
        yield ctx.issue(
            "error",
            "merge-into-clash",
            node,
            into,
            f"FanOut '{node.name}' merges into \"{into}\", which branch '{branch}' writes",
            f"{writer.via} writes \"{into}\" inside FanOut '{node.name}', and its "
            f"{node.merge.describe()} overwrites it when the branches end: the branch's own "
            "value does not survive the FanOut.",
            f'Merge into another key (e.g. into="{into}_merged"), or give the branch its own '
            f'key (e.g. .outputs("{into}_{branch}")).',
            path=path,
        )
