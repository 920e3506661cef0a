"""Call-tree depth on every event (issue 39), on both ADK ends, both ways (adk-fluent's runtime
and a plain Runner from .to_app()), and in the SQLite store after a reload: a pipeline's hand-offs
keep depth 0 whatever the visibility; an LLM agent's delegate runs one level below it; an agent
tool's run is one level below the agent that calls it."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.testing import call, mock_backend
from tests.support.visibility import WAYS, run_turn

DEPTH, VISIBILITY = "adk_fluent.depth", "adk_fluent.visibility"


def lookup(city: str) -> dict:
    """Look a city up."""
    return {"city": city, "weather": "sunny"}


def annotations(events: list[Any]) -> list[tuple[str, Any, Any]]:
    """(author, depth, visibility) of every event an agent authored."""
    return [
        (e.author, (e.custom_metadata or {}).get(DEPTH), (e.custom_metadata or {}).get(VISIBILITY))
        for e in events
        if e.author != "user"
    ]


@pytest.mark.parametrize("way", WAYS)
async def test_every_step_of_a_pipeline_is_depth_0_whatever_its_visibility(way, sqlite_url):
    pipeline = (
        Agent("a").instruct("Look up.").tool(lookup).outputs("ka")
        >> Agent("b").instruct("{ka}").outputs("kb")
        >> Agent("c").instruct("{kb}")
    )
    scripts = {"a": [call("lookup", city="Paris"), "found"], "b": "noted", "c": "Sunny in Paris."}
    outcome = await run_turn(pipeline, scripts, way=way, store=sqlite_url)
    stored = annotations(outcome.raw_stored)
    # the tool call, the tool's result and each reply: stored with depth 0, on every release
    assert stored == [
        ("a", 0, "internal"),
        ("a", 0, "internal"),
        ("a", 0, "internal"),
        ("b", 0, "internal"),
        ("c", 0, "user"),
    ]
    assert annotations(outcome.client) == stored


@pytest.mark.parametrize("way", WAYS)
async def test_a_delegate_runs_one_level_below_the_agent_that_transfers(way, sqlite_url):
    pipeline = Agent("intro").instruct("Greet.").outputs("greeting") >> Agent("lead").instruct(
        "Route."
    ).delegate(Agent("helper").description("Helps.").instruct("Help."))
    scripts = {
        "intro": "Hello.",
        "lead": call("transfer_to_agent", agent_name="helper"),
        "helper": "I can help.",
    }
    outcome = await run_turn(pipeline, scripts, way=way, store=sqlite_url)
    depths = {(author, depth) for author, depth, _ in annotations(outcome.raw_stored)}
    assert depths == {("intro", 0), ("lead", 0), ("helper", 1)}
    assert {(a, d) for a, d, _ in annotations(outcome.client)} == depths
    helper = [e for e in outcome.raw_stored if e.author == "helper"]
    assert helper and helper[-1].custom_metadata[VISIBILITY] == "user"  # it answers the user


class _ModelReplies(BasePlugin):
    """Records the annotations of every model reply, in sub-runs too (agent tools run the
    App's plugins)."""

    def __init__(self) -> None:
        super().__init__(name="model_replies")
        self.seen: list[tuple[str, Any]] = []

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        metadata = llm_response.custom_metadata or {}
        self.seen.append((callback_context.agent_name, metadata.get(DEPTH)))


async def test_an_agent_tools_run_is_one_level_below_its_caller():
    fact_checker = Agent("fact_checker").instruct("Check.")
    researcher = Agent("researcher").instruct("Research.").tool(fact_checker)
    lead = Agent("intro").instruct("Greet.").outputs("hi") >> Agent("lead").instruct(
        "Answer."
    ).tool(researcher)
    replies = _ModelReplies()
    backend = mock_backend(
        {
            "intro": "Hi.",
            "lead": [call("researcher", request="rome"), "Rome is old."],
            "researcher": [call("fact_checker", request="rome"), "Founded 753 BC."],
            "fact_checker": "Checked.",
        }
    )
    events = await lead.run("Rome?", backend=backend, config=ExecutionConfig(plugins=[replies]))
    assert replies.seen == [
        ("intro", 0),
        ("lead", 0),
        ("researcher", 1),
        ("fact_checker", 2),
        ("researcher", 1),
        ("lead", 0),
    ]
    # the tools' runs reach run()'s caller too, at their depth (test_agent_tool_events.py)
    assert {e.author: e.depth for e in events} == {
        "intro": 0,
        "lead": 0,
        "researcher": 1,
        "fact_checker": 2,
    }


@pytest.mark.parametrize("way", WAYS)
async def test_fanout_branches_keep_depth_on_their_tool_results_too(way, sqlite_url):
    # on store-then-plugin releases a tool result stored while both branches run carries the
    # annotations they share: depth is one of them (the path is not)
    pipeline = (
        Agent("north").instruct("N.").tool(lookup).outputs("kn")
        | Agent("south").instruct("S.").tool(lookup).outputs("ks")
    ) >> Agent("writer").instruct("{kn} {ks}")
    scripts = {
        "north": [call("lookup", city="Oslo"), "cold"],
        "south": [call("lookup", city="Rome"), "warm"],
        "writer": "Cold and warm.",
    }
    outcome = await run_turn(pipeline, scripts, way=way, store=sqlite_url)
    stored = annotations(outcome.raw_stored)
    assert len(stored) == 7 and {depth for _, depth, _ in stored} == {0}
