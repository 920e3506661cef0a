"""Agent.inject(): resources reach tool functions by parameter name, hidden from the model, and
the user's functions are never changed (the IR holds injected copies)."""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING

import pytest

from adk_fluent import Agent, BuildError, per_call

if TYPE_CHECKING:  # a resource type imported for type checkers only: unresolvable at run time
    from decimal import Context as Vault


class Pool:
    """A stand-in for a connection pool: records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def get(self, key: str) -> str:
        self.asked.append(key)
        return f"row {key}"


def lookup(order_id: str, db: Pool) -> str:
    """Look up an order."""
    return db.get(order_id)


async def lookup_async(order_id: str, db: Pool) -> str:
    """Look up an order, asynchronously."""
    return db.get(order_id)


def with_context(city: str, client: Pool, tool_context=None) -> str:
    """Uses ADK's tool context too."""
    return f"{client.get(city)} / {tool_context}"


def greet(name: str) -> str:
    """Takes no resource."""
    return f"hi {name}"


def _tool(agent: Agent, name: str):
    return next(t for t in agent.to_ir().tools if getattr(t, "__name__", None) == name)


def test_the_resource_parameter_is_hidden_and_passed_in():
    pool = Pool()
    injected = _tool(Agent("desk").tool(lookup).inject(db=pool), "lookup")
    assert list(inspect.signature(injected).parameters) == ["order_id"]
    assert injected(order_id="7") == "row 7" and pool.asked == ["7"]
    assert injected.__name__ == "lookup" and injected.__doc__ == "Look up an order."


def test_the_users_function_is_untouched():
    before = (inspect.signature(lookup), dict(lookup.__dict__), lookup.__code__)
    Agent("desk").tool(lookup).inject(db=Pool()).to_ir()
    assert (inspect.signature(lookup), dict(lookup.__dict__), lookup.__code__) == before
    assert Agent("plain").tool(lookup).to_ir().tools == (lookup,)


def test_tools_added_before_or_after_inject_are_both_injected():
    pool = Pool()
    before = Agent("desk").tool(lookup).inject(db=pool).tool(lookup_async)
    after = Agent("desk").inject(db=pool).tools(lookup, lookup_async)
    for agent in (before, after):
        names = [list(inspect.signature(t).parameters) for t in agent.to_ir().tools]
        assert names == [["order_id"], ["order_id"]]


def test_a_value_given_for_the_resource_is_overridden():
    pool = Pool()
    injected = _tool(Agent("desk").tool(lookup).inject(db=pool), "lookup")
    assert injected(order_id="1", db="forged") == "row 1"


def test_async_tools_stay_async_and_sync_tools_sync():
    agent = Agent("desk").tools(lookup, lookup_async).inject(db=Pool())
    sync_tool, async_tool = agent.to_ir().tools
    assert not inspect.iscoroutinefunction(sync_tool)
    assert inspect.iscoroutinefunction(async_tool)
    assert asyncio.run(async_tool(order_id="3")) == "row 3"


def test_tool_context_is_left_for_adk():
    injected = _tool(Agent("desk").tool(with_context).inject(client=Pool()), "with_context")
    assert list(inspect.signature(injected).parameters) == ["city", "tool_context"]
    assert injected(city="Oslo", tool_context="ctx") == "row Oslo / ctx"


def test_a_tool_that_takes_no_resource_is_kept_as_it_is():
    agent = Agent("desk").tools(greet, lookup).inject(db=Pool())
    assert agent.to_ir().tools[0] is greet


def test_resources_are_shared_values_and_per_call_makes_fresh_ones():
    shared = Pool()
    injected = _tool(Agent("desk").tool(lookup).inject(db=shared), "lookup")
    injected(order_id="1")
    injected(order_id="2")
    assert shared.asked == ["1", "2"]  # one object for every call

    made: list[Pool] = []

    def open_pool() -> Pool:
        made.append(Pool())
        return made[-1]

    fresh = _tool(Agent("desk").tool(lookup).inject(db=per_call(open_pool)), "lookup")
    fresh(order_id="1")
    fresh(order_id="2")
    assert [p.asked for p in made] == [["1"], ["2"]]


def test_an_async_factory_makes_the_injected_tool_async():
    async def open_pool() -> Pool:
        return Pool()

    injected = _tool(Agent("desk").tool(lookup).inject(db=per_call(open_pool)), "lookup")
    assert inspect.iscoroutinefunction(injected)
    assert asyncio.run(injected(order_id="9")) == "row 9"


def test_inject_returns_a_new_builder_and_accumulates():
    base = Agent("desk").tool(with_context).tool(lookup)
    one = base.inject(db=Pool())
    both = one.inject(client=Pool())
    assert base.to_ir().tools == (with_context, lookup)
    assert one.to_ir().tools[0] is with_context  # its client is not injected yet
    assert [list(inspect.signature(t).parameters) for t in both.to_ir().tools] == [
        ["city", "tool_context"],
        ["order_id"],
    ]


def test_a_resource_no_tool_takes_is_refused_with_a_did_you_mean():
    agent = Agent("desk").tool(lookup).inject(dbb=Pool())
    with pytest.raises(
        BuildError, match=r"(?s)agent 'desk', field 'inject'.*'dbb'.*did you mean 'db'"
    ):
        agent.to_ir()


def test_a_refused_build_stays_refused():
    agent = Agent("desk").tool(lookup).inject(dbb=Pool())
    for _ in range(2):  # no half-built IR is kept from the first attempt
        with pytest.raises(BuildError, match="'dbb'"):
            agent.build()


def test_the_check_waits_for_tools_added_later():
    pending = Agent("desk").inject(db=Pool())  # no tool yet: not an error until it is built
    assert pending.tool(lookup).to_ir() is not None
    with pytest.raises(BuildError, match="no tool of this agent takes a parameter named 'db'"):
        pending.to_ir()


def open_safe(code: str, vault: Vault) -> str:
    """Open a safe."""
    return f"{vault} {code}"


def test_annotations_are_resolved_in_the_tools_module_even_beside_an_unresolvable_one():
    # this module has `from __future__ import annotations`: every annotation is text, and
    # 'Vault' names nothing at run time; the wrapper lives in another module, so what stays
    # visible must be resolved here
    for tool, resource in ((lookup, "db"), (open_safe, "vault")):
        injected = Agent("desk").tool(tool).inject(**{resource: "x"}).to_ir().tools[0]
        signature = inspect.signature(injected)
        assert [p.annotation for p in signature.parameters.values()] == [str]
        assert signature.return_annotation is str
        assert injected.__annotations__ == {next(iter(signature.parameters)): str, "return": str}
