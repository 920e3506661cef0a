"""PiiFilter, the middleware (where it redacts: the package's doc), and pii_filter(), its
factory."""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any

from adk_fluent.adk.artifact_content import content_as_part
from adk_fluent.adk.plugins.middleware import sync_callback
from adk_fluent.arguments import checked_callable, checked_choice, checked_instance
from adk_fluent.errors import BuildError
from adk_fluent.ir.middleware import Middleware
from adk_fluent.middleware.pii.content import (
    added,
    counted,
    original_artifact_name,
    redacted_instruction,
    redacted_parts,
)
from adk_fluent.middleware.pii.detection import Detector, Redactor, Span, user_patterns
from adk_fluent.middleware.pii.names import KEEP_ORIGINAL, METADATA_KEY, NAME, KeepOriginal, logger

# -- the middleware ------------------------------------------------------------------------------
_PENDING_LIMIT = 4096  # counts waiting for a model reply to be marked on (some never are)


class PiiFilter(Middleware):
    """Redacts personal data before models and clients see it (module docstring: where)."""

    name = NAME

    def __init__(
        self,
        redactor: Redactor,
        *,
        keep_original: KeepOriginal = "nowhere",
        scope: str | tuple[str, ...] | None = None,
        priority: int = -90,
    ) -> None:
        super().__init__(scope=scope, priority=priority)
        self.redactor = redactor
        self.keep_original = keep_original
        # the user's message is redacted in on_user_message (except under "store"), which only
        # a middleware of the whole run receives: the stack refuses it anywhere else
        self.needs_whole_run = keep_original != "store"
        # What was redacted and is not yet marked on a model reply, per (invocation, agent;
        # None for the user's message, which the invocation's first reply reports) and section
        self._pending: OrderedDict[tuple[str, str | None], dict[str, Counter[str]]] = OrderedDict()
        self._warned_no_artifacts = False

    def redact(self, text: str) -> str:
        """The text with its personal data replaced (for use outside a run, e.g. in logs)."""
        return self.redactor.redact(text)[0]

    def find(self, text: str) -> list[Span]:
        """What the filter would redact in `text`."""
        return self.redactor.find(text)

    def _note(self, key: tuple[str, str | None], section: str, counts: Counter[str]) -> None:
        if not counts:
            return
        sections = self._pending.setdefault(key, {})
        sections.setdefault(section, Counter()).update(counts)
        self._pending.move_to_end(key)
        while len(self._pending) > _PENDING_LIMIT:
            self._pending.popitem(last=False)

    def _collect(self, invocation_id: str, agent: str) -> dict[str, dict[str, int]]:
        marks: dict[str, dict[str, int]] = {}
        for key in ((invocation_id, None), (invocation_id, agent)):
            for section, counts in self._pending.pop(key, {}).items():
                marks[section] = counted(counts)
        return marks

    # -- the user's message ----------------------------------------------------------------------
    @sync_callback
    def on_user_message_callback(self, *, invocation_context: Any, user_message: Any) -> Any:
        if self.keep_original == "store" or user_message is None:
            return None
        redacted, counts = redacted_parts(self.redactor, user_message, responses=True)
        if not counts:
            return None
        self._note((invocation_context.invocation_id, None), "user_message", counts)
        if self.keep_original == "artifact":
            return self._kept_in_artifact(invocation_context, user_message, redacted)
        return redacted

    async def _kept_in_artifact(self, ctx: Any, original: Any, redacted: Any) -> Any:
        await self._keep_in_artifact(ctx, original, redacted)
        return redacted

    async def _keep_in_artifact(self, ctx: Any, original: Any, redacted: Any) -> None:
        service = getattr(ctx, "artifact_service", None)
        if service is None:
            if not self._warned_no_artifacts:
                self._warned_no_artifacts = True
                logger.warning(
                    "pii_filter(keep_original='artifact'): this Runner has no artifact_service, "
                    "so the original of a redacted user message was NOT kept (it was redacted "
                    "all the same). Give the Runner an artifact service to keep it."
                )
            return
        part = content_as_part(original)
        await service.save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=original_artifact_name(ctx.invocation_id, redacted),
            artifact=part,
        )

    # -- what an agent's callbacks and request are built from ------------------------------------
    @sync_callback
    def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        # An agent's own before-model callbacks (adk-fluent's context views, C.*) run after
        # this plugin's and rebuild the request from the session's events: those events are
        # redacted here, in memory only (list entries replaced, never an event changed), so
        # the stored events ("store": the user's original message) stay as they are.
        session = getattr(callback_context, "session", None)
        events = getattr(session, "events", None)
        if not events:
            return None
        counts: Counter[str] | None = None
        redactor = self.redactor
        for index, event in enumerate(events):
            content = event.content
            if content is None:
                continue
            redacted, found = redacted_parts(redactor, content, responses=True)
            if found:
                counts = added(counts, found)
                events[index] = event.model_copy(update={"content": redacted})
        # reported as part of the agent's first request: what its requests are built from
        if counts:
            key = (callback_context.invocation_id, callback_context.agent_name)
            self._note(key, "request", counts)
        return None

    # -- models ----------------------------------------------------------------------------------
    @sync_callback
    def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        redactor = self.redactor
        counts: Counter[str] | None = None
        contents = []
        for content in llm_request.contents or []:
            redacted, found = redacted_parts(redactor, content, responses=True)
            contents.append(redacted)
            if found:
                counts = added(counts, found)
        llm_request.contents = contents
        config = getattr(llm_request, "config", None)
        if config is not None and config.system_instruction:
            config.system_instruction, found = redacted_instruction(
                redactor, config.system_instruction
            )
            if found:
                counts = added(counts, found)
        if counts:
            key = (callback_context.invocation_id, callback_context.agent_name)
            self._note(key, "request", counts)
        return None  # changed in place: the call goes on, later middleware see the redaction

    @sync_callback
    def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        content, reply = redacted_parts(self.redactor, llm_response.content, responses=False)
        if reply:
            llm_response.content = content
        # partial chunks are not stored: the final response carries the marks
        marks = (
            {}
            if llm_response.partial
            else self._collect(callback_context.invocation_id, callback_context.agent_name)
        )
        if reply:
            marks["reply"] = counted(reply)
        if marks:
            llm_response.custom_metadata = {
                **(llm_response.custom_metadata or {}),
                METADATA_KEY: marks,
            }
        # In place, returning None: the agent's own after-model callbacks still run.
        return None

    # -- tools -----------------------------------------------------------------------------------
    @sync_callback
    def after_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, result: Any
    ) -> Any:
        if not self.redactor.finds_in(result):
            return None
        counts: Counter[str] = Counter()
        redacted = self.redactor.redact_value(result, counts)
        self._note((tool_context.invocation_id, tool_context.agent_name), "tool_results", counts)
        return redacted

    # -- what clients receive --------------------------------------------------------------------
    @sync_callback
    def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
        if event.partial:
            return _without_text(event)
        content, counts = redacted_parts(self.redactor, event.content, responses=False)
        if not counts:
            return None
        metadata = {**(event.custom_metadata or {})}
        marks = dict(metadata.get(METADATA_KEY) or {})
        marks["event"] = counted(counts)
        metadata[METADATA_KEY] = marks
        return event.model_copy(update={"content": content, "custom_metadata": metadata})


def _without_text(event: Any) -> Any:
    """A streamed chunk without its text: a value split across chunks ("4111 " + "1111 ...")
    is in none of them whole, so no chunk can be redacted with certainty. The final event
    carries the whole reply, redacted; chunks are never stored."""
    content = event.content
    if content is None or not any(part.text for part in content.parts or ()):
        return None
    parts = [part for part in content.parts if not part.text]
    kept = content.model_copy(update={"parts": parts}) if parts else None
    return event.model_copy(update={"content": kept})


def pii_filter(
    patterns: Any = None,
    *,
    detector: Detector | None = None,
    replacement: str = "[{kind}]",
    keep_original: KeepOriginal = "nowhere",
    scope: str | tuple[str, ...] | None = None,
    priority: int = -90,
) -> PiiFilter:
    """Redact personal data before models and clients see it. `patterns`: None (every
    built-in: email, credit_card, iban, us_ssn, phone), a tuple of built-in names, or a dict
    name -> regex adding to (or, by name, replacing; None: removing) the built-ins; `detector`:
    a function text -> [(start, end, kind)] used as well; `keep_original`: where the user's
    original message lives ("nowhere", "store" or "artifact", see the module docstring)."""
    chosen = user_patterns(patterns)
    if detector is not None:
        checked_callable(
            detector,
            NAME,
            "detector",
            "a function text -> [(start, end, kind)], e.g. detector=lambda text: "
            "[(m.start(), m.end(), 'name') for m in NAMES.finditer(text)].",
        )
    if not chosen and detector is None:
        raise BuildError(
            "no pattern and no detector: the filter would never redact anything",
            agent=NAME,
            field="patterns",
            hint="leave patterns out for the built-ins, or pass detector=... with patterns=().",
        )
    checked_instance(
        replacement,
        NAME,
        "replacement",
        str,
        what="a str",
        hint="e.g. replacement='[{kind}]' or replacement='***'.",
    )
    try:
        replacement.format(kind="email")
    except (KeyError, IndexError, ValueError, AttributeError) as error:
        raise BuildError(
            f"replacement {replacement!r} is not a format string with only {{kind}}: {error!r}",
            agent=NAME,
            field="replacement",
            hint="use {kind} for the kind of data ('[{kind}]'), and write a literal brace "
            "as {{ or }}.",
        ) from None
    checked_choice(
        keep_original,
        NAME,
        "keep_original",
        KEEP_ORIGINAL,
        hint="'nowhere' (the default) redacts the user's message before it is stored.",
    )
    if scope is not None and keep_original != "store":
        raise BuildError(
            f"a scoped pii_filter cannot redact the user's message (it belongs to the whole "
            f"run, before any agent), so keep_original={keep_original!r} could not hold",
            agent=NAME,
            field="scope",
            hint="leave scope out to redact everywhere, or say keep_original='store' to redact "
            "only what the scoped agents' models and tools see and say.",
        )
    return PiiFilter(
        Redactor(chosen, detector, replacement),
        keep_original=keep_original,
        scope=scope,
        priority=priority,
    )
