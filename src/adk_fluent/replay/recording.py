"""Recording: what a Recorder captured of a run, in a versioned format that diffs well in git.

A recording is a header and three kinds of records, each numbered by `seq` in the order it
happened (per session, at least: concurrent sessions interleave):

* `model_call`: one call of an agent's model: the request (instruction, every content with
  every part, the tools' names, the model name, the other settings) and every response the
  model gave (partial chunks under streaming, then the whole reply), or the error it raised,
  or `unanswered` when the run cancelled it before its model answered;
* `tool_call`: one tool call: the arguments, the result or the error, and the actions the call
  took (state it wrote, a transfer, an escalation);
* `event`: one event the Runner emitted (and the user's message), with its state delta,
  artifact delta, error code and, with `capture_state=True`, the session state after it.

`save(path)` writes `.json` (one object) or `.jsonl` (the header, then one record a line), every
record's fields in sorted order (values keep their own key order: it is data), no object reprs,
values that JSON cannot hold tagged (adk_fluent/replay/values.py); `Recording.load`
reads both and refuses a format version it does not know.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from adk_fluent.errors import RecordingError, describe_value, did_you_mean
from adk_fluent.replay.values import decode

FORMAT = "adk-fluent-recording"
VERSION = 1
READS_VERSIONS = (1,)
SUFFIXES = (".json", ".jsonl")


def _versions() -> tuple[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    from adk_fluent.adk.compat import adk_version

    try:
        own = version("adk-fluent")
    except PackageNotFoundError:  # a source checkout that is not installed
        own = "unknown"
    return adk_version(), own


def _compact(values: dict[str, Any]) -> dict[str, Any]:
    """A record's fields in sorted order, without the empty ones (None, False, {}, []).

    Only a record's own fields are sorted: the values keep their key order, which is data (ADK
    shows a tool's result to the next model call in that order)."""
    return {
        key: values[key]
        for key in sorted(values)
        if values[key] is not None
        and values[key] is not False
        and values[key] != {}
        and values[key] != []
    }


@dataclass(frozen=True)
class Header:
    """What a recording says about itself: the format and its version, the google-adk and
    adk-fluent releases it was made with, when, the tree (when the Recorder was told it), and
    what was captured."""

    adk_version: str
    adk_fluent_version: str
    created: str
    tree: dict[str, Any] | None = None
    partials: bool = False  # partial (streamed) events are among the events
    state: bool = False  # events carry the session state after them
    format: str = FORMAT
    version: int = VERSION

    @property
    def fingerprint(self) -> str | None:
        """The tree's fingerprint, when the recording knows its tree."""
        return None if self.tree is None else self.tree.get("fingerprint")

    def to_dict(self) -> dict[str, Any]:
        """The header as the file holds it."""
        return _compact({f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def new(
        cls, tree: dict[str, Any] | None = None, *, partials: bool = False, state: bool = False
    ) -> Header:
        """A header for a recording made now with the installed releases."""
        adk, own = _versions()
        created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        return cls(adk, own, created, tree, partials, state)


@dataclass(frozen=True)
class ModelCall:
    """One model call: `call` is its number among its agent's calls in its session (1-based);
    `request` and `responses` are in the recording's JSON form (values.py)."""

    seq: int
    session_id: str | None
    invocation_id: str | None
    agent: str
    call: int
    request: dict[str, Any]
    responses: tuple[dict[str, Any], ...] = ()
    error: dict[str, str] | None = None
    path: str | None = None
    branch: str | None = None
    model: str | None = None
    # still waiting for its model when the recording was taken (a race's loser, a branch cut
    # short, a timeout): `responses` holds the partial chunks it had streamed, if any
    unanswered: bool = False

    KIND = "model_call"

    @property
    def instruction(self) -> str | None:
        """The system instruction the model was given."""
        return self.request.get("instruction")

    @property
    def text(self) -> str:
        """The text of the model's whole (non-partial) reply."""
        whole = [r for r in self.responses if not r.get("partial")] or list(self.responses)
        return "".join(_texts(whole[-1].get("content"))) if whole else ""


@dataclass(frozen=True)
class ToolCall:
    """One tool call: its arguments, result (or error) and the actions it took, in the
    recording's JSON form."""

    seq: int
    session_id: str | None
    invocation_id: str | None
    agent: str
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: dict[str, str] | None = None
    actions: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None
    path: str | None = None
    branch: str | None = None
    has_result: bool = True  # False: it failed and nothing answered in its place

    KIND = "tool_call"


@dataclass(frozen=True)
class RecordedEvent:
    """One event of the run (author 'user' for the user's message) in the recording's JSON
    form; `state` is the session state after it (with capture_state=True)."""

    seq: int
    session_id: str | None
    invocation_id: str | None
    author: str
    id: str | None = None
    branch: str | None = None
    content: dict[str, Any] | None = None
    state_delta: dict[str, Any] = field(default_factory=dict)
    artifact_delta: dict[str, Any] = field(default_factory=dict)
    transfer_to_agent: str | None = None
    escalate: bool = False
    error_code: str | None = None
    error_message: str | None = None
    partial: bool = False
    final: bool = False
    state: dict[str, Any] | None = None

    KIND = "event"

    @property
    def text(self) -> str | None:
        """The event's text (thoughts left out), None when it has none."""
        texts = _texts(self.content)
        return "".join(texts) if texts else None

    @property
    def function_calls(self) -> list[dict[str, Any]]:
        """The tool calls the event asks for: [{"name", "args"}]."""
        return self._parts("function_call")

    @property
    def function_responses(self) -> list[dict[str, Any]]:
        """The tool results the event carries: [{"name", "response"}]."""
        return self._parts("function_response")

    def _parts(self, kind: str) -> list[dict[str, Any]]:
        parts = (self.content or {}).get("parts", [])
        return [part[kind] for part in parts if isinstance(part.get(kind), dict)]


def _texts(content: Any) -> list[str]:
    if not isinstance(content, dict):
        return []
    return [
        part["text"]
        for part in content.get("parts", [])
        if isinstance(part.get("text"), str) and part["text"] and not part.get("thought")
    ]


Record = ModelCall | ToolCall | RecordedEvent
_KINDS: dict[str, type[Any]] = {kind.KIND: kind for kind in (ModelCall, ToolCall, RecordedEvent)}


def _record_dict(record: Record) -> dict[str, Any]:
    values = _compact({f.name: getattr(record, f.name) for f in fields(record)})
    if isinstance(record, ToolCall):
        values.pop("has_result", None)
        if record.has_result:
            values["result"] = record.result  # a result of None is a result
        else:  # it failed and nothing answered in its place: no result at all
            values.pop("result", None)
            values["has_result"] = False
    if isinstance(record, ModelCall):
        values["responses"] = list(record.responses)
        values["request"] = record.request  # always there, even if empty
    if isinstance(record, RecordedEvent) and record.state is not None:
        values["state"] = record.state  # an empty state is a snapshot too
    values["record"] = record.KIND
    return dict(sorted(values.items()))


def _record_from(data: Any, where: str) -> Record:
    if not isinstance(data, dict) or data.get("record") not in _KINDS:
        kinds = ", ".join(_KINDS)
        raise RecordingError(
            f"{where} is not a record (each is an object whose 'record' is one of {kinds})",
            field="record",
            hint="the file was edited by hand or is not a recording; record the run again.",
        )
    kind = _KINDS[data["record"]]
    known = {f.name for f in fields(kind)}
    values = {key: value for key, value in data.items() if key in known}
    if kind is ModelCall:
        values["responses"] = tuple(values.get("responses", ()))
    if kind is ToolCall and "has_result" not in data:
        values["has_result"] = True
    try:
        return kind(**values)  # type: ignore[no-any-return]
    except TypeError as error:
        raise RecordingError(
            f"{where} ({data['record']}) lacks a field it needs: {error}",
            field="record",
            hint="the file was edited by hand or damaged; record the run again.",
        ) from None


@dataclass(frozen=True)
class Recording:
    """A recorded run (see the module docstring): `header`, `model_calls`, `tool_calls`,
    `events`; `save(path)` / `Recording.load(path)`; `problems` lists values that could not be
    stored (then `save` refuses)."""

    header: Header
    model_calls: tuple[ModelCall, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    events: tuple[RecordedEvent, ...] = ()
    problems: tuple[str, ...] = ()

    # -- reading ------------------------------------------------------------------------------
    @property
    def agents(self) -> tuple[str, ...]:
        """The agents that called a model, in the order they first did."""
        return tuple(dict.fromkeys(call.agent for call in self.model_calls))

    @property
    def sessions(self) -> tuple[str | None, ...]:
        """The sessions recorded, in the order they first appear."""
        return tuple(dict.fromkeys(record.session_id for record in self.records()))

    def calls_of(self, agent: str) -> tuple[ModelCall, ...]:
        """An agent's model calls in order; refuses an agent that made none (a typo)."""
        calls = tuple(call for call in self.model_calls if call.agent == agent)
        if not calls:
            raise RecordingError(
                f"the recording has no model calls for agent '{agent}'",
                agent=agent,
                field="agent",
                hint=did_you_mean(agent, self.agents)
                or f"agents with model calls: {', '.join(self.agents) or 'none'}.",
            )
        return calls

    def records(self) -> list[Record]:
        """Every record in the order it happened."""
        records: list[Record] = [*self.model_calls, *self.tool_calls, *self.events]
        return sorted(records, key=lambda record: record.seq)

    def state_after(self, event_index: int) -> dict[str, Any]:
        """The session state after `events[event_index]` (needs capture_state=True)."""
        if not self.header.state:
            raise RecordingError(
                "this recording has no state snapshots",
                field="state",
                hint="record with Recorder(capture_state=True).",
            )
        event = self.events[event_index]
        return dict(decode(event.state or {}, f"event #{event_index + 1} state"))

    # -- writing ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The recording as the .json file holds it (the header's fields, then the records)."""
        data = {
            **self.header.to_dict(),
            "events": [_record_dict(event) for event in self.events],
            "model_calls": [_record_dict(call) for call in self.model_calls],
            "tool_calls": [_record_dict(call) for call in self.tool_calls],
        }
        return dict(sorted(data.items()))

    def to_json(self) -> str:
        """The .json text: fields in sorted order, two-space indents, a trailing newline."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def to_jsonl(self) -> str:
        """The .jsonl text: the header, then one record a line in the order they happened."""
        lines = [self.header.to_dict(), *(_record_dict(record) for record in self.records())]
        return "".join(
            json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
        )

    def save(self, path: str | Path) -> Path:
        """Write the recording to `path`: JSON for `.json`, JSON Lines for `.jsonl`. Refuses a
        recording holding a value JSON cannot hold (see `problems`)."""
        target = _path(path, "save")
        if self.problems:
            more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
            raise RecordingError(
                f"the recording holds a value JSON cannot hold: {self.problems[0]}{more}",
                field="recording",
                hint="return JSON values (text, numbers, lists, dicts; bytes, tuples, sets, "
                "datetimes and pydantic models are stored with a type tag) from tools and "
                "state; recording.problems lists every such value.",
            )
        text = self.to_jsonl() if target.suffix == ".jsonl" else self.to_json()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    # -- reading a file -----------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> Recording:
        """Read a recording saved as `.json` or `.jsonl`."""
        source = _path(path, "load")
        if not source.is_file():
            raise RecordingError(
                f"no recording at {source}",
                field="path",
                hint="check the path (relative paths start at the working directory "
                f"{Path.cwd()}); recordings are made with recording.save(path).",
            )
        text = source.read_text(encoding="utf-8")
        try:
            if source.suffix == ".jsonl":
                lines = [json.loads(line) for line in text.splitlines() if line.strip()]
                return cls._from_lines(lines, source)
            return cls.from_dict(json.loads(text), source)
        except json.JSONDecodeError as error:
            raise RecordingError(
                f"{source} is not JSON{' Lines' if source.suffix == '.jsonl' else ''} "
                f"(line {error.lineno}: {error.msg})",
                field="path",
                hint="a recording is written by recording.save(path); this file is something "
                "else, or was cut short.",
            ) from None

    @classmethod
    def _from_lines(cls, lines: list[Any], source: Path) -> Recording:
        if not lines:
            raise RecordingError(
                f"{source} is empty",
                field="path",
                hint="a .jsonl recording starts with its header line; record the run again.",
            )
        header = _header(lines[0], source)
        records = [_record_from(line, f"{source} line {n + 2}") for n, line in enumerate(lines[1:])]
        return cls._of(header, records)

    @classmethod
    def from_dict(cls, data: Any, source: str | Path = "the recording") -> Recording:
        """A recording from the data of a .json file (`to_dict()`)."""
        header = _header(data, source)
        records: list[Record] = []
        for key in ("model_calls", "tool_calls", "events"):
            items = data.get(key, [])
            if not isinstance(items, list):
                raise RecordingError(
                    f"{source}: '{key}' must be a list, not {describe_value(items)}",
                    field=key,
                    hint="the file was edited by hand or damaged; record the run again.",
                )
            records += [_record_from(item, f"{source} {key}[{n}]") for n, item in enumerate(items)]
        return cls._of(header, records)

    @classmethod
    def _of(cls, header: Header, records: Iterable[Record]) -> Recording:
        ordered = sorted(records, key=lambda record: record.seq)
        return cls(
            header,
            tuple(r for r in ordered if isinstance(r, ModelCall)),
            tuple(r for r in ordered if isinstance(r, ToolCall)),
            tuple(r for r in ordered if isinstance(r, RecordedEvent)),
        )


def _path(path: Any, verb: str) -> Path:
    if not isinstance(path, str | Path) or not str(path).strip():
        raise RecordingError(
            f"a recording's path must be a file name, not {describe_value(path)}",
            field="path",
            hint=f"e.g. recording.{verb}('recordings/checkout.json') (or .jsonl).",
        )
    target = Path(path)
    if target.suffix not in SUFFIXES:
        raise RecordingError(
            f"{target.name}: a recording is a .json or .jsonl file, not '{target.suffix or ''}'",
            field="path",
            hint=did_you_mean(target.suffix, SUFFIXES)
            or "use .json (one object, easy to read) or .jsonl (one record a line).",
        )
    return target


def _header(data: Any, source: str | Path) -> Header:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise RecordingError(
            f"{source} is not an adk-fluent recording"
            + (f" (its format is {found!r})" if isinstance(found, str) else ""),
            field="format",
            hint=f"a recording's header says format {FORMAT!r}; it is written by "
            "recording.save(path) (or Recorder.save).",
        )
    version = data.get("version")
    if version not in READS_VERSIONS:
        reads = ", ".join(str(v) for v in READS_VERSIONS)
        newer = isinstance(version, int) and version > max(READS_VERSIONS)
        raise RecordingError(
            f"{source} is a recording of format version {version!r}; this adk-fluent reads "
            f"version {reads}",
            field="version",
            hint="upgrade adk-fluent to read it."
            if newer
            else "record the run again with this adk-fluent.",
        )
    return Header(
        adk_version=str(data.get("adk_version", "unknown")),
        adk_fluent_version=str(data.get("adk_fluent_version", "unknown")),
        created=str(data.get("created", "")),
        tree=data.get("tree") if isinstance(data.get("tree"), dict) else None,
        partials=bool(data.get("partials", False)),
        state=bool(data.get("state", False)),
    )
