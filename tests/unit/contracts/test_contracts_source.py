"""Source inference: the state keys a tool, callback or custom agent reads and writes, read from
its source with `ast` (adk_fluent.analysis.contracts.source). Every pattern the checker knows,
the cases it must call opaque rather than guess, and the kinds of tool ADK hands an agent."""

from __future__ import annotations

import functools

import pytest
from google.adk.agents import BaseAgent, LlmAgent
from google.adk.events import Event, EventActions
from google.adk.tools import FunctionTool, exit_loop, google_search, load_memory
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset

from adk_fluent.analysis.contracts import source
from adk_fluent.analysis.contracts.source import (
    agent_code_effects,
    function_effects,
    tool_effects,
    tool_label,
)


def reads(fn):
    return dict(function_effects(fn).reads)


# -- reads -------------------------------------------------------------------------------------
def reads_every_way(tool_context, ctx):
    a = tool_context.state["required_key"]
    b = tool_context.state.get("optional_key")
    c = "tested_key" in tool_context.state
    d = ctx.session.state["session_key"]
    e = ctx.session.state.get("session_optional", 0)
    return a, b, c, d, e


def test_subscripts_are_required_reads_get_and_in_are_optional():
    assert reads(reads_every_way) == {
        "required_key": True,
        "optional_key": False,
        "tested_key": False,
        "session_key": True,
        "session_optional": False,
    }


def reads_through_an_alias(callback_context):
    state = callback_context.state
    same = state
    return same["aliased"], state.get("aliased_optional")


def test_a_local_name_bound_to_the_state_is_followed():
    assert reads(reads_through_an_alias) == {"aliased": True, "aliased_optional": False}


def writes_through_a_defaulted_alias(callback_context):
    state = callback_context.state or {}
    state["via_default"] = 1


def keeps_the_state_elsewhere(callback_context):
    holder = (callback_context.state, 1)
    holder[0]["hidden"] = 1


def iterates_the_state(callback_context):
    return [key for key in callback_context.state]  # noqa: C416 - the iteration is the point


def test_a_state_kept_under_a_name_the_checker_cannot_follow_is_opaque():
    assert function_effects(writes_through_a_defaulted_alias).writes == ("via_default",)
    kept = function_effects(keeps_the_state_elsewhere)
    assert kept.opaque_write and "keeps or returns the state" in kept.why
    iterated = function_effects(iterates_the_state)
    assert iterated.opaque_read and not iterated.opaque_write


def guarded_reads(tool_context):
    if "checked" in tool_context.state:
        first = tool_context.state["checked"]
    try:
        second = tool_context.state["caught"]
    except KeyError:
        second = None
    tool_context.state["own"] = 1
    third = tool_context.state["own"]
    return first, second, third


def test_reads_a_missing_key_cannot_break_are_optional():
    # tested with `in`, inside a try that catches KeyError, or written just before
    assert reads(guarded_reads) == {"checked": False, "caught": False, "own": False}


def augmented(tool_context):
    tool_context.state["counter"] += 1


def test_an_augmented_assignment_reads_and_writes():
    effects = function_effects(augmented)
    assert effects.reads == (("counter", True),) and effects.writes == ("counter",)


# -- writes, deletes, escalation ---------------------------------------------------------------
def writes_every_way(tool_context, callback_context):
    tool_context.state["assigned"] = 1
    tool_context.state.update({"from_dict": 1}, from_keyword=2)
    callback_context.state.setdefault("defaulted", [])
    tool_context.actions.state_delta["in_delta"] = True
    del tool_context.state["deleted"]
    tool_context.state.pop("popped", None)


def test_every_way_of_writing_and_deleting():
    effects = function_effects(writes_every_way)
    assert set(effects.writes) == {
        "assigned",
        "from_dict",
        "from_keyword",
        "defaulted",
        "in_delta",
    }
    assert set(effects.deletes) == {"deleted", "popped"}
    assert not effects.opaque_write and not effects.escalates


def writes_in_an_event(ctx):
    return Event(author="me", actions=EventActions(state_delta={"from_event": 1, "other": 2}))


def test_event_actions_state_delta_is_a_write():
    assert set(function_effects(writes_in_an_event).writes) == {"from_event", "other"}


def escalates_by_attribute(tool_context):
    tool_context.actions.escalate = True


def escalates_by_event(ctx):
    return EventActions(escalate=True)


def does_not_escalate(tool_context):
    tool_context.actions.escalate = False
    return EventActions(escalate=False)


def test_escalation_is_seen_both_ways_and_false_is_not_escalation():
    assert function_effects(escalates_by_attribute).escalates
    assert function_effects(escalates_by_event).escalates
    assert not function_effects(does_not_escalate).escalates


def with_a_nested_function(tool_context):
    def save(value):
        tool_context.state["nested"] = value

    save(1)


def _helper_that_writes(tool_context):
    tool_context.state["hidden"] = 1


def calls_a_helper_without_the_context(tool_context):
    _helper_that_writes  # noqa: B018  (named, not called with the context)
    return "ok"


def test_nested_functions_count_and_calls_are_not_followed():
    assert function_effects(with_a_nested_function).writes == ("nested",)
    effects = function_effects(calls_a_helper_without_the_context)
    assert effects.empty


# -- what must stay unknown --------------------------------------------------------------------
def computed_key(tool_context, name):
    tool_context.state[name] = 1


def computed_read(tool_context, name):
    return tool_context.state[name]


def update_from_data(tool_context, data):
    tool_context.state.update(data)


def update_from_kwargs(tool_context, **data):
    tool_context.state.update(**data)


def hands_the_context_on(tool_context):
    _helper_that_writes(tool_context)


def hands_the_state_on(callback_context):
    _helper_that_writes(callback_context.state)


def delta_built_at_run_time(ctx, delta):
    return EventActions(state_delta=delta)


@pytest.mark.parametrize(
    "fn, why",
    [
        (computed_key, "key computed at run time"),
        (update_from_data, "mapping built at run time"),
        (update_from_kwargs, "mapping built at run time"),
        (hands_the_context_on, "hands tool_context to _helper_that_writes()"),
        (hands_the_state_on, "hands the state to _helper_that_writes()"),
        (delta_built_at_run_time, "state_delta at run time"),
    ],
)
def test_keys_the_source_does_not_name_make_it_opaque(fn, why):
    effects = function_effects(fn)
    assert effects.opaque_write and effects.opaque_read
    assert why in effects.why and "test_contracts_source.py:" in effects.why  # where it is


def test_a_computed_read_is_an_opaque_read_only():
    effects = function_effects(computed_read)
    assert effects.opaque_read and not effects.opaque_write and effects.reads == ()


def reads_the_whole_state(tool_context):
    return dict(tool_context.state), len(tool_context.state), tool_context.state.to_dict()


def logs_the_state(callback_context):
    import logging

    logging.getLogger(__name__).info(
        "state: %s, context: %s", callback_context.state, callback_context
    )
    print(callback_context.state)


def test_reading_the_whole_state_reads_any_key_but_writes_none():
    for fn in (reads_the_whole_state, logs_the_state):
        effects = function_effects(fn)
        assert effects.opaque_read and not effects.opaque_write, fn


def test_a_function_without_python_source_is_opaque():
    for fn in (len, print):
        effects = function_effects(fn)
        assert effects.opaque_write and "source" in effects.why
    namespace: dict = {}
    exec("def made_at_run_time(tool_context):\n    tool_context.state['x'] = 1\n", namespace)
    effects = function_effects(namespace["made_at_run_time"])
    assert effects.opaque_write and effects.writes == ()


lone_lambda = lambda callback_context: callback_context.state.update(from_lambda=1)  # noqa: E731
twin_lambdas = (lambda c: c.state.update(a=1), lambda c: c.state.update(b=1))


def test_a_lambda_is_read_unless_another_one_shares_its_line():
    assert function_effects(lone_lambda).writes == ("from_lambda",)
    for fn in twin_lambdas:  # same line, same argument names: ambiguous, so opaque
        assert function_effects(fn).opaque_write


def test_results_are_cached_per_code_object(monkeypatch):
    source._code_effects.cache_clear()
    calls = []
    real = source.inspect.getsource
    monkeypatch.setattr(source.inspect, "getsource", lambda obj: calls.append(obj) or real(obj))
    first = function_effects(writes_every_way)
    again = [function_effects(writes_every_way) for _ in range(20)]
    assert len(calls) == 1 and all(effects is first for effects in again)


def decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@decorator
def decorated(tool_context):
    tool_context.state["through_decorator"] = 1


def test_a_decorated_function_is_read_through_its_wrapper():
    assert function_effects(decorated).writes == ("through_decorator",)


# -- tools as ADK hands them to an agent -------------------------------------------------------
def save_note(note: str, tool_context) -> str:
    """Save a note."""
    tool_context.state["note"] = note
    return "ok"


class NoteTool(BaseTool):
    async def run_async(self, *, args, tool_context):
        tool_context.state["tool_note"] = args.get("note")
        return "ok"


class KeepsAdkRunAsync(FunctionTool):
    pass


class Notes(BaseToolset):
    async def get_tools(self, readonly_context=None):
        return [FunctionTool(save_note)]


class CallableTool:
    def __call__(self, tool_context):
        tool_context.state["called"] = 1


def test_functions_partials_and_function_tools_are_read_from_the_function():
    for tool in (
        save_note,
        functools.partial(save_note, "fixed"),
        FunctionTool(save_note),
        KeepsAdkRunAsync(save_note),
    ):
        assert tool_effects(tool).writes == ("note",), tool
        assert tool_label(tool) == "save_note"


def test_a_base_tool_subclass_is_read_from_its_run_async():
    tool = NoteTool(name="note_tool", description="Saves a note.")
    assert tool_effects(tool).writes == ("tool_note",)
    assert tool_label(tool) == "note_tool"


def test_adk_built_in_tools_touch_no_state_and_exit_loop_escalates():
    for tool in (google_search, load_memory):
        assert tool_effects(tool).empty, tool
    effects = tool_effects(exit_loop)
    assert effects.escalates and not effects.writes and not effects.opaque_write


def test_a_toolset_of_the_users_is_opaque_and_a_callable_object_is_read():
    assert tool_effects(Notes()).opaque_write
    assert tool_effects(CallableTool()).writes == ("called",)


# -- custom agents -----------------------------------------------------------------------------
class Checker(BaseAgent):
    async def _run_async_impl(self, ctx):
        if ctx.session.state.get("verdict") == "pass":
            yield Event(author=self.name, actions=EventActions(escalate=True))


class Runner(BaseAgent):
    async def _run_async_impl(self, ctx):
        for agent in self.sub_agents:
            async for event in agent.run_async(ctx):
                yield event


class TunedLlm(LlmAgent):
    pass


def test_a_custom_agent_is_read_from_its_run_async_impl():
    effects = agent_code_effects(Checker(name="checker"))
    assert effects.reads == (("verdict", False),) and effects.escalates
    assert not effects.opaque_write


def test_a_custom_agent_that_runs_other_agents_or_adks_own_code_is_opaque():
    effects = agent_code_effects(Runner(name="runner"))
    assert effects.opaque_write and "hands ctx to agent.run_async()" in effects.why
    tuned = agent_code_effects(TunedLlm(name="tuned", model="gemini-2.0-flash"))
    assert tuned.opaque_write and "ADK's" in tuned.why
