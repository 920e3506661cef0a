"""Injected resources through the real Runner (on both ADK ends): the FunctionDeclaration ADK
sends the model lacks them, the tool gets them at call time. Also presets and @agent agents
running, since they are applied as the same setter calls."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.adk.tools.tool_context import ToolContext
from google.genai import types

from adk_fluent import Agent, Preset, agent, per_call
from adk_fluent.testing import call, mock_backend
from tests.conftest import system_instruction

if TYPE_CHECKING:  # the resource's type, for type checkers only (unresolvable at run time)
    from decimal import Context as Ledger


def declared_parameters(request, tool_name: str) -> set[str]:
    """The parameter names the model is told a tool takes, from the LlmRequest ADK built (ADK
    2.x sends a JSON schema, 1.x a genai Schema)."""
    for tool in request.config.tools or []:
        for declaration in tool.function_declarations or []:
            if declaration.name != tool_name:
                continue
            if declaration.parameters_json_schema is not None:
                return set(declaration.parameters_json_schema.get("properties", {}))
            parameters = declaration.parameters
            return set(parameters.properties or {}) if parameters is not None else set()
    raise AssertionError(f"no declaration of {tool_name} in the request")


class Warehouse:
    """A shared client: records every lookup and who asked."""

    def __init__(self) -> None:
        self.lookups: list[str] = []

    def status(self, order_id: str) -> str:
        self.lookups.append(order_id)
        return "shipped" if order_id == "A7" else "unknown"


def order_status(order_id: str, orders: dict, tool_context: ToolContext) -> dict:
    """The status of an order."""
    tool_context.state["last_order"] = order_id
    return {"status": orders.get(order_id, "unknown")}


async def track(order_id: str, warehouse: Warehouse) -> dict:
    """Where an order is."""
    return {"status": warehouse.status(order_id)}


async def test_the_model_is_not_told_about_the_resource_but_the_tool_gets_it():
    orders = {"A7": "shipped"}
    desk = Agent("desk").instruct("Answer order questions.").tool(order_status)
    plain = mock_backend({"desk": "ok"})
    await desk.run("hi", backend=plain)
    assert declared_parameters(plain.requests["desk"][0], "order_status") == {"orders", "order_id"}

    injected = desk.inject(orders=orders)
    backend = mock_backend(
        {"desk": [call("order_status", order_id="A7", orders={"A7": "forged"}), "It shipped."]}
    )
    events = await injected.run("Where is A7?", backend=backend, session_id="s1")
    assert declared_parameters(backend.requests["desk"][0], "order_status") == {"order_id"}
    responses = [r for e in events for r in e.tool_responses]
    assert [r.result for r in responses] == [{"status": "shipped"}]  # the forged value lost
    session = await injected.session("s1", backend=backend)
    assert session.state["last_order"] == "A7"  # tool_context is still ADK's
    backend.assert_consumed()


async def test_an_async_tool_gets_a_shared_client_in_every_session():
    warehouse = Warehouse()
    desk = Agent("desk").instruct("Track.").tool(track).inject(warehouse=warehouse)
    for session in ("alice", "bob"):
        backend = mock_backend({"desk": [call("track", order_id="A7"), "Shipped."]})
        assert await desk.ask("A7?", backend=backend, session_id=session) == "Shipped."
        assert declared_parameters(backend.requests["desk"][0], "track") == {"order_id"}
    assert warehouse.lookups == ["A7", "A7"]  # one object served both sessions


async def test_per_call_makes_a_fresh_resource_for_each_call():
    made: list[Warehouse] = []

    async def open_warehouse() -> Warehouse:
        made.append(Warehouse())
        return made[-1]

    desk = Agent("desk").instruct("Track.").tool(track).inject(warehouse=per_call(open_warehouse))
    backend = mock_backend(
        {"desk": [call("track", order_id="A7"), call("track", order_id="B2"), "Done."]}
    )
    assert await desk.ask("A7 and B2?", backend=backend) == "Done."
    assert [w.lookups for w in made] == [["A7"], ["B2"]]


async def test_an_agent_used_as_a_tool_has_its_own_resources():
    warehouse = Warehouse()
    tracker = Agent("tracker").instruct("Track.").tool(track).inject(warehouse=warehouse)
    desk = Agent("desk").instruct("Help.").tool(tracker)
    backend = mock_backend(
        {
            "desk": [call("tracker", request="A7"), "It shipped."],
            "tracker": [call("track", order_id="A7"), "shipped"],
        }
    )
    assert await desk.ask("A7?", backend=backend) == "It shipped."
    assert declared_parameters(backend.requests["tracker"][0], "track") == {"order_id"}
    assert warehouse.lookups == ["A7"]


async def test_a_resource_typed_for_type_checkers_only_still_declares_the_tool():
    def balance(account: str, ledger: Ledger, tool_context: ToolContext) -> dict:
        """An account's balance."""
        return {"balance": ledger[account]}

    teller = Agent("teller").instruct("Answer.").tool(balance).inject(ledger={"acc-1": 12})
    backend = mock_backend({"teller": [call("balance", account="acc-1"), "You have 12."]})
    events = await teller.run("Balance?", backend=backend)
    assert declared_parameters(backend.requests["teller"][0], "balance") == {"account"}
    assert [r.result for e in events for r in e.tool_responses] == [{"balance": 12}]


# -- presets and @agent, running -------------------------------------------------------------


async def test_a_presets_callback_and_config_reach_the_model_request():
    seen: list[str] = []

    def audit(callback_context, llm_request):
        seen.append(callback_context.agent_name)

    careful = Preset(
        generate_content_config=types.GenerateContentConfig(temperature=0.1),
        before_model=audit,
    )
    writer = Agent("writer").use(careful).instruct("Write.")
    backend = mock_backend({"writer": "A poem."})
    assert await writer.ask("Write", backend=backend) == "A poem."
    assert seen == ["writer"]
    assert backend.requests["writer"][0].config.temperature == 0.1


async def test_agents_made_with_the_decorator_run_in_a_pipeline():
    @agent(outputs="topic")
    def triage():
        """You sort support tickets into billing or shipping."""

    @agent(use=Preset(outputs="reply"))
    def responder(ctx):
        """Answers the ticket."""
        return f"Answer the {ctx.state.get('topic', 'general')} ticket."

    flow = triage >> responder
    backend = mock_backend({"triage": "shipping", "responder": "On its way."})
    await flow.run("Where is my parcel?", backend=backend, session_id="t1")
    assert "You sort support tickets" in system_instruction(backend.requests["triage"][0])
    assert "Answer the shipping ticket." in system_instruction(backend.requests["responder"][0])
    session = await flow.session("t1", backend=backend)
    assert session.state["reply"] == "On its way."
