"""Reading ADK instruction templates: which state keys `{key}` and `{key?}` refer to."""

from __future__ import annotations

import functools
import re

from adk_fluent.ir.state_keys import SCOPE_PREFIXES

# ADK substitutes `{name}` and `{name?}` where name is an identifier, optionally scoped with
# app:, user: or temp:. `{artifact.x}` refers to an artifact, not state. A doubled `{{x}}` is
# matched first and left alone: ADK versions disagree on what it means (docs/context.md), so it is
# not a reliable read, and adk-fluent's own templates keep it literal.
_SCOPES = "|".join(re.escape(prefix) for prefix in SCOPE_PREFIXES)
TEMPLATE_VAR = re.compile(r"\{\{[^{}]*\}\}|\{((?:" + _SCOPES + r")?[A-Za-z_][A-Za-z0-9_]*)(\?)?\}")


def template_reads(instruction: object) -> frozenset[str]:
    """Every state key a string instruction reads, required or optional."""
    if not isinstance(instruction, str):
        return frozenset()
    required, optional = _parse(instruction)
    return required | optional if required and optional else required or optional


def template_keys(instruction: object) -> tuple[frozenset[str], frozenset[str]]:
    """(required keys, optional keys) a string instruction reads; callables read nothing we can see."""
    if not isinstance(instruction, str):
        return frozenset(), frozenset()
    return _parse(instruction)


@functools.lru_cache(maxsize=4096)
def _parse(instruction: str) -> tuple[frozenset[str], frozenset[str]]:
    """Parsed once per distinct instruction: builds, the checker and context views all ask."""
    required: set[str] = set()
    optional: set[str] = set()
    for match in TEMPLATE_VAR.finditer(instruction):
        if match.group(1) is None:  # a doubled {{...}}
            continue
        (optional if match.group(2) else required).add(match.group(1))
    return frozenset(required), frozenset(optional - required)
