"""The middleware core's rules, without a Runner: what check_middleware refuses, how scopes
resolve over a tree, how a stack is sorted, which callbacks the installed ADK has, and the
dispatch rules of MiddlewarePlugin (first-wins, chained, notified, scoped) called directly."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest
from adk_fluent_generated.field_versions import PLUGIN_CALLBACK_VERSIONS, releases_in
from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent import Agent, AgentTool, ExecutionConfig
from adk_fluent.adk.plugins.middleware import (
    MiddlewarePlugin,
    StackEntry,
    installed_plugin_callbacks,
    stack_entries,
)
from adk_fluent.analysis.visibility import infer_visibility_table
from adk_fluent.errors import BuildError
from adk_fluent.ir.middleware import (
    RUN_CALLBACKS,
    check_middleware,
    implemented_callbacks,
    middleware_name,
)
from adk_fluent.middleware import PLUGIN_CALLBACKS, Middleware, agent_path


class Rec(Middleware):
    """Notes every before_model / after_model / after_run it gets."""

    def __init__(self, label: str = "rec", seen: list[Any] | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.label = label
        self.seen = seen if seen is not None else []

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> Any:
        self.seen.append((self.label, "before_model", agent_path(callback_context.agent_name)))
        return None

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        self.seen.append((self.label, "after_run", None))


def refusal(fn: Any) -> BuildError:
    with pytest.raises(BuildError) as raised:
        fn()
    return raised.value


# -- check_middleware ----------------------------------------------------------------------------
def test_check_middleware_refuses_a_class_naming_where_it_was_given():
    error = refusal(lambda: check_middleware(Rec, "writer"))
    assert (error.agent, error.field) == ("writer", "middleware")
    assert error.hint == "pass an instance: Rec(...)."


def test_check_middleware_refuses_an_object_without_callbacks():
    error = refusal(lambda: check_middleware(types.SimpleNamespace(), "ExecutionConfig"))
    assert (error.agent, error.field) == ("ExecutionConfig", "middleware")
    assert "before_model_callback" in error.hint


@pytest.mark.parametrize(
    ("method", "suggested"),
    [
        ("before_modle_callback", "before_model_callback"),
        ("before_model", "before_model_callback"),
        ("on_event", "on_event_callback"),
        ("after_tool_callbak", "after_tool_callback"),
    ],
)
def test_check_middleware_refuses_a_method_that_looks_like_a_callback(method, suggested):
    async def callback(self: Any, **kwargs: Any) -> None:
        return None

    kind = type("Misspelt", (Middleware,), {"before_agent_callback": callback, method: callback})
    error = refusal(lambda: check_middleware(kind(), "writer"))
    assert (error.agent, error.field) == ("writer", "middleware")
    assert method in str(error) and f"'{suggested}'" in error.hint


def test_check_middleware_accepts_duck_typed_objects_and_helper_methods():
    class Duck:  # no base class: any object with plugin callbacks is a middleware
        async def before_tool_callback(self, **kwargs: Any) -> None:
            return None

        def format(self, record: dict) -> str:  # a helper, not a callback look-alike
            return str(record)

    check_middleware(Duck(), "writer")
    assert implemented_callbacks(Duck()) == ("before_tool_callback",)
    assert middleware_name(Duck()) == "Duck"


def test_the_middleware_base_normalises_scope_and_checks_priority():
    assert Rec(scope="writer").scope == ("writer",)
    assert Rec(scope=["writer", "critic"]).scope == ("writer", "critic")
    assert Rec().scope is None and Rec().priority == 0
    for bad in (True, "1", 1.5, None):
        error = refusal(lambda bad=bad: Rec(priority=bad))
        assert (error.agent, error.field) == ("Rec", "priority")
    for bad in (5, "", (), ("writer", ""), ["writer", 3]):
        error = refusal(lambda bad=bad: Rec(scope=bad))
        assert (error.agent, error.field) == ("Rec", "scope")


def test_plugin_callbacks_are_adks_names():
    assert set(PLUGIN_CALLBACKS) == set(PLUGIN_CALLBACK_VERSIONS)
    assert list(PLUGIN_CALLBACKS) == sorted(PLUGIN_CALLBACKS)
    assert RUN_CALLBACKS <= set(PLUGIN_CALLBACKS)
    assert {"before_model_callback", "after_tool_callback", "on_event_callback"} <= set(
        PLUGIN_CALLBACKS
    )


# -- scopes over a tree --------------------------------------------------------------------------
def tree() -> Any:
    helper = Agent("helper").instruct("Help.")
    team = (Agent("lead").tool(AgentTool(helper)) >> Agent("closer")).named("team")
    return (Agent("first") >> team).named("root")


def agents_of(entries: list[StackEntry], middleware: Any) -> frozenset[str] | None:
    [entry] = [e for e in entries if e.middleware is middleware]
    return entry.agents


def test_a_scope_covers_the_named_agent_or_the_composites_subtree_with_its_agent_tools():
    one, composite, app = Rec(scope="closer"), Rec(scope="team"), Rec()
    entries = stack_entries(tree().to_ir(), {}, [one, composite, app])
    # the plugin's agent paths are the visibility table's (adk/app.py hands them over)
    paths = {name: info.path for name, info in infer_visibility_table(tree().to_ir()).items()}
    assert agents_of(entries, one) == {"closer"}
    assert {"team", "lead", "helper", "closer"} <= agents_of(entries, composite)
    assert "first" not in agents_of(entries, composite)
    assert agents_of(entries, app) is None  # the whole app, run callbacks too
    assert paths["closer"] == "root/team/closer" and paths["first"] == "root/first"


def test_a_nodes_middleware_sees_its_subtree_the_roots_sees_everything():
    on_team, on_root, narrowed = Rec(), Rec(), Rec(scope="lead")
    helper = Agent("helper").instruct("Help.")
    team = (
        (Agent("lead").tool(AgentTool(helper)) >> Agent("closer"))
        .named("team")
        .middleware(on_team, narrowed)
    )
    root = (Agent("first") >> team).named("root").middleware(on_root)
    entries = stack_entries(root.to_ir(), {}, [])
    assert agents_of(entries, on_root) is None
    assert {"lead", "helper", "closer"} <= agents_of(entries, on_team)
    assert "first" not in agents_of(entries, on_team)
    # an agent's scope holds the agents of its agent tools (they run inside its tool calls)
    assert agents_of(entries, narrowed) == {"lead", "helper"}


def test_an_unknown_scope_is_refused_with_did_you_mean_naming_where_it_was_given():
    error = refusal(lambda: stack_entries(tree().to_ir(), {}, [Rec(scope="closr")]))
    assert (error.agent, error.where, error.field) == (
        None,
        "ExecutionConfig(middleware=...) item 1 (Rec)",
        "scope",
    )
    assert error.hint == "did you mean 'closer'?"
    error = refusal(lambda: tree().middleware(Rec(scope="zzz")).to_app())
    assert (error.agent, error.field) == ("root", "scope")
    assert "the tree's agents are:" in error.hint and "closer" in error.hint


def test_a_node_middleware_scoped_outside_the_node_is_refused():
    team = (Agent("lead") >> Agent("closer")).named("team").middleware(Rec(scope="first"))
    error = refusal(lambda: (Agent("first") >> team).named("root").to_app())
    assert (error.agent, error.field) == ("team", "scope")
    assert "ExecutionConfig(middleware=...)" in error.hint


# -- sorting -------------------------------------------------------------------------------------
def test_the_stack_sorts_by_priority_then_by_the_order_given():
    made = [Rec("a", priority=5), Rec("b"), Rec("c", priority=-5), Rec("d"), Rec("e", priority=5)]

    class NoPriority:  # duck-typed: priority 0
        async def before_model_callback(self, **kwargs: Any) -> None:
            return None

    duck = NoPriority()
    entries = [StackEntry(m, None, i) for i, m in enumerate([*made, duck])]
    plugin = MiddlewarePlugin(list(reversed(entries)))
    assert [getattr(m, "label", "duck") for m in plugin.middleware] == [
        "c",
        "b",
        "d",
        "duck",
        "a",
        "e",
    ]
    assert StackEntry(made[0], None, 3).sort_key == (5, 3)


def test_config_middleware_come_before_the_nodes_at_equal_priority_parents_first():
    cfg, on_root, on_child = Rec("cfg"), Rec("root"), Rec("child")
    root = (Agent("a") >> Agent("b").middleware(on_child)).named("root").middleware(on_root)
    app = root.to_app(ExecutionConfig(middleware=cfg))
    plugin = app.plugins[1]
    assert [m.label for m in plugin.middleware] == ["cfg", "root", "child"]


# -- dispatch, called directly -------------------------------------------------------------------
def context(agent: str) -> Any:
    return types.SimpleNamespace(agent_name=agent)


def plugin_of(*entries: tuple[Any, frozenset[str] | None], **kw: Any) -> MiddlewarePlugin:
    return MiddlewarePlugin(
        [StackEntry(m, agents, i) for i, (m, agents) in enumerate(entries)], **kw
    )


def test_first_wins_stops_at_the_first_value_and_skips_the_tail():
    class Answers(Middleware):
        async def before_model_callback(self, **kwargs: Any) -> str:
            return "answered"

    class Tail(Rec):
        async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
            self.seen.append((self.label, "after_model", llm_response))

    seen: list[Any] = []
    tail = Tail("tail", seen)
    plugin = plugin_of(
        (Rec("early", seen), None), (Answers(), None), (Rec("late", seen), None), tail=[tail]
    )
    result = asyncio.run(
        plugin.before_model_callback(callback_context=context("w"), llm_request=None)
    )
    assert result == "answered"
    # the later middleware and the tail's before_model are skipped; the tail still annotates
    # the reply given here (its after_model: ADK runs none on it)
    assert [(label, callback) for label, callback, *_ in seen] == [
        ("early", "before_model"),
        ("tail", "after_model"),
    ]


def test_a_chain_hands_each_middleware_the_previous_value_then_the_tail():
    class Appends(Middleware):
        def __init__(self, suffix: str) -> None:
            super().__init__()
            self.suffix = suffix

        async def after_tool_callback(self, *, result: Any, **kwargs: Any) -> Any:
            return {"trail": [*result["trail"], self.suffix]}

    class Quiet(Middleware):  # changes nothing: returns None
        async def after_tool_callback(self, **kwargs: Any) -> None:
            return None

    class Tail(BasePlugin):
        def __init__(self) -> None:
            super().__init__(name="tail")
            self.got: Any = None

        async def after_tool_callback(self, *, result: Any, **kwargs: Any) -> None:
            self.got = result

    tail = Tail()
    plugin = plugin_of((Appends("a"), None), (Quiet(), None), (Appends("b"), None), tail=[tail])
    kwargs = {"tool": None, "tool_args": {}, "tool_context": context("w")}
    result = asyncio.run(plugin.after_tool_callback(**kwargs, result={"trail": []}))
    assert result == {"trail": ["a", "b"]} and tail.got == {"trail": ["a", "b"]}
    untouched = plugin_of((Quiet(), None), tail=[Tail()])
    assert asyncio.run(untouched.after_tool_callback(**kwargs, result={"trail": []})) is None


def test_scoped_middleware_see_only_their_agents_and_never_run_callbacks():
    seen: list[Any] = []
    scoped, app = Rec("scoped", seen), Rec("app", seen)
    plugin = plugin_of((scoped, frozenset({"writer"})), (app, None), paths={"writer": "p/writer"})
    for agent in ("planner", "writer"):
        asyncio.run(plugin.before_model_callback(callback_context=context(agent), llm_request=None))
    asyncio.run(plugin.after_run_callback(invocation_context=None))
    assert seen == [
        ("app", "before_model", "planner"),
        ("scoped", "before_model", "p/writer"),  # agent_path inside a middleware callback
        ("app", "before_model", "p/writer"),
        ("app", "after_run", None),
    ]
    assert agent_path("writer") == "writer"  # outside one: the bare name


def test_notifications_reach_every_middleware():
    seen: list[Any] = []
    plugin = plugin_of((Rec("one", seen), None), (Rec("two", seen), None))
    asyncio.run(plugin.after_run_callback(invocation_context=None))
    assert seen == [("one", "after_run", None), ("two", "after_run", None)]


# -- callbacks the installed ADK has -------------------------------------------------------------
def test_installed_plugin_callbacks_are_asked_of_adks_base_plugin():
    installed = installed_plugin_callbacks()
    assert installed <= set(PLUGIN_CALLBACKS)
    assert installed == {name for name in PLUGIN_CALLBACKS if hasattr(BasePlugin, name)}
    oldest = {name for name, spans in PLUGIN_CALLBACK_VERSIONS.items() if spans[0][0] == "1.25.0"}
    assert oldest <= installed  # every supported release has these 13


class OnAgentError(Middleware):
    async def on_agent_error_callback(self, **kwargs: Any) -> None:
        return None


@pytest.mark.skipif(
    hasattr(BasePlugin, "on_agent_error_callback"),
    reason="the installed google-adk has on_agent_error_callback",
)
def test_a_callback_the_installed_adk_lacks_is_refused_with_the_releases_that_have_it():
    first = releases_in(PLUGIN_CALLBACK_VERSIONS["on_agent_error_callback"])[0]
    for build in (
        lambda: Agent("writer").middleware(OnAgentError()).to_app(),
        lambda: Agent("writer").to_app(ExecutionConfig(middleware=OnAgentError())),
    ):
        error = refusal(build)
        assert error.field == "middleware"
        assert (error.agent, error.where) in (
            ("writer", None),
            (None, "ExecutionConfig(middleware=...) item 1 (OnAgentError)"),
        )
        assert "on_agent_error_callback" in str(error)
        assert error.hint == f"google-adk {first} and later have it; upgrade, or drop the method."


@pytest.mark.skipif(
    not hasattr(BasePlugin, "on_agent_error_callback"),
    reason="the installed google-adk lacks on_agent_error_callback",
)
def test_a_callback_the_installed_adk_has_is_accepted():
    app = Agent("writer").middleware(OnAgentError()).to_app()
    assert [p.name for p in app.plugins][:2] == ["adk_fluent_halt", "adk_fluent_middleware"]
