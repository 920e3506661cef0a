"""cache: identical model requests answered from a store instead of the model.

Before each model call (`before_model_callback`) the request's key is looked up; on a hit the
reply is a new reply made from the stored JSON text, marked `adk_fluent.cache: "hit"` in its event's
metadata, with zero token counts (it cost nothing), and the model is not called (ADK then runs
no after_model callbacks for it). On a miss the model is called, and its reply is stored in
`after_model_callback` when it is final: not a streamed chunk (`partial`), not an error, with
content, and not a reply that replaced a failed call (retry, fallback_model: the next identical
request asks the model again). Under SSE streaming the chunks pass through untouched and only the final reply is
stored; a hit answers with that one final reply, without chunks.

The default key is the sha256 of the JSON of the request's model name, its
contents and its config: system instruction, tools' declarations and generation settings
(`labels` and `http_options`, which do not change the answer, are left out; so are ADK's
function-call ids). It is computed from the request as the plugins see it, with the agent's
adk-fluent context view (`.context(C...)`) applied, since that view is what the model will
receive; an agent's own before_model callback that rewrites the request from state is not
seen, so such agents need their own `key=`. A request made through the Interactions API
(`previous_interaction_id`) depends on the server's conversation and is never cached.

What is stored never carries a call's own metadata into another session: `adk_fluent.*`
annotations (visibility, rate limiter, ...) are stripped, as are the call-specific fields
(usage, context-cache metadata, interaction ids) and the function calls' ids (ADK gives the
hit's calls new ones).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import BaseModel

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import invocation_of
from adk_fluent.adk.context_view import ContextView
from adk_fluent.adk.plugins.middleware import model_call, sync_callback
from adk_fluent.arguments import checked_callable, checked_count, checked_seconds
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.middleware import Middleware
from adk_fluent.middleware.replies import METADATA_PREFIX, mark

_ENTRIES_HINT = "e.g. max_entries=1024: the replies kept before the least recently used goes."
_MAX_OPEN = 4096  # model calls in flight remembered at once (oldest dropped first)

# GenerateContentConfig fields that do not change what the model answers
_CONFIG_LEFT_OUT = frozenset({"labels", "http_options"})
# LlmResponse fields that belong to one call, never handed to another session
_CALL_FIELDS = frozenset(
    {
        "usage_metadata",
        "cache_metadata",
        "interaction_id",
        "interaction_status",
        "live_session_id",
        "live_session_resumption_update",
        "go_away",
        "environment_id",
    }
    # the installed ADK's fields only (1.25 has fewer)
    & set(LlmResponse.model_fields)
)


@runtime_checkable
class CacheStore(Protocol):
    """Where a cache keeps replies: any object with these two methods, async (Redis, a
    database, ...) or plain. A reply is stored as JSON text (what any key-value store holds);
    `ttl` is in seconds (None: no expiry)."""

    async def get(self, key: str) -> str | None:
        """The reply (JSON text) stored under `key`, or None (missing or expired)."""
        ...

    async def set(self, key: str, reply: str, ttl: float | None) -> None:
        """Store `reply` (JSON text) under `key` for `ttl` seconds."""
        ...


class InMemoryCacheStore:
    """A bounded LRU store in this process: at most `max_entries` replies, each forgotten
    `ttl` seconds after it was stored (by `clock`)."""

    def __init__(
        self, max_entries: int = 1024, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        checked_count(max_entries, "InMemoryCacheStore", "max_entries", least=1, hint=_ENTRIES_HINT)
        checked_callable(clock, "InMemoryCacheStore", "clock", "e.g. time.monotonic.")
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[str, tuple[float | None, str]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, key: str) -> str | None:
        return self._get(key)

    async def set(self, key: str, reply: str, ttl: float | None) -> None:
        self._set(key, reply, ttl)

    # the work of get and set, which never waits (ResponseCache calls these on this very class)
    def _get(self, key: str) -> str | None:
        found = self._entries.get(key)
        if found is None:
            return None
        expires, reply = found
        if expires is not None and self.clock() >= expires:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)  # recently used: evicted last
        return reply

    def _set(self, key: str, reply: str, ttl: float | None) -> None:
        expires = None if ttl is None else self.clock() + ttl
        remember(self._entries, key, (expires, reply), self.max_entries)


# -- the key ----------------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """`value` as JSON-able data that is equal for equal values (dict order, model classes and
    bytes included); an object it does not know is shown by its repr (at worst: a miss)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Enum):
        return _plain(value.value)
    if isinstance(value, bytes | bytearray):
        return {"bytes_sha256": hashlib.sha256(bytes(value)).hexdigest()}
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="python", exclude_none=True))
    if isinstance(value, type):
        if issubclass(value, BaseModel):
            return {"model_schema": _plain(value.model_json_schema())}
        return {"type": f"{value.__module__}.{value.__qualname__}"}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=_canonical)
    if callable(value):
        module = getattr(value, "__module__", "")
        return {"callable": f"{module}.{getattr(value, '__qualname__', repr(value))}"}
    return {"object": f"{type(value).__module__}.{type(value).__qualname__}", "repr": repr(value)}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _without_call_ids(content: Any) -> Any:
    """A dumped content with the function calls' and responses' ids left out (ADK makes them
    per session; they say nothing about the question)."""
    if isinstance(content, dict):
        for part in content.get("parts") or ():
            for field in ("function_call", "function_response"):
                if isinstance(part, dict) and isinstance(part.get(field), dict):
                    part[field].pop("id", None)
    return content


def _dumped(model: Any, exclude: frozenset[str] = frozenset()) -> Any:
    """A genai / ADK model as plain JSON data: through pydantic's own JSON (fast, and bytes as
    base64), else (a value it cannot serialise, such as a model class) field by field."""
    try:
        return json.loads(model.model_dump_json(exclude_none=True, exclude=set(exclude) or None))
    except Exception:
        data = _plain(model)
        return {k: v for k, v in data.items() if k not in exclude} if exclude else data


_KEYED = {"model": True, "contents": True, "config": True}  # what of an LlmRequest is keyed
# left out of the key: the config fields that say nothing about the question, and the ids ADK
# gives function calls and responses per session
_LEFT_OUT: Any = {
    "config": set(_CONFIG_LEFT_OUT),
    "contents": {
        "__all__": {"parts": {"__all__": {"function_call": {"id"}, "function_response": {"id"}}}}
    },
}


def _ids_left_out(llm_request: Any) -> Any:
    """_LEFT_OUT for this request: the config's fields, and the ids of the very parts that
    have one. The same JSON as _LEFT_OUT's (an id that is None is left out by exclude_none
    anyway) at a fraction of the cost: pydantic applies an `__all__` exclude to every part."""
    contents: dict[int, Any] = {}
    for index, content in enumerate(llm_request.contents or ()):
        ids: dict[int, Any] = {}
        for number, part in enumerate(content.parts or ()):
            call, response = part.function_call, part.function_response
            left: dict[str, set[str]] = {}
            if call is not None and call.id is not None:
                left["function_call"] = {"id"}
            if response is not None and response.id is not None:
                left["function_response"] = {"id"}
            if left:
                ids[number] = left
        if ids:
            contents[index] = {"parts": ids}
    return {"config": _CONFIG_EXCLUDED, "contents": contents} if contents else _CONFIG_ONLY


_CONFIG_EXCLUDED = dict.fromkeys(sorted(_CONFIG_LEFT_OUT), True)
_CONFIG_ONLY: Any = {"config": _CONFIG_EXCLUDED}


def request_key(llm_request: Any) -> str:
    """The default cache key: sha256 of the JSON of the model name, the contents and the config
    (system instruction, tools, generation settings) of an LlmRequest.

    Pydantic's own JSON, hashed as it comes (half the cost of re-sorting it, on every model
    call): equal requests give equal keys; a request whose dicts hold the same items in another
    order (tool schemas built differently) gets another key, which is a miss, never a wrong hit.
    """
    try:
        left_out = _ids_left_out(llm_request)
    except Exception:  # contents that are not Contents: pydantic says what it makes of them
        left_out = _LEFT_OUT
    try:
        dumped = llm_request.model_dump_json(include=_KEYED, exclude=left_out, exclude_none=True)
        return hashlib.sha256(dumped.encode("utf-8")).hexdigest()
    except Exception:  # a value pydantic cannot serialise: field by field, canonically
        config = getattr(llm_request, "config", None)
        data = {
            "model": getattr(llm_request, "model", None),
            "contents": [_dumped(c) for c in getattr(llm_request, "contents", None) or ()],
            "config": {} if config is None else _dumped(config, _CONFIG_LEFT_OUT),
        }
    data.setdefault("contents", [])
    data.setdefault("config", {})
    for content in data["contents"]:
        _without_call_ids(content)
    return hashlib.sha256(_canonical(data).encode("utf-8")).hexdigest()


# -- what is stored ---------------------------------------------------------------------------
def cacheable(response: Any) -> bool:
    """Whether a model reply may be stored: final (not a streamed chunk), not an error, not
    interrupted, with content."""
    content = getattr(response, "content", None)
    return (
        not getattr(response, "partial", False)
        and not getattr(response, "error_code", None)
        and not getattr(response, "interrupted", False)
        and content is not None
        and bool(content.parts)
    )


def stored_text(response: LlmResponse) -> str | None:
    """A reply as the JSON text a store keeps, without the fields that belong to its call
    (usage, context-cache metadata, interaction ids); None for a reply JSON cannot carry (a
    value in its custom_metadata, say), which is then not stored."""
    try:
        return response.model_dump_json(exclude_none=True, exclude=set(_CALL_FIELDS))
    except Exception:
        return None


def reply_from(text: str) -> LlmResponse:
    """A fresh reply from stored text, without what belongs to the call that stored it:
    adk-fluent's annotations and the function calls' ids (ADK gives the new calls new ones)."""
    reply = LlmResponse.model_validate_json(text)
    if reply.custom_metadata:
        metadata = {
            k: v for k, v in reply.custom_metadata.items() if not k.startswith(METADATA_PREFIX)
        }
        reply.custom_metadata = metadata or None
    for part in reply.content.parts if reply.content and reply.content.parts else ():
        if part.function_call is not None:
            part.function_call.id = None
    return reply


def stored_copy(response: LlmResponse) -> LlmResponse | None:
    """What a hit on this reply would answer (None: it cannot be stored)."""
    text = stored_text(response)
    return None if text is None else reply_from(text)


def _zero_usage() -> types.GenerateContentResponseUsageMetadata:
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=0, candidates_token_count=0, total_token_count=0
    )


def _context_views(callback_context: Any) -> list[Any]:
    """The agent's adk-fluent context view callbacks (what `.context(C...)` compiles to)."""
    agent = getattr(invocation_of(callback_context), "agent", None)
    callbacks = getattr(agent, "canonical_before_model_callbacks", None) or ()
    return [cb for cb in callbacks if isinstance(cb, ContextView)]


class ResponseCache(Middleware):
    """Answers a model request from `store` when an identical one was answered within `ttl`
    seconds (see the module docstring for the key and what is stored)."""

    name = "cache"

    def __init__(
        self,
        ttl: float | None,
        *,
        key: Callable[[Any], str | None] | None = None,
        store: CacheStore,
        scope: str | tuple[str, ...] | None = None,
        priority: int = -50,
    ) -> None:
        super().__init__(scope=scope, priority=priority)
        self.ttl = ttl
        self.key = key
        self.store = store
        self._open: OrderedDict[tuple[Any, ...], str] = OrderedDict()  # call -> its key

    def key_for(self, llm_request: Any, callback_context: Any = None) -> str | None:
        """The key of a request (None: not cached): `key(request)` when given, else
        `request_key` of the request as the model will see it (context view applied)."""
        if getattr(llm_request, "previous_interaction_id", None):
            return None
        if self.key is not None:
            found = self.key(llm_request)
            if found is not None and not isinstance(found, str):
                raise BuildError(
                    f"the key function returned {describe_value(found)}, not a str",
                    agent=self.name,
                    field="key",
                    hint="key=lambda request: ... must return a str (or None to leave that "
                    "request uncached).",
                )
            return found
        views = _context_views(callback_context) if callback_context is not None else []
        if views:
            # apply the view to a copy: the agent's own callback still sets the real request
            llm_request = llm_request.model_copy()
            try:
                for view in views:
                    view(callback_context, llm_request)
            except Exception:
                # the agent's own callback raises the same error, as adk-fluent's (ADK would
                # wrap one raised here in its plugin error): leave this call uncached
                return None
        return request_key(llm_request)

    @sync_callback
    def before_model_callback(self, *, callback_context: Any, llm_request: LlmRequest) -> Any:
        key = self.key_for(llm_request, callback_context)
        if key is None:
            return None
        store = self.store
        if type(store) is InMemoryCacheStore:  # its get, without a coroutine
            return self._answer(store._get(key), key, callback_context)
        found = store.get(key)
        if inspect.isawaitable(found):  # an async store (plain methods work too)
            return self._answer_when(found, key, callback_context)
        return self._answer(found, key, callback_context)

    async def _answer_when(self, found: Any, key: str, callback_context: Any) -> Any:
        return self._answer(await found, key, callback_context)

    def _answer(self, found: Any, key: str, callback_context: Any) -> LlmResponse | None:
        """The reply for a hit (`found`: the stored text), else None with the call's key kept."""
        if found is not None:
            reply = reply_from(found)  # a new reply per hit: nothing shared between sessions
            reply.usage_metadata = _zero_usage()
            return mark(reply, "cache", "hit")  # type: ignore[no-any-return]
        remember(self._open, model_call(callback_context), key, _MAX_OPEN)
        return None

    @sync_callback
    def after_model_callback(self, *, callback_context: Any, llm_response: LlmResponse) -> Any:
        if getattr(llm_response, "partial", False):
            return None  # a streamed chunk: only the final reply is stored
        key = self._open.pop(model_call(callback_context), None)
        if key is not None and cacheable(llm_response):
            text = stored_text(llm_response)  # serialised now: later edits do not reach it
            if text is not None:
                store = self.store
                if type(store) is InMemoryCacheStore:  # its set, without a coroutine
                    store._set(key, text, self.ttl)
                    return None
                stored = store.set(key, text, self.ttl)
                if inspect.isawaitable(stored):
                    return _nothing_after(stored)
        return None  # the reply itself goes on unchanged

    @sync_callback
    def on_model_error_callback(
        self, *, callback_context: Any, llm_request: Any, error: BaseException
    ) -> None:
        # the call failed: a reply a later middleware gives in its place (retry, fallback_model)
        # is not the model's answer to this request, and is not stored
        self._open.pop(model_call(callback_context), None)

    @sync_callback
    def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        # a call that never ended (answered by a later middleware's before_model)
        if self._open:
            self._open.pop(model_call(callback_context), None)


async def _nothing_after(awaitable: Any) -> None:
    """None, once `awaitable` (an async store's set) is done: the reply goes on unchanged."""
    await awaitable


# -- the factory ------------------------------------------------------------------------------
def cache(
    ttl: float | None = 300.0,
    *,
    key: Callable[[Any], str | None] | None = None,
    store: CacheStore | None = None,
    max_entries: int = 1024,
    scope: str | tuple[str, ...] | None = None,
    priority: int = -50,
    clock: Callable[[], float] = time.monotonic,
) -> ResponseCache:
    """Middleware that answers a model request identical to one answered within `ttl` seconds
    (None: no expiry) from `store` (default: an in-process LRU of `max_entries` replies, timed by
    `clock`); `key(llm_request) -> str | None` replaces the default key (None: don't cache)."""
    where = ResponseCache.name
    if ttl is not None:
        checked_seconds(
            ttl,
            where,
            "ttl",
            positive=True,
            hint="e.g. ttl=300 (five minutes), or ttl=None for no expiry.",
        )
    if key is not None:
        checked_callable(
            key,
            where,
            "key",
            "key=lambda request: ... returning a str (or None to leave a request uncached).",
        )
    checked_count(max_entries, where, "max_entries", least=1, hint=_ENTRIES_HINT)
    checked_callable(clock, where, "clock", "a function returning seconds, e.g. time.monotonic.")
    if store is None:
        store = InMemoryCacheStore(max_entries, clock=clock)
    elif isinstance(store, type) or not isinstance(store, CacheStore):
        raise BuildError(
            f"store must have the methods get(key) and set(key, reply, ttl), got "
            f"{describe_value(store)}",
            agent=where,
            field="store",
            hint="pass an InMemoryCacheStore(...) or your own object with those two methods "
            "(see CacheStore).",
        )
    return ResponseCache(ttl, key=key, store=store, scope=scope, priority=priority)
