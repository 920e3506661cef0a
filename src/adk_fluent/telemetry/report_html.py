"""html_report(): a run report to look at: one self-contained HTML file with a timeline of the
agents (nested by their place in the tree, with durations), tokens and cost per agent as bar
charts, the state changes step by step, and the errors highlighted.

    from adk_fluent.telemetry.report_html import html_report
    Path("run.html").write_text(html_report(session), encoding="utf-8")

It takes what `usage()` takes (run()'s AgentEvents, ADK Events, a stored Session) and a replay
Recording. It reads what they carry and imports nothing of the replay room (telemetry and
replay sit side by side). `adk-fluent report --html OUT` writes it from a store or a
recording file.

The charts are Plotly's (the `report` extra): plotly.js is embedded in the page, so the file
opens offline and can be mailed or attached to a ticket. Every string of the run (replies,
state values, names) is HTML-escaped in the page, and plotly's own JSON escapes `<` in the
figures, so no text from a session can run as script.

Time: a stored event has a timestamp, but agents' starts are not stored, so an agent's bar runs
from the event before its first one (what it started after) to its last one. A recording keeps
no clock (it is made to diff well in git), so its timeline counts records in place of seconds.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from adk_fluent.adk.event_visibility import DEPTH, PATH
from adk_fluent.errors import BuildError, install_extra
from adk_fluent.ir.names import below_root
from adk_fluent.ir.prices import Prices
from adk_fluent.telemetry.cost import UsageRecord
from adk_fluent.telemetry.usage import Call, UsageReport, usage

TEXT_SHOWN = 300  # characters of a reply shown in the steps table
VALUE_SHOWN = 500  # characters of a state value shown
ERROR_COLOUR = "#d62728"
BAR_COLOUR = "#1f77b4"
CONTAINER_COLOUR = "#aec7e8"


@dataclass(frozen=True)
class Step:
    """One event as the report shows it."""

    number: int  # 1-based, in the order the run had them
    invocation_id: str
    author: str
    path: str
    depth: int | None  # the call-tree depth, when the event carries it
    at: float  # seconds (a stored event's timestamp) or the record number (a recording)
    text: str | None = None
    state_delta: dict[str, Any] = field(default_factory=dict)
    tool_calls: tuple[str, ...] = ()
    error_code: str | None = None
    error_message: str | None = None

    @property
    def is_error(self) -> bool:
        return self.error_code is not None or self.error_message is not None


@dataclass(frozen=True)
class Span:
    """One agent's run within one invocation: a bar of the timeline."""

    path: str
    invocation_id: str
    start: float
    end: float
    steps: int
    depth: int | None
    container: bool  # a pipeline, route, loop...: it has no events of its own
    failed: bool


def _plotly() -> Any:
    try:
        import plotly
    except ImportError:
        raise BuildError(
            "the HTML report draws its charts with plotly, which is not installed",
            field="html",
            hint=f"install the report extra: {install_extra('report')}",
        ) from None
    return plotly


# -- reading a run --------------------------------------------------------------------------------
def _text_of(content: Any) -> tuple[str | None, tuple[str, ...]]:
    """(text, tool call names) of an ADK Content or a recording's content dict."""
    if content is None:
        return None, ()
    parts = content.get("parts", []) if isinstance(content, dict) else (content.parts or [])
    texts, calls = [], []
    for part in parts:
        get = part.get if isinstance(part, dict) else (lambda key, p=part: getattr(p, key, None))
        text = get("text")
        if isinstance(text, str) and text and not get("thought"):
            texts.append(text)
        call = get("function_call")
        if call is not None:
            name = call.get("name") if isinstance(call, dict) else getattr(call, "name", None)
            calls.append(str(name or "?"))
    return ("".join(texts) if texts else None), tuple(calls)


def _event_steps(events: Iterable[Any]) -> list[Step]:
    """Steps of AgentEvents or ADK Events (lifecycle and partial events left out)."""
    steps: list[Step] = []
    for event in events:
        raw = getattr(event, "raw", None)
        source = raw if raw is not None else event
        if getattr(event, "agent_state", None) or getattr(source, "partial", False):
            continue
        metadata = getattr(event, "metadata", None)
        if not isinstance(metadata, dict):
            metadata = getattr(source, "custom_metadata", None) or {}
        actions = getattr(source, "actions", None)
        delta = getattr(actions, "state_delta", None) or getattr(event, "state_delta", None)
        author = str(getattr(event, "author", "") or "")
        text, calls = _text_of(getattr(source, "content", None))
        depth = metadata.get(DEPTH)
        steps.append(
            Step(
                number=len(steps) + 1,
                invocation_id=str(getattr(event, "invocation_id", "") or ""),
                author=author,
                path=str(metadata.get(PATH) or author),
                depth=depth if isinstance(depth, int) else None,
                at=float(getattr(event, "timestamp", 0.0) or 0.0),
                text=text,
                state_delta=dict(delta or {}),
                tool_calls=calls,
                error_code=getattr(event, "error_code", None),
                error_message=getattr(event, "error_message", None),
            )
        )
    return steps


Marks = dict[tuple[str, str], tuple[float | None, float | None, int | None]]


def _lifecycle_marks(events: Iterable[Any]) -> Marks:
    """(start, end, depth) per (invocation, path) from the lifecycle events of a turn run with
    `lifecycle=True` (client stream only: a stored session has none)."""
    marks: Marks = {}
    for event in events:
        state = getattr(event, "agent_state", None)
        if state not in ("started", "ended"):
            continue
        metadata = getattr(event, "metadata", None) or {}
        author = str(getattr(event, "author", "") or "")
        key = (str(getattr(event, "invocation_id", "") or ""), str(metadata.get(PATH) or author))
        start, end, depth = marks.get(key, (None, None, None))
        when = float(getattr(event, "timestamp", 0.0) or 0.0)
        found = metadata.get(DEPTH)
        depth = found if isinstance(found, int) else depth
        if state == "started":
            marks[key] = (when if start is None else start, end, depth)
        else:
            marks[key] = (start, when, depth)
    return marks


def _is_recording(run: Any) -> bool:
    return all(hasattr(run, name) for name in ("header", "model_calls", "tool_calls", "events"))


def _only(found: list[str], otherwise: str) -> str:
    return found[0] if len(found) == 1 else otherwise


def _recording_steps(recording: Any) -> list[Step]:
    """Steps of a replay Recording: its events, each placed at its record number, with the path
    its agent's model and tool calls name (events carry only their author)."""
    paths: dict[tuple[Any, str], str] = {}
    for call in (*recording.model_calls, *recording.tool_calls):
        if call.path:
            paths.setdefault((call.session_id, call.agent), call.path)
    # an agent that called no model or tool (a state step, a route): its path in the tree the
    # header describes (Recorder(tree=...)), when one node there has its name
    in_tree: dict[str, list[str]] = {}
    for node in (recording.header.tree or {}).get("nodes", []):
        path = node.get("path") if isinstance(node, dict) else None
        if isinstance(path, str):
            in_tree.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    steps: list[Step] = []
    for event in recording.events:
        if event.partial:
            continue
        text, calls = _text_of(event.content)
        steps.append(
            Step(
                number=len(steps) + 1,
                invocation_id=str(event.invocation_id or ""),
                author=event.author,
                path=paths.get((event.session_id, event.author))
                or _only(in_tree.get(event.author, []), event.author),
                depth=None,
                at=float(event.seq),
                text=text,
                state_delta=dict(event.state_delta or {}),
                tool_calls=calls,
                error_code=event.error_code,
                error_message=event.error_message,
            )
        )
    return steps


def _count(reported: dict[str, Any], key: str) -> int:
    value = reported.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def recording_usage(recording: Any, prices: Prices | None = None) -> UsageReport:
    """The usage report of a replay Recording: the tokens each model reply reported, priced
    with `prices` (the default table when None). A recording keeps the replies as the model
    gave them, before cost_attribution wrote its records, so they are priced here."""
    prices = prices or Prices()
    calls: list[Call] = []
    for model_call in recording.model_calls:
        whole = [r for r in model_call.responses if not r.get("partial")]
        reported = next(
            (r["usage_metadata"] for r in reversed(whole) if r.get("usage_metadata")), None
        )
        if not isinstance(reported, dict):
            continue

        inputs = _count(reported, "prompt_token_count")
        outputs = _count(reported, "candidates_token_count")
        cached = _count(reported, "cached_content_token_count")
        thinking = _count(reported, "thoughts_token_count")
        model = str(model_call.model or model_call.request.get("model") or "unknown")
        record = UsageRecord(
            model_call.agent,
            model_call.path or model_call.agent,
            model,
            inputs,
            outputs,
            cached,
            thinking,
            prices.cost(model, inputs, outputs, cached, thinking),
        )
        calls.append(Call(record, str(model_call.invocation_id or "")))
    return UsageReport(calls)


def _last_invocation(steps: list[Step]) -> list[Step]:
    invocations = [step.invocation_id for step in steps]
    return [step for step in steps if step.invocation_id == invocations[-1]] if steps else []


# -- the timeline ---------------------------------------------------------------------------------
def _spans(steps: list[Step], marks: Marks | None = None) -> list[Span]:
    """The timeline's bars: each agent's run per invocation, from the step before its first
    one to its last one, and each enclosing agent (a path's ancestors) around its parts; where
    the run noted when agents started and ended (`marks`), those times, and a bar for an agent
    that said nothing."""
    own: dict[tuple[str, str], Span] = {}
    previous: dict[str, float] = {}  # the last step's time, per invocation
    for step in steps:
        if step.author == "user":
            previous[step.invocation_id] = step.at
            continue
        key = (step.invocation_id, step.path)
        start = previous.get(step.invocation_id, step.at)
        found = own.get(key)
        if found is None:
            own[key] = Span(
                step.path, step.invocation_id, start, step.at, 1, step.depth, False, step.is_error
            )
        else:
            own[key] = Span(
                step.path,
                step.invocation_id,
                found.start,
                step.at,
                found.steps + 1,
                found.depth if found.depth is not None else step.depth,
                False,
                found.failed or step.is_error,
            )
        previous[step.invocation_id] = step.at
    around: dict[tuple[str, str], Span] = {}
    for (invocation, path), span in own.items():
        parts = path.split("/")
        for cut in range(1, len(parts)):
            key = (invocation, "/".join(parts[:cut]))
            if key in own:
                continue
            found = around.get(key)
            around[key] = Span(
                key[1],
                invocation,
                min(span.start, found.start) if found else span.start,
                max(span.end, found.end) if found else span.end,
                (found.steps if found else 0) + span.steps,
                None,
                True,
                (found.failed if found else False) or span.failed,
            )
    every = {**around, **own}
    for key, (began, ended, noted_depth) in (marks or {}).items():
        if began is None or ended is None:
            continue
        known = every.get(key)
        if known is None:  # it started and ended without an event of its own
            every[key] = Span(key[1], key[0], began, ended, 0, noted_depth, False, False)
        else:
            depth = known.depth if known.depth is not None else noted_depth
            every[key] = replace(known, start=began, end=ended, depth=depth)
    return sorted(every.values(), key=lambda s: (s.start, s.path.count("/"), s.path))


def _rows(bars: list[Span]) -> list[str]:
    """The timeline's rows, top to bottom: each path under its parent, in the order paths
    first started."""
    order = list(dict.fromkeys(span.path for span in bars))
    children: dict[str, list[str]] = {}
    roots: list[str] = []
    for path in order:
        parent = path.rsplit("/", 1)[0] if "/" in path else None
        (children.setdefault(parent, []) if parent in order else roots).append(path)
    rows: list[str] = []

    def walk(path: str) -> None:
        rows.append(path)
        for child in children.get(path, []):
            walk(child)

    for root in roots:
        walk(root)
    return rows


def _timeline(plotly: Any, steps: list[Step], clock: bool, marks: Marks | None) -> Any:
    go = plotly.graph_objects
    bars = _spans(steps, marks)
    rows = _rows(bars)
    origin = min([step.at for step in steps] + [span.start for span in bars], default=0.0)
    total = max((span.end - origin for span in bars), default=0.0)
    # a span of one event has no length; draw it as a sliver so it can be seen and hovered
    least = (total or 1.0) / 150
    base, length, colours, hover = [], [], [], []
    for span in bars:
        base.append(span.start - origin)
        length.append(max(span.end - span.start, least))
        colours.append(
            ERROR_COLOUR if span.failed else CONTAINER_COLOUR if span.container else BAR_COLOUR
        )
        took = f"{span.end - span.start:.3f} s" if clock else f"{span.end - span.start:g} records"
        lines = [
            f"<b>{html.escape(span.path)}</b>",
            f"invocation {html.escape(span.invocation_id)}",
            f"took {took}, {span.steps} event(s)" + (" (its parts)" if span.container else ""),
        ]
        if span.depth is not None:
            lines.append(f"call depth {span.depth}")
        if span.failed:
            lines.append("<b>failed</b>")
        hover.append("<br>".join(lines))
    labels = [
        "\u00a0\u00a0\u00a0" * path.count("/") + html.escape(path.rsplit("/", 1)[-1])
        for path in rows
    ]
    figure = go.Figure(
        go.Bar(
            y=[span.path for span in bars],
            x=length,
            base=base,
            orientation="h",
            marker={"color": colours},
            hovertext=hover,
            hoverinfo="text",
            name="agent runs",
        )
    )
    figure.update_yaxes(
        categoryorder="array",
        categoryarray=list(reversed(rows)),
        tickvals=rows,
        ticktext=labels,
        automargin=True,
    )
    figure.update_xaxes(
        title_text="seconds since the first event" if clock else "record number", ticksuffix=""
    )
    figure.update_layout(
        height=max(240, 80 + 28 * len(rows)),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},  # room for plotly's toolbar above
        bargap=0.3,
        showlegend=False,
    )
    return figure


def _usage_figure(plotly: Any, report: UsageReport) -> Any:
    from plotly.subplots import make_subplots

    go = plotly.graph_objects
    agents = list(report.by_agent().values())
    _, names = below_root([agent.path for agent in agents])
    names = [html.escape(name) for name in names]
    figure = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("cost (USD)", "tokens"),
        shared_yaxes=True,
        horizontal_spacing=0.04,
    )
    priced = [agent.unpriced_calls < agent.calls for agent in agents]
    figure.add_trace(
        go.Bar(
            x=[
                agent.cost_usd if known else 0.0
                for agent, known in zip(agents, priced, strict=True)
            ],
            y=names,
            orientation="h",
            name="cost",
            marker={"color": "#2ca02c"},
            text=[
                f"${agent.cost_usd:.6f}" if known else "no price"
                for agent, known in zip(agents, priced, strict=True)
            ],
            textposition="auto",
            hovertext=[
                f"{html.escape(agent.path)}<br>{agent.calls} call(s), models: "
                + html.escape(", ".join(agent.models))
                for agent in agents
            ],
            hoverinfo="text",
        ),
        row=1,
        col=1,
    )
    for label, values, colour in (
        ("input", [agent.input_tokens for agent in agents], "#1f77b4"),
        ("output", [agent.output_tokens for agent in agents], "#ff7f0e"),
        ("thinking", [agent.thinking_tokens for agent in agents], "#9467bd"),
    ):
        if label == "thinking" and not any(values):
            continue
        figure.add_trace(
            go.Bar(
                x=values, y=names, orientation="h", name=f"{label} tokens", marker={"color": colour}
            ),
            row=1,
            col=2,
        )
    figure.update_layout(
        barmode="stack",
        height=max(220, 80 + 36 * len(agents)),
        margin={"l": 10, "r": 10, "t": 40, "b": 30},
        legend={"orientation": "h", "y": -0.15},
    )
    figure.update_yaxes(autorange="reversed", automargin=True)
    return figure


# -- the page -------------------------------------------------------------------------------------
def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _shown(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _steps_table(steps: list[Step], clock: bool, origin: float) -> str:
    """The steps that changed state or failed (and the replies between them, for context)."""
    rows = []
    for step in steps:
        if not (step.state_delta or step.is_error or step.text or step.tool_calls):
            continue
        when = f"+{step.at - origin:.3f} s" if clock else f"#{step.at:g}"
        changes = "".join(
            f'<li><code class="key">{_esc(key)}</code> = '
            + (
                '<span class="deleted">deleted</span>'
                if value is None
                else f'<code class="value">{_esc(_shown(value, VALUE_SHOWN))}</code>'
            )
            + "</li>"
            for key, value in step.state_delta.items()
        )
        said = []
        if step.error_code or step.error_message:
            said.append(
                f'<div class="error-text"><b>{_esc(step.error_code or "error")}</b>: '
                f"{_esc(step.error_message or '')}</div>"
            )
        if step.tool_calls:
            said.append(f"<div>calls {_esc(', '.join(step.tool_calls))}</div>")
        if step.text:
            said.append(f'<div class="said">{_esc(_shown(step.text, TEXT_SHOWN))}</div>')
        classes = (
            ["step"]
            + (["error"] if step.is_error else [])
            + (["state"] if step.state_delta else [])
        )
        depth = "" if step.depth is None else str(step.depth)
        rows.append(
            f'<tr class="{" ".join(classes)}" id="step-{step.number}">'
            f'<td>{step.number}</td><td class="when">{_esc(when)}</td>'
            f'<td class="agent" title="{_esc(step.path)}">{_esc(step.author)}</td>'
            f"<td>{_esc(depth)}</td>"
            f'<td><ul class="changes">{changes}</ul></td><td>{"".join(said)}</td></tr>'
        )
    if not rows:
        return '<p class="none">no events</p>'
    return (
        '<table id="steps"><thead><tr><th>#</th><th>when</th><th>agent</th><th>depth</th>'
        "<th>state changes</th><th>what it said</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
.meta { color: #555; margin: 0; } .none { color: #777; font-style: italic; }
.summary span { display: inline-block; margin-right: 1.5em; }
.errors { background: #fdecea; border-left: 4px solid #d62728; padding: 6px 12px; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
td.when { white-space: nowrap; }
tr.error td { background: #fdecea; } tr.error td:first-child { border-left: 4px solid #d62728; }
.error-text { color: #a1181a; } .deleted { color: #a1181a; font-style: italic; }
ul.changes { margin: 0; padding-left: 1em; } code { font-size: 0.95em; }
.said { white-space: pre-wrap; color: #333; } .note { color: #555; font-size: 0.9em; }
"""


def _render(
    steps: list[Step],
    report: UsageReport,
    *,
    title: str,
    clock: bool = True,
    subtitle: str = "",
    marks: Marks | None = None,
) -> str:
    """The HTML page of some steps and their usage report (what `html_report` writes)."""
    plotly = _plotly()
    origin = min((step.at for step in steps), default=0.0)
    errors = [step for step in steps if step.is_error]
    agents = [s for s in steps if s.author != "user"]
    took = max((s.at for s in steps), default=origin) - origin
    summary = [
        f"<span>{len({s.invocation_id for s in steps})} run(s)</span>",
        f"<span>{len(steps)} event(s)</span>",
        f"<span>{len({s.path for s in agents})} agent(s)</span>",
        f"<span>{len(report.calls)} model call(s)</span>",
        f"<span>${report.cost_usd:.6f}</span>",
        f"<span>{report.input_tokens + report.output_tokens} tokens</span>",
        f"<span>{took:.3f} s</span>" if clock else f"<span>{took:g} records</span>",
    ]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_esc(title)}</title>",
        f"<style>{_STYLE}</style>",
        f'<script type="text/javascript">{plotly.offline.get_plotlyjs()}</script>',
        "</head><body>",
        f"<h1>{_esc(title)}</h1>",
        f'<p class="meta">{_esc(subtitle)}</p>' if subtitle else "",
        f'<p class="summary">{"".join(summary)}</p>',
    ]
    if errors:
        parts.append(
            '<div class="errors" id="errors"><b>'
            + f"{len(errors)} error(s)</b>: "
            + "; ".join(
                f'<a href="#step-{e.number}">step {e.number}</a> {_esc(e.author)}: '
                f"{_esc(e.error_code or '')} {_esc(_shown(e.error_message or '', 200))}"
                for e in errors
            )
            + "</div>"
        )
    config = {"displaylogo": False, "responsive": True}
    parts.append("<h2>Timeline</h2>")
    if agents:
        parts.append(
            '<p class="note">One bar per agent run, nested by its place in the tree; a lighter '
            "bar is an agent made of others (a pipeline, a route), red one that failed. "
            + (
                "A bar runs from the event before the agent's first to its last."
                if clock
                else "A recording keeps no clock: the axis counts its records."
            )
            + "</p>"
        )
        parts.append(
            _timeline(plotly, steps, clock, marks).to_html(
                full_html=False, include_plotlyjs=False, div_id="timeline", config=config
            )
        )
    else:
        parts.append('<p class="none" id="timeline-none">no agent events</p>')
    parts.append("<h2>Tokens and cost per agent</h2>")
    if report.calls:
        parts.append(
            _usage_figure(plotly, report).to_html(
                full_html=False, include_plotlyjs=False, div_id="usage", config=config
            )
        )
        if report.unpriced_models:
            parts.append(
                '<p class="note" id="unpriced">no price for: '
                + _esc(", ".join(report.unpriced_models))
                + " (cost_attribution(prices=...)); their calls count tokens only</p>"
            )
    else:
        reason = "no model calls recorded"
        if report.unattributed_calls:
            reason += (
                f" ({report.unattributed_calls} model response(s) reported usage: add "
                "cost_attribution() to the middleware to record them)"
            )
        parts.append(f'<p class="none" id="usage-none">{_esc(reason)}</p>')
    parts.append("<h2>Steps: state changes and errors</h2>")
    parts.append(_steps_table(steps, clock, origin))
    parts.append("</body></html>")
    return "\n".join(part for part in parts if part) + "\n"


def html_report(
    run: Any,
    *,
    title: str = "adk-fluent run report",
    last_run: bool = False,
    prices: Prices | None = None,
) -> str:
    """The run report of `run` as one self-contained HTML page (needs the `report` extra).

    `run`: what `usage()` takes (run()'s events, ADK Events, a stored Session) or a replay
    Recording; the events of a turn run with `lifecycle=True` give each agent's bar its exact
    start and end. `last_run=True` shows the last invocation only. `prices` prices a recording's
    calls (a session's events carry their cost already); the default table otherwise."""
    _plotly()
    if _is_recording(run):
        steps = _recording_steps(run)
        report = recording_usage(run, prices)
        header = run.header
        subtitle = (
            f"recording made {header.created} with google-adk {header.adk_version}; "
            f"{len(run.model_calls)} model call(s), {len(run.tool_calls)} tool call(s)"
        )
        clock = False
        marks: Marks = {}
    else:
        session = None
        if hasattr(run, "events") and not isinstance(run, list | tuple):
            session, run = run, run.events  # an ADK Session
        events = list(run or ())
        steps = _event_steps(events)
        report = usage(events)
        marks = _lifecycle_marks(events)
        subtitle = (
            f"session {session.id} of app {session.app_name}, user {session.user_id}"
            if session is not None
            else ""
        )
        clock = True
    if last_run and steps:
        steps = _last_invocation(steps)
        marks = {key: mark for key, mark in marks.items() if key[0] == steps[0].invocation_id}
        report = report.last_invocation() if report.calls else report
        subtitle += ("; " if subtitle else "") + "the last run"
    return _render(steps, report, title=title, clock=clock, subtitle=subtitle, marks=marks)
