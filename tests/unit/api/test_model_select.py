"""`.model_select()` on the builder, without running anything: the IR holds the policy (and
the candidates, prices and budget key as given), the builder stays a value, the diagram shows the
policy, the contract checker sees the budget key as a read, the compiled agent carries the
selection step first among its before_model callbacks (after a C view), and the record of
selections gives each request its own selection only."""

from __future__ import annotations

import gc
from types import SimpleNamespace

import pytest
from google.adk.models.llm_request import LlmRequest
from google.genai import types

from adk_fluent import Agent, S, check_contracts
from adk_fluent.adk import model_selection as runtime
from adk_fluent.adk.model_selection import ModelSelection, request_chars, selection_for
from adk_fluent.ir.model_selection import ModelCandidate, ModelSelectorNode, Selection
from adk_fluent.ir.prices import ModelPrice, Prices

FLASH = ModelCandidate("gemini-2.5-flash", quality_tier=1, capabilities=frozenset({"vision"}))
PRO = ModelCandidate("gemini-2.5-pro", quality_tier=2, capabilities=frozenset({"vision"}))


def policy(agent: Agent | None = None, **options) -> Agent:
    agent = agent or Agent("classifier", "gemini-2.5-flash").instruct("Classify.")
    return agent.model_select("budget_bounded", [FLASH, PRO], budget_key="budget_usd", **options)


def before(callback_context, llm_request):
    return None


# -- the IR ----------------------------------------------------------------------------------
def test_the_ir_node_holds_the_policy_as_given():
    node = policy(fallback_model="gemini-2.5-flash-lite", requires="vision").to_ir()
    selector = node.model_selector
    assert isinstance(selector, ModelSelectorNode)
    assert selector.name == "classifier"
    assert selector.strategy == "budget_bounded"
    assert selector.candidates == (FLASH, PRO)
    assert selector.budget_key == "budget_usd"
    assert selector.fallback_model == "gemini-2.5-flash-lite"
    assert selector.requires == frozenset({"vision"})
    assert selector.prices == Prices()  # the defaults
    assert selector.expected_output_tokens == 500
    assert node.model == "gemini-2.5-flash"  # the agent's own model stays as it was


def test_model_names_become_candidates_and_prices_extend_the_table():
    price = ModelPrice(0.5, 1.5)
    node = (
        Agent("a")
        .model_select(
            "cost_optimized",
            ["gemini-2.5-flash", "my-gemini-tune"],
            prices={"my-gemini-tune": price},
            expected_output_tokens=50,
        )
        .to_ir()
    )
    selector = node.model_selector
    assert [c.model for c in selector.candidates] == ["gemini-2.5-flash", "my-gemini-tune"]
    assert selector.candidates[0] == ModelCandidate("gemini-2.5-flash")
    assert selector.price_of(selector.candidates[1]) == price
    assert selector.prices.price_of("gemini-2.5-pro") is not None  # defaults kept
    assert selector.expected_output_tokens == 50
    # without .model_select() the node has no policy
    assert Agent("a").to_ir().model_selector is None


def test_a_single_candidate_needs_no_list_and_requires_none_is_no_requirement():
    node = Agent("a").model_select("quality_optimized", PRO, requires=None).to_ir()
    assert node.model_selector.candidates == (PRO,)
    assert node.model_selector.requires == frozenset()


def test_model_select_is_a_value_and_the_last_call_wins():
    plain = Agent("classifier", "gemini-2.5-flash").instruct("Classify.")
    before_ir = plain.to_ir()
    chosen = policy(plain)
    assert chosen is not plain
    assert plain.to_ir() == before_ir and plain.to_ir().model_selector is None
    assert chosen.to_ir() != before_ir
    again = chosen.model_select("quality_optimized", [FLASH])
    assert again.to_ir().model_selector.strategy == "quality_optimized"
    assert chosen.to_ir().model_selector.strategy == "budget_bounded"  # unchanged
    # equal expressions give equal, equally hashed IR
    twin = policy(Agent("classifier", "gemini-2.5-flash").instruct("Classify."))
    assert twin.to_ir() == chosen.to_ir() and hash(twin.to_ir()) == hash(chosen.to_ir())


def test_a_clone_carries_the_policy_under_its_own_name():
    original = policy()
    copy = original.clone("classifier_2")
    assert copy.to_ir().model_selector.name == "classifier_2"
    assert original.to_ir().model_selector.name == "classifier"
    assert copy.to_ir().model_selector.candidates == (FLASH, PRO)


# -- analyses ----------------------------------------------------------------------------------
def test_mermaid_shows_the_policy_on_the_agent_box():
    chart = policy().outputs("label").to_mermaid()
    assert (
        'n0["classifier<br/>model: budget_bounded: gemini-2.5-flash | gemini-2.5-pro'
        '<br/>writes: label"]'
    ) in chart
    # quotes in a model name are escaped like every label
    odd = Agent("a").model_select("quality_optimized", ['gemini-"x"'])
    assert "model: quality_optimized: gemini-'x'\"]" in odd.to_mermaid()
    # without a policy the box is the name alone
    assert 'n0["classifier<br/>writes: label"]' in (
        Agent("classifier", "gemini-2.5-flash").outputs("label").to_mermaid()
    )


def test_the_contract_checker_sees_the_budget_key_as_a_read():
    agent = policy()
    assert "budget_usd" in agent.to_ir().reads_keys
    report = check_contracts(agent)
    missing = [i for i in report if i.key == "budget_usd"]
    assert [(i.severity, i.code, i.node) for i in missing] == [
        ("error", "read-before-write", "classifier")
    ]
    # written upstream: the contract holds
    assert not [i for i in check_contracts(S.set(budget_usd=0.5) >> agent) if i.key]
    # strategies without a budget key read nothing
    other = Agent("a", "gemini-2.5-flash").model_select("cost_optimized", [FLASH])
    assert other.to_ir().reads_keys == frozenset()
    # the budget key's edge appears in the diagram
    chart = (S.set(budget_usd=0.5) >> agent).to_mermaid()
    assert "-. budget_usd .->" in chart


# -- the runtime step and the record of selections (no Runner: a request and a context) ------
def request(text: str, system: str | None = None, model: str = "gemini-2.5-flash") -> LlmRequest:
    config = types.GenerateContentConfig(system_instruction=system) if system else None
    return LlmRequest(
        model=model,
        contents=[types.Content(role="user", parts=[types.Part(text=text)])],
        **({"config": config} if config else {}),
    )


def context(**state):
    return SimpleNamespace(state=dict(state))


def test_request_size_counts_text_parts_and_the_system_instruction():
    assert request_chars(request("x" * 40)) == 40
    assert request_chars(request("x" * 40, system="y" * 20)) == 60
    no_text = LlmRequest(contents=[types.Content(role="user", parts=[])])
    assert request_chars(no_text) == 0


def test_the_step_sets_the_model_and_records_the_selection_for_that_request_only():
    selector = policy().to_ir().model_selector
    step = ModelSelection(selector)
    rich, poor = request("hello"), request("hello")
    step(context(budget_usd=1.0), rich)
    step(context(budget_usd=0.0), poor)
    assert rich.model == "gemini-2.5-pro" and poor.model == "gemini-2.5-flash"  # no fallback
    assert selection_for(rich).model == "gemini-2.5-pro"
    assert "budget" in selection_for(poor).reason
    assert selection_for(request("hello")) is None  # another request: nothing recorded


def test_a_recycled_address_never_gets_another_requests_selection():
    step = ModelSelection(policy().to_ir().model_selector)
    first = request("hello")
    step(context(budget_usd=1.0), first)
    address = id(first)
    del first
    gc.collect()
    # a fresh object at the same address (forced: the table is keyed by id)
    later = request("hello")
    runtime._records[id(later)] = runtime._records.pop(address)
    assert selection_for(later) is None


def test_the_record_is_bounded(monkeypatch):
    monkeypatch.setattr(runtime, "MAX_RECORDS", 3)
    step = ModelSelection(policy().to_ir().model_selector)
    kept = [request(str(i)) for i in range(5)]
    for item in kept:
        step(context(), item)
    assert len(runtime._records) <= 3
    assert selection_for(kept[0]) is None  # the oldest aged out
    assert isinstance(selection_for(kept[-1]), Selection)


@pytest.mark.parametrize(
    ("state", "expected"),
    [({}, "gemini-2.5-pro"), ({"budget_usd": "lots"}, "gemini-2.5-pro")],
    ids=["missing", "not-a-number"],
)
def test_a_budget_that_is_not_a_number_counts_as_unlimited(state, expected):
    item = request("hello")
    ModelSelection(policy().to_ir().model_selector)(context(**state), item)
    assert item.model == expected
