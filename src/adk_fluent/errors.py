"""Every error and warning adk-fluent raises, in one place.

Messages name the agent and the field, and end with a hint: a user's mistake never surfaces
as a bare KeyError, AttributeError or a pydantic trace from inside ADK.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any


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
        where: str | None = None,
    ) -> None:
        self.agent = agent
        self.field = field
        self.hint = hint
        self.case = case  # an evaluation case's id (EvalError)
        # where the mistake was given when that is no agent, shown as it is:
        # "ExecutionConfig(middleware=...) item 2 (retry)"
        self.where = where
        self.message = message  # without the "agent '...', field '...': " prefix and the hint
        place = []
        if case is not None:
            place.append(f"case '{case}'")
        if where is not None:
            place.append(where)
        if agent is not None:
            place.append(f"agent '{agent}'")
        if field is not None:
            place.append(f"field '{field}'")
        text = f"{', '.join(place)}: {message}" if place else message
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
    return with_article(kind)


# Words that start with a vowel letter but not a vowel sound ("a user", "a UUID", "a one-off").
_A_BEFORE = ("uni", "use", "usu", "uti", "uu", "eu", "one")
# Letters whose spoken name starts with a vowel sound: "an LLM", "an HTTPError", "an SQL...".
_AN_LETTERS = "aefhilmnorsx"


def with_article(word: str) -> str:
    """`word` after "a" or "an", as it is spoken: "an App", "an ExecutionConfig", "an int",
    "a Pipeline", "a UUID", "an LLM". Every message that puts an article before a type name or
    another word it does not know in advance uses this."""
    lowered = word.lower()
    head = re.match(r"[A-Z][a-z]*", word)  # the first part of a CamelCase name
    if (len(word) > 1 and word[:2].isupper() and word[:2].isalpha()) or (
        head is not None and len(head[0]) > 1 and not set(head[0].lower()) & set("aeiouy")
    ):  # an acronym ("LLM", "Llm" in LlmAgent): said letter by letter
        vowel = lowered[:1] in _AN_LETTERS
    else:
        vowel = lowered[:1] in "aeiou" and not lowered.startswith(_A_BEFORE)
    return f"{'an' if vowel else 'a'} {word}"


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

    def __init__(self, message: str, report: Any) -> None:
        # Typed Any: errors is the floor every room imports, so it names no class from above.
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


def install_extra(extra: str) -> str:
    """The command that installs an extra of adk-fluent, for hints: from the checkout this
    package runs from (an editable install) or a placeholder path. Never `pip install
    adk-fluent[...]`: that name on PyPI is an unrelated project."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    where = str(root) if (root / "pyproject.toml").is_file() else "path/to/adk-fluent"
    return f"pip install -e '{where}[{extra}]' (from a checkout; not PyPI's adk-fluent)"


def redacted(text: str) -> str:
    """A URL's password replaced by ***, wherever it appears in the text: after the user name
    (which may be empty) or as a `password=` query parameter (session stores, queue brokers)."""
    text = re.sub(r"(://[^:/@\s]*:)\S+@", r"\1***@", text)  # to the last @: '@' in a password
    return re.sub(r"([?&]password=)[^&\s]+", r"\1***", text, flags=re.IGNORECASE)
