"""Edges between steps: how a step hands its output to the next.

An edge is `complete` (the default: the next step starts when the previous one has finished),
`chunked` (the next step runs on each piece of the previous one's reply as it is written) or,
for a FanOut, `first_complete` (the FanOut ends when its first branch finishes). A FanOut may
also `merge` its branches' outputs into one state key.

This module holds the pure halves: the records the IR keeps (`FanOutMerge`), the vocabulary
(`EDGES`, `JOINS`, `MERGE_MODES`, `CHUNK_UNITS`) and how text is cut into chunks (`Chunker`).
The agents that run them are in adk/custom_agents/chunked.py and adk/custom_agents/fanout.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# The edges `.then(next, edge=...)` accepts; `first_complete` is a FanOut's join. A `token`
# edge is a chunked edge whose chunks are the pieces of text the model streams, as they come.
EDGES: tuple[str, ...] = ("complete", "chunked", "token")
TOKEN = "token"  # a chunked edge's `by` for a token edge: each streamed piece, unstripped
TOKEN_BUFFER = 16  # a token edge's pieces waiting for the consumer, at most (backpressure)
# How a FanOut ends: when every branch has finished, or when the first one has.
JOINS: tuple[str, ...] = ("complete", "first_complete")
FIRST_COMPLETE = "first_complete"
# The named ways of merging branch outputs; a function (a reducer) is the third way.
MERGE_MODES: tuple[str, ...] = ("dict", "concat")
# What a chunked edge cuts the text at, besides a number of characters.
CHUNK_UNITS: tuple[str, ...] = ("sentence", "paragraph", "line")

# What the consumer's per-chunk outputs are joined with (the text they were cut from, roughly).
_JOINERS = {"sentence": " ", "paragraph": "\n\n", "line": "\n", TOKEN: ""}

# A sentence ends at . ! ? (or an ellipsis), with any closing quotes or brackets, followed by
# whitespace: "3.14" and "e.g.x" do not end one, so a sentence is complete only once the space
# after it has arrived.
_SENTENCE_END = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019)\]]*(?=\s)")
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class FanOutMerge:
    """How a FanOut stores its branches' outputs (`FanOut(...).merge(...)`), in one state
    delta after the branches end.

    `mode` is "dict" ({branch name: output}), "concat" (the outputs as text, in branch order,
    joined by `separator`) or "reducer" (`reducer({branch name: output})`'s return value). A
    branch's output is the value of its `.outputs()` key when it has one, else its final reply
    text; a branch that produced neither is None in the dict and left out of the text."""

    mode: str
    into: str
    separator: str = "\n\n"
    reducer: Callable[[dict[str, Any]], Any] | None = None

    def describe(self) -> str:
        """How the user wrote it, e.g. `merge("dict", into="results")`."""
        if self.mode == "reducer":
            name = getattr(self.reducer, "__name__", "reducer")
            return f'merge({name}, into="{self.into}")'
        if self.mode == "concat" and self.separator != "\n\n":
            return f'merge("concat", into="{self.into}", separator={self.separator!r})'
        return f'merge("{self.mode}", into="{self.into}")'

    @property
    def value_type(self) -> type | None:
        """The type of the stored value, when the mode decides it (a reducer's is unknown)."""
        return {"dict": dict, "concat": str}.get(self.mode)

    def combine(self, outputs: Mapping[str, Any]) -> Any:
        """The value to store, from {branch name: output} in branch order. A reducer's
        exception propagates (the agent turns it into an error event)."""
        if self.mode == "dict":
            return dict(outputs)
        if self.mode == "concat":
            return self.separator.join(
                _as_text(value) for value in outputs.values() if value is not None
            )
        assert self.reducer is not None  # the builder never makes a reducer merge without one
        return self.reducer(dict(outputs))


def _as_text(value: Any) -> str:
    """A branch output as text: itself when it is text, else its JSON (a structured output)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def describe_by(by: str | int) -> str:
    """`by` as the diagram and messages say it: 'sentence', '200 characters'."""
    return f"{by} characters" if isinstance(by, int) else by


def chunk_joiner(by: str | int) -> str:
    """What the consumer's per-chunk outputs are joined with: a space for sentences and
    sizes, a newline for lines, a blank line for paragraphs."""
    return _JOINERS.get(by, " ") if isinstance(by, str) else " "


def join_outputs(outputs: list[Any], by: str | int) -> Any:
    """The consumer's outputs over every chunk: text joined by `chunk_joiner(by)`; when any
    output is not text (an output_schema), the list of them."""
    if all(isinstance(value, str) for value in outputs):
        return chunk_joiner(by).join(outputs)
    return list(outputs)


class Chunker:
    """Cuts text that arrives in pieces into complete chunks, as soon as each is complete.

    `feed(text)` returns the chunks the new text completed; `flush()` the rest, when no more
    text will come. The chunks do not depend on how the text was cut into pieces: feeding a
    reply word by word and feeding it whole give the same chunks (leading whitespace never
    counts, and each rule only looks at text that has already arrived). Chunks are stripped;
    empty ones are dropped.

    `by`: "sentence" (ends at . ! ? followed by whitespace), "paragraph" (at a blank line),
    "line" (at a newline), or a number n: pieces of at most n characters cut at a word
    boundary (a single word longer than n is one chunk of its own)."""

    def __init__(self, by: str | int) -> None:
        self.by = by
        self.buffer = ""

    def feed(self, text: str) -> list[str]:
        """Add text; the chunks it completed, in order. By TOKEN, the text itself is the chunk,
        as it came (spaces kept: the pieces joined are the reply)."""
        if self.by == TOKEN:
            return [text] if text else []
        self.buffer = (self.buffer + text).lstrip()
        return self._cut(final=False)

    def flush(self) -> list[str]:
        """The remaining text as chunks (the end of the text ends the last one)."""
        if self.by == TOKEN:
            return []
        chunks = self._cut(final=True)
        rest = self.buffer.strip()
        self.buffer = ""
        return [*chunks, rest] if rest else chunks

    def _cut(self, *, final: bool) -> list[str]:
        chunks: list[str] = []
        while True:
            cut = self._next_cut(final)
            if cut is None:
                return chunks
            end, resume = cut
            piece = self.buffer[:end].strip()
            self.buffer = self.buffer[resume:].lstrip()
            if piece:
                chunks.append(piece)

    def _next_cut(self, final: bool) -> tuple[int, int] | None:
        """(end of the next complete chunk, where the text after it starts), or None."""
        buffer, by = self.buffer, self.by
        if isinstance(by, int):
            return _size_cut(buffer, by, final)
        if by == "line":
            index = buffer.find("\n")
            return None if index < 0 else (index, index + 1)
        pattern = _SENTENCE_END if by == "sentence" else _PARAGRAPH_END
        match = pattern.search(buffer)
        if match is None:
            return None
        return (match.end(), match.end()) if by == "sentence" else (match.start(), match.end())


def _size_cut(buffer: str, size: int, final: bool) -> tuple[int, int] | None:
    """The next cut of a size chunker: the last whitespace within the first size+1 characters
    (the chunk then has at most `size`); else, a long word, at the first whitespace after it."""
    if len(buffer) <= size:
        return None  # the chunk may still grow (flush takes what is left)
    head = buffer[: size + 1]
    index = next((i for i in range(len(head) - 1, 0, -1) if head[i].isspace()), -1)
    if index > 0:
        return index, index + 1
    match = re.search(r"\s", buffer)
    if match is not None:
        return match.start(), match.end()
    return (len(buffer), len(buffer)) if final else None


def split_chunks(text: str, by: str | int) -> list[str]:
    """The chunks of a whole text (what a chunked edge makes of a reply that arrived at once)."""
    chunker = Chunker(by)
    return [*chunker.feed(text), *chunker.flush()]
