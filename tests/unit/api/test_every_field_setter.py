"""Every generated field setter, on the installed google-adk.

For each builder (Agent, Pipeline, FanOut, Loop) and each ADK field of its class in the
generated field table (adk_fluent_generated.field_versions):

* the installed ADK has the field: the setter takes hand-written sample values (one table,
  by kind of field) and each value reaches the native agent `.build()` returns; value fields
  take the last call; an optional field set back to None reaches ADK as None; list fields
  append; callback fields accumulate, in order;
* the installed ADK lacks it (another scanned release has it): the setter refuses it at once
  with FieldNotInstalledError naming the agent, the field, the installed release and the
  releases that have it.

"Installed" is what the installed ADK's own pydantic model declares
(`compat.installed_fields`), never a version number, so the same file holds on any release.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

import pytest
from adk_fluent_generated.field_versions import FIELD_VERSIONS, field_present, release_key
from google.genai import types
from pydantic import BaseModel

from adk_fluent import Agent, FanOut, Loop, Pipeline, until
from adk_fluent.adk.compat import installed_class, installed_fields
from adk_fluent.errors import AdkFluentWarning, FieldNotInstalledError

# -- the builders -------------------------------------------------------------------------------
# ADK class -> (builder shown in ids, the builder's name, a fresh small builder)
BUILDERS: dict[str, tuple[str, str, Any]] = {
    "LlmAgent": ("Agent", "helper", lambda: Agent("helper")),
    "SequentialAgent": ("Pipeline", "steps", lambda: Pipeline(Agent("leaf"), name="steps")),
    "ParallelAgent": ("FanOut", "branches", lambda: FanOut(Agent("leaf"), name="branches")),
    "LoopAgent": ("Loop", "repeat", lambda: Loop(Agent("leaf"), name="repeat")),
}

# Fields no builder sets with a setter: the name is the constructor's argument, sub-agents come
# from composition, the parent is ADK's own wiring.
STRUCTURAL = {"name", "sub_agents", "parent_agent"}

# ADK's per-node `timeout` is `.adk_timeout()`: `.timeout(seconds)` is adk-fluent's own
# cross-version deadline (README, "Every ADK field has a setter").
SETTER = {"timeout": "adk_timeout"}


# -- sample values, by kind of field (written by hand) -------------------------------------------
class Question(BaseModel):
    question: str


class Answer(BaseModel):
    answer: str


def instruction_provider(readonly_context: Any) -> str:
    return "Answer in the user's language."


def lookup_weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


def book_table(restaurant: str, seats: int) -> str:
    """Book a table."""
    return f"{seats} at {restaurant}"


# Callbacks that accept whatever keywords ADK passes reach ADK as themselves, on every release;
# an agent or model callback inside a wrapper that checks what it returns (`__wrapped__` is the
# callback: adk/compile.py), so `unwrapped` is what the user gave.
def unwrapped(value: Any) -> Any:
    if isinstance(value, list):
        return [unwrapped(item) for item in value]
    return getattr(value, "__wrapped__", value)


def first_callback(**adk_arguments: Any) -> None:
    return None


def second_callback(**adk_arguments: Any) -> None:
    return None


def third_callback(**adk_arguments: Any) -> None:
    return None


def _function_tool(fn: Any) -> Any:
    from google.adk.tools import FunctionTool

    return FunctionTool(fn)


def _code_executors() -> tuple[Any, Any]:
    from google.adk.code_executors import BuiltInCodeExecutor, UnsafeLocalCodeExecutor

    return BuiltInCodeExecutor(), UnsafeLocalCodeExecutor()


def _planners() -> tuple[Any, Any]:
    from google.adk.planners import BuiltInPlanner, PlanReActPlanner

    thinking = types.ThinkingConfig(include_thoughts=True)
    return PlanReActPlanner(), BuiltInPlanner(thinking_config=thinking)


def _retry_configs() -> tuple[Any, Any]:
    # only called where the installed ADK has retry_config, so its class exists there
    from google.adk.workflow import RetryConfig

    return RetryConfig(max_attempts=3), RetryConfig(max_attempts=5)


# kind -> two distinct valid values (made per test: some are objects with state).
# Where ADK has a default, one of the two differs from it, so a dropped value cannot pass.
SAMPLES: dict[str, Any] = {
    "text": lambda: ("Answers billing questions.", "Books train tickets."),
    "instruction": lambda: ("Answer in one sentence.", instruction_provider),
    "static_instruction": lambda: (
        "You are a travel agent.",
        types.Content(role="user", parts=[types.Part(text="Never guess prices.")]),
    ),
    "flag": lambda: (True, False),
    "contents": lambda: ("none", "default"),
    "agent_mode": lambda: ("task", "single_turn"),
    "model": lambda: ("gemini-2.5-flash", "gemini-2.0-flash"),
    "state_key": lambda: ("answer", "summary"),
    "model_class": lambda: (Question, Answer),
    "seconds": lambda: (30.0, 2.5),
    "count": lambda: (4, 1),
    "content_config": lambda: (
        types.GenerateContentConfig(temperature=0.2),
        types.GenerateContentConfig(max_output_tokens=64),
    ),
    "code_executor": _code_executors,
    "planner": _planners,
    "retry_config": _retry_configs,
    "callback": lambda: (first_callback, second_callback),
    "tools": lambda: (lookup_weather, _function_tool(book_table)),
}

# field -> kind, for every field of the four builder classes in any scanned release
FIELD_KIND: dict[str, str] = {
    "after_agent_callback": "callback",
    "after_model_callback": "callback",
    "after_tool_callback": "callback",
    "before_agent_callback": "callback",
    "before_model_callback": "callback",
    "before_tool_callback": "callback",
    "on_model_error_callback": "callback",
    "on_tool_error_callback": "callback",
    "code_executor": "code_executor",
    "description": "text",
    "disallow_transfer_to_parent": "flag",
    "disallow_transfer_to_peers": "flag",
    "generate_content_config": "content_config",
    "global_instruction": "instruction",
    "include_contents": "contents",
    "input_schema": "model_class",
    "instruction": "instruction",
    "max_iterations": "count",
    "mode": "agent_mode",
    "model": "model",
    "output_key": "state_key",
    "output_schema": "model_class",
    "parallel_worker": "flag",
    "planner": "planner",
    "rerun_on_resume": "flag",
    "retry_config": "retry_config",
    "state_schema": "model_class",
    "static_instruction": "static_instruction",
    "timeout": "seconds",
    "tools": "tools",
    "wait_for_output": "flag",
}

# Value fields whose ADK annotation admits None (`X | None` in the manifests).
OPTIONAL = {
    "code_executor",
    "generate_content_config",
    "input_schema",
    "max_iterations",
    "mode",
    "output_key",
    "output_schema",
    "parallel_worker",
    "planner",
    "retry_config",
    "state_schema",
    "static_instruction",
    "timeout",
}
# ...except that ADK's own validator turns an explicit None content config into an empty one
# (`LlmAgent(generate_content_config=None).generate_content_config == GenerateContentConfig()`).
NONE_BECOMES: dict[str, Any] = {"generate_content_config": types.GenerateContentConfig()}

# (ADK class, field) -> the scanned releases that have it, for every field of the builder
# classes that some scanned release lacks (read off docs/compatibility.md by hand).
TWO_X = "2.0.0 and newer"
RELEASES_OF_PARTIAL_FIELDS: dict[tuple[str, str], str] = {
    **{
        ("LlmAgent", field): TWO_X
        for field in (
            "mode",
            "parallel_worker",
            "rerun_on_resume",
            "retry_config",
            "state_schema",
            "timeout",
            "wait_for_output",
        )
    },
    **{
        (adk_class, field): TWO_X
        for adk_class in ("SequentialAgent", "ParallelAgent", "LoopAgent")
        for field in (
            "input_schema",
            "output_schema",
            "rerun_on_resume",
            "retry_config",
            "state_schema",
            "timeout",
            "wait_for_output",
        )
    },
    # BaseAgent.version: added in 1.27.2, removed in 1.27.3
    **{
        (adk_class, "version"): "1.27.2"
        for adk_class in ("LlmAgent", "SequentialAgent", "ParallelAgent", "LoopAgent")
    },
}


# -- what the parametrization walks: the library's table against the installed ADK -----------
def _table_fields(adk_class: str) -> list[str]:
    return sorted(set(FIELD_VERSIONS[adk_class]) - STRUCTURAL)


def _param(adk_class: str, field: str) -> Any:
    builder = BUILDERS[adk_class][0]
    return pytest.param(adk_class, field, id=f"{builder}.{SETTER.get(field, field)}")


INSTALLED = [_param(c, f) for c in BUILDERS for f in _table_fields(c) if f in installed_fields(c)]
LACKING = [_param(c, f) for c in BUILDERS for f in _table_fields(c) if f not in installed_fields(c)]
VALUE_FIELDS = [p for p in INSTALLED if FIELD_KIND.get(p.values[1]) not in ("callback", "tools")]
OPTIONAL_FIELDS = [p for p in VALUE_FIELDS if p.values[1] in OPTIONAL]
CALLBACK_FIELDS = [p for p in INSTALLED if FIELD_KIND.get(p.values[1]) == "callback"]


def _set(builder: Any, field: str, *args: Any) -> Any:
    return getattr(builder, SETTER.get(field, field))(*args)


def _fresh(adk_class: str) -> Any:
    return BUILDERS[adk_class][2]()


def _samples(field: str) -> tuple[Any, Any]:
    assert field in FIELD_KIND, f"no sample kind for the new field {field!r}: add one above"
    return SAMPLES[FIELD_KIND[field]]()


def _same(got: Any, expected: Any) -> bool:
    return type(got) is type(expected) and got == expected


# -- installed fields: every setter reaches ADK ---------------------------------------------------
def test_the_table_has_fields_the_installed_adk_has_for_every_builder() -> None:
    """Guards the parametrization below: none of the four builders has an empty field list."""
    per_class = {c: [p for p in INSTALLED if p.values[0] == c] for c in BUILDERS}
    assert all(per_class.values()), per_class
    # description is on every scanned release of every agent class
    assert {p.id for p in INSTALLED} >= {
        "Agent.description",
        "Pipeline.description",
        "FanOut.description",
        "Loop.description",
    }


@pytest.mark.parametrize(("adk_class", "field"), INSTALLED)
def test_each_sample_value_reaches_the_native_agent(adk_class: str, field: str) -> None:
    kind = FIELD_KIND.get(field)
    for sample in _samples(field):
        native = _set(_fresh(adk_class), field, sample).build()
        assert type(native) is installed_class(adk_class)  # ADK's own class, not a wrapper
        got = getattr(native, field)
        if kind == "tools":  # a list field: the items, as a list
            assert got == [sample]
        elif kind == "callback":  # one callback passes as itself, not as a list of one
            assert unwrapped(got) is sample
        else:
            assert _same(got, sample), (got, sample)


@pytest.mark.parametrize(("adk_class", "field"), VALUE_FIELDS)
def test_a_value_field_takes_the_last_call(adk_class: str, field: str) -> None:
    first, last = _samples(field)
    setter = getattr(type(_fresh(adk_class)), SETTER.get(field, field))
    # what the generated docstring promises: only list and callback setters say otherwise
    assert "Appends" not in setter.__doc__ and "Accumulates" not in setter.__doc__
    native = _set(_set(_fresh(adk_class), field, first), field, last).build()
    assert _same(getattr(native, field), last)


@pytest.mark.parametrize(("adk_class", "field"), OPTIONAL_FIELDS)
def test_an_optional_field_set_back_to_none_replaces_the_earlier_value(
    adk_class: str, field: str
) -> None:
    first, _ = _samples(field)
    native = _set(_set(_fresh(adk_class), field, first), field, None).build()
    expected = NONE_BECOMES.get(field)
    assert _same(getattr(native, field), expected), getattr(native, field)


@pytest.mark.parametrize(("adk_class", "field"), CALLBACK_FIELDS)
def test_a_callback_field_accumulates_in_order(adk_class: str, field: str) -> None:
    setter = getattr(type(_fresh(adk_class)), field)
    assert "Accumulates: each call adds callbacks, run in order." in setter.__doc__
    builder = _set(_set(_fresh(adk_class), field, first_callback), field, second_callback)
    builder = _set(builder, field, third_callback)
    assert unwrapped(getattr(builder.build(), field)) == [
        first_callback,
        second_callback,
        third_callback,
    ]
    # several in one call keep their order too
    both = _set(_fresh(adk_class), field, second_callback, first_callback).build()
    assert unwrapped(getattr(both, field)) == [second_callback, first_callback]


# The keywords ADK passes to each callback, in the order 2.x falls back to (written down from
# ADK's llm_agent / base_llm_flow / functions modules; the same on 1.25 and 2.x).
ADK_KEYWORDS = {
    "before_agent_callback": ("callback_context",),
    "after_agent_callback": ("callback_context",),
    "before_model_callback": ("callback_context", "llm_request"),
    "after_model_callback": ("callback_context", "llm_response"),
    "on_model_error_callback": ("callback_context", "llm_request", "error"),
    "before_tool_callback": ("tool", "args", "tool_context"),
    "after_tool_callback": ("tool", "args", "tool_context", "tool_response"),
    "on_tool_error_callback": ("tool", "args", "tool_context", "error"),
}


CALLED: list[tuple[Any, ...]] = []  # what the renamed callbacks were called with


def renamed_first(ctx, *rest):  # parameter names ADK does not use: bound by position
    CALLED.append(("first", ctx, *rest))


def renamed_second(ctx, *rest):
    CALLED.append(("second", ctx, *rest))


@pytest.mark.parametrize(("adk_class", "field"), CALLBACK_FIELDS)
def test_renamed_callbacks_are_wrapped_to_bind_by_position_in_order(
    adk_class: str, field: str
) -> None:
    """ADK 1.x passes callback arguments only by keyword; a callback with other parameter
    names is wrapped so that it binds by position, in ADK 2.x's order, on every release."""
    single = getattr(_set(_fresh(adk_class), field, renamed_first).build(), field)
    assert single is not renamed_first and single.__wrapped__ is renamed_first
    keywords = ADK_KEYWORDS[field]
    arguments = {name: name.upper() for name in keywords}
    single(**arguments)
    assert CALLED[-1] == ("first", *(name.upper() for name in keywords))
    several = _set(_set(_fresh(adk_class), field, renamed_first), field, renamed_second)
    wrapped = getattr(several.build(), field)
    assert [f.__wrapped__ for f in wrapped] == [renamed_first, renamed_second]


# -- the one list field: tools ------------------------------------------------------------------
def _names(tools: list[Any]) -> list[str]:
    return [getattr(t, "name", None) or t.__name__ for t in tools]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: Agent("a").tools(lookup_weather), ["lookup_weather"]),
        (
            lambda: Agent("a").tools(lookup_weather).tools(book_table),
            ["lookup_weather", "book_table"],
        ),
        (
            lambda: Agent("a").tools(book_table, lookup_weather),
            ["book_table", "lookup_weather"],
        ),
        (
            lambda: Agent("a").tool(lookup_weather).tools(book_table),
            ["lookup_weather", "book_table"],
        ),
        (
            lambda: Agent("a").tools(book_table).tool(lookup_weather),
            ["book_table", "lookup_weather"],
        ),
        (
            lambda: Agent("a").tools(lookup_weather).tools(_function_tool(book_table)),
            ["lookup_weather", "book_table"],
        ),
    ],
    ids=[
        "one-call",
        "two-calls-append",
        "one-call-two-tools-keeps-order",
        "sugar-then-setter",
        "setter-then-sugar",
        "function-then-tool-object",
    ],
)
def test_tools_append_across_calls(make: Any, expected: list[str]) -> None:
    assert "Appends: each call adds items to the list." in Agent.tools.__doc__
    assert _names(make().build().tools) == expected


def test_two_builders_appending_to_one_base_do_not_share_a_list() -> None:
    booking_tool = _function_tool(book_table)
    base = Agent("a").tools(lookup_weather)
    with_function = base.tools(book_table)
    with_tool_object = base.tools(booking_tool)
    assert base.build().tools == [lookup_weather]
    assert with_function.build().tools == [lookup_weather, book_table]
    assert with_tool_object.build().tools == [lookup_weather, booking_tool]


# -- hand-written sugar and generated setters write the same fields ------------------------------
@pytest.mark.parametrize(
    ("sugar", "field"),
    [
        ("before_agent", "before_agent_callback"),
        ("after_agent", "after_agent_callback"),
        ("before_model", "before_model_callback"),
        ("after_model", "after_model_callback"),
        ("on_model_error", "on_model_error_callback"),
        ("before_tool", "before_tool_callback"),
        ("after_tool", "after_tool_callback"),
        ("on_tool_error", "on_tool_error_callback"),
    ],
)
def test_callback_sugar_and_its_generated_setter_accumulate_on_one_field(
    sugar: str, field: str
) -> None:
    agent = getattr(Agent("a"), sugar)(first_callback)
    agent = getattr(getattr(agent, field)(second_callback), sugar)(third_callback)
    assert unwrapped(getattr(agent.build(), field)) == [
        first_callback,
        second_callback,
        third_callback,
    ]


@pytest.mark.parametrize(
    ("make", "field", "expected", "reads", "writes"),
    [
        (
            lambda: Agent("a", "gemini-2.5-flash").model("gemini-2.0-flash"),
            "model",
            "gemini-2.0-flash",
            set(),
            set(),
        ),
        (
            lambda: Agent("a").instruct("Use {topic}.").instruction("Be brief."),
            "instruction",
            "Be brief.",
            set(),
            set(),
        ),
        (
            lambda: Agent("a").instruction("Be brief.").instruct("Use {topic}."),
            "instruction",
            "Use {topic}.",
            {"topic"},
            set(),
        ),
        (
            lambda: Agent("a").outputs("draft").output_key("final"),
            "output_key",
            "final",
            set(),
            {"final"},
        ),
        (
            lambda: Agent("a").output_key("final").outputs("draft"),
            "output_key",
            "draft",
            set(),
            {"draft"},
        ),
        (
            lambda: Loop(Agent("leaf"), max_iterations=3, name="l").max_iterations(5),
            "max_iterations",
            5,
            set(),
            set(),
        ),
        (lambda: (Agent("leaf") * 3).max_iterations(7), "max_iterations", 7, set(), set()),
        (
            lambda: Loop(Agent("leaf"), until=until(lambda s: True, max=4)).max_iterations(2),
            "max_iterations",
            2,
            set(),
            set(),
        ),
    ],
    ids=[
        "constructor-model-then-setter",
        "instruct-then-instruction",
        "instruction-then-instruct",
        "outputs-then-output_key",
        "output_key-then-outputs",
        "loop-constructor-then-setter",
        "loop-operator-then-setter",
        "until-max-then-setter",
    ],
)
def test_sugar_and_setter_on_one_value_field_the_last_call_wins(
    make: Any, field: str, expected: Any, reads: set[str], writes: set[str]
) -> None:
    if field in ("instruction", "output_key"):  # two spellings of one field: said, not silent
        with pytest.warns(
            AdkFluentWarning,
            match=r"the last one set wins\. \.(instruct|outputs)\(\) is the canonical",
        ):
            builder = make()
    else:
        builder = make()
    assert getattr(builder.build(), field) == expected
    ir = builder.to_ir()  # the analyses see the same winner
    assert (set(ir.reads_keys), set(ir.writes_keys)) == (reads, writes)


# -- setters on composites ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("adk_class", "field", "value", "before", "after"),
    [
        ("LlmAgent", "description", "Answers.", "", "Answers."),
        ("LlmAgent", "tools", lookup_weather, [], [lookup_weather]),
        ("LlmAgent", "before_model_callback", first_callback, None, first_callback),
        ("SequentialAgent", "description", "Runs in order.", "", "Runs in order."),
        ("SequentialAgent", "after_agent_callback", first_callback, None, first_callback),
        ("ParallelAgent", "description", "Runs at once.", "", "Runs at once."),
        ("ParallelAgent", "before_agent_callback", first_callback, None, first_callback),
        ("LoopAgent", "max_iterations", 2, None, 2),
        ("LoopAgent", "after_agent_callback", first_callback, None, first_callback),
    ],
    ids=[
        "Agent.description",
        "Agent.tools",
        "Agent.before_model_callback",
        "Pipeline.description",
        "Pipeline.after_agent_callback",
        "FanOut.description",
        "FanOut.before_agent_callback",
        "Loop.max_iterations",
        "Loop.after_agent_callback",
    ],
)
def test_a_setter_leaves_the_builder_it_was_called_on_unchanged(
    adk_class: str, field: str, value: Any, before: Any, after: Any
) -> None:
    base = _fresh(adk_class)
    changed = _set(base, field, value)
    assert unwrapped(getattr(base.build(), field)) == before
    assert unwrapped(getattr(changed.build(), field)) == after


@pytest.mark.parametrize(
    ("make", "outer", "steps", "inner_field", "inner_value"),
    [
        (
            lambda: (Agent("a") >> Agent("b")).description("Intake.") >> Agent("c"),
            "pipeline__pipeline__a__b__c",
            ["pipeline__a__b", "c"],
            "description",
            "Intake.",
        ),
        (
            lambda: (Agent("a") | Agent("b")).before_agent_callback(first_callback) | Agent("c"),
            "fanout__fanout__a__b__c",
            ["fanout__a__b", "c"],
            "before_agent_callback",
            first_callback,
        ),
        (
            lambda: Agent("c") >> (Agent("a") >> Agent("b")).after_agent_callback(first_callback),
            "pipeline__c__pipeline__a__b",
            ["c", "pipeline__a__b"],
            "after_agent_callback",
            first_callback,
        ),
    ],
    ids=["pipeline-with-description", "fanout-with-callback", "right-operand-pipeline"],
)
def test_an_operator_composite_given_a_field_stays_a_unit(
    make: Any, outer: str, steps: list[str], inner_field: str, inner_value: Any
) -> None:
    native = make().build()
    assert native.name == outer and [s.name for s in native.sub_agents] == steps
    inner = next(s for s in native.sub_agents if s.name.startswith(("pipeline", "fanout")))
    assert unwrapped(getattr(inner, inner_field)) == inner_value


@pytest.mark.parametrize("adk_class", list(BUILDERS), ids=[b[0] for b in BUILDERS.values()])
def test_a_field_set_on_the_root_reaches_the_apps_root_agent(adk_class: str) -> None:
    """`.to_app()` (annotated, the default: no probe) carries the same native root agent."""
    app = _fresh(adk_class).description("Front desk.").to_app()
    assert type(app.root_agent) is installed_class(adk_class)
    assert app.root_agent.name == BUILDERS[adk_class][1]
    assert app.root_agent.description == "Front desk."


def test_timeout_is_adk_fluents_own_deadline_not_the_adk_field() -> None:
    """`.timeout(s)` wraps the agent in adk-fluent's deadline step; ADK's per-node field (where
    the installed ADK has one) is left unset: it is `.adk_timeout()`."""
    native = Agent("slow").timeout(5).build()
    assert type(native) is not installed_class("LlmAgent")
    assert [type(s) for s in native.sub_agents] == [installed_class("LlmAgent")]
    assert getattr(native.sub_agents[0], "timeout", None) is None


# -- fields the installed ADK lacks: refused, naming the releases that have them -----------------
@pytest.mark.parametrize(
    ("adk_class", "field"),
    LACKING
    or [
        pytest.param(
            None,
            None,
            marks=pytest.mark.skip(reason="the installed google-adk has every field of the table"),
            id="none-lacking",
        )
    ],
)
def test_a_field_the_installed_adk_lacks_is_refused_with_the_releases_that_have_it(
    adk_class: str, field: str
) -> None:
    assert (adk_class, field) in RELEASES_OF_PARTIAL_FIELDS, f"unexpected partial field {field}"
    builder_label, name, make = BUILDERS[adk_class]
    installed = importlib.metadata.version("google-adk")
    # the value is never looked at: the field check comes first (and some samples need classes
    # only the releases with the field have)
    with pytest.raises(FieldNotInstalledError) as info:
        _set(make(), field, None)
    error = info.value
    assert (error.agent, error.field) == (name, field)
    message = str(error)
    assert f"agent '{name}', field '{field}'" in message
    assert f"the installed google-adk {installed} has no {adk_class}.{field}" in message
    releases = RELEASES_OF_PARTIAL_FIELDS[(adk_class, field)]
    assert field_present(adk_class, field, installed) is False
    if release_key(installed) > release_key(releases.split()[0]):  # only older releases had it
        assert f"hint: only google-adk {releases} had it; ADK removed it since" in message
    elif "newer" not in releases:  # newer releases had it, and ADK removed it again
        assert f"hint: only google-adk {releases} had it, and no newer release has it" in message
        assert "upgrade" not in message
    else:
        assert f"hint: it exists in google-adk {releases}; upgrade google-adk to use it." in message
