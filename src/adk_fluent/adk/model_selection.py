"""Cost-aware model selection at run time: the before-model step `.model_select()` compiles to.

The policy and the rule that picks live in ir/model_selection.py (no ADK there). Here:

* `ModelSelection`, an agent-level before_model callback: it estimates the request's input
  tokens, picks the model from a read-only view of the state, sets `llm_request.model` and
  records the Selection. ADK builds the request (setting its model to the agent's own) before
  the agent's callbacks and sends it to the agent's BaseLlm after them; Gemini, Claude and
  LiteLlm send the request's model name to their API, and ADK names its `generate_content
  {model}` span after it, so the pick is what is called and what traces show.
* `selection_for(llm_request)`: the Selection made for that request object (telemetry reads it).
* `install_model_selection(...)`: the compile hook, with the build-time check that every
  candidate is served by the agent's own BaseLlm class (setting the request's model switches
  models within one backend only, e.g. Gemini to Gemini).
"""

from __future__ import annotations

import random
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from google.adk.models.registry import LLMRegistry
from google.genai import types

from adk_fluent.adk.compat import invocation_of, presigned
from adk_fluent.errors import BuildError
from adk_fluent.ir.model_selection import (
    SELECTED_KEY,
    ModelSelectorNode,
    Selection,
    SelectionInput,
    estimate_tokens,
    select_model,
)
from adk_fluent.ir.nodes import UNSET

__all__ = ["ModelSelection", "install_model_selection", "request_chars", "selection_for"]

# -- the record of selections ------------------------------------------------------------------
# LlmRequest is a pydantic model: weak references work, hashing does not (no WeakKeyDictionary).
# Entries are keyed by id() and hold a weak reference compared by identity on lookup, so a
# request made later at a recycled address never gets another request's selection. The table
# is a bounded FIFO (no weakref callbacks: one firing inside a garbage collection while the
# table is being changed would re-enter it); dead entries simply age out.
MAX_RECORDS = 1024

_records: OrderedDict[int, tuple[Callable[[], Any], Selection]] = OrderedDict()
_lock = threading.Lock()


def _record(llm_request: Any, selection: Selection) -> None:
    try:
        ref: Callable[[], Any] = weakref.ref(llm_request)
    except TypeError:  # a request type without weak references: keep the object (bounded)
        ref = _strong(llm_request)
    key = id(llm_request)
    with _lock:
        _records.pop(key, None)
        _records[key] = (ref, selection)
        while len(_records) > MAX_RECORDS:
            _records.popitem(last=False)


def _strong(obj: Any) -> Callable[[], Any]:
    return lambda: obj


def selection_for(llm_request: Any) -> Selection | None:
    """The model selection made for this LlmRequest object by `.model_select()`, or None (the
    agent has no policy, or the selection step did not run for this request)."""
    with _lock:
        entry = _records.get(id(llm_request))
    if entry is None or entry[0]() is not llm_request:
        return None
    return entry[1]


# -- the before-model step ---------------------------------------------------------------------
def _parts_chars(parts: Any) -> int:
    return sum(len(part.text) for part in parts or () if part.text)


def _system_chars(value: Any) -> int:
    """Characters of text in a system instruction: text, a Part, a Content or a list of them."""
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value)
    if isinstance(value, types.Content):
        return _parts_chars(value.parts)
    if isinstance(value, types.Part):
        return len(value.text or "")
    if isinstance(value, list | tuple):
        return sum(_system_chars(item) for item in value)
    return 0


def request_chars(llm_request: Any) -> int:
    """Characters of text the request sends: its contents' text parts and system instruction."""
    contents = sum(_parts_chars(content.parts) for content in llm_request.contents or ())
    config = llm_request.config
    return contents + (_system_chars(config.system_instruction) if config is not None else 0)


def state_view(callback_context: Any) -> MappingProxyType[str, Any]:
    state = callback_context.state
    snapshot = state.to_dict() if hasattr(state, "to_dict") else dict(state)
    return MappingProxyType(snapshot)  # a condition reads state; it never writes it


_PICKS_KEPT = 4096  # model calls in flight at once whose pick waits for its reply


class ModelSelection:
    """The before-model callback of an agent with `.model_select()`: picks this call's model
    and sets it on the request (first among the agent's own callbacks, after a C view). Its
    `note` is the agent's first after-model callback: it writes the pick into the reply's
    custom_metadata (SELECTED_KEY), so the stored event says which model answered and
    `ModelFeedback.rate(events, ...)` can rate it."""

    def __init__(self, selector: ModelSelectorNode) -> None:
        self.selector = selector
        # the adaptive strategy's exploration draws: one generator per compiled agent, seeded
        # (a fresh process with the same seed and the same calls draws the same numbers)
        self._random = (
            random.Random(selector.seed)
            if selector.strategy == "adaptive" and selector.explore > 0
            else None
        )
        self._picks: OrderedDict[int, str] = OrderedDict()

    def __call__(self, callback_context: Any, llm_request: Any) -> None:
        seen = SelectionInput(
            state=state_view(callback_context),
            input_tokens=estimate_tokens(request_chars(llm_request)),
            agent=self.selector.name,
        )
        draw = self._random.random() if self._random is not None else None
        # ADK has put the agent's own model name in the request (an ancestor's or its default
        # when the agent has none): that is the model when no candidate is left
        selection = select_model(self.selector, seen, default=llm_request.model or "", draw=draw)
        llm_request.model = selection.model
        _record(llm_request, selection)
        with _lock:
            self._picks[id(invocation_of(callback_context))] = selection.model
            while len(self._picks) > _PICKS_KEPT:
                self._picks.popitem(last=False)
        return None

    def note(self, callback_context: Any, llm_response: Any) -> None:
        """Write this call's pick into the reply (partial chunks included: each is an event)."""
        with _lock:
            model = self._picks.get(id(invocation_of(callback_context)))
        if model is not None:
            llm_response.custom_metadata = {
                **(llm_response.custom_metadata or {}),
                SELECTED_KEY: model,
            }
        return None

    def __repr__(self) -> str:
        return f"ModelSelection({self.selector.describe()!r})"


# -- the compile hook and its build-time check -----------------------------------------------
def _backend_class(name: str) -> type | None:
    """The BaseLlm class ADK's registry serves `name` with, or None when it knows no such name."""
    try:
        return LLMRegistry.resolve(name)
    except ValueError:
        return None


def _refuse(agent: str, field: str, message: str) -> BuildError:
    return BuildError(
        message,
        agent=agent,
        field=field,
        hint="the policy sets the request's model name, which switches models within the "
        "agent's own backend class only (e.g. Gemini to Gemini): list candidates that class "
        "serves, or use a model name ADK's LLMRegistry knows.",
    )


def check_backend(node: Any, *, scripted: bool) -> None:
    """Refuse candidates (and a fallback) that the agent's own BaseLlm class does not serve.

    - The agent's model is a name: each candidate must resolve, in ADK's LLMRegistry, to the
      same class as that name.
    - No model (it comes from an ancestor agent or ADK's default at run time): the candidates
      must at least resolve to one class among themselves.
    - A model object: not checked; the object decides how it uses the request's model (Gemini,
      Claude and LiteLlm send it as the model name; LiteLlm serves provider/model names the
      registry may not list).
    - `scripted` (a mock backend replaced the agent's model): a name the registry does not know
      is let through, since the provider's package may be installed only where the real model
      runs and the scripted run never resolves it; names that resolve to different classes are
      still refused, as the real build would refuse them.
    """
    selector: ModelSelectorNode = node.model_selector
    model = node.model
    if model is not UNSET and model is not None and not isinstance(model, str):
        return
    names: list[tuple[str, str]] = [("candidates", c.model) for c in selector.candidates]
    if selector.fallback_model:
        names.append(("fallback_model", selector.fallback_model))
    expected: type | None = None
    owner = ""
    if isinstance(model, str):
        expected = _backend_class(model)
        owner = f"the agent's model {model!r}"
        if expected is None and not scripted:
            raise _refuse(
                node.name,
                "candidates",
                f"ADK's model registry knows no model {model!r} (the agent's own), so no "
                "candidate can be checked against it",
            )
    for field, name in names:
        served = _backend_class(name)
        if served is None:
            if scripted:
                continue
            raise _refuse(node.name, field, f"ADK's model registry knows no model {name!r}")
        if expected is None:
            if isinstance(model, str):  # the agent's own name is unknown (scripted run)
                continue
            expected, owner = served, f"candidate {name!r}"
            continue
        if served is not expected:
            raise _refuse(
                node.name,
                field,
                f"{name!r} is served by {served.__name__}, but {owner} by {expected.__name__}",
            )


def install_model_selection(node: Any, kwargs: dict[str, Any], *, scripted: bool) -> None:
    """Put the selection step first among the agent's before_model callbacks (compile.py adds a
    C view in front of it afterwards, so the selection measures the contents actually sent)."""
    check_backend(node, scripted=scripted)
    selection = ModelSelection(node.model_selector)
    for field, callback in (
        ("before_model_callback", selection),
        ("after_model_callback", selection.note),
    ):
        existing = kwargs.get(field)
        callbacks = (
            [] if existing is None else existing if isinstance(existing, list) else [existing]
        )
        kwargs[field] = [presigned(callback), *callbacks]
