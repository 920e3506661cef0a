"""Typed, scoped state declarations (see docs/contracts.md, "StateSchema").

    class Billing(StateSchema):
        intent: str
        confidence: float
        ticket_id: str | None = None
        user_tier: Annotated[str, UserScoped]     # state key "user:user_tier"
        scratch: Annotated[dict, Temp]            # state key "temp:scratch"

    Agent("classifier").writes(Billing.intent) >> Agent("resolver").reads(Billing.intent)
    check_contracts(pipeline, schema=Billing)     # keys, scopes and types checked statically

    def create_ticket(query: str, tool_context: ToolContext) -> str:
        state = Billing.bind(tool_context)        # typed reads, checked writes
        state.ticket_id = "T-1"                   # travels in the event's state_delta

A class attribute (`Billing.intent`) is a StateFieldRef; on a bound instance it reads or writes
state. Schemas compose by inheritance; a field declared twice with different types or scopes is
a SchemaCompositionError when the class is defined. bind() looks up ADK's State class
when it is called (through adk.compat).
"""

from __future__ import annotations

import copy
import inspect
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Self, get_args, get_origin

from adk_fluent.arguments import checked_some, checked_text
from adk_fluent.errors import (
    BuildError,
    SchemaCompositionError,
    StateFieldError,
    StateKeyError,
    StateTypeError,
    StateWriteError,
    describe_value,
    did_you_mean,
    with_article,
)
from adk_fluent.ir.state_keys import (
    SCOPE_PREFIX,
    UNKNOWN,
    DeclaredState,
    Producer,
    StateFieldRef,
    bare_name,
    scope_of_key,
    type_name,
    unwrap_declared,
)


@dataclass(frozen=True)
class Scope:
    """A scope marker for `Annotated[type, Scope]`: decides the state key's prefix."""

    name: str
    prefix: str

    def __repr__(self) -> str:
        return {"session": "SessionScoped", "user": "UserScoped", "app": "AppScoped"}.get(
            self.name, "Temp"
        )


SessionScoped = Scope("session", "")  # the default: stored with the session
UserScoped = Scope("user", SCOPE_PREFIX["user"])  # shared by every session of one user
AppScoped = Scope("app", SCOPE_PREFIX["app"])  # shared by every user of the app
Temp = Scope("temp", SCOPE_PREFIX["temp"])  # never persisted


class CapturedBy:
    """A field's producer, for the checker: `Annotated[str, CapturedBy(C.capture)]`.

    The producer is a state step function (`C.capture`, `C.capture_turns`, `S.set`,
    `S.compute`, ... any of S's), an agent builder or an agent's name (any of its writes: its
    `.outputs()`, its tools, its callbacks). It changes nothing at run time: `check_contracts`
    with the schema reports a tree where the field's key is written by anything else, or read
    with nothing of that producer writing it (docs/contracts.md)."""

    __slots__ = ("producer",)

    def __init__(self, producer: Any) -> None:
        self.producer = _producer(producer)

    def __repr__(self) -> str:
        return f"CapturedBy({self.producer.shown})"


_STEP_MODULES = {"adk_fluent.api.state_steps": "S.", "adk_fluent.api.context": "C."}
_C_WRITERS = {"C.capture": ("C.capture(", "S.capture("), "C.capture_turns": ("C.capture_turns(",)}


def _producer(value: Any) -> Producer:
    hint = (
        "CapturedBy(C.capture), CapturedBy(S.compute), or the agent that writes it: "
        "CapturedBy(classifier) or CapturedBy('classifier')."
    )
    if isinstance(value, str):
        checked_text(value, None, "producer", what="an agent's name", hint=hint, where="CapturedBy")
        return Producer(f"agent '{value}'", agent=value)
    name = getattr(value, "_name", None)
    if isinstance(name, str) and hasattr(value, "to_ir"):  # an agent builder
        return Producer(f"agent '{name}'", agent=name)
    qualname = getattr(value, "__qualname__", "")
    prefix = _STEP_MODULES.get(getattr(value, "__module__", ""))
    if callable(value) and prefix is not None and qualname.startswith(prefix):
        if prefix == "S.":
            return Producer(qualname, steps=(qualname + "(",))
        if qualname in _C_WRITERS:
            return Producer(qualname, steps=_C_WRITERS[qualname])
    shown = qualname if callable(value) and qualname else describe_value(value)
    raise BuildError(
        f"CapturedBy takes a step function that writes state or the agent that writes the "
        f"field, not {shown}",
        where="CapturedBy",
        field="producer",
        hint=hint,
    )


# Names a field must not take: they would shadow the schema's own API.
_RESERVED = frozenset({"bind", "keys", "field_refs", "field_for_key", "to_dict"})


def _resolve(annotation: Any, cls: type) -> Any:
    """A string annotation (from `from __future__ import annotations`) evaluated where it was
    written; one that cannot be evaluated stays a string, which no type check looks into."""
    if not isinstance(annotation, str):
        return annotation
    module = sys.modules.get(cls.__module__)
    namespace = dict(vars(module)) if module is not None else {}
    namespace.setdefault("Annotated", Annotated)
    try:
        return eval(annotation, namespace, dict(vars(cls)))  # noqa: S307 - the user's own annotation
    except Exception:
        return annotation


def _split_markers(cls: type, name: str, annotation: Any) -> tuple[Any, Scope, Producer | None]:
    """The field's type, its scope and its producer, from `Annotated[type, markers...]`."""
    if get_origin(annotation) is not Annotated:
        return annotation, SessionScoped, None
    base, *metadata = get_args(annotation)
    scopes = [m for m in metadata if isinstance(m, Scope)]
    if len(scopes) > 1:
        raise SchemaCompositionError(
            f"{cls.__name__}.{name} has {len(scopes)} scopes ({', '.join(map(repr, scopes))}); "
            "hint: give a field one of SessionScoped, UserScoped, AppScoped or Temp."
        )
    producers = [m.producer for m in metadata if isinstance(m, CapturedBy)]
    if len(producers) > 1:
        raise SchemaCompositionError(
            f"{cls.__name__}.{name} has {len(producers)} CapturedBy markers "
            f"({', '.join(p.shown for p in producers)}); hint: name the one producer of the key."
        )
    rest = [m for m in metadata if not isinstance(m, Scope | CapturedBy)]
    tp = Annotated[(base, *rest)] if rest else base  # type: ignore[valid-type]
    return tp, scopes[0] if scopes else SessionScoped, producers[0] if producers else None


def _own_fields(cls: type) -> dict[str, StateFieldRef]:
    fields: dict[str, StateFieldRef] = {}
    for name, raw in inspect.get_annotations(cls).items():
        if name.startswith("_"):
            continue
        annotation = _resolve(raw, cls)
        if get_origin(annotation) is ClassVar or annotation is ClassVar:
            continue
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        if name in _RESERVED:
            raise SchemaCompositionError(
                f"{cls.__name__}.{name}: '{name}' is reserved by StateSchema; "
                "hint: rename the field (e.g. with a suffix)."
            )
        tp, scope, producer = _split_markers(cls, name, annotation)
        has_default = name in cls.__dict__
        fields[name] = StateFieldRef(
            key=scope.prefix + name,
            name=name,
            type=tp,
            scope=scope.name,
            schema=cls,
            has_default=has_default,
            default=_checked_default(cls, name, tp, cls.__dict__[name]) if has_default else None,
            captured_by=producer,
        )
    return fields


def _checked_default(cls: type, name: str, tp: Any, default: Any) -> Any:
    """The default as a read returns it; one a write of the field would refuse (an int field
    defaulting to 'three') is refused here, so reads of the unset key never return it."""
    if tp is UNKNOWN or tp is Any or isinstance(tp, str):
        return default
    from pydantic import TypeAdapter, ValidationError

    try:
        adapter = TypeAdapter(tp)
    except Exception:  # a type pydantic cannot check: reads return the default as given
        return default
    try:
        return adapter.validate_python(default, strict=True)
    except ValidationError as error:
        failed = error
    if isinstance(default, dict | list):  # a model's or a collection's plain data, as writes take
        try:
            return adapter.validate_python(default)
        except ValidationError as error:
            failed = error
    declared = type_name(tp)
    fix = (
        f"declare it '{declared} | None = None' to default to None"
        if default is None
        else f"make the default {with_article(declared)}"
    )
    raise SchemaCompositionError(
        f"{cls.__name__}.{name} is declared {declared}, but its default {_short(default)} "
        f"does not fit: {failed.errors()[0].get('msg')}; hint: {fix}, or change the field's type."
    )


def _same_declaration(a: StateFieldRef, b: StateFieldRef) -> bool:
    return a.scope == b.scope and (a.type == b.type)


def _collision(cls: type, name: str, first: StateFieldRef, second: StateFieldRef) -> str:
    def where(ref: StateFieldRef) -> str:
        return f"{ref.owner}.{name} ({type_name(ref.type)}, {ref.scope}-scoped)"

    return (
        f"{cls.__name__}: field '{name}' is declared twice, as {where(first)} and as "
        f"{where(second)}; hint: use one type and one scope for a field, or rename one of them."
    )


class _FieldDescriptor:
    """On the class: the field's StateFieldRef. On a bound instance: the typed value in state."""

    def __init__(self, ref: StateFieldRef) -> None:
        self.ref = ref

    def __get__(self, instance: Any, owner: type) -> Any:
        if instance is None:
            return self.ref
        return instance._read(self.ref)

    def __set__(self, instance: Any, value: Any) -> None:
        instance._write(self.ref, value)

    def __delete__(self, instance: Any) -> None:
        instance._delete(self.ref)


class _SchemaClass(type):
    """StateSchema's metaclass: a field the class does not declare (`Billing.intnet`) is a
    StateFieldError with did-you-mean; it is an AttributeError, so hasattr() probes still work."""

    def _missing_attribute(cls, name: str) -> Any:
        if name.startswith("_"):  # dunder and private probes (copy, pydantic, inspect): as usual
            raise AttributeError(name)
        fields = getattr(cls, "__state_fields__", {})
        hint = did_you_mean(name, [*fields, *_RESERVED]) or (
            f"declared fields: {', '.join(sorted(fields))}." if fields else "declare it first."
        )
        raise StateFieldError(f"{cls.__name__} has no field '{name}'; hint: {hint}")

    # Hidden from type checkers, which then report `Billing.intnet` themselves.
    if not TYPE_CHECKING:
        __getattr__ = _missing_attribute


class StateSchema(metaclass=_SchemaClass):
    """Declare state keys with types and scopes; subclass it (see the module docstring)."""

    __state_fields__: ClassVar[dict[str, StateFieldRef]] = {}
    __adapters__: ClassVar[dict[str, Any]] = {}

    _state: Any
    _writable: bool

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        merged: dict[str, StateFieldRef] = {}
        for base in cls.__bases__:
            for name, ref in getattr(base, "__state_fields__", {}).items():
                if name in merged and not _same_declaration(merged[name], ref):
                    raise SchemaCompositionError(_collision(cls, name, merged[name], ref))
                merged.setdefault(name, ref)
        own = _own_fields(cls)
        for name, ref in own.items():
            if name in merged and not _same_declaration(merged[name], ref):
                raise SchemaCompositionError(_collision(cls, name, merged[name], ref))
            merged[name] = ref
        cls.__state_fields__ = {name: replace(ref, schema=cls) for name, ref in merged.items()}
        cls.__adapters__ = {}
        for name, ref in cls.__state_fields__.items():
            setattr(cls, name, _FieldDescriptor(ref))

    def __init__(self) -> None:
        raise TypeError(
            f"{type(self).__name__} is a declaration; use {type(self).__name__}.bind(context) "
            "to read and write state through it."
        )

    # -- the declaration ------------------------------------------------------------------
    @classmethod
    def field_refs(cls) -> dict[str, StateFieldRef]:
        """Every field, by attribute name."""
        return dict(cls.__state_fields__)

    @classmethod
    def keys(cls) -> frozenset[str]:
        """Every state key the schema declares (scoped keys with their prefix)."""
        return frozenset(ref.key for ref in cls.__state_fields__.values())

    @classmethod
    def field_for_key(cls, key: str) -> StateFieldRef | None:
        """The field declaring `key`, or None."""
        return next((ref for ref in cls.__state_fields__.values() if ref.key == key), None)

    # -- run time ---------------------------------------------------------------------------
    @classmethod
    def bind(cls, context: Any) -> Self:
        """A typed view of state: a ToolContext / CallbackContext (reads and writes; writes go to
        the event's state_delta) or any mapping such as a tap's state (reads only)."""
        state, writable = _state_of(cls, context)
        bound = object.__new__(cls)
        object.__setattr__(bound, "_state", state)
        object.__setattr__(bound, "_writable", writable)
        return bound

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set, typed, by attribute name."""
        values = {}
        for name, ref in type(self).__state_fields__.items():
            if _present(self._state, ref.key) or ref.has_default:
                values[name] = self._read(ref)
        return values

    def _adapter(self, ref: StateFieldRef) -> Any:
        adapters = type(self).__adapters__
        if ref.name not in adapters:
            from pydantic import TypeAdapter

            adapters[ref.name] = TypeAdapter(ref.type)
        return adapters[ref.name]

    def _typed(self, ref: StateFieldRef) -> bool:
        return ref.type is not UNKNOWN and ref.type is not Any and not isinstance(ref.type, str)

    def _read(self, ref: StateFieldRef) -> Any:
        state = self._state
        if not _present(state, ref.key):
            if ref.has_default:
                return copy.deepcopy(ref.default)
            if ref.key in state and self._typed(ref) and _accepts_none(self._adapter(ref)):
                return None
            raise StateKeyError(
                f"{type(self).__name__}.{ref.name}: state['{ref.key}'] is not set. "
                f"Hint: write it earlier in the pipeline (e.g. .outputs('{ref.key}') or S.set), "
                f"or give the field a default in {type(self).__name__}."
            )
        value = state[ref.key]
        if not self._typed(ref):
            return value
        from pydantic import ValidationError

        try:
            return self._adapter(ref).validate_python(value)
        except ValidationError:
            raise StateTypeError(
                f"{type(self).__name__}.{ref.name}: state['{ref.key}'] holds "
                f"{type(value).__name__} {_short(value)}, not {type_name(ref.type)}. "
                f"Hint: find the step that writes '{ref.key}' (check_contracts(..., "
                f"schema={type(self).__name__}) names it) and make it write {with_article(type_name(ref.type))}."
            ) from None

    def _write(self, ref: StateFieldRef, value: Any) -> None:
        self._require_writable(ref)
        if value is None:
            self._delete(ref)
            return
        stored = value
        if self._typed(ref):
            from pydantic import ValidationError

            adapter = self._adapter(ref)
            try:
                checked = adapter.validate_python(value, strict=True)
            except ValidationError:
                if not isinstance(value, dict | list):
                    raise StateTypeError(
                        f"{type(self).__name__}.{ref.name} is declared {type_name(ref.type)}; "
                        f"cannot write {type(value).__name__} {_short(value)} to "
                        f"state['{ref.key}']. Hint: convert the value first, or change the "
                        "field's type."
                    ) from None
                try:
                    checked = adapter.validate_python(value)
                except ValidationError as error:
                    first = error.errors()[0]
                    at = ".".join(map(str, first.get("loc", ())))
                    raise StateTypeError(
                        f"{type(self).__name__}.{ref.name} is declared {type_name(ref.type)}; "
                        f"{_short(value)} does not fit: {first.get('msg')}"
                        + (f" (at {at})" if at else "")
                        + ". Hint: fix that part of the value, or change the field's type."
                    ) from None
            # JSON form: what every session store (memory or database) keeps the same way
            stored = adapter.dump_python(checked, mode="json")
        self._state[ref.key] = stored

    def _require_writable(self, ref: StateFieldRef) -> None:
        if not self._writable:
            raise StateWriteError(
                f"{type(self).__name__}.{ref.name}: this binding is read-only (it was bound to a "
                "plain mapping). Hint: bind a ToolContext or CallbackContext to write, so the "
                "change travels in the event's state_delta; a function step returns a dict instead."
            )

    def _delete(self, ref: StateFieldRef) -> None:
        self._require_writable(ref)
        self._state[ref.key] = None  # ADK has no delete: None in the state_delta is one

    def _missing_attribute(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise self._unknown(name)

    if not TYPE_CHECKING:  # as on the class: a misspelt field stays an error to type checkers
        __getattr__ = _missing_attribute

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in type(self).__state_fields__:
            raise self._unknown(name)
        object.__setattr__(self, name, value)

    def _unknown(self, name: str) -> StateFieldError:
        fields = type(self).__state_fields__
        hint = did_you_mean(name, fields) or f"declared fields: {', '.join(sorted(fields))}."
        return StateFieldError(f"{type(self).__name__} has no field '{name}'; hint: {hint}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}.bind(...)"


def _present(state: Any, key: str) -> bool:
    return key in state and state[key] is not None


def _accepts_none(adapter: Any) -> bool:
    from pydantic import ValidationError

    try:
        adapter.validate_python(None)
    except ValidationError:
        return False
    return True


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _state_of(cls: type, context: Any) -> tuple[Any, bool]:
    """The state object to read (and maybe write) and whether writes are allowed."""
    from adk_fluent.adk.compat import state_class

    State = state_class()
    if isinstance(context, State):
        return context, True
    state = getattr(context, "state", None)
    if isinstance(state, State):
        return state, True
    if isinstance(context, Mapping):
        return context, False
    if state is None and hasattr(context, "session"):
        raise BuildError(
            f"{cls.__name__}.bind() was given {type(context).__name__}, whose session state "
            "would be written directly (lost on reload)",
            field="bind",
            hint="bind the ToolContext or CallbackContext ADK passes to your tool or callback.",
        )
    given = "None" if context is None else type(context).__name__
    raise BuildError(
        f"{cls.__name__}.bind() needs a ToolContext, CallbackContext or a state mapping, "
        f"not {given}",
        field="bind",
        hint="bind the tool_context / callback_context ADK passes to your function (reads and "
        "writes), or a state mapping such as a tap's state (reads only).",
    )


# -- declarations on agents (`Agent.reads()` / `Agent.writes()`) --------------------------------
def _as_refs(items: Iterable[Any], agent: str, what: str) -> list[StateFieldRef]:
    refs: list[StateFieldRef] = []
    hint = f"e.g. .{what}(MySchema.intent) or .{what}('intent')."
    for item in items:
        if isinstance(item, StateFieldRef):
            refs.append(item)
        elif isinstance(item, str) and item:
            refs.append(StateFieldRef(key=item, name=bare_name(item), scope=scope_of_key(item)))
        elif isinstance(item, type) and issubclass(item, StateSchema):
            refs.extend(item.__state_fields__.values())
        else:
            raise BuildError(
                f"{what}() takes schema fields or state key names, got {describe_value(item)}",
                agent=agent,
                field=what,
                hint=hint,
            )
    checked_some(refs, agent, what, shown=f"{what}()", items="field or key", hint=hint)
    return refs


def declare(existing: Any, items: Iterable[Any], *, agent: str, what: str) -> DeclaredState:
    """`existing` (None, a pydantic model or a DeclaredState) plus the declared fields."""
    model, refs = unwrap_declared(existing)
    added = tuple(r for r in _as_refs(items, agent, what) if r not in refs)
    return DeclaredState(refs=(*refs, *added), model=model)
