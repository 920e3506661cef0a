"""BuilderBase: what a builder value is. Immutable, with field checks and typo hints, and the
visibility and strictness choices it hands the engine as BuildOptions.

How builders compose (`>> | * //`) is in `expression`, how they run in `running`; every concrete
builder derives from `expression.Expression`, which has both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, Self

from adk_fluent.adk.compat import (
    adk_version,
    field_present_in_newest,
    field_releases_text,
    field_was_removed,
    installed_fields,
)
from adk_fluent.adk.compile import callback_keywords, check_tree_names, takes_keywords
from adk_fluent.arguments import checked_callable, checked_function, checked_some
from adk_fluent.errors import BuildError, FieldNotInstalledError, UnknownSetterError, did_you_mean
from adk_fluent.ir.middleware import check_middleware
from adk_fluent.ir.names import is_valid_name, name_problem
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import BuildOptions, StrictOptions


def check_name(name: object, what: str = "agent") -> None:
    """Refuse a name ADK would refuse, naming it and saying why."""
    if not is_valid_name(name):
        shown = repr(name) if isinstance(name, str) or name is None else type(name).__name__
        raise BuildError(
            f"{shown[:60]} is not a valid {what} name: {name_problem(name)}",
            agent=str(name)[:60] if isinstance(name, str) else None,
            field="name",
            hint="ADK agent names must be Python identifiers (letters, digits, underscores, "
            "not starting with a digit) and must not be 'user', e.g. 'writer' or 'step_2'.",
        )


def _unbuilt(root: BuilderBase) -> list[BuilderBase]:
    """`root` and the builders under it (steps, branches, bodies, delegates) whose IR is not
    made yet, each before the builders it holds, found without recursion."""
    found: list[BuilderBase] = []
    stack: list[Any] = [root]
    pop, push, keep = stack.pop, stack.extend, found.append  # (bound once: a loop per builder)
    while stack:  # values that are neither builders nor their holders are dropped when popped
        value = pop()
        if isinstance(value, BuilderBase):
            state = value.__dict__
            if "_ir" not in state:
                keep(value)
                where = value._INNER
                inner = state.values() if where is None else getattr(value, where)
                if inner:
                    push(inner)
        elif isinstance(value, (tuple, list)):  # steps, branches or (rule, step) pairs
            push(value)
    return found


class BuilderName(str):
    """A builder's name, as text. Every other ADK field has a setter, so `.name('b')` looks like
    one; calling the name says how to rename instead of failing with a raw TypeError."""

    rename = ""  # the builder's renaming method ("clone" or "named"), or "" when it has none

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        new = args[0][:40] if len(args) == 1 and isinstance(args[0], str) else "new_name"
        raise BuildError(
            "the name is read-only: it is given when the builder is made",
            agent=str(self),
            field="name",
            hint=f".{self.rename}({new!r}) is a copy under the new name."
            if self.rename
            else f"pass name={new!r} where you make it.",
        )


class BuilderBase:
    """What every builder shares. Every method returns a new builder; none mutates."""

    _ADK_CLASS: ClassVar[str] = ""
    _GENERATED_SETTERS: ClassVar[frozenset[str]] = frozenset()
    # methods people expect (from ADK's fields or other builders) that this builder spells
    # differently: name -> the hint for an UnknownSetterError
    _SPELT_DIFFERENTLY: ClassVar[dict[str, str]] = {}

    _name: str
    _fields: dict[str, Any]  # ADK fields set through the (generated) setters
    _visibility: str | None = None  # the developer's override: "user" | "internal" | None
    _options: BuildOptions = BuildOptions()
    _middleware: tuple[Any, ...] = ()  # `.middleware(...)`: scoped to this builder's subtree
    # the attribute that holds the builders under this one (steps, branches, bodies, delegates,
    # in tuples or lists), where to_ir looks for them; None: any value this builder holds may
    _INNER: ClassVar[str | None] = None

    def __init__(self, name: str, fields: dict[str, Any] | None = None) -> None:
        if type(name) is not str or not name.isidentifier() or name == "user":
            check_name(name)  # raises, naming the agent and the rule
        self._name = name
        self._fields = {} if fields is None else fields

    # -- immutability -------------------------------------------------------------------------
    def _copy(self, **changes: Any) -> Self:
        state = self.__dict__.copy()
        state.pop("_ir", None)  # the IR belongs to one value only
        state.update(changes)
        new = object.__new__(type(self))
        new.__dict__ = state
        return new

    @property
    def name(self) -> str:
        """The agent's (or composite's) name in the ADK tree."""
        name = BuilderName(self._name)
        kind = type(self)
        name.rename = (
            "clone" if hasattr(kind, "clone") else "named" if hasattr(kind, "named") else ""
        )
        return name

    # -- field setters used by the generated mixins --------------------------------------------
    def _check_field(self, field: str) -> None:
        if field in installed_fields(self._ADK_CLASS):
            return
        releases = field_releases_text(self._ADK_CLASS, field)
        if not releases:
            hint = "no scanned google-adk release has this field."
        elif field_was_removed(self._ADK_CLASS, field, adk_version()):
            hint = (
                f"only google-adk {releases} had it; ADK removed it since, so drop the call "
                "(or pin google-adk to such a release)."
            )
        elif not field_present_in_newest(self._ADK_CLASS, field):
            hint = (
                f"only google-adk {releases} had it, and no newer release has it; drop the "
                "call (or pin google-adk to such a release)."
            )
        else:
            hint = f"it exists in google-adk {releases}; upgrade google-adk to use it."
        raise FieldNotInstalledError(
            f"the installed google-adk {adk_version()} has no {self._ADK_CLASS}.{field}",
            agent=self._name,
            field=field,
            hint=hint,
        )

    def _set_field(self, field: str, value: Any) -> Self:
        # the hot path of every setter: a known field, one new value (see _copy)
        if field not in installed_fields(self._ADK_CLASS):
            self._check_field(field)
        state = self.__dict__.copy()
        state.pop("_ir", None)
        state["_fields"] = {**self._fields, field: value}
        new = object.__new__(type(self))
        new.__dict__ = state
        return new

    def _append_field(self, field: str, items: tuple[Any, ...]) -> Self:
        if field not in installed_fields(self._ADK_CLASS):
            self._check_field(field)
        fields = self._fields
        return self._copy(_fields={**fields, field: (*fields.get(field, ()), *items)})

    def _add_callbacks(self, field: str, callbacks: tuple[Callable[..., Any], ...]) -> Self:
        self._check_field(field)
        keywords = callback_keywords(field)
        for callback in callbacks:  # a class is callable, but ADK would construct it per call
            checked_callable(callback, self._name, field, "a function, or an instance of a class.")
            # ADK passes these by keyword; one that does not take them gets them in order
            if keywords is not None and not takes_keywords(callback, keywords):
                checked_function(
                    callback,
                    self._name,
                    field,
                    takes=len(keywords),
                    what=f"ADK's {field}",
                    hint=f"take ADK's arguments, by these names or in this order: "
                    f"{', '.join(keywords)}.",
                )
        return self._append_field(field, callbacks)

    def _missing_attribute(self, attr: str) -> Any:
        """`__getattr__` at run time: an unknown method is an UnknownSetterError with a
        did-you-mean."""
        if attr.startswith("_"):
            raise AttributeError(attr)
        candidates = [n for n in dir(type(self)) if not n.startswith("_")]
        raise UnknownSetterError(
            f"{type(self).__name__} has no method '{attr}'",
            agent=self.__dict__.get("_name"),
            field=attr,
            hint=self._SPELT_DIFFERENTLY.get(attr)
            or did_you_mean(attr, candidates)
            or f"see help({type(self).__name__}) for its methods.",
        )

    # Hidden from type checkers: a class with __getattr__ makes every misspelt method `Any` to
    # them, so `Agent("a").instrct(...)` would pass `mypy --strict` and get no completion hint.
    if not TYPE_CHECKING:
        __getattr__ = _missing_attribute

    # -- visibility and strictness -------------------------------------------------------------
    def show(self, what: str | None = None) -> Self:
        """Force this agent (or every agent in this composite) to be user-facing.

        `what` is for loops only: `Loop(...).show("final")` shows a loop's final round."""
        if what is not None:
            raise BuildError(
                f".show({what!r}) applies to a loop: {type(self).__name__} '{self._name}' has "
                "no rounds",
                agent=self._name,
                field="visibility",
                hint="write .show() to make it user-facing; to show only the final round of a "
                "loop it is in, call .show('final') on the Loop.",
            )
        return self._copy(_visibility="user")

    # The documented name for showing a whole composite (review, debugging, progressive UX).
    transparent = show

    def hide(self) -> Self:
        """Force this agent (or every agent in this composite) to be internal.

        Gates are the exception: their question always reaches the user (see docs/visibility.md).
        """
        return self._copy(_visibility="internal")

    def filtered(self) -> Self:
        """Clients receive only user-facing agents' text (internal text stays in history and state)."""
        return self._copy(_options=replace(self._options, visibility_mode="filtered"))

    def annotated(self) -> Self:
        """Every event reaches the client, annotated with its visibility (the default)."""
        return self._copy(_options=replace(self._options, visibility_mode="annotated"))

    def strict(self, *, schema: Any = None, initial_keys: tuple[str, ...] = ()) -> Self:
        """Refuse to build (build / to_app / run) while the contract check finds errors."""
        from adk_fluent.analysis.contracts.checker import checked_schema, initial_key_names

        # checked now, naming this builder, rather than when the tree is built
        schema = checked_schema(schema, agent=self._name)
        strict = StrictOptions(schema, initial_key_names(initial_keys, agent=self._name))
        return self._copy(_options=replace(self._options, strict=strict))

    def middleware(self, *middleware: Any) -> Self:
        """Attach middleware (docs/middleware.md) to this agent or composite: it sees the
        callbacks of this subtree only (on the root expression: the whole app). Compiled with
        the rest of the tree's middleware into one ADK plugin by `to_app()` / `run()`."""
        hint = "e.g. .middleware(retry(max_attempts=3)); see docs/middleware.md."
        checked_some(
            middleware,
            self._name,
            "middleware",
            shown=".middleware()",
            items="middleware",
            hint=hint,
        )
        for item in middleware:
            check_middleware(item, self._name)
        return self._copy(_middleware=(*self._middleware, *middleware))

    @property
    def options(self) -> BuildOptions:
        """What this expression asks of the whole build (visibility mode, strictness)."""
        return self._options

    # -- IR and execution facade ---------------------------------------------------------------
    def to_ir(self) -> Node:
        """The frozen IR tree of this expression (computed once per builder value)."""
        ir: Node | None = self.__dict__.get("_ir")
        if ir is None:
            # the builders under it first, deepest first: each then finds its children's IR
            # made, so a tree of any depth builds without recursion
            for inner in reversed(_unbuilt(self)):
                state = inner.__dict__
                if "_ir" in state:  # one builder met twice in the tree
                    continue
                made = inner._build_ir()
                if inner._middleware:
                    made = made.replace(middleware=(*made.middleware, *inner._middleware))
                state["_ir"] = made
            ir = self.__dict__["_ir"]
            check_tree_names(ir)
        return ir

    def _build_ir(self) -> Node:
        raise TypeError(f"{type(self).__name__} does not define _build_ir()")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name!r})"
