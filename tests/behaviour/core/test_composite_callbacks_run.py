"""The small gaps, through the real Runner: Pipeline / FanOut / Loop `.before_agent()` and
`.after_agent()` run and their state writes reach the store; two spellings of one field
(`.instruct()` / `.instruction()`, `.outputs()` / `.output_key()`) warn when they disagree and
the last one set is what the model and the store get; `.sub_agents()` on any builder names the
spelling that exists."""

from __future__ import annotations

import warnings

import pytest

from adk_fluent import Agent, FanOut, Loop, Pipeline
from adk_fluent.errors import AdkFluentWarning, UnknownSetterError
from adk_fluent.testing import mock_backend
from tests.conftest import fresh_db_service, system_instruction


def mark_start(callback_context):
    callback_context.state["started_by"] = callback_context.agent_name
    callback_context.state["order"] = ["start"]


def mark_end(callback_context):
    callback_context.state["ended_by"] = callback_context.agent_name
    callback_context.state["order"] = [*callback_context.state.get("order", []), "end"]


def note_step(callback_context):
    callback_context.state["order"] = [*callback_context.state.get("order", []), "step"]


COMPOSITES = {
    "pipeline": lambda a, b: Pipeline(a, b, name="flow"),
    "fanout": lambda a, b: FanOut(a, b, name="flow"),
    "loop": lambda a, b: Loop(a, b, name="flow", max_iterations=1),
}


@pytest.fixture(params=["memory", "sqlite"])
def store(request, db_dir):
    return None if request.param == "memory" else f"sqlite:///{db_dir / 'cb.db'}"


@pytest.mark.parametrize("kind", list(COMPOSITES))
async def test_composite_before_and_after_agent_callbacks_run_and_their_writes_are_stored(
    kind, store
):
    first = Agent("first").instruct("One.").after_agent(note_step)
    second = Agent("second").instruct("Two, started by {started_by}.")
    tree = COMPOSITES[kind](first, second).before_agent(mark_start).after_agent(mark_end)
    backend = mock_backend({"first": "1", "second": "2"})
    events = await tree.run("go", backend=backend, session_id="cb", session_store=store)
    backend.assert_consumed()
    # the composite's before_agent ran before its steps: the second step read what it wrote
    assert "Two, started by flow." in system_instruction(backend.requests["second"][0])
    assert events[0].author == "flow" and events[0].state_delta["started_by"] == "flow"
    assert events[-1].author == "flow" and events[-1].state_delta["ended_by"] == "flow"
    if store is None:
        state = (await tree.session("cb", backend=backend)).state
    else:
        reloaded = await fresh_db_service(store).get_session(
            app_name="adk_fluent_app", user_id="user", session_id="cb"
        )
        state = reloaded.state
    assert (state["started_by"], state["ended_by"]) == ("flow", "flow")
    assert state["order"] == ["start", "step", "end"]


async def test_composite_callbacks_accumulate_in_order():
    def second_start(callback_context):
        callback_context.state["order"] = [*callback_context.state["order"], "second start"]

    tree = (
        Pipeline(Agent("only").instruct("x"), name="flow")
        .before_agent(mark_start)
        .before_agent(second_start)
    )
    backend = mock_backend({"only": "ok"})
    await tree.run("go", backend=backend, session_id="acc")
    assert (await tree.session("acc", backend=backend)).state["order"] == ["start", "second start"]


# -- two spellings of one field -------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, winner",
    [
        (lambda: Agent("w").instruct("Be brief.").instruction("Be thorough."), "Be thorough."),
        (lambda: Agent("w").instruction("Be brief.").instruct("Be thorough."), "Be thorough."),
    ],
    ids=["instruct-then-instruction", "instruction-then-instruct"],
)
async def test_two_instruction_spellings_that_disagree_warn_and_the_last_wins(make, winner):
    with pytest.warns(AdkFluentWarning, match=r"\.instruct\(\) is the canonical spelling"):
        agent = make()
    backend = mock_backend({"w": "ok"})
    await agent.run("go", backend=backend)
    seen = system_instruction(backend.requests["w"][0])
    assert winner in seen and "Be brief." not in seen


@pytest.mark.parametrize(
    "make",
    [
        lambda: Agent("w").outputs("summary").output_key("abstract"),
        lambda: Agent("w").output_key("summary").outputs("abstract"),
    ],
    ids=["outputs-then-output_key", "output_key-then-outputs"],
)
async def test_two_output_key_spellings_that_disagree_warn_and_the_last_wins(make):
    with pytest.warns(AdkFluentWarning, match=r"\.outputs\(\) is the canonical spelling"):
        agent = make()
    backend = mock_backend({"w": "the reply"})
    await agent.run("go", backend=backend, session_id="o")
    state = (await agent.session("o", backend=backend)).state
    assert state == {"abstract": "the reply"}


@pytest.mark.parametrize(
    "make",
    [
        lambda: Agent("w").instruct("Same.").instruction("Same."),
        lambda: Agent("w").instruction("Same.").instruct("Same."),
        lambda: Agent("w").outputs("k").output_key("k"),
        lambda: Agent("w").instruct("First.").instruct("Second."),  # one spelling: no warning
    ],
    ids=["same-instruction", "same-instruction-reversed", "same-output-key", "one-spelling-twice"],
)
def test_no_warning_when_the_spellings_agree_or_only_one_is_used(make):
    with warnings.catch_warnings():
        warnings.simplefilter("error", AdkFluentWarning)
        make().build()


@pytest.mark.parametrize(
    "make",
    [
        lambda: Agent("w").instruct("a").instruction("b"),
        lambda: Agent("w").outputs("a").output_key("b"),
    ],
    ids=["instruction", "output_key"],
)
def test_the_spelling_warning_points_at_the_users_line(make):
    with pytest.warns(AdkFluentWarning) as caught:
        make()
    assert caught[0].filename == __file__


@pytest.mark.parametrize(
    "builder, hint",
    [
        (lambda: Agent("a"), ".delegate(agent"),
        (lambda: Pipeline(Agent("a"), name="p"), "Pipeline(a, b) or a >> b"),
        (lambda: Loop(Agent("a"), name="l"), "Loop(a, b) or (a >> b) * 3"),
        (lambda: FanOut(Agent("a"), name="f"), "FanOut(a, b) or a | b"),
    ],
    ids=["agent", "pipeline", "loop", "fanout"],
)
def test_sub_agents_names_the_spelling_that_exists(builder, hint):
    with pytest.raises(UnknownSetterError) as caught:
        builder().sub_agents(Agent("z"))
    message = str(caught.value)
    assert "'sub_agents'" in message and hint in message
    assert "before_agent" not in message  # no misleading did-you-mean
