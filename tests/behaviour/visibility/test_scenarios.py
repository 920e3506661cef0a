"""The six scenarios of the event-visibility document, on both ADK ends, run both ways (adk-fluent
runtime and a plain Runner from .to_app()), on in-memory and SQLite stores: what the client
receives, what the store holds after a reload, and what the next agent's model request held."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Route, infer_visibility, loop_until, map_over
from adk_fluent.adk.compat import plugin_edits_are_stored
from tests.conftest import request_texts, system_instruction
from tests.support.visibility import WAYS, run_turn


@pytest.fixture(params=["memory", "sqlite"])
def store(request, db_dir):
    return "memory" if request.param == "memory" else f"sqlite:///{db_dir / 'v.db'}"


def classification(mode):
    pipeline = Agent("classifier").instruct("Output one word: booking or info.").outputs(
        "intent"
    ) >> Route("intent").eq("booking", Agent("booker").instruct("Book: {intent}")).eq(
        "info", Agent("info")
    )
    return getattr(pipeline, mode)()


@pytest.mark.parametrize("way", WAYS)
async def test_scenario_1_classification_to_routing(way, store):
    scripts = {"classifier": "booking", "booker": "Happy to book your flight to London!"}
    assert infer_visibility(classification("filtered").to_ir()) == {
        "pipeline__classifier__route_intent": "zero_cost",
        "classifier": "internal",
        "route_intent": "zero_cost",
        "booker": "user",
        "info": "user",
    }

    filtered = await run_turn(classification("filtered"), scripts, way=way, store=store)
    assert filtered.client_texts() == [("booker", "Happy to book your flight to London!")]
    classifier_events = [e for e in filtered.client if e.author == "classifier"]
    assert classifier_events and classifier_events[0].actions.state_delta == {"intent": "booking"}
    assert filtered.stored_texts() == [
        ("classifier", "booking"),
        ("booker", "Happy to book your flight to London!"),
    ]
    assert filtered.state["intent"] == "booking"
    raw = next(e for e in filtered.raw_stored if e.author == "classifier")
    if way == "runner" and plugin_edits_are_stored():
        # this ADK stores what the plugin returns: the text waits in an artifact (or, beside a
        # database whose restart an in-memory artifact store would not survive, in the session
        # store's companion session), not in the event
        assert raw.content is None and "adk_fluent.hidden_content" not in raw.custom_metadata
        assert "booking" not in str(raw.custom_metadata)  # (the state delta carries it, by design)
        ref = raw.custom_metadata["adk_fluent.hidden_ref"]
        if store == "memory":
            assert ref["artifact"] == f"adk_fluent.hidden.{raw.id}.json"
        else:
            assert ref == {"session": "adk_fluent_app.adk_fluent_hidden"}
    else:
        assert (
            raw.content.parts[0].text == "booking"
        )  # the store kept the event as the agent produced it

    annotated = await run_turn(
        classification("annotated"), scripts, way=way, store=store, session_id="a"
    )
    assert annotated.client_text_authors() == ["classifier", "booker"]
    meta = {e.author: e.custom_metadata for e in annotated.client if e.content}
    assert meta["classifier"]["adk_fluent.visibility"] == "internal"
    assert meta["classifier"]["adk_fluent.is_user_facing"] is False
    # a pipeline hands on to the route, which hands on to its branch: all at depth 0, whatever
    # their visibility
    assert meta["classifier"]["adk_fluent.depth"] == 0
    assert meta["booker"]["adk_fluent.depth"] == 0
    assert (
        meta["booker"]["adk_fluent.path"]
        == "pipeline__classifier__route_intent/route_intent/booker"
    )

    # the booker's model saw the same request whatever the mode
    seen_filtered = filtered.backend.requests["booker"][0]
    seen_annotated = annotated.backend.requests["booker"][0]
    assert request_texts(seen_filtered) == request_texts(seen_annotated)
    assert any("booking" in t for t in request_texts(seen_filtered))
    assert "Book: booking" in system_instruction(seen_filtered)


@pytest.mark.parametrize("way", WAYS)
async def test_scenario_2_refinement_loop(way, store):
    pipeline = (
        Agent("drafter").outputs("draft")
        >> loop_until(
            lambda s: s.get("feedback", "").startswith("APPROVED"),
            Agent("reviewer").instruct("Review {draft}").outputs("feedback")
            >> Agent("refiner").instruct("Refine with {feedback}").outputs("draft"),
            max_iterations=3,
        )
        >> Agent("presenter").instruct("Present {draft}")
    ).filtered()
    scripts = {
        "drafter": "draft v1",
        "reviewer": ["tighten it", "APPROVED"],
        "refiner": ["draft v2", "draft v3"],
        "presenter": "Here is the final text: draft v3",
    }
    outcome = await run_turn(pipeline, scripts, way=way, store=store)
    assert outcome.client_texts() == [("presenter", "Here is the final text: draft v3")]
    assert [a for a, _ in outcome.stored_texts()] == [
        "drafter",
        "reviewer",
        "refiner",
        "reviewer",
        "refiner",
        "presenter",
    ]
    assert outcome.state["draft"] == "draft v3" and outcome.state["feedback"] == "APPROVED"
    # the second review saw the first refinement in its history
    assert any("draft v2" in t for t in request_texts(outcome.backend.requests["reviewer"][1]))
    outcome.backend.assert_consumed()


@pytest.mark.parametrize("way", WAYS)
async def test_scenario_3_progressive_thinking_steps(way, store):
    pipeline = (
        Agent("analyzer").show() >> Agent("researcher").show() >> Agent("synthesizer")
    ).filtered()
    scripts = {"analyzer": "Analyzing...", "researcher": "Researching...", "synthesizer": "Answer."}
    outcome = await run_turn(pipeline, scripts, way=way, store=store)
    assert outcome.client_texts() == [
        ("analyzer", "Analyzing..."),
        ("researcher", "Researching..."),
        ("synthesizer", "Answer."),
    ]
    assert all(e.custom_metadata["adk_fluent.depth"] == 0 for e in outcome.client if e.content)


@pytest.mark.parametrize("way", WAYS)
async def test_scenario_4_map_over_with_synthesis(way, store):
    from adk_fluent import S

    pipeline = (
        S.set(documents=["d1", "d2", "d3"])
        >> map_over(
            "documents", Agent("summarizer").instruct("Summarize {item}"), output_key="results"
        )
        >> Agent("synthesizer").instruct("Synthesize {results}")
    ).filtered()
    scripts = {"summarizer": ["s1", "s2", "s3"], "synthesizer": "All three say hello."}
    outcome = await run_turn(pipeline, scripts, way=way, store=store)
    assert outcome.client_texts() == [("synthesizer", "All three say hello.")]
    assert [t for a, t in outcome.stored_texts() if a == "summarizer"] == ["s1", "s2", "s3"]
    assert outcome.state["results"] == ["s1", "s2", "s3"]
    assert "Synthesize ['s1', 's2', 's3']" in system_instruction(
        outcome.backend.requests["synthesizer"][0]
    )
    assert any("s3" in t for t in request_texts(outcome.backend.requests["synthesizer"][0]))


@pytest.mark.parametrize("way", WAYS)
async def test_scenario_5_human_review_transparent(way, store):
    pipeline = (Agent("drafter") >> Agent("reviewer") >> Agent("editor")).transparent().filtered()
    scripts = {"drafter": "draft", "reviewer": "review", "editor": "edited"}
    outcome = await run_turn(pipeline, scripts, way=way, store=store)
    assert outcome.client_texts() == [
        ("drafter", "draft"),
        ("reviewer", "review"),
        ("editor", "edited"),
    ]
    assert all(
        e.custom_metadata["adk_fluent.visibility"] == "user" for e in outcome.client if e.content
    )


@pytest.mark.parametrize("way", WAYS)
async def test_scenario_6_single_agent(way, store):
    outcome = await run_turn(
        Agent("helper").filtered(), {"helper": "Hi there."}, way=way, store=store
    )
    assert outcome.client_texts() == [("helper", "Hi there.")]
    assert outcome.client[-1].custom_metadata["adk_fluent.visibility"] == "user"
    assert outcome.client[-1].custom_metadata["adk_fluent.depth"] == 0
