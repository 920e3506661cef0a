"""pii_filter: personal data (emails, phone numbers, card numbers, IBANs, US SSNs, or what a
detector finds) is replaced by a placeholder ("[email]") before a model or a client sees it.

Where it redacts (the same on every supported ADK release unless said):

* `on_user_message_callback`: the user's message (text parts and function responses), as
  `keep_original` says:

  - "nowhere" (default): redacted before ADK stores it: no store, no client, no model ever
    holds the original.
  - "store": the session store keeps the user's message as it was sent, the only place the
    original lives; models and streamed events get it redacted. ADK streams no user-message
    event to a client: the original reaches whoever reads the stored session (adk web's
    history, api_server's session endpoint), which is this policy's point; on ADK 2.x a caller
    of `run_async(yield_user_message=True)` also receives the stored event, original included.
  - "artifact": the original message goes to a session artifact named
    `adk_fluent.pii.<invocation id>.<digest>.json` (ADK's artifact service; no event carries
    an artifact's content) and the store and every client get the redacted message;
    `await original_message(event, artifact_service=..., session=...)` gives it back for a
    stored user event. A Runner without an artifact service cannot keep it: the message is
    redacted all the same (privacy first) and a warning is logged once.
* `after_tool_callback`: a tool's result (a redacted copy is returned, so the tool's own
  objects are never changed; as with any plugin returning a result, the agent's own after-tool
  callbacks are skipped for a call whose result the filter changed). Stored and streamed so.
* `after_model_callback`: the model's reply text, in place (the agent's own after-model
  callbacks still run), before ADK turns it into an event: the stored event, the streamed one
  and an `output_key` all hold the redacted text.
* `before_agent_callback`: the session's events an agent's request is built from, in memory
  only (list entries replaced; the store is untouched): an agent's own before-model callbacks,
  adk-fluent's context views (C.*) among them, run after every plugin and rebuild the request
  from those events; with "store" they would otherwise bring the original back.
* `before_model_callback`: every model request: the text parts and function responses of
  `llm_request.contents` (replaced by redacted copies) and the system instruction (a `{key}`
  template filled from state included).
* `on_event_callback`: the text of every other event a client receives (a custom agent's, a
  state step's). Where ADK stores what this callback returns (1.31+ and 2.x; the probe
  `adk.compat.plugin_edits_are_stored`) the store gets the redacted text too; on 1.25 .. 1.30
  the store keeps such an event as its agent made it. Streamed chunks (SSE partial events)
  lose their text: a value split across chunks ("4111 " + "1111 ...") is whole in none of
  them; the final event, stored and streamed, carries the whole reply redacted.

Not redacted: function-call arguments and framework replies (`adk_request_confirmation`,
`adk_request_credential`, `adk_request_input`), which drive ADK's own flows (a model that
never saw a value cannot put it in a call); state values (a tool writing personal data into
state keeps it there, and a context view's state block shows it); images and files.

Marks: a model-reply event carries `custom_metadata["adk_fluent.pii"]`, counts by kind (never
the values) per section: "user_message" (the invocation's first reply), "tool_results" (the
agent's tool results since its last reply), "request" (what was redacted on the way to this
call: the history in memory, the request, the system instruction), "reply"; another event the
filter changed carries {"event": {...}}.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from adk_fluent.adk.artifact_content import content_as_part, content_from_part
from adk_fluent.errors import AdkFluentError, BuildError, describe_value, did_you_mean
from adk_fluent.ir.middleware import Middleware

NAME = "pii_filter"
METADATA_KEY = "adk_fluent.pii"
logger = logging.getLogger("adk_fluent.pii")

KeepOriginal = Literal["nowhere", "store", "artifact"]
KEEP_ORIGINAL: tuple[str, ...] = ("nowhere", "store", "artifact")

# Function calls / responses that drive ADK's own flows: never rewritten.
FRAMEWORK_CALLS = frozenset(
    {"adk_request_confirmation", "adk_request_credential", "adk_request_input"}
)


# -- detection (pure) ----------------------------------------------------------------------------
def luhn_valid(number: str) -> bool:
    """Whether a string of digits passes the Luhn check (card numbers)."""
    if not number.isdigit():
        return False
    total = 0
    for index, char in enumerate(reversed(number)):
        digit = int(char)
        if index % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    """Whether a string (spaces allowed) is an IBAN with a valid ISO 13616 mod-97 checksum."""
    compact = iban.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", compact):
        return False
    rearranged = compact[4:] + compact[:4]
    digits = "".join(str(int(char, 36)) for char in rearranged)
    return int(digits) % 97 == 1


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _card(match: str) -> bool:
    digits = _digits(match)
    return 13 <= len(digits) <= 19 and luhn_valid(digits)


_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def _phone(match: str) -> bool:
    digits = _digits(match)
    if not 7 <= len(digits) <= 15 or _IPV4.fullmatch(match):
        return False
    # Ten digits or more, or an explicit country code / area code in parentheses: a bare
    # "2024-01-15" or "12-34-56" is not taken for a phone number.
    return len(digits) >= 10 or match.startswith("+") or "(" in match


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    valid: Callable[[str], bool] | None = None


# The built-ins, in the order they win an overlap (most specific first).
BUILTIN_PATTERNS: dict[str, _Pattern] = {
    "email": _Pattern(
        "email", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
    ),
    "credit_card": _Pattern(
        "credit_card", re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?!\d)"), _card
    ),
    "iban": _Pattern(
        "iban",
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
        iban_valid,
    ),
    "us_ssn": _Pattern(
        "us_ssn",
        re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])"),
    ),
    "phone": _Pattern(
        "phone",
        re.compile(
            r"(?<![\w+])(?:\+\d{7,15}(?!\d)|(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?"
            r"\d{2,4}(?:[ .-]\d{2,4}){1,4})(?!\w)"
        ),
        _phone,
    ),
}
BUILTIN_NAMES: tuple[str, ...] = tuple(BUILTIN_PATTERNS)


_MEMO_TEXTS = 4096  # texts whose redaction is remembered (least recently used out)
_MEMO_TEXT_CHARS = 20_000  # longer texts are redacted afresh each time, never remembered


@dataclass(frozen=True, order=True)
class Span:
    """One finding: text[start:end] is personal data of `kind`."""

    start: int
    end: int
    kind: str


Detector = Callable[[str], Iterable[tuple[int, int, str]]]


class Redactor:
    """Finds personal data in text and replaces it (pure: no ADK)."""

    def __init__(
        self,
        patterns: Iterable[_Pattern],
        detector: Detector | None = None,
        replacement: str = "[{kind}]",
    ) -> None:
        self.patterns = tuple(patterns)
        self.detector = detector
        self.replacement = replacement
        # text -> (redacted, counts): every model call re-reads the whole history, so the same
        # texts come back call after call; a detector is expected to be a pure function too
        self._memo: OrderedDict[str, tuple[str, Counter[str]]] = OrderedDict()

    def find(self, text: str) -> list[Span]:
        """Every finding, overlapping ones merged into one span (which the earliest, longest,
        highest-ranked finding names), so no part of an overlapping finding stays visible."""
        found: list[tuple[int, int, int, str]] = []  # start, -end, rank, kind
        for rank, pattern in enumerate(self.patterns):
            for match in pattern.regex.finditer(text):
                if match.end() > match.start() and (
                    pattern.valid is None or pattern.valid(match.group())
                ):
                    found.append((match.start(), -match.end(), rank, pattern.kind))
        if self.detector is not None:
            rank = len(self.patterns)
            for start, end, kind in _detected(self.detector, text):
                found.append((start, -end, rank, kind))
        found.sort()
        merged: list[Span] = []
        for start, negative_end, _rank, kind in found:
            end = -negative_end
            if merged and start < merged[-1].end:
                last = merged[-1]
                merged[-1] = Span(last.start, max(last.end, end), last.kind)
            else:
                merged.append(Span(start, end, kind))
        return merged

    def redact(self, text: str) -> tuple[str, Counter[str]]:
        """The text with each finding replaced, and the counts by kind."""
        known = self._memo.get(text)
        if known is not None:
            self._memo.move_to_end(text)
            return known[0], Counter(known[1])
        redacted, counts = self._redact(text)
        if len(text) <= _MEMO_TEXT_CHARS:
            self._memo[text] = (redacted, counts)
            if len(self._memo) > _MEMO_TEXTS:
                self._memo.popitem(last=False)
        return redacted, Counter(counts)

    def _redact(self, text: str) -> tuple[str, Counter[str]]:
        spans = self.find(text)
        if not spans:
            return text, Counter()
        pieces: list[str] = []
        cursor = 0
        for span in spans:
            pieces.append(text[cursor : span.start])
            pieces.append(self.replacement.format(kind=span.kind))
            cursor = span.end
        pieces.append(text[cursor:])
        return "".join(pieces), Counter(span.kind for span in spans)

    def redact_value(self, value: Any, counts: Counter[str]) -> Any:
        """A JSON-like value (dicts, lists, strings, numbers) with its strings redacted (a new
        value; keys are left alone). An integer of 13 digits or more is read as digits, so a
        card number returned as an int is caught too."""
        if isinstance(value, str):
            redacted, found = self.redact(value)
            counts.update(found)
            return redacted
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
            redacted, found = self.redact(str(value))
            if found:
                counts.update(found)
                return redacted
            return value
        if isinstance(value, Mapping):
            return {key: self.redact_value(item, counts) for key, item in value.items()}
        if isinstance(value, list):
            return [self.redact_value(item, counts) for item in value]
        if isinstance(value, tuple):
            return tuple(self.redact_value(item, counts) for item in value)
        return value


def _detected(detector: Detector, text: str) -> list[tuple[int, int, str]]:
    spans = detector(text)
    checked: list[tuple[int, int, str]] = []
    for item in spans or ():
        ok = (
            isinstance(item, tuple | list)
            and len(item) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item[:2])
            and isinstance(item[2], str)
            and item[2]
        )
        if not ok or not 0 <= item[0] < item[1] <= len(text):
            raise AdkFluentError(
                f"pii_filter: the detector returned {describe_value(item)}, which is not a "
                f"(start, end, kind) finding inside the text (length {len(text)})."
                "\n  hint: return a list of (start, end, kind) with 0 <= start < end <= "
                "len(text) and kind a non-empty string, e.g. [(4, 21, 'email')]."
            )
        checked.append((item[0], item[1], item[2]))
    return checked


# -- ADK content ---------------------------------------------------------------------------------
def _redact_parts(
    redactor: Redactor, content: Any, counts: Counter[str], *, responses: bool
) -> Any:
    """A copy of a Content with its text (and, with `responses`, its function responses)
    redacted; the same object when nothing changed."""
    if content is None or not content.parts:
        return content
    parts = list(content.parts)
    changed = False
    for index, part in enumerate(parts):
        if part.text:
            text, found = redactor.redact(part.text)
            if found:
                counts.update(found)
                parts[index] = part.model_copy(update={"text": text})
                changed = True
        elif responses and part.function_response is not None:
            reply = part.function_response
            if reply.name in FRAMEWORK_CALLS or not reply.response:
                continue
            found = Counter[str]()
            response = redactor.redact_value(reply.response, found)
            if found:
                counts.update(found)
                new_reply = reply.model_copy(update={"response": response})
                parts[index] = part.model_copy(update={"function_response": new_reply})
                changed = True
    return content.model_copy(update={"parts": parts}) if changed else content


def _redact_instruction(redactor: Redactor, value: Any, counts: Counter[str]) -> Any:
    if isinstance(value, str):
        text, found = redactor.redact(value)
        counts.update(found)
        return text
    if isinstance(value, list):
        return [_redact_instruction(redactor, item, counts) for item in value]
    if hasattr(value, "parts"):  # a Content
        return _redact_parts(redactor, value, counts, responses=False)
    if getattr(value, "text", None):  # a Part
        text, found = redactor.redact(value.text)
        if found:
            counts.update(found)
            return value.model_copy(update={"text": text})
    return value


def _digest(content: Any) -> str:
    """A short digest of a (redacted) message's text and function responses: what ties the
    stored user event to the artifact that holds its original."""
    pieces = [
        part.text
        if part.text
        else json.dumps(part.function_response.response, sort_keys=True, default=str)
        for part in content.parts or ()
        if part.text or (part.function_response is not None)
    ]
    return hashlib.sha256("\x00".join(pieces).encode("utf-8")).hexdigest()[:16]


def original_artifact_name(invocation_id: str, redacted: Any) -> str:
    """The session artifact that holds the original of a user message ("artifact" policy)."""
    return f"adk_fluent.pii.{invocation_id}.{_digest(redacted)}.json"


async def original_message(event: Any, *, artifact_service: Any, session: Any) -> Any:
    """The original of a stored user message that `pii_filter(keep_original="artifact")`
    redacted (a google.genai Content), or None when the filter kept none for it."""
    if artifact_service is None or session is None:
        raise AdkFluentError(
            f"original_message needs the artifact service and the stored session of event "
            f"{getattr(event, 'id', '?')}: the original is a session artifact."
            "\n  hint: await original_message(event, artifact_service=runner.artifact_service, "
            "session=session)."
        )
    if event.content is None or event.author != "user":
        return None
    part = await artifact_service.load_artifact(
        app_name=session.app_name,
        user_id=session.user_id,
        session_id=session.id,
        filename=original_artifact_name(event.invocation_id, event.content),
    )
    if part is None or part.inline_data is None:
        return None
    return content_from_part(part)


def _counts(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items()))


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
                marks[section] = _counts(counts)
        return marks

    # -- the user's message ----------------------------------------------------------------------
    async def on_user_message_callback(self, *, invocation_context: Any, user_message: Any) -> Any:
        if self.keep_original == "store" or user_message is None:
            return None
        counts: Counter[str] = Counter()
        redacted = _redact_parts(self.redactor, user_message, counts, responses=True)
        if not counts:
            return None
        self._note((invocation_context.invocation_id, None), "user_message", counts)
        if self.keep_original == "artifact":
            await self._keep_in_artifact(invocation_context, user_message, redacted)
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
    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        # An agent's own before-model callbacks (adk-fluent's context views, C.*) run after
        # this plugin's and rebuild the request from the session's events: those events are
        # redacted here, in memory only (list entries replaced, never an event changed), so
        # the stored events ("store": the user's original message) stay as they are.
        session = getattr(callback_context, "session", None)
        events = getattr(session, "events", None)
        if not events:
            return None
        counts: Counter[str] = Counter()
        for index, event in enumerate(events):
            if event.content is None:
                continue
            found: Counter[str] = Counter()
            content = _redact_parts(self.redactor, event.content, found, responses=True)
            if found:
                counts.update(found)
                events[index] = event.model_copy(update={"content": content})
        # reported as part of the agent's first request: what its requests are built from
        self._note((callback_context.invocation_id, callback_context.agent_name), "request", counts)
        return None

    # -- models ----------------------------------------------------------------------------------
    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        counts: Counter[str] = Counter()
        llm_request.contents = [
            _redact_parts(self.redactor, content, counts, responses=True)
            for content in llm_request.contents or []
        ]
        config = getattr(llm_request, "config", None)
        if config is not None and config.system_instruction:
            config.system_instruction = _redact_instruction(
                self.redactor, config.system_instruction, counts
            )
        self._note((callback_context.invocation_id, callback_context.agent_name), "request", counts)
        return None  # changed in place: the call goes on, later middleware see the redaction

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        reply: Counter[str] = Counter()
        content = _redact_parts(self.redactor, llm_response.content, reply, responses=False)
        if reply:
            llm_response.content = content
        # partial chunks are not stored: the final response carries the marks
        marks = (
            {}
            if llm_response.partial
            else self._collect(callback_context.invocation_id, callback_context.agent_name)
        )
        if reply:
            marks["reply"] = _counts(reply)
        if marks:
            llm_response.custom_metadata = {
                **(llm_response.custom_metadata or {}),
                METADATA_KEY: marks,
            }
        # In place, returning None: the agent's own after-model callbacks still run.
        return None

    # -- tools -----------------------------------------------------------------------------------
    async def after_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, result: Any
    ) -> Any:
        counts: Counter[str] = Counter()
        redacted = self.redactor.redact_value(result, counts)
        if not counts:
            return None
        self._note((tool_context.invocation_id, tool_context.agent_name), "tool_results", counts)
        return redacted

    # -- what clients receive --------------------------------------------------------------------
    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
        if event.partial:
            return _without_text(event)
        counts: Counter[str] = Counter()
        content = _redact_parts(self.redactor, event.content, counts, responses=False)
        if not counts:
            return None
        metadata = {**(event.custom_metadata or {})}
        marks = dict(metadata.get(METADATA_KEY) or {})
        marks["event"] = _counts(counts)
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


# -- the factory ---------------------------------------------------------------------------------
def _compiled(name: str, regex: Any) -> re.Pattern[str]:
    if isinstance(regex, re.Pattern):
        return regex
    if not isinstance(regex, str) or not regex:
        raise BuildError(
            f"pattern '{name}' must be a regular expression, not {describe_value(regex)}",
            agent=NAME,
            field="patterns",
            hint=r"e.g. patterns={'order_id': r'ORD-\d{6}'}.",
        )
    try:
        compiled = re.compile(regex)
    except re.error as error:
        raise BuildError(
            f"pattern '{name}' is not a valid regular expression: {error}",
            agent=NAME,
            field="patterns",
            hint="check the brackets and escapes; write it as a raw string r'...'.",
        ) from None
    if compiled.fullmatch(""):
        raise BuildError(
            f"pattern '{name}' matches the empty string, so it would find nothing useful",
            agent=NAME,
            field="patterns",
            hint=r"make it require at least one character, e.g. r'ORD-\d+' not r'\d*'.",
        )
    return compiled


def _patterns(patterns: Any) -> list[_Pattern]:
    if patterns is None:
        return list(BUILTIN_PATTERNS.values())
    if isinstance(patterns, Mapping):
        chosen = dict(BUILTIN_PATTERNS)
        for name, regex in patterns.items():
            if not isinstance(name, str) or not name.strip():
                raise BuildError(
                    f"a pattern's name must be a non-empty string, not {describe_value(name)}",
                    agent=NAME,
                    field="patterns",
                    hint="the name is the kind shown in the placeholder, e.g. 'order_id'.",
                )
            if regex is None:  # removes a built-in
                if name not in BUILTIN_PATTERNS:
                    raise BuildError(
                        f"'{name}': None removes a built-in pattern, and there is none by "
                        "that name",
                        agent=NAME,
                        field="patterns",
                        hint=did_you_mean(name, BUILTIN_NAMES)
                        or f"the built-ins are: {', '.join(BUILTIN_NAMES)}.",
                    )
                chosen.pop(name)
                continue
            chosen[name] = _Pattern(name, _compiled(name, regex))
        return list(chosen.values())
    if isinstance(patterns, str) or not isinstance(patterns, Iterable):
        raise BuildError(
            f"patterns must be built-in names or a dict of name -> regex, not "
            f"{describe_value(patterns)}",
            agent=NAME,
            field="patterns",
            hint="e.g. patterns=('email', 'credit_card'), or patterns={'order_id': r'ORD-\\d+'} "
            "to add to the built-ins.",
        )
    chosen_list: list[_Pattern] = []
    for name in patterns:
        if name not in BUILTIN_PATTERNS:
            raise BuildError(
                f"{describe_value(name)} is not a built-in pattern",
                agent=NAME,
                field="patterns",
                hint=(did_you_mean(name, BUILTIN_NAMES) if isinstance(name, str) else None)
                or f"the built-ins are: {', '.join(BUILTIN_NAMES)}; use a dict to add your own.",
            )
        chosen_list.append(BUILTIN_PATTERNS[name])
    return chosen_list


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
    chosen = _patterns(patterns)
    if detector is not None and (not callable(detector) or isinstance(detector, type)):
        raise BuildError(
            f"detector must be a function text -> [(start, end, kind)], not "
            f"{describe_value(detector)}",
            agent=NAME,
            field="detector",
            hint="e.g. detector=lambda text: [(m.start(), m.end(), 'name') for m in "
            "NAMES.finditer(text)].",
        )
    if not chosen and detector is None:
        raise BuildError(
            "no pattern and no detector: the filter would never redact anything",
            agent=NAME,
            field="patterns",
            hint="leave patterns out for the built-ins, or pass detector=... with patterns=().",
        )
    if not isinstance(replacement, str):
        raise BuildError(
            f"replacement must be a string, not {describe_value(replacement)}",
            agent=NAME,
            field="replacement",
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
    if keep_original not in KEEP_ORIGINAL:
        raise BuildError(
            f"keep_original must be one of {', '.join(KEEP_ORIGINAL)}, not "
            f"{describe_value(keep_original)}",
            agent=NAME,
            field="keep_original",
            hint=(
                did_you_mean(keep_original, KEEP_ORIGINAL)
                if isinstance(keep_original, str)
                else None
            )
            or "'nowhere' (the default) redacts the user's message before it is stored.",
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
