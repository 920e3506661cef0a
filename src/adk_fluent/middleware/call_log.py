"""log / structured_log: one log line per model call and per tool call.

A line is written when the call ends: for a model call at its (first) non-partial reply
(`after_model_callback`) or its error (`on_model_error_callback`); for a tool call at
`after_tool_callback` or `on_tool_error_callback`. It says where (the agent's path in the tree,
the agent), what (the model or the tool), how long (ms, from the middleware's `before_*`
callback to the end, by the injectable `clock`), how it ended (`ok`, the exception's type, or
the reply's `error_code`), the token counts the reply's `usage_metadata` has, and the invocation
and session ids. Message text, replies, tool argument values and results are never written
unless `include_content=True` (tool argument NAMES are: they are the tool's signature).

Timings are keyed per call: a model call by (invocation, branch, agent), a tool call by
(invocation, function_call_id), so concurrent calls (FanOut branches, parallel function calls,
sessions running at once) never mix. Nothing is kept once a call has ended; calls that never end
(cancelled, or answered by a later middleware's `before_model`, after which ADK calls no
`after_model`) are dropped when their agent ends, and at most `_MAX_OPEN` are ever remembered.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar, cast

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import invocation_branch
from adk_fluent.adk.plugins.middleware import agent_path, model_call, sync_callback
from adk_fluent.arguments import checked_callable
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.middleware import Middleware

DEFAULT_LOGGER = "adk_fluent.middleware"
# Loggers whose log() is the standard library's own (an adapter's or a subclass's may differ)
_PLAIN_LOGGERS = (logging.Logger, logging.RootLogger)
_MAX_OPEN = 4096  # calls begun and not yet ended that are remembered (oldest dropped first)


# a line's token fields, in their order, and where usage_metadata has them
_USAGE_FIELDS = (
    ("prompt_tokens", "prompt_token_count"),
    ("output_tokens", "candidates_token_count"),
    ("total_tokens", "total_token_count"),
    ("cached_tokens", "cached_content_token_count"),
    ("thought_tokens", "thoughts_token_count"),
)


def _add_usage(record: dict[str, Any], response: Any) -> None:
    """Add the token counts a model reply carries (only those it has) to a line's record."""
    usage = getattr(response, "usage_metadata", None)
    if usage is None:
        return
    for key, field in _USAGE_FIELDS:
        value = getattr(usage, field, None)
        if isinstance(value, int):
            record[key] = value


def _reply_content(response: Any) -> dict[str, Any]:
    """A reply's text and function calls, for `include_content=True`."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    content = getattr(response, "content", None)
    for part in getattr(content, "parts", None) or []:
        if getattr(part, "text", None) and not getattr(part, "thought", False):
            texts.append(part.text)
        call = getattr(part, "function_call", None)
        if call is not None:
            calls.append({"name": call.name, "args": dict(call.args or {})})
    shown: dict[str, Any] = {"response": "".join(texts)}
    if calls:
        shown["function_calls"] = calls
    return shown


def _called_tools(response: Any) -> list[str]:
    """The names of the tools a reply asks for (names only: no argument values)."""
    content = getattr(response, "content", None)
    return [
        part.function_call.name
        for part in getattr(content, "parts", None) or []
        if getattr(part, "function_call", None) is not None
    ]


def _session_id(context: Any) -> str | None:
    session = getattr(context, "session", None)
    return getattr(session, "id", None)


class CallLog(Middleware):
    """Writes one line per model call and per tool call to a `logging.Logger` (see the module
    docstring for what a line holds); `format()` decides what the line looks like."""

    name = "log"

    def __init__(
        self,
        logger: logging.Logger | logging.LoggerAdapter[Any],
        *,
        level: int,
        clock: Callable[[], float],
        include_content: bool = False,
        scope: str | tuple[str, ...] | None = None,
        priority: int = -100,
    ) -> None:
        super().__init__(scope=scope, priority=priority)
        self.logger = logger
        self.level = level
        self.clock = clock
        self.include_content = include_content
        # call key -> (start time, model name); keyed per call so concurrent calls never mix
        self._open: OrderedDict[tuple[Any, ...], tuple[float, str | None]] = OrderedDict()

    # -- the line ----------------------------------------------------------------------------
    def format(self, record: dict[str, Any]) -> str:
        """One human-readable line: `model <path> key=value ...` / `tool <path> key=value ...`."""
        head = f"{record['kind']} {record['path']}"
        fields = []
        for key, value in record.items():
            if key in ("kind", "path") or value is None:
                continue
            if isinstance(value, list | dict):
                value = json.dumps(value, default=str, ensure_ascii=False)
            elif isinstance(value, str) and (not value or " " in value or "\n" in value):
                value = json.dumps(value, ensure_ascii=False)
            fields.append(f"{key}={value}")
        return " ".join((head, *fields))

    def _write(self, record: dict[str, Any]) -> None:
        level = self.level if record["outcome"] == "ok" else max(self.level, logging.WARNING)
        logger = self.logger
        if not logger.isEnabledFor(level):
            return
        # `extra`: handlers and filters get the fields themselves, not only the text
        line = _Line(self.format, record)  # formatted only if a handler writes it
        extra = {"adk_fluent_call": record}
        if type(logger) not in _PLAIN_LOGGERS:  # an adapter or a Logger class of its own
            logger.log(level, "%s", line, extra=extra)
            return
        plain = cast(logging.Logger, logger)
        # What Logger.log does, less its walk up the stack for the caller: the caller is this
        # method (the record names this file, line and function, as Logger.log's would).
        if logging._srcfile:
            frame = sys._getframe()
            code = frame.f_code
            path, number, function = code.co_filename, frame.f_lineno, code.co_name
        else:  # the logging HOWTO's way to turn the caller lookup off
            path, number, function = "(unknown file)", 0, "(unknown function)"
        plain.handle(
            plain.makeRecord(
                plain.name, level, path, number, "%s", (line,), None, function, extra, None
            )
        )

    # -- timings -----------------------------------------------------------------------------
    def _begin(self, key: tuple[Any, ...], model: str | None = None) -> None:
        remember(self._open, key, (self.clock(), model), _MAX_OPEN)

    def _end(self, key: tuple[Any, ...]) -> tuple[float | None, str | None, bool]:
        """(duration in ms, model name, whether the call was seen beginning)."""
        now = self.clock()
        begun = self._open.pop(key, None)
        if begun is None:
            return None, None, False
        started, model = begun
        return round((now - started) * 1000.0, 3), model, True

    @staticmethod
    def _model_key(callback_context: Any) -> tuple[Any, ...]:
        return ("model", *model_call(callback_context))

    @staticmethod
    def _tool_key(tool: Any, tool_context: Any) -> tuple[Any, ...]:
        call_id = getattr(tool_context, "function_call_id", None)
        if call_id:
            return ("tool", tool_context.invocation_id, call_id)
        # no id (never from ADK's own flow, which gives every call one): the best key there is
        return (
            "tool",
            tool_context.invocation_id,
            invocation_branch(tool_context),
            tool_context.agent_name,
            getattr(tool, "name", None),
        )

    def _model_record(
        self, callback_context: Any, model: str | None, duration: float | None
    ) -> dict[str, Any]:
        agent = callback_context.agent_name
        return {
            "kind": "model",
            "path": agent_path(agent),
            "agent": agent,
            "model": model,
            "duration_ms": duration,
            "outcome": "ok",
        }

    def _ids(self, context: Any) -> dict[str, Any]:
        return {"invocation_id": context.invocation_id, "session_id": _session_id(context)}

    # -- model calls -------------------------------------------------------------------------
    @sync_callback
    def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        model = getattr(llm_request, "model", None)
        self._begin(self._model_key(callback_context), model if isinstance(model, str) else None)

    @sync_callback
    def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        if getattr(llm_response, "partial", False):
            return  # a streamed chunk: the call goes on
        duration, model, begun = self._end(self._model_key(callback_context))
        if not begun:  # a reply that replaced a failed call (already logged as an error)
            return
        record = self._model_record(callback_context, model, duration)
        error_code = getattr(llm_response, "error_code", None)
        if error_code:
            record["outcome"] = str(error_code)
        _add_usage(record, llm_response)
        tools = _called_tools(llm_response)
        if tools:
            record["tool_calls"] = tools
        record["invocation_id"] = callback_context.invocation_id
        record["session_id"] = _session_id(callback_context)
        if self.include_content:
            record.update(_reply_content(llm_response))
            if error_code:
                record["error_message"] = getattr(llm_response, "error_message", None)
        self._write(record)

    @sync_callback
    def on_model_error_callback(
        self, *, callback_context: Any, llm_request: Any, error: BaseException
    ) -> None:
        duration, model, begun = self._end(self._model_key(callback_context))
        if not begun:
            request_model = getattr(llm_request, "model", None)
            model = request_model if isinstance(request_model, str) else None
        record = self._model_record(callback_context, model, duration)
        record["outcome"] = type(error).__name__
        record.update(self._ids(callback_context))
        if self.include_content:
            record["error_message"] = str(error)
        self._write(record)

    @sync_callback
    def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        # a call that never ended (its reply came from a later middleware's before_model)
        if self._open:
            self._open.pop(self._model_key(callback_context), None)

    # -- tool calls --------------------------------------------------------------------------
    @sync_callback
    def before_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any) -> None:
        self._begin(self._tool_key(tool, tool_context))

    def _tool_record(
        self, tool: Any, tool_args: Any, tool_context: Any, duration: float | None
    ) -> dict[str, Any]:
        agent = tool_context.agent_name
        record: dict[str, Any] = {
            "kind": "tool",
            "path": agent_path(agent),
            "agent": agent,
            "tool": getattr(tool, "name", None),
            "call_id": getattr(tool_context, "function_call_id", None),
            "duration_ms": duration,
            "outcome": "ok",
            "arg_names": sorted(tool_args) if isinstance(tool_args, dict) else None,
        }
        record.update(self._ids(tool_context))
        if self.include_content:
            record["args"] = tool_args
        return record

    @sync_callback
    def after_tool_callback(
        self, *, tool: Any, tool_args: Any, tool_context: Any, result: Any
    ) -> None:
        duration, _, begun = self._end(self._tool_key(tool, tool_context))
        if not begun:  # the result replaced a failed call (already logged as an error)
            return
        record = self._tool_record(tool, tool_args, tool_context, duration)
        if self.include_content:
            record["result"] = result
        self._write(record)

    @sync_callback
    def on_tool_error_callback(
        self, *, tool: Any, tool_args: Any, tool_context: Any, error: BaseException
    ) -> None:
        # an unknown tool fails before before_tool: then the line has no duration
        duration, _, _ = self._end(self._tool_key(tool, tool_context))
        record = self._tool_record(tool, tool_args, tool_context, duration)
        record["outcome"] = type(error).__name__
        if self.include_content:
            record["error_message"] = str(error)
        self._write(record)


class _Line:
    """A log line formatted when logging first asks for its text (a record no handler writes,
    or a NullHandler, costs no formatting), then kept."""

    __slots__ = ("_format", "_record", "_text")

    def __init__(self, format: Callable[[dict[str, Any]], str], record: dict[str, Any]) -> None:
        self._format, self._record = format, record
        self._text: str | None = None

    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = self._text = self._format(self._record)
        return text


class StructuredLog(CallLog):
    """CallLog writing each line as one JSON object (keys as in the module docstring)."""

    name = "structured_log"

    def format(self, record: dict[str, Any]) -> str:
        """The record as one line of JSON (values JSON cannot hold are written as text)."""
        return json.dumps(
            {key: value for key, value in record.items() if value is not None},
            default=str,
            ensure_ascii=False,
        )


# -- the factories -------------------------------------------------------------------------------
_Log = TypeVar("_Log", bound=CallLog)


def _logger(logger: Any, name: str) -> logging.Logger | logging.LoggerAdapter[Any]:
    if logger is None:
        return logging.getLogger(DEFAULT_LOGGER)
    if isinstance(logger, str) and logger:
        return logging.getLogger(logger)
    if isinstance(logger, logging.Logger | logging.LoggerAdapter):
        return logger
    raise BuildError(
        f"logger must be a logging.Logger or a logger's name, got {describe_value(logger)}",
        agent=name,
        field="logger",
        hint=f"e.g. {name}(logging.getLogger('myapp.calls')) or {name}('myapp.calls'); "
        f"leave it out for the {DEFAULT_LOGGER!r} logger.",
    )


def _level(level: Any, name: str) -> int:
    if isinstance(level, str):
        number = logging.getLevelName(level.upper())
        if isinstance(number, int):
            return number
    elif isinstance(level, int) and not isinstance(level, bool) and level >= 0:
        return level
    raise BuildError(
        f"level must be a logging level, got {describe_value(level)}",
        agent=name,
        field="level",
        hint="e.g. level=logging.DEBUG (or 'DEBUG'); errors are written at WARNING or above.",
    )


def _made(
    kind: type[_Log],
    name: str,
    logger: Any,
    level: Any,
    clock: Any,
    include_content: Any,
    scope: str | tuple[str, ...] | None,
    priority: int,
) -> _Log:
    """`kind` made from checked arguments (`name`: the factory, for messages)."""
    checked_callable(
        clock, name, "clock", "e.g. clock=time.perf_counter (the default) or a test's fake clock."
    )
    if not isinstance(include_content, bool):
        raise BuildError(
            f"include_content must be True or False, got {describe_value(include_content)}",
            agent=name,
            field="include_content",
            hint="include_content=True writes replies, tool arguments and results into the "
            "log; the default False keeps every line free of what users and models said.",
        )
    return kind(
        _logger(logger, name),
        level=_level(level, name),
        clock=clock,
        include_content=include_content,
        scope=scope,
        priority=priority,
    )


def log(
    logger: logging.Logger | logging.LoggerAdapter[Any] | str | None = None,
    *,
    level: int | str = logging.INFO,
    scope: str | tuple[str, ...] | None = None,
    priority: int = -100,
    clock: Callable[[], float] = time.perf_counter,
    include_content: bool = False,
) -> CallLog:
    """A middleware writing one `key=value` line per model call and per tool call to `logger`
    (default: the 'adk_fluent.middleware' logger) at `level` (errors at WARNING or above)."""
    return _made(CallLog, "log", logger, level, clock, include_content, scope, priority)


def structured_log(
    logger: logging.Logger | logging.LoggerAdapter[Any] | str | None = None,
    *,
    level: int | str = logging.INFO,
    scope: str | tuple[str, ...] | None = None,
    priority: int = -100,
    clock: Callable[[], float] = time.perf_counter,
    include_content: bool = False,
) -> StructuredLog:
    """`log()` writing each line as one JSON object (for log pipelines that parse JSON)."""
    return _made(
        StructuredLog, "structured_log", logger, level, clock, include_content, scope, priority
    )
