"""Presets: named bundles of agent settings, checked when they are made.

    fast = Preset(model="gemini-2.5-flash", generate_content_config=config, before_model=audit)
    writer = Agent("writer").use(fast).instruct("Write.")

A preset's keys are the Agent builder's setter names (`model`, `instruct`, `tools`,
`before_model`, any generated setter such as `generate_content_config`, and `inject`); a key
no setter has is refused at once with a did-you-mean, and so is a value the setter refuses.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from adk_fluent_generated.builder_bases import LlmAgentSetters

from adk_fluent.api.agent import Agent
from adk_fluent.api.inject import check_resources
from adk_fluent.arguments import checked_instance
from adk_fluent.errors import BuildError, UnknownSetterError, describe_value, did_you_mean

_B = TypeVar("_B")

# Settings that add one item per call (`.tool(f)`, the callback sugar): a list or tuple value is
# several items; combining presets keeps both sides' items. Most other settings hold one value,
# which a later preset replaces.
_ONE_AT_A_TIME = frozenset(
    {
        "tool",
        "before_model",
        "after_model",
        "on_model_error",
        "before_tool",
        "after_tool",
        "on_tool_error",
        "before_agent",
        "after_agent",
    }
)
# adk-fluent's own Agent setters a preset may hold (beside every generated ADK field setter).
_SUGAR = _ONE_AT_A_TIME | {
    "instruct",
    "outputs",
    "delegate",
    "context",
    "produces",
    "consumes",
    "reads",
    "writes",
    "inject",
}
# The two spellings of one field (Agent warns when both are set): a preset keeps one
_SPELLINGS = (("instruct", "instruction"), ("outputs", "output_key"))
# For Agent methods that are not settings (running, building, renaming, visibility switches)
_NOT_SETTINGS_HINT = (
    "a preset holds setter values only; call .{name}() on the agent or expression itself."
)


def preset_settings() -> frozenset[str]:
    """Every key a preset may hold on the installed ADK's Agent builder."""
    return LlmAgentSetters._GENERATED_SETTERS | _SUGAR


def _takes_many(name: str) -> bool:
    """Whether the Agent setter `name` takes any number of items (`.tools(a, b)`)."""
    method = getattr(Agent, name)
    parameters = inspect.signature(method).parameters.values()
    return any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters)


def _adds(name: str) -> bool:
    """Whether a setting adds to a list (rather than holding one value)."""
    return name in _ONE_AT_A_TIME or _takes_many(name)


def _items(value: Any) -> tuple[Any, ...]:
    """A setting's items: a list or tuple is several, anything else one."""
    return tuple(value) if isinstance(value, list | tuple) else (value,)


def _order(name: str) -> tuple[int, str]:
    """The fixed order settings are applied in: the model, other single values, then the
    settings that add to lists, then injected resources."""
    if name == "model":
        return (0, name)
    if name == "inject":
        return (3, name)
    return (2 if _adds(name) else 1, name)


def _check_key(name: str) -> None:
    """Refuse a key no Agent setter has, with a did-you-mean."""
    if name in preset_settings():
        return
    if not name.startswith("_") and callable(getattr(Agent, name, None)):
        raise UnknownSetterError(
            f"Preset cannot hold '{name}': it is an Agent method, not a setting",
            field=name,
            hint=_NOT_SETTINGS_HINT.format(name=name),
        )
    spelt = Agent._SPELT_DIFFERENTLY.get(name)
    raise UnknownSetterError(
        f"Preset has no setting '{name}' (the Agent builder has no setter of that name)",
        field=name,
        hint=spelt
        or did_you_mean(name, preset_settings())
        or "a preset's keys are Agent setter names, e.g. model, instruct, tools, before_model.",
    )


def _refined(error: BuildError, name: str, agent: str | None) -> BuildError:
    """The setter's error, said of the preset setting that caused it."""
    return type(error)(
        f"{error.message} (from the preset's '{name}')",
        agent=agent,
        field=name,
        hint=error.hint,
    )


class Preset:
    """Agent settings checked when made and applied with `Agent(...).use(preset)`.

    `Preset(model="gemini-2.5-flash", instruct="Be brief.", tools=[search],
    before_model=audit, generate_content_config=config, inject={"db": pool})`: each key is an
    Agent setter's name, each value what that setter takes (a list for the settings that add:
    tools, callbacks, delegates). Unknown keys and refused values fail here, naming the key.

    `.use(preset)` calls the setters in a fixed order (model, other single values by name, the
    settings that add by name, injected resources last), at that point of the chain: a setter
    called later overrides a single value and adds to a list.

    Presets combine with `|`: `base | extra` (or `base.extend(**settings)`) keeps `base`'s
    settings, replaced by `extra`'s where both set one value, and joined (base's first) where
    the setting adds items; injected resources are merged by name, `extra` winning.
    """

    _IS_PRESET = True  # what Agent.use() recognises (it does not import this module)

    def __init__(self, **settings: Any) -> None:
        for name in settings:
            _check_key(name)
        for canonical, adk_name in _SPELLINGS:
            if canonical in settings and adk_name in settings:
                raise BuildError(
                    f"the preset sets one field twice, as '{canonical}' and as '{adk_name}'",
                    field=adk_name,
                    hint=f"keep '{canonical}' (the canonical spelling) only.",
                )
        if "inject" in settings:
            what = "a mapping of resource names to values"
            hint = 'e.g. Preset(inject={"db": pool}).'
            checked_instance(settings["inject"], None, "inject", Mapping, what=what, hint=hint)
        self._settings: Mapping[str, Any] = MappingProxyType(dict(settings))
        self._check_values()

    def _check_values(self) -> None:
        """Apply every setting to a scratch agent and build it, so a value a setter refuses is
        refused now (the resources are checked by name only: the tools that take them may be
        added to the agent later)."""
        scratch = self._applied(Agent("preset_check"), check_only=True)
        try:
            scratch.to_ir()
        except BuildError as error:
            raise _refined(error, error.field or "preset", None) from None

    @property
    def settings(self) -> dict[str, Any]:
        """The settings, by setter name (a copy)."""
        return dict(self._settings)

    def apply(self, builder: _B) -> _B:
        """`builder` with this preset's settings applied (what `Agent.use()` calls)."""
        return self._applied(builder, check_only=False)

    def _applied(self, builder: _B, *, check_only: bool) -> _B:
        agent: Any = builder
        for name in sorted(self._settings, key=_order):
            try:
                agent = _apply_one(agent, name, self._settings[name], check_only=check_only)
            except BuildError as error:
                raise _refined(error, name, None if check_only else agent._name) from None
        return agent  # type: ignore[no-any-return]

    def __or__(self, other: Any) -> Preset:
        """`base | extra`: extra's single values win; list settings are joined, base's first."""
        if not isinstance(other, Preset):
            return NotImplemented
        merged = dict(self._settings)
        for name, value in other._settings.items():
            if name not in merged:
                merged[name] = value
            elif name == "inject":
                merged[name] = {**merged[name], **value}
            elif _adds(name):
                merged[name] = [*_items(merged[name]), *_items(value)]
            else:
                merged[name] = value
        return Preset(**merged)

    def extend(self, **settings: Any) -> Preset:
        """This preset combined with more settings: `self | Preset(**settings)`."""
        return self | Preset(**settings)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Preset) and dict(self._settings) == dict(other._settings)

    __hash__ = None  # type: ignore[assignment]  # settings may hold unhashable values

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={_short(value)}" for name, value in self._settings.items())
        return f"Preset({shown})"


def _short(value: Any) -> str:
    if isinstance(value, list | tuple):
        return f"[{len(value)} item(s)]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(str(k) for k in value) + "}"
    text = describe_value(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _apply_one(agent: Any, name: str, value: Any, *, check_only: bool) -> Any:
    method: Callable[..., Any] = getattr(agent, name)
    if name == "inject":
        # resources are matched to tools when the agent is built; a preset may come before them
        if check_only:
            check_resources(agent._name, value)
            return agent
        return method(**value)
    if _takes_many(name):
        return method(*_items(value))
    if name in _ONE_AT_A_TIME:
        for item in _items(value):
            agent = getattr(agent, name)(item)  # each call on the builder the last one made
        return agent
    return method(value)
