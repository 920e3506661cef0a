"""The sample corpus: trees in the shapes of public ADK samples, each written with ADK's own
classes (`native()`) and with adk-fluent (`fluent()`). The two compile to equal trees, run
alike through ADK's Runner on the same scripts, and the checker finds nothing wrong with the
fluent one. Known adk-fluent defects are strict xfails (each sample's XFAIL; README.md)."""

from __future__ import annotations

import pytest

from adk_fluent import check_contracts
from adk_fluent.adk.compat import quiet_workflow_deprecation
from adk_fluent.adk.targets import resolve_target
from adk_fluent.testing import ScriptedModel, mock_backend
from tests.support import samples as support


# ADK's own warnings while a tree runs, not adk-fluent's: on 2.x, AgentTool builds its inner
# Runner with the deprecated `plugins=` argument, and a transfer to a delegated Sequential/Loop
# agent clones it (BaseAgent.clone), which warns like constructing one.
def _quiet_adk_runtime(test):
    test = pytest.mark.filterwarnings(
        "ignore:The `plugins` argument is deprecated:DeprecationWarning"
    )(test)
    return pytest.mark.filterwarnings(
        r"ignore:(Sequential|Parallel|Loop)Agent is deprecated:DeprecationWarning"
    )(test)


def _params(assertion: str) -> list:
    params = []
    for name in support.SAMPLE_NAMES:
        sample = support.load(name)
        reason = getattr(sample, "XFAIL", {}).get(assertion)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        if hasattr(sample, "CLASSIC_TARGET"):  # tests/conftest.py: built for the classic target
            marks.append(pytest.mark.classic_target(sample.CLASSIC_TARGET))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


@pytest.mark.parametrize("name", _params("tree"))
def test_fluent_tree_equals_native_tree(name):
    sample = support.load(name)
    built = support.build_fluent(sample).build(target="classic")
    native = support.build_native(sample)
    assert support.compare_trees(built, native) == []


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in support.SAMPLE_NAMES])
def test_native_tree_has_the_agents_the_sample_says(name):
    sample = support.load(name)
    names = [agent.name for agent in support.agents_in(support.build_native(sample))]
    assert len(names) == sample.AGENTS, names
    assert len(set(names)) == len(names), "agent names repeat"
    # every LLM agent of the tree has a script: the behaviour test runs each one
    scripted = set(sample.SCRIPTS)
    assert set(support.llm_agent_names(support.build_native(sample))) <= scripted


@pytest.mark.parametrize("name", _params("contracts"))
def test_checker_finds_nothing_wrong_with_the_fluent_tree(name):
    report = check_contracts(support.build_fluent(support.load(name)))
    assert [issue.to_text() for issue in report.errors + report.warnings] == []


@pytest.mark.parametrize("name", _params("run"))
@_quiet_adk_runtime
async def test_both_trees_run_alike(name, monkeypatch):
    sample = support.load(name)
    await _runs_alike(sample, support.build_fluent(sample), monkeypatch)


VARIANTS = [n for n in support.SAMPLE_NAMES if hasattr(support.load(n), "fluent_variant")]


@pytest.mark.parametrize("name", VARIANTS)
@_quiet_adk_runtime
async def test_idiomatic_fluent_variant_runs_like_the_native_tree(name, monkeypatch):
    """Where adk-fluent has its own idiom for what the sample hand-codes (exit_when for a
    checker agent), the tree differs but the run must not."""
    sample = support.load(name)
    await _runs_alike(sample, sample.fluent_variant(), monkeypatch)


async def _runs_alike(sample, expression, monkeypatch) -> None:
    missing = await support.missing_adk_abilities(sample)
    if missing:  # the native tree fails the same way: a defect of the installed ADK
        pytest.skip(f"the installed google-adk cannot: {'; '.join(missing)}")
    hidden = sample.hidden_agents() if hasattr(sample, "hidden_agents") else []

    native = support.build_native(sample)
    native_model = ScriptedModel(sample.SCRIPTS)
    support.install_models(native, native_model)
    with monkeypatch.context() as patch:
        _script_hidden(patch, hidden, native_model)
        native_events, native_state = await support.run_native(native, sample.TURNS)
    native_model.assert_consumed()

    backend = mock_backend(sample.SCRIPTS)
    models_before = [(a, a.model) for root in hidden for a in support.agents_in(root)]
    with backend.scripting(*hidden):  # agents a tool function runs: scripted in place
        fluent_events, fluent_state = await support.run_fluent(expression, sample.TURNS, backend)
    # every scripted agent ran, inner agents of agent tools and hidden agents too
    backend.assert_consumed()
    assert [(a, a.model) for root in hidden for a in support.agents_in(root)] == models_before

    ordered = not support.has_parallel(native)
    if ordered or resolve_target() == "classic":
        assert support.visible(fluent_events) == support.visible(native_events)
    else:  # docs/workflow.md: a FanOut inside a composite with agent callbacks runs as
        # adk-fluent's own parallel agent, which interleaves the branches' events otherwise
        assert sorted(map(repr, support.visible(fluent_events))) == sorted(
            map(repr, support.visible(native_events))
        )
    assert fluent_state == native_state
    seen = support.requests_seen(backend.model, ordered=ordered)
    assert seen == support.requests_seen(native_model, ordered=ordered)


def _script_hidden(patch: pytest.MonkeyPatch, roots: list, model: ScriptedModel) -> None:
    """Agents that tool functions run are no tree's: script them where they are."""
    from google.adk.agents.llm_agent import LlmAgent

    for root in roots:
        for agent in support.agents_in(root):
            if isinstance(agent, LlmAgent):
                patch.setattr(agent, "model", model.for_agent(agent.name))


def _one(callback_context):
    return None


def _other(callback_context):
    return None


def _lookup(city: str) -> dict:
    """Look a city up."""
    return {"city": city}


def test_the_comparison_names_every_difference():
    """The helper the corpus relies on is not vacuous: each kind of difference is reported."""
    from google.adk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
    from google.adk.tools.agent_tool import AgentTool

    def tree(instruction, key, skip, callback, branch):
        inner = LlmAgent(name="inner", model="m", output_key=key)
        agent = LlmAgent(
            name="outer",
            model="m",
            instruction=instruction,
            tools=[_lookup, AgentTool(agent=inner, skip_summarization=skip)],
            before_agent_callback=callback,
        )
        with_branch = branch(name="branch", sub_agents=[LlmAgent(name="leaf", model="m")])
        return SequentialAgent(name="root", sub_agents=[agent, with_branch])

    with quiet_workflow_deprecation():
        same = support.compare_trees(
            tree("a", "k", False, _one, LoopAgent), tree("a", "k", False, [_one], LoopAgent)
        )
        found = support.compare_trees(
            tree("a", "k", False, _one, LoopAgent), tree("b", "j", True, _other, ParallelAgent)
        )
    assert same == []
    assert found == [
        "root.sub_agents[outer].before_agent_callback: [<function _one at "
        + hex(id(_one))
        + ">] (fluent) != [<function _other at "
        + hex(id(_other))
        + ">] (native)",
        "root.sub_agents[outer].instruction: 'a' (fluent) != 'b' (native)",
        "root.sub_agents[outer].tools[1].skip_summarization: False (fluent) != True (native)",
        "root.sub_agents[outer].tools[1]:inner.output_key: 'k' (fluent) != 'j' (native)",
        "root.sub_agents[branch]: class LoopAgent (fluent) != ParallelAgent (native)",
    ]


def test_readme_line_table_is_current():
    readme = support.README.read_text()
    assert readme == support.readme_with_table(readme), (
        "the line table is stale: run `python -m tests.support.samples`"
    )
