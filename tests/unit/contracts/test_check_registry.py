"""The contract-check registry: a built-in check is replaced only on purpose (`replace=True`),
and a user check's name is taken until it is replaced or unregistered."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, check_contracts, register_check
from adk_fluent.analysis.contracts import registered_checks, registry, unregister_check
from adk_fluent.errors import BuildError


@pytest.fixture(autouse=True)
def _registry_restored():
    saved, builtin = dict(registry._REGISTRY), set(registry._BUILTIN)
    yield
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved)
    registry._BUILTIN.clear()
    registry._BUILTIN.update(builtin)


def reads_a_missing_key():
    return Agent("writer").instruct("Use {notes}.")


def flags_everything(ctx):
    """Flags every agent."""
    for node in ctx.llm_agents():
        yield ctx.issue(
            "warning", "flagged", node, None, f"{node.name} flagged", "Flagged.", "Nothing."
        )


def test_every_shipped_check_counts_as_built_in():
    names = {spec.name for spec in registered_checks()}
    assert "context" in names
    assert registry._BUILTIN == names  # nothing but the shipped checks is registered here


def test_a_built_in_name_is_refused_and_the_built_in_keeps_running():
    before = check_contracts(reads_a_missing_key()).codes()
    assert before  # the built-in checks report the missing key
    with pytest.raises(BuildError) as refused:
        register_check("reads", codes=("flagged",))(flags_everything)
    assert refused.value.field == "name"
    assert "replace=True" in str(refused.value)
    assert check_contracts(reads_a_missing_key()).codes() == before


def test_unregistering_a_built_in_does_not_free_its_name():
    spec = next(s for s in registered_checks() if s.name == "context")
    unregister_check("context")
    assert "context" not in {s.name for s in registered_checks()}
    with pytest.raises(BuildError, match="built-in"):
        register_check("context")(flags_everything)
    register_check("context", replace=True)(spec.fn)  # putting it back is on purpose too
    assert "context" in {s.name for s in registered_checks()}


def test_replace_true_replaces_a_built_in_in_place():
    order = [s.name for s in registered_checks()]
    before = check_contracts(reads_a_missing_key()).codes()
    for name in {s.name for s in registered_checks()}:
        register_check(name, codes=("flagged",), replace=True)(lambda ctx: ())
    register_check(order[0], codes=("flagged",), replace=True)(flags_everything)
    assert [s.name for s in registered_checks()] == order  # same place in the run order
    after = check_contracts(reads_a_missing_key()).codes()
    assert after == ["flagged"] and after != before


def test_a_user_check_name_is_taken_until_replaced_or_unregistered():
    register_check("flag-all", codes=("flagged",))(flags_everything)
    with pytest.raises(BuildError, match="already registered"):
        register_check("flag-all")(lambda ctx: ())
    assert check_contracts(Agent("a")).codes() == ["flagged"]
    register_check("flag-all", replace=True)(lambda ctx: ())
    assert check_contracts(Agent("a")).codes() == []
    unregister_check("flag-all")
    register_check("flag-all", codes=("flagged",))(flags_everything)  # a freed name is free
    assert check_contracts(Agent("a")).codes() == ["flagged"]
