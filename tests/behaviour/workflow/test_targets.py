"""Choosing the compile target (docs/workflow.md), on both ADK ends: the names accepted, the
default per release, ADK_FLUENT_TARGET, the refusal on a release without Workflow graphs, what
the Workflow target builds (and never builds), its state_schema, and the test that fails the
day ADK removes its classic workflow agents."""

from __future__ import annotations

import warnings
from typing import Annotated

import pytest

from adk_fluent import (
    Agent,
    BuildError,
    ExecutionConfig,
    FanOut,
    Loop,
    Native,
    Route,
    S,
    StateSchema,
    Temp,
    UserScoped,
    exit_when,
    gate,
    map_over,
    race,
    tap,
    timeout,
)
from adk_fluent.adk.compat import (
    adk_version,
    classic_agents_available,
    workflow_agents_warn,
    workflow_graphs_missing,
)
from adk_fluent.adk.probes import WORKFLOW_DEPRECATION
from adk_fluent.adk.targets import default_target
from adk_fluent.testing import call, mock_backend

HAS_GRAPHS = workflow_graphs_missing() is None


class Stay(StateSchema):  # at module level: its annotations resolve (scopes included)
    city: str
    nights: int = 1
    tier: Annotated[str, UserScoped]
    scratch: Annotated[dict, Temp]


needs_graphs = pytest.mark.skipif(not HAS_GRAPHS, reason=f"{workflow_graphs_missing()}")


def _pipeline() -> Agent:
    return Agent("reader").instruct("Read.").outputs("facts") >> Agent("writer").instruct(
        "Write {facts}."
    )


def test_the_classic_workflow_agents_are_still_in_the_installed_adk():
    """When this fails, ADK removed SequentialAgent / ParallelAgent / LoopAgent: the default
    target is now 'workflow' (adk/targets.py default_target), and docs/workflow.md's decision,
    the README and the CI's second behaviour pass must be revisited."""
    assert classic_agents_available(), (
        f"google-adk {adk_version()} has no SequentialAgent/ParallelAgent/LoopAgent any more: "
        "every build now compiles to the Workflow target by default (docs/workflow.md)"
    )


def test_the_default_target_is_classic_while_adk_has_its_classic_agents(monkeypatch):
    monkeypatch.delenv("ADK_FLUENT_TARGET", raising=False)
    assert default_target() == "classic"


def test_the_environment_variable_sets_the_default(monkeypatch):
    monkeypatch.setenv("ADK_FLUENT_TARGET", "classic")
    assert default_target() == "classic"
    monkeypatch.setenv("ADK_FLUENT_TARGET", "graph")
    with pytest.raises(BuildError) as caught:
        _pipeline().to_app()
    assert "ADK_FLUENT_TARGET must be 'classic' or 'workflow', not 'graph'" in str(caught.value)


@pytest.mark.parametrize(
    ("target", "hint"),
    [("Workflow", "did you mean 'workflow'"), ("banana", "Workflow graph")],
)
def test_an_unknown_target_is_refused_with_a_hint(target, hint):
    with pytest.raises(BuildError) as caught:
        ExecutionConfig(target=target)
    assert caught.value.field == "target" and hint in str(caught.value)
    with pytest.raises(BuildError) as caught:
        _pipeline().to_app(target=target)
    assert caught.value.field == "target" and hint in str(caught.value)


@pytest.mark.skipif(HAS_GRAPHS, reason="this ADK has Workflow graphs")
def test_without_workflow_graphs_the_workflow_target_is_refused():
    for build in (
        lambda: _pipeline().to_app(target="workflow"),
        lambda: _pipeline().build(target="workflow"),
        lambda: _pipeline().to_app(ExecutionConfig(target="workflow")),
    ):
        with pytest.raises(BuildError) as caught:
            build()
        message = str(caught.value)
        assert f"google-adk {adk_version()}" in message and "needs ADK 2.x" in message
        assert "target='classic'" in message


def test_a_state_schema_on_the_classic_target_is_refused(monkeypatch):
    monkeypatch.delenv("ADK_FLUENT_TARGET", raising=False)

    class Notes(StateSchema):
        facts: str

    with pytest.raises(BuildError) as caught:
        _pipeline().to_app(ExecutionConfig(target="classic", state_schema=Notes))
    assert caught.value.field == "state_schema" and "target='workflow'" in str(caught.value)


@needs_graphs
def test_the_workflow_target_builds_a_graph_of_chat_nodes():
    from google.adk.agents import LlmAgent
    from google.adk.workflow import Workflow

    tree = (_pipeline() >> FanOut(Agent("p").instruct("P."), Agent("q").instruct("Q."))).named(
        "desk"
    )
    root = tree.to_app(target="workflow").root_agent
    assert type(root) is Workflow and root.name == "desk"
    nodes = {node.name: node for node in root.graph.nodes}
    reader = nodes["reader"]  # alone in a Workflow of its name, run in chat mode
    assert type(reader) is Workflow
    (agent,) = [n for n in reader.graph.nodes if n.name == "reader"]
    assert type(agent) is LlmAgent and agent.mode == "chat"
    assert tree.build(target="workflow").name == "desk"


@needs_graphs
def test_a_single_agent_is_the_agent_itself():
    """So ADK's Runner resumes a conversation at the agent a transfer reached, as with the
    classic target."""
    from google.adk.agents import LlmAgent

    helper = Agent("helper").instruct("Help.").description("Helps.")
    root = Agent("lead").instruct("Lead.").delegate(helper).to_app(target="workflow").root_agent
    assert type(root) is LlmAgent and [a.name for a in root.sub_agents] == ["helper"]


def _every_kind() -> Agent:
    seen: list = []
    body = Agent("drafter").instruct("Draft.").outputs("draft") >> exit_when(
        lambda s: s.get("draft") == "ok"
    )
    return (
        S.set(docs=["a"], kind="x")
        >> Route("kind").eq("x", Agent("rx").instruct("X.")).otherwise(Agent("ro").instruct("O."))
        >> Loop(body, max_iterations=2, name="refine")
        >> FanOut(
            Agent("p").instruct("P.") >> Agent("p2").instruct("P2."), Agent("q").instruct("Q.")
        )
        >> FanOut(Agent("m1").instruct("M."), Agent("m2").instruct("M.")).merge("dict", into="ms")
        >> map_over(
            "docs",
            Agent("summer").instruct("Sum {doc}.") >> Agent("s2").instruct("S."),
            item_key="doc",
            output_key="sums",
        )
        >> race(
            Agent("fast").instruct("F.") >> Agent("f2").instruct("F2."),
            Agent("slow").instruct("S."),
        )
        >> timeout(Agent("timed").instruct("T.") >> Agent("t2").instruct("T2."), 30)
        >> (
            Agent("flaky").instruct("F.")
            // (Agent("b1").instruct("B.") >> Agent("b2").instruct("B."))
        )
        >> Agent("writer").instruct("W.").then(Agent("speaker").instruct("S."), edge="chunked")
        >> tap(lambda s: seen.append(s))
        >> (Agent("g1").instruct("G.") >> gate(True, "Go?") >> Agent("g2").instruct("G."))
        .named("gated")
        .before_agent(lambda callback_context: None)
        >> Native(_classic_native())
    )


def _classic_native():
    from google.adk.agents import LlmAgent

    return LlmAgent(name="native_one", instruction="N.")


@needs_graphs
def test_the_workflow_target_constructs_none_of_the_deprecated_agents():
    """Every node kind, composites inside agent nodes too: with ADK's deprecation warning
    turned into an error, the Workflow target builds. The control: under the same filter, one
    deprecated class constructed by hand raises (where the installed ADK warns at all)."""
    from google.adk.agents import SequentialAgent

    tree = _every_kind()
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=WORKFLOW_DEPRECATION, category=DeprecationWarning)
        tree.to_app(target="workflow")
        if workflow_agents_warn():
            with pytest.raises(DeprecationWarning):
                SequentialAgent(name="adk_fluent_control")


@needs_graphs
async def test_a_state_schema_is_adks_state_schema_on_the_workflow_target():
    """ADK checks every write through a context's state against it: a tool's misspelt key
    fails the turn instead of silently storing a key no agent reads."""
    from google.adk.sessions.state import StateSchemaError

    class Booking(StateSchema):
        city: str
        nights: int

    def book(city: str, tool_context) -> str:
        """Book a stay."""
        tool_context.state["city"] = city
        tool_context.state["nigths"] = 3  # the typo
        return "booked"

    tree = Agent("booker").instruct("Book.").tool(book) >> Agent("confirm").instruct("{city}")
    config = ExecutionConfig(target="workflow", state_schema=Booking)
    root = tree.to_app(config).root_agent
    assert sorted(root.state_schema.model_fields) == ["city", "nights"]
    backend = mock_backend({"booker": [call("book", city="Rome"), "ok"], "confirm": "Rome."})
    with pytest.raises(StateSchemaError, match="'nigths' is not declared"):
        await tree.run("Book Rome", backend=backend, config=config, session_id="s")
    session = await tree.session("s", backend=backend, config=config)
    assert "nigths" not in session.state


@needs_graphs
def test_the_workflow_schema_holds_the_plain_keys_the_checker_knows():
    """ADK checks keys without a scope prefix; user:, app: and temp: keys pass it, so only the
    plain keys become fields. The checker reads the same StateSchema (check_contracts(...,
    schema=Booking) checks reads and writes statically)."""
    from adk_fluent import check_contracts

    tree = Agent("a").instruct("A.").outputs("city") >> Agent("b").instruct("B {city}.")
    root = tree.to_app(ExecutionConfig(target="workflow", state_schema=Stay)).root_agent
    fields = root.state_schema.model_fields
    assert sorted(fields) == ["city", "nights"] and fields["nights"].default == 1
    assert not check_contracts(tree, schema=Stay).errors


@needs_graphs
def test_a_served_pipeline_refuses_the_workflow_target():
    pytest.importorskip("a2a")
    from adk_fluent.remote.serve import served_app

    with pytest.raises(BuildError) as caught:
        served_app(_pipeline(), ExecutionConfig(target="workflow"))
    assert caught.value.field == "target" and "sub-agent" in str(caught.value)
