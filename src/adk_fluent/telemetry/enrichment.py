"""otel_enrichment: adk-fluent's view of the tree on ADK's own OpenTelemetry spans.

ADK already traces every agent run, model call and tool call (google.adk.telemetry). This
middleware adds `adk_fluent.*` attributes to those spans and creates none of its own, so a trace
viewer (adk web's Trace tab, Cloud Trace, Jaeger, any OTLP collector) shows the same tree with
the pipeline's structure on it:

| attribute | on | what |
|---|---|---|
| adk_fluent.pipeline | agent, model, tool | the root's name (or `pipeline=`) |
| adk_fluent.node.path / .kind | agent, model, tool | 'support/route/billing', 'agent' / 'loop' / ... |
| adk_fluent.visibility / .depth | agent, model, tool | user, internal or zero_cost; 0 = the agent the user talks to |
| adk_fluent.state.reads / .writes | agent, model, tool | the state keys the node declares |
| adk_fluent.context | agent, model, tool | the context spec (C), described |
| adk_fluent.loop.name / .iteration | agent, model, tool | the enclosing loop and its iteration (from 1) |
| adk_fluent.loop.iterations | the loop's agent span | iterations run |
| adk_fluent.route.name | the chosen branch | the route it is a branch of |
| adk_fluent.route.taken | the route's agent span | the branch taken |
| adk_fluent.model.policy / .selected / .selection_reason | model | `.model_select(...)`'s policy and pick |

Message content is never added (names and keys only), whatever ADK's own content capture says.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import invocation_of
from adk_fluent.adk.custom_agents.graph import (
    LoopCheck,
    LoopStart,
    RouteChoice,
    loop_iteration,
    route_taken,
)
from adk_fluent.adk.model_selection import selection_for
from adk_fluent.adk.plugins.middleware import agent_facts, model_call
from adk_fluent.analysis.node_facts import NodeFacts
from adk_fluent.arguments import checked_text
from adk_fluent.ir.middleware import Middleware
from adk_fluent.telemetry.spans import (
    model_call_span,
    model_spans,
    recording_span,
    set_attributes,
)

_RUNS_REMEMBERED = 4096  # loops and routes running at once whose span and count are kept


def node_attributes(facts: NodeFacts, pipeline: str | None = None) -> dict[str, Any]:
    """The attributes that describe a node (the same on its agent, model and tool spans);
    empty values are left out."""
    attributes = {
        "adk_fluent.pipeline": pipeline or facts.pipeline,
        "adk_fluent.node.path": facts.path,
        "adk_fluent.node.kind": facts.kind,
        "adk_fluent.visibility": facts.visibility,
        "adk_fluent.depth": facts.depth,
        "adk_fluent.state.reads": facts.reads,
        "adk_fluent.state.writes": facts.writes,
        "adk_fluent.context": facts.context,
        "adk_fluent.route.name": facts.route,
        "adk_fluent.loop.name": facts.loop,
        "adk_fluent.model.policy": facts.model_policy,
    }
    return {k: v for k, v in attributes.items() if v is not None and v != ()}


def _invocation_id(callback_context: Any) -> str:
    return str(getattr(invocation_of(callback_context), "invocation_id", "") or "")


class OtelEnrichment(Middleware):
    """Adds `adk_fluent.*` attributes to ADK's agent, model and tool spans (the module says
    which); makes no span. `otel_enrichment()` makes one."""

    def __init__(
        self, *, pipeline: str | None = None, scope: Any = None, priority: int = -110
    ) -> None:
        super().__init__(scope=scope, priority=priority)
        self.pipeline = pipeline
        # node facts -> their attributes, made once per node (facts are frozen values)
        self._attributes: dict[NodeFacts, dict[str, Any]] = {}
        # agent name -> (the facts last seen for it, their attributes): found by the facts'
        # identity, without hashing every field of a NodeFacts on every span
        self._by_name: dict[str, tuple[NodeFacts, dict[str, Any]]] = {}
        # (invocation, loop or route name) -> [its agent span, iterations started]
        self._runs: OrderedDict[tuple[Any, ...], list[Any]] = OrderedDict()
        # model call -> its LlmRequest, from before_model to after_model (the model the agent's
        # policy picks is set on it after this middleware's before_model)
        self._requests: OrderedDict[tuple[Any, ...], Any] = OrderedDict()

    def _node(self, facts: NodeFacts) -> dict[str, Any]:
        known = self._by_name.get(facts.name)
        if known is not None and known[0] is facts:
            return known[1]
        attributes = self._attributes.get(facts)
        if attributes is None:
            attributes = self._attributes[facts] = node_attributes(facts, self.pipeline)
        self._by_name[facts.name] = (facts, attributes)
        return attributes

    def _key(self, callback_context: Any, name: str) -> tuple[Any, ...]:
        invocation = invocation_of(callback_context)
        return (getattr(invocation, "invocation_id", None), name)

    # -- agents: their own span, and the loop or route they run in --------------------------------
    def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        span = recording_span()
        if span is None:
            return None
        model_spans()  # from now on, model spans get these attributes as they start (2.x)
        facts = agent_facts(callback_context.agent_name)
        if facts is None:
            return None
        attributes = self._node(facts)
        if isinstance(agent, LoopCheck | LoopStart):  # the Workflow target's loop (workflow.md)
            if isinstance(agent, LoopCheck) and agent.last:
                iteration = loop_iteration(_invocation_id(callback_context), facts.name)
                attributes = {**attributes, "adk_fluent.loop.iterations": iteration}
            set_attributes(span, {k: v for k, v in attributes.items() if v is not None})
            return None
        if facts.kind in ("loop", "map_over", "route"):
            remember(
                self._runs, self._key(callback_context, facts.name), [span, 0], _RUNS_REMEMBERED
            )
        if facts.loop is not None:
            run = self._runs.get(self._key(callback_context, facts.loop))
            if run is not None:
                if facts.starts_iteration:
                    run[1] += 1
                attributes = {**attributes, "adk_fluent.loop.iteration": run[1]}
            else:  # a Workflow loop has no agent span: its LoopStart counts the iterations
                iteration = loop_iteration(_invocation_id(callback_context), facts.loop)
                if iteration is not None:
                    attributes = {**attributes, "adk_fluent.loop.iteration": iteration}
        if facts.route is not None:
            run = self._runs.get(self._key(callback_context, facts.route))
            if run is not None and run[0].is_recording():
                run[0].set_attribute("adk_fluent.route.taken", facts.name)
        span.set_attributes(attributes)  # the node's (no empty value) and an iteration number
        return None

    def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        facts = agent_facts(callback_context.agent_name)
        if facts is None or facts.kind not in ("loop", "map_over", "route"):
            return None
        run = self._runs.pop(self._key(callback_context, facts.name), None)
        if isinstance(agent, RouteChoice) and run is not None and run[0].is_recording():
            # the Workflow target's route: the branch runs after its choice's span ended
            taken = route_taken(_invocation_id(callback_context), agent.name)
            if taken is not None:
                run[0].set_attribute("adk_fluent.route.taken", taken)
        if run is not None and facts.kind != "route" and run[0].is_recording():
            run[0].set_attribute("adk_fluent.loop.iterations", run[1])
        return None

    # -- model calls: the call's span (the agent's attributes, and the model picked) -------------
    def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        if getattr(llm_response, "partial", False):
            return None
        span = model_call_span()
        if span is None:
            self._requests.pop(model_call(callback_context), None)
            return None
        request = self._requests.pop(model_call(callback_context), None)
        facts = agent_facts(callback_context.agent_name)
        attributes: dict[str, Any] = {}
        if facts is not None and "adk_fluent.node.path" not in (span.attributes or {}):
            # the span processor copies them from the agent's span as the call starts (the loop
            # iteration too); where it could not, they are set here
            attributes.update(self._node(facts))
        picked = selection_for(request) if request is not None else None
        if picked is not None:
            attributes["adk_fluent.model.selected"] = picked.model
            attributes["adk_fluent.model.selection_reason"] = picked.reason
        if attributes:
            set_attributes(span, attributes)
        return None

    def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        # the request object, for the model the agent's policy picks after this callback
        facts = agent_facts(callback_context.agent_name)
        if facts is not None and facts.model_policy is not None and recording_span() is not None:
            remember(self._requests, model_call(callback_context), llm_request, _RUNS_REMEMBERED)
        return None

    # -- tools: the tool's span gets the calling agent's attributes -------------------------------
    def before_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any) -> None:
        span = recording_span()
        if span is None:
            return None
        facts = agent_facts(tool_context.agent_name)
        if facts is not None:
            span.set_attributes(self._node(facts))  # (no empty value: node_attributes)
        return None

    def __repr__(self) -> str:
        return f"otel_enrichment(pipeline={self.pipeline!r})"


def otel_enrichment(
    *, pipeline: str | None = None, scope: str | tuple[str, ...] | None = None, priority: int = -110
) -> OtelEnrichment:
    """Middleware adding adk-fluent's attributes to ADK's own spans (docs/telemetry.md).

    `pipeline` names the pipeline in `adk_fluent.pipeline` (default: the root's name); `scope`
    limits it to part of the tree. It runs first (priority -110) so the attributes are on the
    spans before any other middleware answers for a call."""
    if pipeline is not None:
        checked_text(
            pipeline,
            "otel_enrichment",
            "pipeline",
            what="a name",
            hint="e.g. otel_enrichment(pipeline='support'), or leave it out for the root's name.",
        )
    return OtelEnrichment(pipeline=pipeline, scope=scope, priority=priority)
