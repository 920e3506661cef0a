"""Building an agent's view of the conversation from the session's events (the C module at run time).

The view replaces `LlmRequest.contents` in a before-model callback, so it keeps ADK's role
structure: the user's messages with their images and files, the agent's own replies and
tool-call / tool-response pairs as they were, and other agents' replies as user-role context
parts prefixed `[name] said:`. Media parts go to the model as copies sharing the stored bytes, so
an edit of the request (ADK's Gemini class clears their `display_name` in place) never reaches
the session's history. Nothing is flattened into the system instruction, which stays
exactly what the developer wrote (so it is stable from turn to turn and cacheable). State
blocks (`C.from_state`, `C.template`) are user-role parts inserted just before the current
turn's user message. What goes between the delimiters is escaped: `C.from_state` values are
JSON with `<` written `\\u003c` (still valid JSON, the same value), and a `C.template` value has
each `<` that could start a tag written `&lt;`, so no value can close its block or open a fake
one, while ordinary text stays readable. Templates are rendered in one pass, so a value never
expands `{other_key}` again. The same on every ADK version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from google.genai import types

from adk_fluent.adk.compat import invocation_branch
from adk_fluent.errors import ContextKeyError
from adk_fluent.ir.context_spec import ContextSpec
from adk_fluent.ir.instruction_keys import TEMPLATE_VAR

_FRAMEWORK_CALLS = frozenset(
    {"adk_request_confirmation", "adk_request_credential", "adk_request_input"}
)


def _belongs_to_branch(current: str | None, event: Any) -> bool:
    if not current or not event.branch:
        return True
    return current == event.branch or current.startswith(f"{event.branch}.")


def _is_framework_event(event: Any) -> bool:
    for part in event.content.parts:
        call = part.function_call or part.function_response
        if call is not None and call.name in _FRAMEWORK_CALLS:
            return True
    return False


def usable_events(events: Sequence[Any], branch: str | None) -> list[Any]:
    """Events a model may be shown: rewound ones, other branches' and framework requests removed."""
    kept: list[Any] = []
    skip_until: str | None = None
    for event in reversed(events):
        if skip_until is not None:
            if event.invocation_id == skip_until:
                skip_until = None
            continue
        rewind = (
            getattr(event.actions, "rewind_before_invocation_id", None) if event.actions else None
        )
        if rewind:
            skip_until = rewind
            continue
        if event.partial or event.content is None or not event.content.parts:
            continue
        if not _belongs_to_branch(branch, event) or _is_framework_event(event):
            continue
        kept.append(event)
    kept.reverse()
    return kept


def _current_activation(events: list[Any], agent: str) -> set[int]:
    """Indexes of the agent's own events since it last started: the trailing run of its events
    (its tool calls and their responses in progress). Earlier iterations are not included."""
    own: set[int] = set()
    for index in range(len(events) - 1, -1, -1):
        if events[index].author != agent:
            break
        own.add(index)
    return own


def _select(events: list[Any], spec: ContextSpec, agent: str, invocation_id: str) -> list[Any]:
    if spec.history == "default":
        return events
    active = _current_activation(events, agent)
    if spec.history == "none":
        return [
            e
            for i, e in enumerate(events)
            if i in active or (e.author == "user" and e.invocation_id == invocation_id)
        ]
    if spec.history == "user_only":
        return [e for e in events if e.author in ("user", agent)]
    if spec.history == "from_agents":
        return [e for e in events if e.author in ("user", agent, *spec.agents)]
    if spec.history == "exclude_agents":
        return [e for i, e in enumerate(events) if e.author not in spec.agents or i in active]
    if spec.history == "last_n_turns":
        starts = [i for i, e in enumerate(events) if e.author == "user"]
        if len(starts) <= spec.turns:
            return events
        return events[starts[-spec.turns] :]
    raise ValueError(f"unknown history filter {spec.history!r}")


def _text(text: str) -> types.Part:
    return types.Part.model_construct(text=text)  # our own string: no validation needed


def _media_copy(part: types.Part) -> types.Part:
    """A media part the request may change without changing the stored event: ADK's Gemini
    class clears `display_name` on the request's inline_data / file_data in place (Gemini API
    backend), and the view's contents are the session's own objects. The bytes are shared
    (immutable); only the containers are copied."""
    update: dict[str, Any] = {}
    if part.inline_data is not None:
        update["inline_data"] = part.inline_data.model_copy()
    if part.file_data is not None:
        update["file_data"] = part.file_data.model_copy()
    return part.model_copy(update=update) if update else part


def _detached(content: types.Content) -> types.Content:
    """`content` as the request may hold it: the same object when it has no media part (text
    stays exactly as before), else a copy whose media parts are copies."""
    parts = content.parts or []
    if not any(p.inline_data is not None or p.file_data is not None for p in parts):
        return content
    return content.model_copy(update={"parts": [_media_copy(p) for p in parts]})


def _as_context(event: Any) -> types.Content | None:
    """Another agent's event as user-role context, keeping non-text parts."""
    parts: list[types.Part] = []
    for part in event.content.parts:
        if part.thought:
            continue
        if part.function_call is not None:
            args = json.dumps(
                part.function_call.args or {}, ensure_ascii=False, sort_keys=True, default=str
            )
            parts.append(
                types.Part(
                    text=f"[{event.author}] called tool `{part.function_call.name}` with {args}"
                )
            )
        elif part.function_response is not None:
            result = json.dumps(
                part.function_response.response, ensure_ascii=False, sort_keys=True, default=str
            )
            parts.append(
                types.Part(
                    text=f"[{event.author}] tool `{part.function_response.name}` returned {result}"
                )
            )
        elif part.text:
            parts.append(_text(f"[{event.author}] said: {part.text}"))
        else:
            parts.append(_media_copy(part))  # images, files, audio: kept as they are
    return types.Content.model_construct(role="user", parts=parts) if parts else None


def _contents(events: list[Any], agent: str) -> list[types.Content]:
    contents: list[types.Content] = []
    for event in events:
        if event.author == "user" or event.author == agent:
            contents.append(_detached(event.content))
        else:
            converted = _as_context(event)
            if converted is not None:
                contents.append(converted)
    return contents


# `<` that starts something a reader could take for markup: a tag (`<context>`, `</state>`),
# a comment or a processing instruction. "a < b" and "<3" stay as they are.
_TAG_START = re.compile(r"<(?=[/!?A-Za-z])")


def escape_text(text: str) -> str:
    """Text to place between adk-fluent's block delimiters: nothing in it can close the block
    or open another (`</context>` becomes `&lt;/context>`); everything else is unchanged."""
    return _TAG_START.sub("&lt;", text)


def block_json(value: Any) -> str:
    """A value as JSON for a block: `<` is `\\u003c`, so `</state>` inside a string cannot close
    the block; a JSON parser reads back exactly the same value."""
    return json.dumps(value, ensure_ascii=False, default=str).replace("<", "\\u003c")


def render_template(text: str, state: Mapping[str, Any], agent: str) -> str:
    """`{key}` (required) and `{key?}` (optional, '' when missing) in one pass: a value that
    contains `{other}` is never expanded again, and other braces (JSON, `{{x}}`) stay literal."""

    def value(match: re.Match[str]) -> str:
        key, optional = match.group(1), bool(match.group(2))
        if key is None:  # a doubled {{...}} stays literal
            return match.group(0)
        if key not in state or state[key] is None:
            if optional:
                return ""
            raise ContextKeyError(
                f"agent '{agent}': context template needs state['{key}'], which is not set. "
                f"Hint: write it earlier (e.g. .outputs('{key}') or S.set), or use {{{key}?}} if it is optional."
            )
        found = state[key]
        return escape_text(found) if isinstance(found, str) else block_json(found)

    return TEMPLATE_VAR.sub(value, text)


def _state_block(spec: ContextSpec, state: Mapping[str, Any], agent: str) -> types.Content | None:
    parts: list[types.Part] = []
    if spec.state_keys:
        lines = [f"{key} = {block_json(state.get(key))}" for key in spec.state_keys]
        parts.append(types.Part(text="<state>\n" + "\n".join(lines) + "\n</state>"))
    for template in spec.templates:
        parts.append(
            types.Part(
                text="<context>\n" + render_template(template, state, agent) + "\n</context>"
            )
        )
    return types.Content(role="user", parts=parts) if parts else None


def build_view(
    spec: ContextSpec,
    *,
    events: Sequence[Any],
    state: Mapping[str, Any],
    agent: str,
    invocation_id: str,
    branch: str | None,
) -> list[types.Content]:
    """The contents `agent` is shown under `spec`."""
    selected = _select(usable_events(events, branch), spec, agent, invocation_id)
    contents = _contents(selected, agent)
    block = _state_block(spec, state, agent)
    if block is not None:
        # just before this turn's user message, so earlier history stays a stable prefix
        index = next(
            (
                i
                for i, e in enumerate(selected)
                if e.author == "user" and e.invocation_id == invocation_id
            ),
            len(selected),
        )
        position = len(_contents(selected[:index], agent))
        contents.insert(position, block)
    return contents


class ContextView:
    """The before-model callback that installs `spec`'s view (first in the agent's callbacks)."""

    def __init__(self, spec: ContextSpec, agent: str) -> None:
        self.spec = spec
        self.agent = agent

    def __call__(self, callback_context: Any, llm_request: Any) -> None:
        state = callback_context.state
        mapping = state.to_dict() if hasattr(state, "to_dict") else dict(state)
        llm_request.contents = build_view(
            self.spec,
            events=callback_context.session.events,
            state=mapping,
            agent=self.agent,
            invocation_id=callback_context.invocation_id,
            branch=invocation_branch(callback_context),
        )
        return None
