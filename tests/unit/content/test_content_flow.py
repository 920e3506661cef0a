"""The content flow (analysis/contracts/content.py): which replies an agent that declared what
it accepts is shown, this turn or in the next turn of the session, under every view; and the
prompt guard (`prompt_problem`). The behaviour tests check the same answers against ADK."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_fluent import Agent, C, FanOut, Loop, Route, gate
from adk_fluent.analysis.contracts.content import USER, content_flow, prompt_problem
from adk_fluent.errors import BuildError
from adk_fluent.ir.content import Modality

IMAGE = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))


def painter():
    return Agent("painter").instruct("Draw.").produces_modality("image")


def reader(view=None):
    agent = Agent("reader").instruct("Read.").accepts("text")
    return agent if view is None else view(agent)


def seen(expr, agent="reader"):
    """{speaker: 'now' | 'later'} for what `agent` may be shown ('now' when this turn shows it)."""
    flow = content_flow(expr.to_ir())
    (consumer,) = [c for c in flow.consumers if c.node.name == agent]
    found: dict[str, str] = {}
    for speaker, earlier in consumer.seen:
        if speaker != USER:
            found[speaker] = "now" if "now" == found.get(speaker) or not earlier else "later"
    return found


VIEWS = {
    "default": (None, "now"),
    "C.default": (lambda a: a.context(C.default()), "now"),
    "C.last_n_turns(2)": (lambda a: a.context(C.last_n_turns(2)), "now"),
    "C.from_agents(painter)": (lambda a: a.context(C.from_agents("painter")), "now"),
    "C.exclude_agents(other)": (lambda a: a.context(C.exclude_agents("other")), "now"),
    "include_contents none": (lambda a: a.include_contents("none"), "now"),
    "C.template": (lambda a: a.context(C.template("{k?}")), "now"),
    "C.user_only": (lambda a: a.context(C.user_only()), None),
    "C.none": (lambda a: a.context(C.none()), None),
    "C.from_state": (lambda a: a.context(C.from_state("k")), None),
    "C.exclude_agents(painter)": (lambda a: a.context(C.exclude_agents("painter")), None),
    "C.from_agents(other)": (lambda a: a.context(C.from_agents("other")), None),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_later_agent_sees_the_producer_per_its_view(name):
    view, expected = VIEWS[name]
    got = seen(painter() >> reader(view)).get("painter")
    assert got == expected


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        (None, "later"),
        (lambda a: a.context(C.last_n_turns(2)), "later"),
        (lambda a: a.context(C.last_n_turns(1)), None),
        (lambda a: a.include_contents("none"), None),
        (lambda a: a.context(C.user_only()), None),
        (lambda a: a.context(C.from_agents("painter")), "later"),
    ],
)
def test_an_earlier_agent_sees_the_producer_only_in_the_next_turn(view, expected):
    assert seen(reader(view) >> painter()).get("painter") == expected


def test_include_contents_none_sees_only_the_latest_reply():
    middle = Agent("middle").instruct("Say something.")
    assert seen(painter() >> middle >> reader(lambda a: a.include_contents("none"))) == {
        "middle": "now"
    }


def test_fanout_branches_never_see_each_other_and_the_joiner_sees_all():
    fan = FanOut(painter(), reader())
    assert seen(fan) == {}
    joined = FanOut(painter(), Agent("other").instruct("Other.")) >> reader()
    assert seen(joined) == {"painter": "now", "other": "now"}


def test_inside_a_branch_an_inner_fanouts_branches_stay_hidden():
    # ADK shows an agent on branch "outer.b" no event of branch "outer.b.inner.painter"
    inner = FanOut(painter(), Agent("other").instruct("O."), name="inner") >> reader()
    outer = FanOut(inner.named("b"), Agent("c").instruct("C."), name="outer")
    assert seen(outer) == {}


def test_a_route_a_loop_a_delegate_and_a_gate():
    route = (
        Agent("classifier").outputs("kind")
        >> Route("kind").eq("draw", painter()).otherwise(Agent("explainer"))
        >> reader()
    )
    assert seen(route)["painter"] == "now"
    loop = Loop(reader(), painter(), max_iterations=2)
    assert seen(loop) == {"painter": "now"}  # the second iteration shows the first's image
    front = Agent("front").instruct("Route.").delegate(painter(), reader())
    assert seen(front) == {"front": "later", "painter": "later"}
    paused = (
        painter()
        >> gate(lambda s: True, message="OK?")
        >> reader(lambda a: a.include_contents("none"))
    )
    assert seen(paused) == {"painter": "now"}  # when the gate does not pause


def test_an_agent_tool_is_a_sub_run_whose_media_the_caller_never_gets():
    caller = Agent("planner").instruct("Plan.").tool(painter()).accepts("text")
    flow = content_flow(caller.to_ir())
    assert [(d.caller, d.tool) for d in flow.dropped] == [("planner", "painter")]
    assert {speaker for speaker, _ in flow.consumers[0].seen} == {USER}


def test_an_agent_never_counts_as_seeing_itself():
    agent = Agent("artist").produces_modality("image").accepts("text")
    assert seen(Loop(agent, max_iterations=3), "artist") == {}


# -- the prompt guard ------------------------------------------------------------------------
def test_a_text_prompt_or_an_undeclared_pipeline_is_never_refused():
    assert prompt_problem(reader().to_ir(), [types.Part(text="hi")]) is None
    assert prompt_problem((painter() >> Agent("x")).to_ir(), [IMAGE]) is None


def test_an_image_prompt_to_an_agent_that_does_not_accept_images_is_refused():
    problem = prompt_problem((Agent("first").instruct("F.") >> reader()).to_ir(), [IMAGE])
    assert isinstance(problem, BuildError)
    assert problem.agent == "reader" and problem.field == "prompt"
    assert "image" in problem.message and '.accepts("text", "image")' in problem.hint


def test_the_guard_follows_the_views():
    vision = Agent("vision").instruct("Look.").accepts("image").outputs("description")
    shielded = vision >> reader(lambda a: a.include_contents("none"))
    assert prompt_problem(shielded.to_ir(), [IMAGE]) is None
    exposed = vision >> reader(lambda a: a.context(C.from_state("description")))
    assert prompt_problem(exposed.to_ir(), [IMAGE]).agent == "reader"
    first = reader(lambda a: a.include_contents("none"))  # first agent: sees the user
    assert prompt_problem(first.to_ir(), [IMAGE]).agent == "reader"


def test_the_guard_names_every_media_kind_of_the_message():
    pdf = types.Part(file_data=types.FileData(file_uri="gs://b/x.pdf", mime_type="application/pdf"))
    problem = prompt_problem(Agent("v").accepts("image").to_ir(), [IMAGE, pdf])
    assert "pdf" in problem.message and "image content" not in problem.message
    assert prompt_problem(Agent("v").accepts("image", "pdf").to_ir(), [IMAGE, pdf]) is None
    assert Modality.PDF.value in problem.hint


def test_the_guard_answers_for_trees_that_cannot_be_remembered_too():
    config = types.GenerateContentConfig(temperature=0.1)  # not hashable: no cache key
    root = reader().generate_content_config(config).to_ir()
    with pytest.raises(TypeError):
        hash(root)
    assert prompt_problem(root, [IMAGE]).agent == "reader"
    assert prompt_problem(root, [IMAGE]) is not prompt_problem(root, [IMAGE])  # fresh errors


def test_the_guard_sees_past_a_gate_that_may_not_pause():
    # when the gate does not pause, the agent after it is shown this turn's message
    pipeline = Agent("vision").accepts("image") >> gate(lambda s: False, message="OK?") >> reader()
    assert prompt_problem(pipeline.to_ir(), [IMAGE]).agent == "reader"
