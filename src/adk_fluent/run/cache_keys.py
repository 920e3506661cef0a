"""The keys the engine caches compiled Apps (and in-memory session stores) by."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from enum import Enum
from types import MethodType
from typing import Any

from adk_fluent.ir.nodes import Node

CACHED_APPS = 64  # compiled (App, Runner) entries kept, least recently used out

# -- cache keys by value -----------------------------------------------------------------------
#
# A key is a value fingerprint: equal (==) inputs give equal keys even when they hold lists or
# dicts (which have no hash) or are distinct objects built the same way. What has no value
# equality, or holds state of its own, counts by identity: a backend and the scripted models
# in it (each with its own queue of replies), a model or tool object, middleware (a call log's
# records, a circuit breaker's counts), plugins, services. Such an object is "equal" only to
# itself; the key keeps it alive (or, in the session-store table, watches it die).


class ByIdentity:
    """A key part for an object compared by identity: equal only to itself, and kept alive by
    the key, so its id cannot be reused while the key exists."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ByIdentity) and other.value is self.value


class _WeakIdentity:
    """A key part compared by identity that does not keep its object alive: when the object
    dies, `on_death` runs (the table then drops the entries holding it: no equal key can be
    made again). An object that takes no weak reference is held like ByIdentity."""

    __slots__ = ("_hash", "_ref", "__weakref__")

    def __init__(self, value: Any, on_death: Callable[[Any], None]) -> None:
        self._hash = id(value)
        try:
            self._ref: Callable[[], Any] = weakref.ref(value, on_death)
        except TypeError:
            self._ref = lambda: value

    def __hash__(self) -> int:
        return self._hash

    @property
    def dead(self) -> bool:
        return self._ref() is None

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if not isinstance(other, _WeakIdentity):
            return False
        mine = self._ref()
        return mine is not None and mine is other._ref()


_PLAIN = (str, int, float, bool, bytes, complex, type(None), type, Enum, range)


def value_key(value: Any, by_identity: Callable[[Any], Any], *, conversation: bool = False) -> Any:
    """A hashable fingerprint of `value`, equal for equal values (see above).

    Trees (IR nodes) and frozen dataclasses count by their fields, tuples and lists by their
    items, dicts by their items in any order, sets by their members, google.genai data (a
    GenerateContentConfig, a Content) by its fields; a bound method by its function and the
    identity of its object. Other hashable values with an `==` of their own count as they are;
    everything else by identity (`by_identity` makes the part). `conversation`: leave out the
    middleware attached to nodes (it changes how a turn runs, not whose conversation it is).
    """
    seen: dict[int, Any] = {}  # a subtree shared in a tree is fingerprinted once

    def part(item: Any) -> Any:
        if isinstance(item, _PLAIN):
            return item
        known = seen.get(id(item))
        if known is not None:
            return known
        kind = type(item)
        made: Any
        if isinstance(item, Node):
            made = (
                kind,
                tuple(
                    (name, part(field_value))
                    for name, field_value in sorted(item.__dict__.items())
                    if not (conversation and name == "middleware")
                ),
            )
        elif isinstance(item, tuple | list):
            made = (kind, tuple(part(member) for member in item))
        elif isinstance(item, dict):
            made = (dict, frozenset((part(k), part(v)) for k, v in item.items()))
        elif isinstance(item, set | frozenset):
            made = (frozenset, frozenset(part(member) for member in item))
        elif is_dataclass(item) and kind.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            made = (
                kind,
                tuple((f.name, part(getattr(item, f.name))) for f in fields(item) if f.compare),
            )
        elif _is_genai_data(item):
            made = (kind, tuple((name, part(v)) for name, v in vars(item).items()))
        elif isinstance(item, MethodType):
            made = (MethodType, part(item.__func__), by_identity(item.__self__))
        elif kind.__eq__ is not object.__eq__ and _hashable(item):  # type: ignore[comparison-overlap]
            made = item
        else:
            made = by_identity(item)
        seen[id(item)] = made
        return made

    return part(value)


class HashedKey:
    """A fingerprint whose hash is worked out once: a tree's is a deep tuple, and a tuple
    hashes all its items again on every dict lookup (every turn)."""

    __slots__ = ("value", "_hash")

    def __init__(self, value: Any) -> None:
        self.value = value
        self._hash = hash(value)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if not isinstance(other, HashedKey):
            return NotImplemented
        return self._hash == other._hash and bool(self.value == other.value)


class TreeKeys:
    """Fingerprints of trees, remembered by the tree object: a builder hands run() the same
    frozen tree every turn, so its walk is paid once, not per turn. Holds the last `capacity`
    trees alive (an id is never reused while its entry exists)."""

    def __init__(self, make: Callable[[Node], Any], capacity: int = 4 * CACHED_APPS) -> None:
        self._make = make
        self._keys: OrderedDict[int, tuple[Node, Any]] = OrderedDict()
        self._capacity = capacity

    def __call__(self, ir: Node) -> Any:
        known = self._keys.get(id(ir))
        if known is not None and known[0] is ir:
            self._keys.move_to_end(id(ir))
            return known[1]
        key = self._make(ir)
        self._keys[id(ir)] = (ir, key)
        while len(self._keys) > self._capacity:
            self._keys.popitem(last=False)
        return key


def settings_key(settings: tuple[Any, ...]) -> Any:
    """`value_key` of a turn's settings, without the walk when they hash: hashable values
    compare by their own `==` (ExecutionConfig and BuildOptions by value, a backend or a
    service by identity), which is what the walk would give them; it is the usual case."""
    try:
        hash(settings)
    except TypeError:  # a list or dict somewhere (middleware=[...], custom_metadata values)
        return ("walked", value_key(settings, ByIdentity))
    return ("hashed", settings)


def _is_genai_data(value: Any) -> bool:
    """google.genai's types are plain data (pydantic models without behaviour of their own)."""
    from pydantic import BaseModel

    return isinstance(value, BaseModel) and type(value).__module__.startswith("google.genai.")


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


class InMemoryStores:
    """The in-memory session stores of run() / stream(): one per conversation key, kept apart
    from the compiled Apps so that a conversation outlives its App's eviction from the cache.

    The key is the tree (without its middleware) and the backend: equal trees share a store,
    different trees never do (a session id such as "s1" in two pipelines is two
    conversations). The config, the options and the services choose how a turn runs, not the
    store (as with a database store, where the app name keeps apps apart). A store lives until
    the process ends, or until an object its key holds by identity (the backend, a model or
    tool object in the tree) is garbage: then no equal key can be made again, and it goes.
    """

    def __init__(self) -> None:
        self._services: dict[Any, Any] = {}
        self._watched_parts: dict[Any, tuple[_WeakIdentity, ...]] = {}
        self._some_died = False  # set by a weak reference's callback; swept at the next lookup
        # A tree's part of the key is made once per tree object (run() gets the same frozen
        # tree every turn), not walked again on every turn.
        self._tree_key = TreeKeys(
            lambda ir: HashedKey(value_key(ir, self._watch, conversation=True))
        )

    def service_for(self, ir: Node, backend: Any) -> Any:
        self._drop_dead()
        key = (self._tree_key(ir), value_key(backend, self._watch))
        service = self._services.get(key)
        if service is None:
            from google.adk.sessions import InMemorySessionService

            service = self._services[key] = InMemorySessionService()
            self._watched_parts[key] = tuple(_weak_parts(key))
        return service

    def __len__(self) -> int:
        self._drop_dead()
        return len(self._services)

    def _watch(self, value: Any) -> _WeakIdentity:
        return _WeakIdentity(value, self._noted_death)

    def _noted_death(self, _: Any) -> None:  # may run inside any allocation: only note it
        self._some_died = True

    def _drop_dead(self) -> None:
        if not self._some_died:
            return
        self._some_died = False
        for key, parts in list(self._watched_parts.items()):
            if any(part.dead for part in parts):
                del self._watched_parts[key]
                self._services.pop(key, None)


def _weak_parts(key: Any) -> list[_WeakIdentity]:
    """The identity parts inside a key (nested tuples and frozensets)."""
    found: list[_WeakIdentity] = []
    todo = [key]
    while todo:
        item = todo.pop()
        if isinstance(item, _WeakIdentity):
            found.append(item)
        elif isinstance(item, HashedKey):
            todo.append(item.value)
        elif isinstance(item, tuple | frozenset):
            todo.extend(item)
    return found
