"""What Python code reads from and writes to session state, read from its source (stdlib `ast`).

The checker cannot run a tool, a callback or a custom agent, but it can read them:

* reads: `<x>.state["k"]` (required: a missing key raises KeyError), `<x>.state.get("k")` and
  `"k" in <x>.state` (optional); `ctx.session.state[...]` alike, and a local name bound to a
  state object (`state = tool_context.state`).
* writes: `<x>.state["k"] = v` (augmented too), `.update({"k": ...})` / `.update(k=...)`,
  `.setdefault("k", ...)`, `EventActions(state_delta={"k": ...})`, `<x>.actions.state_delta[...]`;
  `del <x>.state["k"]` / `.pop("k")` delete.
* escalation: `<x>.actions.escalate = True` or `EventActions(escalate=True)` (it can end a loop).

A key computed at run time (`state[name]`, `.update(data)`), state or a context handed to
another function (calls are not followed), or a function without readable source make the
result opaque: the checker then knows it may read or write keys it cannot name, and never
guesses which. Nested functions defined inside the function count. Results are cached per
code object. Nothing here imports google.adk: ADK's own tools are recognised by their module.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, replace
from types import CodeType
from typing import Any

__all__ = [
    "CodeEffects",
    "agent_code_effects",
    "function_effects",
    "function_label",
    "is_adk_object",
    "tool_effects",
    "tool_label",
]

# parameter names that hold an ADK context (ToolContext, CallbackContext, InvocationContext)
_CONTEXT_NAMES = frozenset(
    {"tool_context", "callback_context", "ctx", "context", "invocation_context", "readonly_context"}
)
# calls that may take a context without reading or writing its state (builtins, logging)
_HARMLESS_CALLS = frozenset(
    {"isinstance", "type", "id", "print", "repr", "str", "hasattr", "len", "pprint"}
    | {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
)
# calls that read a whole state object given to them, but do not change it
_READ_ONLY_CALLS = _HARMLESS_CALLS | {"dict", "list", "sorted", "set", "tuple", "bool", "dumps"}
# exceptions whose handler makes a `state["k"]` inside its `try` an optional read
_MISSING_KEY_ERRORS = frozenset({"KeyError", "LookupError", "Exception", "BaseException"})
# methods of a state object that read every key (an opaque read, not a write)
_READ_ALL = frozenset({"to_dict", "keys", "items", "values", "copy", "__iter__", "__len__"})


@dataclass(frozen=True)
class CodeEffects:
    """What one function does to session state, as far as its source shows."""

    name: str = ""  # the function, for messages
    reads: tuple[tuple[str, bool], ...] = ()  # (key, required), in source order
    writes: tuple[str, ...] = ()
    deletes: tuple[str, ...] = ()
    escalates: bool = False  # may end a loop (actions.escalate)
    opaque_read: bool = False  # may read keys it does not name
    opaque_write: bool = False  # may write keys it does not name
    why: str = ""  # why it is opaque, for messages ("its source is not available")

    @property
    def empty(self) -> bool:
        """Whether it touches no state at all (and is not opaque)."""
        return not (
            self.reads
            or self.writes
            or self.deletes
            or self.escalates
            or self.opaque_read
            or self.opaque_write
        )

    def merged(self, other: CodeEffects) -> CodeEffects:
        """Both functions' effects (a wrapper and the function it wraps)."""
        reads = dict(self.reads)
        for key, required in other.reads:
            reads[key] = reads.get(key, False) or required
        return CodeEffects(
            self.name or other.name,
            tuple(reads.items()),
            tuple(dict.fromkeys((*self.writes, *other.writes))),
            tuple(dict.fromkeys((*self.deletes, *other.deletes))),
            self.escalates or other.escalates,
            self.opaque_read or other.opaque_read,
            self.opaque_write or other.opaque_write,
            self.why or other.why,
        )


def _unknown(name: str, why: str) -> CodeEffects:
    return CodeEffects(name, opaque_read=True, opaque_write=True, why=why)


NOTHING = CodeEffects()


# -- what a tool / callback / agent is -------------------------------------------------------
def is_adk_object(value: Any) -> bool:
    """Whether `value` (a function, or an instance of a class) comes from google.adk itself."""
    module = getattr(value, "__module__", None) if _is_function(value) else type(value).__module__
    return isinstance(module, str) and (module == "google.adk" or module.startswith("google.adk."))


def _is_function(value: Any) -> bool:
    return inspect.isfunction(value) or inspect.ismethod(value) or inspect.isbuiltin(value)


def function_label(fn: Any) -> str:
    """A function's name for messages: 'lookup', 'Checker._run_async_impl', 'lambda (file:12)'."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if isinstance(code, CodeType):
        if code.co_name == "<lambda>":
            return f"lambda ({_short_file(code.co_filename)}:{code.co_firstlineno})"
        return code.co_qualname
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    return name if isinstance(name, str) else type(fn).__name__


def _short_file(filename: str) -> str:
    return filename.replace("\\", "/").rsplit("/", 1)[-1]


def tool_label(tool: Any) -> str:
    """The name ADK gives a tool (a function's name, a BaseTool's .name, a toolset's class)."""
    while isinstance(tool, functools.partial):
        tool = tool.func
    if _is_function(tool):
        return str(getattr(tool, "__name__", "tool"))
    name = getattr(tool, "name", None)
    if isinstance(name, str) and name:
        return name
    func = getattr(tool, "func", None)
    if func is not None and func is not tool:
        return tool_label(func)
    return type(tool).__name__


def tool_effects(tool: Any) -> CodeEffects:
    """What a tool does to state: a function from its source; ADK's FunctionTool from its
    function; a BaseTool subclass from its `run_async`; ADK's own tools and toolsets touch no
    state (ADK's `exit_loop` escalates); anything else is opaque."""
    while isinstance(tool, functools.partial):
        tool = tool.func
    if _is_function(tool):
        if is_adk_object(tool):
            return _adk_function(tool)
        return function_effects(tool)
    func = getattr(tool, "func", None)
    if is_adk_object(tool):
        if callable(func):  # FunctionTool, LongRunningFunctionTool: the user's function
            return tool_effects(func)
        return NOTHING  # a built-in tool or toolset (google_search, MCPToolset, ...)
    cls = type(tool)
    if hasattr(tool, "get_tools"):
        return _unknown(
            tool_label(tool), f"it is a toolset ({cls.__name__}): its tools are known at run time"
        )
    run_async = getattr(cls, "run_async", None)
    if run_async is not None:
        if is_adk_object(run_async) or not _is_function(run_async):
            if callable(func):  # a subclass of FunctionTool that keeps ADK's run_async
                return tool_effects(func)
            return _unknown(tool_label(tool), f"its class {cls.__name__} runs ADK's own code")
        return function_effects(run_async)
    if callable(tool):
        return function_effects(tool)
    return _unknown(tool_label(tool), f"it is not a function ({cls.__name__})")


def _adk_function(fn: Any) -> CodeEffects:
    """ADK's own tool functions: only `exit_loop` matters to state (it ends a loop)."""
    name = str(getattr(fn, "__name__", ""))
    if name == "exit_loop":
        return CodeEffects(name, escalates=True)
    return CodeEffects(name)


def agent_code_effects(agent: Any) -> CodeEffects:
    """What a custom agent's own code (`_run_async_impl` of its class) does to state."""
    method = getattr(type(agent), "_run_async_impl", None)
    if method is None or not _is_function(method):
        return _unknown(type(agent).__name__, "its code has no Python source")
    if is_adk_object(method):
        return _unknown(
            type(agent).__name__, f"it runs ADK's {method.__qualname__.split('.')[0]} code"
        )
    return function_effects(method)


def function_effects(fn: Any) -> CodeEffects:
    """What a function (or callable object) does to state, from its source."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.ismethod(fn):
        fn = fn.__func__
    if not inspect.isfunction(fn):
        call = inspect.getattr_static(type(fn), "__call__", None) if callable(fn) else None
        if inspect.isfunction(call):
            return function_effects(call)
        return _unknown(function_label(fn), "its source is not available")
    if is_adk_object(fn):
        return _adk_function(fn)
    effects = _code_effects(fn.__code__)
    wrapped = getattr(fn, "__wrapped__", None)  # a decorated function: the wrapper and the wrapped
    if wrapped is not None and wrapped is not fn and inspect.isfunction(wrapped):
        effects = effects.merged(_code_effects(wrapped.__code__))
    return effects


# -- reading the source ----------------------------------------------------------------------
@functools.lru_cache(maxsize=2048)
def _code_effects(code: CodeType) -> CodeEffects:
    """The effects of one code object, read from its source once."""
    name = (
        f"lambda ({_short_file(code.co_filename)}:{code.co_firstlineno})"
        if code.co_name == "<lambda>"
        else code.co_qualname
    )
    node, why = _function_node(code)
    if node is None:
        return _unknown(name, why)
    return replace(_Finder(node, _short_file(code.co_filename)).effects(), name=name)


def _function_node(code: CodeType) -> tuple[ast.AST | None, str]:
    """The def or lambda that compiled to `code`, or None and why not."""
    if code.co_name != "<lambda>":
        try:
            source = textwrap.dedent(inspect.getsource(code))
        except (OSError, TypeError):
            return None, "its source is not available"
        try:
            module = ast.parse(source)
        except SyntaxError:
            module = None
        if module is not None and module.body:
            first = module.body[0]
            if isinstance(first, ast.FunctionDef | ast.AsyncFunctionDef):
                ast.increment_lineno(first, code.co_firstlineno - 1)  # lines as in the file
                return first, ""
    tree = _file_tree(code.co_filename)
    if tree is None:
        return None, "its source is not available"
    candidates = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef)
        and _starts_at(node, code)
    ]
    if len(candidates) > 1:
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        candidates = [n for n in candidates if _arg_names(n.args) == names]
    if len(candidates) != 1:
        return None, "several functions start on its line, so its source is ambiguous"
    return candidates[0], ""


def _starts_at(node: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef, code: CodeType) -> bool:
    if isinstance(node, ast.Lambda):
        return code.co_name == "<lambda>" and node.lineno == code.co_firstlineno
    if node.name != code.co_name:
        return False
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    return code.co_firstlineno in (first, node.lineno)


def _arg_names(args: ast.arguments) -> tuple[str, ...]:
    return tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))


_FILE_TREES: dict[str, tuple[list[str], ast.Module | None]] = {}


def _file_tree(filename: str) -> ast.Module | None:
    """A whole source file parsed (cached while linecache keeps the same lines)."""
    lines = linecache.getlines(filename)
    if not lines:
        return None
    cached = _FILE_TREES.get(filename)
    if cached is not None and cached[0] is lines:
        return cached[1]
    try:
        tree: ast.Module | None = ast.parse("".join(lines))
    except SyntaxError:
        tree = None
    if len(_FILE_TREES) > 64:
        _FILE_TREES.clear()
    _FILE_TREES[filename] = (lines, tree)
    return tree


def _literal_key(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _call_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _catches_missing_key(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(_call_name(t) in _MISSING_KEY_ERRORS for t in types)


class _Finder:
    """One pass over a function's syntax tree (nested functions included)."""

    def __init__(self, root: ast.AST, filename: str) -> None:
        self.root = root
        self.filename = filename
        self.parents: dict[int, ast.AST] = {}
        for parent in ast.walk(root):
            for child in ast.iter_child_nodes(parent):
                self.parents[id(child)] = parent
        self.contexts = self._context_names()
        self.aliases = self._state_aliases()
        self.reads: dict[str, tuple[bool, tuple[int, int]]] = {}  # key -> (required, where)
        self.optional: set[str] = set()  # keys tested with `in` or read with .get: guarded
        self.writes: dict[str, tuple[int, int]] = {}  # key -> where it is first written
        self.deletes: list[str] = []
        self.escalates = False
        self.opaque_read = False
        self.opaque_write = False
        self.why = ""
        self.guarded_lines: set[int] = set()  # lines inside a try that catches KeyError

    # -- set-up --------------------------------------------------------------------------------
    def _functions(self) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda]:
        for node in ast.walk(self.root):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield node

    def _context_names(self) -> set[str]:
        names: set[str] = set()
        for function in self._functions():
            args = function.args
            for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
                annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                if arg.arg in _CONTEXT_NAMES or annotation.rstrip("'\"").endswith("Context"):
                    names.add(arg.arg)
        return names

    def _state_aliases(self) -> set[str]:
        aliases: set[str] = set()
        assigns = [
            node for node in ast.walk(self.root) if isinstance(node, ast.Assign | ast.AnnAssign)
        ]
        changed = True
        while changed:  # `s = ctx.state; t = s` (chains are short)
            changed = False
            for node in assigns:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if node.value is None or not self._is_state_value(node.value, aliases):
                    continue
                for target in targets:
                    if isinstance(target, ast.Name) and target.id not in aliases:
                        aliases.add(target.id)
                        changed = True
        return aliases

    @classmethod
    def _is_state_value(cls, value: ast.AST, aliases: set[str]) -> bool:
        """Whether an assigned value is a state object (`ctx.state`, `ctx.state or {}`)."""
        if isinstance(value, ast.BoolOp):
            return any(cls._is_state_value(v, aliases) for v in value.values)
        if isinstance(value, ast.IfExp):
            return cls._is_state_value(value.body, aliases) or cls._is_state_value(
                value.orelse, aliases
            )
        return cls._state_kind(value, aliases) == "state"

    @staticmethod
    def _state_kind(node: ast.AST, aliases: set[str]) -> str | None:
        """'state' for a state object, 'delta' for an event's state_delta, else None."""
        if isinstance(node, ast.Attribute):
            if node.attr == "state":
                return "state"
            if node.attr == "state_delta":
                return "delta"
        if isinstance(node, ast.Name) and node.id in aliases:
            return "state"
        return None

    # -- the pass ------------------------------------------------------------------------------
    def effects(self) -> CodeEffects:
        for node in ast.walk(self.root):
            if isinstance(node, ast.Try) and any(_catches_missing_key(h) for h in node.handlers):
                for statement in node.body:
                    end = getattr(statement, "end_lineno", statement.lineno) or statement.lineno
                    self.guarded_lines.update(range(statement.lineno, end + 1))
        for node in ast.walk(self.root):
            kind = self._state_kind(node, self.aliases)
            if kind is not None and not self._is_alias_binding(node):
                self._use(node, kind)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                self._escalation(node)
        reads: list[tuple[str, bool]] = []
        for key, (required, where) in sorted(self.reads.items(), key=lambda item: item[1][1]):
            written_before = key in self.writes and self.writes[key] < where
            reads.append((key, required and key not in self.optional and not written_before))
        return CodeEffects(
            reads=tuple(reads),
            writes=tuple(sorted(self.writes, key=self.writes.__getitem__)),
            deletes=tuple(dict.fromkeys(self.deletes)),
            escalates=self.escalates,
            opaque_read=self.opaque_read,
            opaque_write=self.opaque_write,
            why=self.why,
        )

    def _is_alias_binding(self, node: ast.AST) -> bool:
        """`s = ctx.state` itself (the name is then a state object) or a bare alias name
        being rebound."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Assign | ast.AnnAssign) and parent.value is node:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return all(isinstance(t, ast.Name) and t.id in self.aliases for t in targets)
        return isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)

    def _opaque(self, node: ast.AST, why: str, *, write: bool) -> None:
        """A use the checker cannot name keys for: it may read (and, with `write`, write) any."""
        self.opaque_read = True
        if write:
            self.opaque_write = True
        if why and not (self.why and (self.opaque_write or not write)):
            line = getattr(node, "lineno", None)
            self.why = f"{why} ({self.filename}:{line})" if line is not None else why

    def _where(self, node: ast.AST) -> tuple[int, int]:
        return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))

    def _read(self, key: str, required: bool, node: ast.AST) -> None:
        if required and getattr(node, "lineno", 0) in self.guarded_lines:
            required = False
        if not required:
            self.optional.add(key)
        old = self.reads.get(key)
        if old is None:
            self.reads[key] = (required, self._where(node))
        elif required and not old[0]:
            self.reads[key] = (True, self._where(node))

    def _write(self, key: str, node: ast.AST) -> None:
        self.writes.setdefault(key, self._where(node))

    def _use(self, node: ast.AST, kind: str) -> None:
        """One occurrence of a state object (`kind` 'state') or a state_delta ('delta')."""
        parent = self.parents.get(id(node))
        delta = kind == "delta"
        if isinstance(parent, ast.Subscript) and parent.value is node:
            self._subscript(parent, delta)
            return
        if isinstance(parent, ast.Attribute) and parent.value is node:
            self._method(parent, delta)
            return
        if isinstance(parent, ast.Compare) and node in parent.comparators:
            index = parent.comparators.index(node)
            left = parent.left if index == 0 else parent.comparators[index - 1]
            key = _literal_key(left)
            if not delta and isinstance(parent.ops[index], ast.In | ast.NotIn):
                if key is not None:
                    self._read(key, False, parent)
                else:
                    self._opaque(parent, "", write=False)
            return
        if delta:
            if isinstance(parent, ast.keyword | ast.Call):  # handed to another function
                self._opaque(node, "it hands a state_delta to another function", write=True)
            return
        if isinstance(parent, ast.Call | ast.keyword | ast.Starred) or (
            isinstance(parent, ast.Dict) and node in parent.values
        ):
            call = self._enclosing_call(parent)
            if call is not None and _call_name(call.func) in _READ_ONLY_CALLS:
                self._opaque(node, "", write=False)  # dict(state), len(state): reads only
            else:
                callee = f"{ast.unparse(call.func)}()" if call is not None else "a function"
                self._opaque(node, f"it hands the state to {callee}", write=True)
            return
        holder: ast.AST | None = parent  # `ctx.state or {}`: what the combination ends up in
        while isinstance(holder, ast.BoolOp | ast.IfExp):
            holder = self.parents.get(id(holder))
        if isinstance(holder, ast.Assign | ast.AnnAssign | ast.NamedExpr):
            targets = (
                holder.targets if isinstance(holder, ast.Assign) else [holder.target]  # type: ignore[union-attr]
            )
            if all(isinstance(t, ast.Name) and t.id in self.aliases for t in targets):
                return  # `state = ctx.state or {}`: the alias is followed
        if isinstance(
            holder,
            ast.Assign
            | ast.AnnAssign
            | ast.NamedExpr
            | ast.Return
            | ast.Yield
            | ast.YieldFrom
            | ast.Await
            | ast.Tuple
            | ast.List
            | ast.Set
            | ast.Lambda,
        ):
            self._opaque(node, "it keeps or returns the state object itself", write=True)
            return
        self._opaque(node, "", write=False)  # iterated, printed, formatted: reads every key

    def _enclosing_call(self, node: ast.AST | None) -> ast.Call | None:
        while node is not None and not isinstance(node, ast.Call):
            node = self.parents.get(id(node))
        return node

    def _subscript(self, sub: ast.Subscript, delta: bool) -> None:
        key = _literal_key(sub.slice)
        augmented = isinstance(self.parents.get(id(sub)), ast.AugAssign)
        if isinstance(sub.ctx, ast.Load):
            if delta:
                return
            if key is None:
                self._opaque(sub, "", write=False)
            else:
                self._read(key, True, sub)
        elif isinstance(sub.ctx, ast.Store):
            if key is None:
                self._opaque(
                    sub, "it writes state[...] with a key computed at run time", write=True
                )
                return
            if augmented and not delta:
                self._read(key, True, sub)
            self._write(key, sub)
        else:  # del
            if key is None:
                self._opaque(
                    sub, "it deletes state[...] with a key computed at run time", write=True
                )
            else:
                self.deletes.append(key)

    def _method(self, attribute: ast.Attribute, delta: bool) -> None:
        call = self.parents.get(id(attribute))
        method = attribute.attr
        if not isinstance(call, ast.Call) or call.func is not attribute:
            if not delta and method not in ("has_delta",):
                self._opaque(attribute, "", write=False)
            return
        key = _literal_key(call.args[0]) if call.args else None
        if method == "get":
            if not delta:
                if key is not None:
                    self._read(key, False, call)
                else:
                    self._opaque(call, "", write=False)
        elif method == "update":
            self._update(call)
        elif method in ("setdefault", "pop"):
            if key is None:
                self._opaque(
                    call, f"it calls .{method}() with a key computed at run time", write=True
                )
            elif method == "setdefault":
                if not delta:
                    self._read(key, False, call)
                self._write(key, call)
            else:
                if not delta:
                    self._read(key, False, call)
                self.deletes.append(key)
        elif method in _READ_ALL:
            if not delta:
                self._opaque(call, "", write=False)
        elif method != "has_delta":
            self._opaque(call, f"it calls .{method}() on the state", write=True)

    def _update(self, call: ast.Call) -> None:
        for argument in call.args:
            if isinstance(argument, ast.Dict) and all(
                _literal_key(k) is not None for k in argument.keys
            ):
                for key_node in argument.keys:
                    self._write(str(_literal_key(key_node)), call)
            else:
                self._opaque(
                    call, "it updates the state from a mapping built at run time", write=True
                )
        for keyword in call.keywords:
            if keyword.arg is None:
                self._opaque(
                    call, "it updates the state from a mapping built at run time", write=True
                )
            else:
                self._write(keyword.arg, call)

    def _call(self, call: ast.Call) -> None:
        name = _call_name(call.func)
        if name == "EventActions":
            for keyword in call.keywords:
                if keyword.arg == "escalate":
                    if not (isinstance(keyword.value, ast.Constant) and not keyword.value.value):
                        self.escalates = True
                elif keyword.arg == "state_delta":
                    self._state_delta(keyword.value, call)
                elif keyword.arg is None:
                    self._opaque(call, "it builds EventActions from a mapping", write=True)
        if name in _HARMLESS_CALLS:
            return
        given = [*call.args, *(k.value for k in call.keywords)]
        for value in given:
            if isinstance(value, ast.Starred):
                value = value.value
            if isinstance(value, ast.Name) and value.id in self.contexts:
                self._opaque(call, f"it hands {value.id} to {ast.unparse(call.func)}()", write=True)
                return

    def _state_delta(self, value: ast.AST, call: ast.Call) -> None:
        if isinstance(value, ast.Dict) and all(_literal_key(k) is not None for k in value.keys):
            for key_node in value.keys:
                self._write(str(_literal_key(key_node)), call)
        else:
            self._opaque(call, "it builds a state_delta at run time", write=True)

    def _escalation(self, node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr == "escalate":
                value = node.value
                if not (isinstance(value, ast.Constant) and not value.value):
                    self.escalates = True
