"""Values written by steps are private copies: a tool that changes a list in place in one session
changes nothing in another session, in the builder, or in what the store holds for others."""

from __future__ import annotations

from google.adk.tools.tool_context import ToolContext

from adk_fluent import Agent, S
from adk_fluent.testing import call, mock_backend


def add_item(item: str, tool_context: ToolContext) -> str:
    """Put an item in the cart (in place, as tool code often does)."""
    tool_context.state["cart"].append(item)
    return "added"


def shopper():
    return Agent("shopper").instruct("Cart: {cart}").tools(add_item)


async def test_a_constant_list_is_a_fresh_copy_in_every_session():
    seed = S.set(cart=["seed"])
    pipeline = seed >> shopper()
    backend = mock_backend({"shopper": [call("add_item", item="apple"), "done", "done"]})
    await pipeline.run("buy", backend=backend, session_id="one")
    await pipeline.run("look", backend=backend, session_id="two")
    # the second session's agent saw only the seed (the first session's apple did not leak)
    second = backend.requests["shopper"][-1]
    assert "Cart: ['seed']" in second.config.system_instruction
    stored = await pipeline.session("two", backend=backend)
    assert stored.state["cart"] == ["seed"]
    assert seed.step.values == (("cart", ["seed"]),)  # the builder's constant is untouched
    assert (await pipeline.session("one", backend=backend)).state["cart"] == ["seed", "apple"]


async def test_a_default_is_a_fresh_copy_in_every_session():
    defaults = S.default(cart=["seed"])
    pipeline = defaults >> shopper()
    backend = mock_backend({"shopper": [call("add_item", item="pear"), "done", "done"]})
    await pipeline.run("buy", backend=backend, session_id="one")
    await pipeline.run("look", backend=backend, session_id="two")
    assert (await pipeline.session("two", backend=backend)).state["cart"] == ["seed"]
    assert defaults.step.values == (("cart", ["seed"]),)


async def test_the_builder_keeps_its_own_copy_of_the_callers_list():
    mine = ["seed"]
    pipeline = S.set(cart=mine)
    mine.append("changed later")
    await pipeline.run("x", session_id="s")
    assert (await pipeline.session("s")).state["cart"] == ["seed"]


async def test_a_computed_value_never_shares_an_object_with_another_key():
    # compute returns the very list it read: the new key must be a copy, so a tool changing
    # it in place leaves the original key alone
    pipeline = S.set(saved=["seed"]) >> S.compute(cart=lambda s: s["saved"]) >> shopper()
    backend = mock_backend({"shopper": [call("add_item", item="fig"), "done"]})
    await pipeline.run("buy", backend=backend, session_id="c")
    state = (await pipeline.session("c", backend=backend)).state
    assert state["cart"] == ["seed", "fig"]
    assert state["saved"] == ["seed"]


async def test_renamed_and_merged_values_are_plain_copies():
    pipeline = S.set(a=["x"], b={"k": [1]}) >> S.merge("a", "b", into="ab") >> S.rename(a="moved")
    await pipeline.run("x", session_id="m")
    state = (await pipeline.session("m")).state
    assert state["ab"] == {"a": ["x"], "b": {"k": [1]}} and state["moved"] == ["x"]
    assert type(state["moved"]) is list and type(state["ab"]["b"]) is dict  # not read-only views
    state["moved"].append("y")  # a plain list: a tool may change it
