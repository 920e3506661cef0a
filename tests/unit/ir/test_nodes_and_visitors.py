"""The one Node base, its traits, and the generated visitor: every dispatch over node types
is a NodeVisitor, and a node type without a case in any of them fails here."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from typing import ClassVar

import pytest
from adk_fluent_generated.sentinel import UNSET

import adk_fluent
from adk_fluent import Agent, S, gate
from adk_fluent.ir.nodes import (
    ADK_NODE_TYPES,
    CONTROL_NODE_TYPES,
    NODE_TYPE_NAMES,
    LlmAgentNode,
    Node,
    NodeVisitor,
    RouteNode,
    SequentialAgentNode,
    Walk,
)


def _all_modules() -> list[object]:
    names = [adk_fluent.__name__] + [
        info.name
        for info in pkgutil.walk_packages(adk_fluent.__path__, f"{adk_fluent.__name__}.")
        if ".testing.pytest_plugin" not in info.name
    ]
    return [importlib.import_module(name) for name in names]


def _node_types() -> set[type[Node]]:
    found: set[type[Node]] = set()
    todo = list(Node.__subclasses__())
    while todo:
        cls = todo.pop()
        if cls.__module__.startswith(("adk_fluent.", "adk_fluent_generated.")):
            found.add(cls)
        todo.extend(cls.__subclasses__())
    return found


def _visitors() -> list[type[NodeVisitor]]:  # type: ignore[type-arg]
    _all_modules()  # import every module, so every visitor class is defined
    found = []
    todo = list(NodeVisitor.__subclasses__())
    while todo:
        cls = todo.pop()
        if cls.__module__.startswith("adk_fluent."):
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_the_visitor_knows_every_node_type_the_core_defines():
    _all_modules()
    assert {cls.__name__ for cls in _node_types()} == set(NODE_TYPE_NAMES)
    assert set(ADK_NODE_TYPES) | set(CONTROL_NODE_TYPES) == _node_types()


def test_the_codegen_list_of_control_nodes_matches_the_core():
    from adk_fluent_codegen.targets import CONTROL_NODES

    assert [node.name for node in CONTROL_NODES] == [cls.__name__ for cls in CONTROL_NODE_TYPES]


def test_every_dispatch_over_node_types_has_a_case_for_each():
    visitors = _visitors()
    # the compiler, mermaid, the checker's data flow, content flow and reply check, visibility,
    # telemetry's facts, the cost estimate and the split at execution boundaries at least
    assert {cls.__name__ for cls in visitors} >= {
        "Compiler",
        "WorkflowCompiler",
        "_Drawing",
        "Flow",
        "Summaries",
        "_ContentFlow",
        "_Silence",
        "_Visibility",
        "_Facts",
        "_Estimate",
        "_TreeNames",
        "Splitter",
    }
    for cls in visitors:
        missing = sorted(getattr(cls, "__abstractmethods__", ()))
        assert not missing, f"{cls.__module__}.{cls.__name__} has no case for {missing}"
        for node_type in _node_types():
            assert callable(getattr(cls, node_type.VISIT, None)), (cls, node_type)


def test_a_new_node_type_without_a_case_makes_a_visitor_fail_to_build():
    class Partial(NodeVisitor[None, str]):
        def visit_llm_agent(self, node: LlmAgentNode, ctx: None) -> str:
            return node.name

    with pytest.raises(TypeError, match="abstract"):
        Partial()  # type: ignore[abstract]


def _chain(depth: int) -> Node:
    node: Node = LlmAgentNode("leaf")
    for index in range(depth):
        node = SequentialAgentNode(f"p{index}", children=(node,))
    return node


def _visitor_of(case: object) -> NodeVisitor:  # type: ignore[type-arg]
    """A visitor whose every case is `case`."""
    cases = {cls.VISIT: case for cls in (*ADK_NODE_TYPES, *CONTROL_NODE_TYPES)}
    return type("Every", (NodeVisitor,), cases)()  # type: ignore[no-any-return]


def test_a_visitor_walks_a_tree_far_deeper_than_the_recursion_limit():
    import sys

    def depth(self: object, node: Node, level: int) -> Walk[int, int]:
        deepest = level
        for child in node.children:
            deepest = max(deepest, (yield child, level + 1))
        return deepest

    levels = sys.getrecursionlimit() * 10
    assert _visitor_of(depth).visit(_chain(levels), 0) == levels


def test_a_case_sees_its_childs_error_where_it_asked_and_its_finally_runs():
    closed: list[str] = []

    def case(self: object, node: Node, ctx: None) -> Walk[None, str]:
        try:
            if not node.children:
                raise ValueError(f"{node.name} failed")
            return (yield node.children[0], None)
        finally:
            closed.append(node.name)

    with pytest.raises(ValueError, match="leaf failed"):
        _visitor_of(case).visit(_chain(3), None)
    assert closed == ["leaf", "p0", "p1", "p2"]

    def handles(self: object, node: Node, ctx: None) -> Walk[None, str] | str:
        if not node.children:
            raise ValueError(node.name)
        try:
            return (yield node.children[0], None)
        except ValueError as error:
            return f"{node.name} handled {error}"

    assert _visitor_of(handles).visit(_chain(2), None) == "p0 handled leaf"


def test_a_tree_too_deep_for_adk_to_validate_is_a_build_error(monkeypatch):
    from adk_fluent.adk import compile as compile_module
    from adk_fluent.errors import BuildError

    def recursing(class_name: str) -> object:
        def construct(**fields: object) -> object:
            raise RecursionError("maximum recursion depth exceeded")

        return construct

    monkeypatch.setattr(compile_module, "installed_class", recursing)
    with pytest.raises(BuildError, match="'p1' is nested too deep for google-adk"):
        compile_module.compile_tree(_chain(2))


def test_a_node_type_must_declare_its_traits():
    with pytest.raises(TypeError, match="must declare SPEAKS and CHILDREN"):

        class Vague(Node):  # noqa: F841 - defining it is the test
            pass

    class Clear(Node):
        SPEAKS: ClassVar = "never"
        CHILDREN: ClassVar = "none"
        label: str

    assert Clear.VISIT == "visit_clear"
    assert Clear.REQUIRED == {"label"}


def test_nodes_hold_only_what_was_set_and_are_frozen_values():
    node = Agent("a", "m").instruct("Hi {name}").to_ir()
    assert set(node.set_fields()) == {"name", "model", "instruction", "reads_keys"}
    assert node.output_key is UNSET  # never set: the class default, and ADK's own applies
    assert node == Agent("a", "m").instruct("Hi {name}").to_ir()
    assert hash(node) == hash(Agent("a", "m").instruct("Hi {name}").to_ir())
    assert node != Agent("a", "m").instruct("Hi").to_ir()
    with pytest.raises(dataclasses.FrozenInstanceError):
        node.model = "other"  # type: ignore[misc]
    assert node.replace(model="other").model == "other" and node.model == "m"


def test_unknown_and_missing_fields_are_clear_errors():
    with pytest.raises(TypeError, match="LlmAgentNode has no field.*instuction"):
        LlmAgentNode("a", instuction="x")
    with pytest.raises(TypeError, match="RouteNode needs key"):
        RouteNode("r")


def test_traits_decide_who_speaks_and_how_children_run():
    assert LlmAgentNode.SPEAKS == "by_position" and LlmAgentNode.CHILDREN == "delegates"
    steps = {type(n) for n in (S.set(a=1) >> gate(lambda s: True, "ok?")).to_ir().walk()}
    zero_cost = {cls.__name__ for cls in steps if cls.ZERO_COST}
    pausing = {cls.__name__ for cls in steps if cls.PAUSES_RUN}
    assert zero_cost == {"TransformNode"} and pausing == {"GateNode"}


def test_every_public_visitor_method_name_follows_the_node_class():
    for cls in _node_types():
        stem = cls.__name__.removesuffix("Node")
        words = "".join(f"_{c.lower()}" if c.isupper() else c for c in stem).lstrip("_")
        assert cls.VISIT == f"visit_{words}"
    assert inspect.isabstract(NodeVisitor)
