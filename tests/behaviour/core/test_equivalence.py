"""A fluent-built tree equals the hand-built ADK tree, field by field, on the installed ADK."""

from __future__ import annotations

import warnings

from google.adk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent

from adk_fluent import Agent


def lookup(city: str) -> dict:
    """Look a city up."""
    return {"city": city}


def before(ctx, request):
    return None


def dump(agent) -> dict:
    data = agent.model_dump(exclude={"parent_agent", "sub_agents"})
    for key, value in data.items():  # on ADK 1.x callbacks are wrapped to bind like 2.x
        if key.endswith("_callback") and value is not None:
            items = value if isinstance(value, list) else [value]
            data[key] = [getattr(f, "__wrapped__", f) for f in items]
    data["sub_agents"] = [dump(child) for child in agent.sub_agents]
    data["type"] = type(agent).__name__
    return data


def test_fluent_tree_equals_hand_written_tree():
    fluent = (
        Agent("classifier", "gemini-2.5-flash")
        .instruct("Classify {topic}")
        .outputs("intent")
        .description("c")
        >> (
            Agent("a", "gemini-2.5-flash").tool(lookup).before_model(before)
            | Agent("b", "gemini-2.5-flash").include_contents("none")
        )
        >> Agent("writer", "gemini-2.5-flash").instruct("Write") * 2
    )
    built = fluent.build(target="classic")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        by_hand = SequentialAgent(
            name=built.name,
            sub_agents=[
                LlmAgent(
                    name="classifier",
                    model="gemini-2.5-flash",
                    instruction="Classify {topic}",
                    output_key="intent",
                    description="c",
                ),
                ParallelAgent(
                    name=built.sub_agents[1].name,
                    sub_agents=[
                        LlmAgent(
                            name="a",
                            model="gemini-2.5-flash",
                            tools=[lookup],
                            before_model_callback=before,
                        ),
                        LlmAgent(name="b", model="gemini-2.5-flash", include_contents="none"),
                    ],
                ),
                LoopAgent(
                    name=built.sub_agents[2].name,
                    max_iterations=2,
                    sub_agents=[
                        LlmAgent(name="writer", model="gemini-2.5-flash", instruction="Write"),
                    ],
                ),
            ],
        )
    assert dump(built) == dump(by_hand)
    assert built.sub_agents[0].parent_agent is built
