"""Every error and warning adk-fluent raises, in one place.

Messages name the agent and the field, and end with a hint: a user's mistake never surfaces
as a bare KeyError, AttributeError or a pydantic trace from inside ADK.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotation only: errors is imported by every other room
    from adk_fluent.analysis.contracts.report import ContractReport


class AdkFluentError(Exception):
    """Base class of adk-fluent's errors."""


class BuildError(AdkFluentError, ValueError):
    """A builder expression that cannot become a valid ADK tree."""

    def __init__(
        self,
        message: str,
        *,
        agent: str | None = None,
        field: str | None = None,
        hint: str | None = None,
        case: str | None = None,
    ) -> None:
        self.agent = agent
        self.field = field
        self.hint = hint
        self.case = case  # an evaluation case's id (EvalError)
        self.message = message  # without the "agent '...', field '...': " prefix and the hint
        where = []
        if case is not None:
            where.append(f"case '{case}'")
        if agent is not None:
            where.append(f"agent '{agent}'")
        if field is not None:
            where.append(f"field '{field}'")
        text = f"{', '.join(where)}: {message}" if where else message
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)


class UnknownSetterError(BuildError, AttributeError):
    """A method that no builder has (usually a typo)."""


class FieldNotInstalledError(BuildError):
    """A field that exists in some supported ADK versions but not the installed one."""


class DuplicateNameError(BuildError):
    """Two agents with one name in one tree (ADK looks agents up by name)."""


class EmptyCompositeError(BuildError):
    """A Pipeline, FanOut, Loop or Fallback with nothing inside."""


class EvalError(BuildError):
    """An evaluation suite or case that cannot be compiled, loaded or run as written; the
    message names the case (and the agent or field) and ends with a hint."""


class StateStepError(AdkFluentError, RuntimeError):
    """A state step could not do what it was asked (missing key, failed guard, bad return)."""


class StepFailed(StateStepError):
    """A step that could not do its work at run time: `code` becomes its error event's
    `error_code` (docs/errors.md); it is never raised out of a run."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


class StateWriteError(AdkFluentError, TypeError):
    """Something read-only (a tap) tried to change state."""


class ContextKeyError(AdkFluentError, KeyError):
    """A context template needs a state key that is not set."""

    def __str__(self) -> str:
        return str(self.args[0])


class ScriptError(AdkFluentError, AssertionError):
    """A scripted model was called more often than scripted, or left steps unconsumed."""


class AdkFluentWarning(UserWarning):
    """Something that will run but is probably not what the author meant."""


def describe_value(value: Any) -> str:
    """A short description of a value for a message: small literals shown, objects named by
    their type (and name, for ADK agents), never a whole repr."""
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, str):
        shown = repr(value)
        return f"str {shown[:40]}..." if len(shown) > 40 else f"str {shown}"
    if isinstance(value, type):
        return f"the class {value.__name__}"
    kind = type(value).__name__
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return f"{kind} '{name[:40]}'"
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None."""
    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=3, cutoff=0.6)
    if not matches:
        return None
    return "did you mean " + " or ".join(f"'{m}'" for m in matches) + "?"


class ContractError(AdkFluentError):
    """A contract check that must pass did not: `.strict()` builds, `check_contracts(strict=True)`.

    `report` is the full ContractReport; the message lists the issues that caused the refusal.
    """

    def __init__(self, message: str, report: ContractReport) -> None:
        self.report = report
        super().__init__(message)


class SchemaCompositionError(AdkFluentError, TypeError):
    """A StateSchema whose fields collide (same name, different type or scope) or are reserved."""


class StateKeyError(AdkFluentError, KeyError):
    """A typed state read found the key missing (and the field has no default)."""

    def __str__(self) -> str:
        return str(self.args[0])


class StateTypeError(AdkFluentError, TypeError):
    """A typed state read or write whose value does not fit the field's declared type."""


class StateFieldError(AdkFluentError, AttributeError):
    """A StateSchema (the class or a bound one) was asked for a field it does not declare
    (usually a typo)."""


class RunError(AdkFluentError, RuntimeError):
    """A turn that ended with an error event (a failed step, a route with no match, a timeout):
    what `ask()` raises. `code`, `author` (the step) and `message` come from that event; the
    session store holds it like any other event (docs/errors.md)."""

    def __init__(self, code: str, message: str, author: str | None = None) -> None:
        self.code = code
        self.author = author
        self.message = message
        where = f"step '{author}' " if author else ""
        super().__init__(f"{where}failed ({code}): {message}")


class RecordingError(BuildError):
    """A recording (adk_fluent.replay) that cannot be saved, loaded or used as given: a missing
    file, another format, a format version this library does not read, a value JSON cannot
    hold. Names the file or record and the field, and ends with a hint."""


class ReplayMismatchError(AdkFluentError, RuntimeError):
    """A replayed run asked for something the recording does not hold (ReplayerBackend with
    on_mismatch='error'): a model request that differs from the recorded one, a call beyond the
    recording, a tool call with other arguments. `agent`, `call` (1-based, per agent) and
    `difference` say where and what."""

    def __init__(
        self,
        message: str,
        *,
        agent: str,
        call: int,
        difference: str,
        kind: str = "model",
        hint: str | None = None,
    ) -> None:
        self.agent = agent
        self.call = call
        self.difference = difference
        self.kind = kind
        self.hint = hint
        text = message + (f"\n  hint: {hint}" if hint else "")
        super().__init__(text)


class ReplayedError(AdkFluentError, RuntimeError):
    """A model or tool call that failed when the recording was made, failing again in a replay:
    its original type and message are in the text (`original_type`, `original_message`)."""

    def __init__(self, message: str, *, original_type: str, original_message: str) -> None:
        self.original_type = original_type
        self.original_message = original_message
        super().__init__(message)
