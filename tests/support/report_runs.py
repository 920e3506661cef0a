"""A real run for the HTML run report's tests (tests/behaviour/telemetry/test_html_report.py,
tests/integration/telemetry/test_html_report_browser.py): a support pipeline whose desk agent
calls a tool that writes state and delegates to a helper (call depth 1), run twice through the
real ADK Runner with scripted models into a SQLite store; the second turn fails in a step
(STATE_STEP_RAISED). The helper's and the writer's replies carry script that must never run."""

from __future__ import annotations

import asyncio
from typing import Any

from adk_fluent import Agent, ExecutionConfig, Route, S
from adk_fluent.telemetry import cost_attribution
from adk_fluent.testing import call, mock_backend, with_usage

# what a model (or a user quoting one) could put in a reply: it must show as text
PAYLOAD = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
LLM_AGENTS = ("intake", "desk", "helper", "writer")


def lookup(order_id: str, tool_context: Any) -> dict[str, str]:
    """Look an order up."""
    status = "lost" if order_id.startswith("B") else "shipped"
    tool_context.state["order_status"] = status
    return {"status": status}


def audit(state: dict[str, Any]) -> None:
    """Refuse to go on with a lost order (a step that fails: an error event)."""
    if state.get("order_status") == "lost":
        raise ValueError("refund limit exceeded")


def support_flow() -> Any:
    desk = (
        Agent("desk")
        .instruct("Look the order up, then hand over.")
        .tool(lookup)
        .delegate(Agent("helper").description("Explains.").instruct("Explain."))
    )
    return (
        Agent("intake").instruct("Label the request.").outputs("kind")
        >> S.set(seen=True)
        >> Route("kind").eq("order", desk)
        >> Agent("writer").instruct("Answer.").outputs("answer")
        >> audit
    ).named("support")


def scripts(payload: bool = True) -> dict[str, list[Any]]:
    """Two turns: A7 (shipped, ok), then B9 (lost: audit fails); `payload` puts PAYLOAD in the
    first turn's helper and writer replies."""
    extra = f" {PAYLOAD}" if payload else ""
    return {
        "intake": [with_usage("order", input=1200, output=30)] * 2,
        "desk": [
            with_usage(call("lookup", order_id="A7"), input=2000, output=40),
            with_usage(call("transfer_to_agent", agent_name="helper"), input=2100, output=20),
            with_usage(call("lookup", order_id="B9"), input=2000, output=40),
            with_usage(call("transfer_to_agent", agent_name="helper"), input=2100, output=20),
        ],
        "helper": [
            with_usage(f"A7 left the warehouse on Monday.{extra}", input=900, output=60),
            with_usage("B9 was lost in transit.", input=950, output=20),
        ],
        "writer": [
            with_usage(f"It shipped on Monday.{extra}", input=1500, output=80),
            with_usage("It is lost.", input=1500, output=40),
        ],
    }


async def run_support(
    url: str, *, middleware: Any = None, turns: int = 2, payload: bool = True
) -> list[Any]:
    """Run the support flow `turns` times in session s1 of the store at `url`; the events."""
    flow = support_flow()
    backend = mock_backend(scripts(payload))
    chosen = (cost_attribution(),) if middleware is None else tuple(middleware)
    config = ExecutionConfig(middleware=chosen)
    events: list[Any] = []
    for prompt in ("Where is A7?", "Where is B9?")[:turns]:
        events += await flow.run(
            prompt, backend=backend, config=config, session_id="s1", session_store=url
        )
    return events


def stored_support_session(url: str, **options: Any) -> list[Any]:
    """run_support from synchronous code (a CLI test)."""
    return asyncio.run(run_support(url, **options))
