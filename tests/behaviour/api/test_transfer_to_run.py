"""`.transfer_to(agent, when=...)` through the real Runner on SQLite, in adk-fluent's runtime and
in a plain Runner built from `.to_app()`, on both ADK ends: when the rule holds the model is not
called and the target answers; the next turn (a new Runner over the same store: a restart)
starts at the target; when it does not hold, the agent answers as usual; the stored hand-off is
marked as a rule's."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Route, S
from adk_fluent.adk.transfers import TRANSFER_RULE
from adk_fluent.testing import call, mock_backend
from tests.conftest import fresh_db_service
from tests.support.gates import USER, WAYS, calls, turn


def desk():
    vip = Agent("vip").instruct("Serve the VIP customer.")
    return (
        Agent("front")
        .instruct("Help the customer.")
        .transfer_to(vip, when=lambda state: state.get("tier") == "gold")
    )


@pytest.mark.parametrize("way", WAYS)
async def test_the_rule_hands_over_without_the_model_and_the_next_turn_stays(way, sqlite_url):
    backend = mock_backend({"front": ["How can I help?"], "vip": ["Welcome back.", "Done."]})
    flow = desk()
    seeded = await turn(
        S.set(tier="gold") >> flow, backend, "hello", sqlite_url, way=way, sid="gold"
    )
    assert seeded.said_by("vip") == ["Welcome back."]
    assert calls(backend, "front") == 0  # the rule decided, not the model
    app = (S.set(tier="gold") >> flow).to_app(backend=backend)
    session = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id=USER, session_id="gold"
    )
    marked = [e for e in session.events if (e.custom_metadata or {}).get(TRANSFER_RULE)]
    assert [e.author for e in marked] == ["front"]
    assert marked[0].custom_metadata[TRANSFER_RULE] == "vip"


def handing_desk():
    """front hands over to vip once, while vip has not answered yet (vip's reply is stored)."""
    vip = Agent("vip").instruct("Serve the VIP customer.").outputs("served")
    return (
        Agent("front")
        .instruct("Help the customer.")
        .transfer_to(vip, when=lambda s: s.get("tier") == "gold" and not s.get("served"))
    )


@pytest.mark.parametrize("way", WAYS)
async def test_a_later_turn_starts_at_the_agent_handed_to(way, sqlite_url):
    app = handing_desk().to_app()
    await fresh_db_service(sqlite_url).create_session(
        app_name=app.name, user_id=USER, session_id="t", state={"tier": "gold"}
    )
    backend = mock_backend({"front": ["How can I help?"], "vip": ["Welcome back.", "Done."]})
    first = await turn(handing_desk(), backend, "hello", sqlite_url, way=way, sid="t")
    assert first.said_by("vip") == ["Welcome back."]
    # the rule no longer holds (vip has answered): were the turn to start at front, front's
    # model would answer; ADK starts it at vip, where the conversation was handed
    later = await turn(handing_desk(), backend, "thanks", sqlite_url, way=way, sid="t")
    assert later.said_by("vip") == ["Done."]
    assert calls(backend, "front") == 0


@pytest.mark.parametrize("rule", [True, False], ids=["rule", "model"])
async def test_inside_a_pipeline_the_next_turn_starts_where_a_models_transfer_would(
    rule, sqlite_url
):
    """ADK starts a turn at the agent that answered last only through a chain of LLM agents;
    under a pipeline it starts at the top, for a rule's hand-off as for a model's."""
    vip = Agent("vip").instruct("Serve.")
    front = Agent("front").instruct("Help.")
    if rule:
        front = front.transfer_to(vip, when=lambda s: s.get("tier") == "gold")
        script = {"vip": ["Welcome.", "Again."]}
    else:
        front = front.delegate(vip)
        script = {
            "front": [call("transfer_to_agent", agent_name="vip")] * 2,
            "vip": ["Welcome.", "Again."],
        }
    flow = S.set(tier="gold") >> front
    backend = mock_backend(script)
    await turn(flow, backend, "hi", sqlite_url, sid=f"p{rule}")
    later = await turn(flow, backend, "more", sqlite_url, sid=f"p{rule}")
    assert later.said_by("vip") == ["Again."]
    # the second turn went through front again (the top of the pipeline)
    assert [who for who, _ in later.texts if who == "vip"] == ["vip"]
    assert calls(backend, "front") == (0 if rule else 2)


async def test_a_route_runs_a_branch_and_goes_on_where_a_transfer_stays(sqlite_url):
    """The difference the rule makes: after a Route, the pipeline's next step runs."""
    backend = mock_backend({"vip": ["Welcome."], "after": ["Anything else?"]})
    routed = (
        S.set(tier="gold")
        >> Route("tier").eq("gold", Agent("vip").instruct("Serve."))
        >> Agent("after").instruct("Close.")
    )
    result = await turn(routed, backend, "hi", sqlite_url, sid="r")
    assert [who for who, _ in result.texts] == ["vip", "after"]
