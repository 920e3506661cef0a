"""Finding ADK's own spans from a middleware callback, so attributes land on them (never on
spans of our own: adk-fluent creates none).

Which span is current in each plugin callback (read from ADK's tracing code of each release,
and asserted by tests/behaviour/telemetry on both ends):

* before_agent / after_agent: the agent's `invoke_agent {name}` span, on every release;
* before_tool / after_tool: the tool's `execute_tool {tool}` span, on every release;
* after_model: the model call's `generate_content {model}` span on 1.x; `call_llm` on 2.0 .. 2.10
  (its `generate_content` child still open on 2.0, ended on 2.8 and 2.10); on 2.13 the agent's
  span, because ADK runs the model call's span in a context of its own that callbacks never see.

So for 2.x a span processor (ModelSpans) notes each `generate_content` span when it starts,
under the span it starts in, and copies the adk-fluent attributes of that parent onto it; an
after_model callback then finds the model call's span from the agent's, while it is still open.
The processor is added to the global SDK TracerProvider the first time enrichment runs (the
OpenTelemetry extension point for this; nothing of ADK is patched). Without an SDK provider
(tracing off), nothing records and every helper here returns None at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import SpanProcessor

from adk_fluent.adk.bounded import remember

PREFIX = "adk_fluent."
MODEL_SPANS = ("generate_content", "call_llm")  # 1.x wraps generate_content in call_llm
# attributes that describe one agent run, not its node: never copied onto its model spans
RUN_ONLY = frozenset({"adk_fluent.route.taken", "adk_fluent.loop.iterations"})
_OPEN_MODEL_SPANS = 4096  # model calls in flight at once whose span is kept for after_model


def recording_span() -> Any:
    """The current span when something records it, else None (tracing off costs this check)."""
    span = trace.get_current_span()
    return span if span.is_recording() else None


def _name(span: Any) -> str:
    name = getattr(span, "name", "")
    return name if name.__class__ is str else str(name)


def is_model_span(span: Any) -> bool:
    return _name(span).startswith(MODEL_SPANS)


def _is_generate_content(span: Any) -> bool:
    return _name(span).startswith(MODEL_SPANS[0])


def span_id(span: Any) -> int:
    return int(span.get_span_context().span_id)


class ModelSpans(SpanProcessor):
    """Notes each open model span under the span it started in, and gives it that parent's
    adk-fluent attributes (node path, kind, pipeline, ...) as it starts."""

    def __init__(self) -> None:
        self._open: OrderedDict[int, Any] = OrderedDict()  # parent span id -> model span
        self._lock = threading.Lock()  # span processors may be called from any thread

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        if not is_model_span(span):
            return
        parent = trace.get_current_span(parent_context)
        attributes = getattr(parent, "attributes", None)
        if attributes:
            # the keys first: the SDK's attribute mapping reads each value through Python code,
            # and most of an ADK span's attributes are not ours
            ours = {}
            for key in attributes:
                if key.startswith(PREFIX) and key not in RUN_ONLY:
                    ours[key] = attributes[key]
            if ours:
                span.set_attributes(ours)
        if parent.get_span_context().is_valid:
            with self._lock:
                remember(self._open, span_id(parent), span, _OPEN_MODEL_SPANS)

    def on_end(self, span: Any) -> None:
        parent = getattr(span, "parent", None)
        if parent is None or not is_model_span(span):
            return
        with self._lock:
            if self._open.get(parent.span_id) is not None:
                held = self._open[parent.span_id]
                if span_id(held) == span_id(span):
                    del self._open[parent.span_id]

    def open_under(self, parent: Any) -> Any:
        """The model span still open under `parent` (an agent's span), or None."""
        with self._lock:
            span = self._open.get(span_id(parent))
        return span if span is not None and span.is_recording() else None

    def shutdown(self) -> None:
        with self._lock:
            self._open.clear()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


_installed: dict[int, tuple[Any, ModelSpans]] = {}  # id(provider) -> (provider, its processor)
_install_lock = threading.Lock()


def model_spans() -> ModelSpans | None:
    """The ModelSpans processor of the global tracer provider, added on first use; None when the
    provider is not the OpenTelemetry SDK's (no processors can be added to it)."""
    provider = trace.get_tracer_provider()
    held = _installed.get(id(provider))
    if held is not None and held[0] is provider:
        return held[1]
    if not callable(getattr(provider, "add_span_processor", None)):
        return None
    with _install_lock:
        held = _installed.get(id(provider))
        if held is not None and held[0] is provider:
            return held[1]
        processor = ModelSpans()
        provider.add_span_processor(processor)  # type: ignore[attr-defined]
        _installed[id(provider)] = (provider, processor)
        return processor


def model_call_span() -> Any:
    """The span of the model call an after_model callback runs for, or None.

    The innermost model span still open: the current span when it is `generate_content` (1.x),
    else the one ModelSpans noted under the current span, one level deeper when that is a
    `call_llm` (the current span is the agent's on 2.13, `call_llm` on 2.0 .. 2.10); else a
    current `call_llm` whose `generate_content` has ended (2.8, 2.10)."""
    current = recording_span()
    if current is None:
        return None
    if _is_generate_content(current):
        return current
    processor = model_spans()
    found = None
    if processor is not None:
        span = current
        for _ in range(2):  # the agent's span -> call_llm -> generate_content
            span = processor.open_under(span)
            if span is None:
                break
            found = span
            if _is_generate_content(span):
                return span
    if found is not None:
        return found
    return current if is_model_span(current) else None


def set_attributes(span: Any, attributes: dict[str, Any]) -> None:
    """Set attributes on a span in one call, leaving out empty values (OpenTelemetry refuses
    None)."""
    span.set_attributes({k: v for k, v in attributes.items() if v is not None and v != ()})
