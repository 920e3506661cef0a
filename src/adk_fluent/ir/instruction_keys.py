"""Reading ADK instruction templates: which state keys `{key}` and `{key?}` refer to."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from adk_fluent.ir.state_keys import SCOPE_PREFIXES

# ADK (1.25 and 2.x alike) takes what is inside a pair of braces, strips the spaces around it,
# drops one trailing `?` (optional) and reads state only when what is left is an identifier
# (`str.isidentifier()`, so `café` too), optionally scoped with app:, user: or temp:
# (`_is_valid_state_name`); `{artifact.x}` refers to an artifact, and other braces stay text.
# A doubled `{{x}}` is matched first and left alone: ADK versions disagree on what it means
# (docs/context.md), so it is not a reliable read, and adk-fluent's own templates keep it literal.
# Group 1 is the candidate name (None for a doubled pair), group 2 the `?`.
_CANDIDATE = re.compile(r"\{\{[^{}]*\}\}|\{\s*([^{}]*?)(\?)?\s*\}")


def is_state_name(name: str) -> bool:
    """ADK's rule for a template name that reads state: an identifier, optionally scoped."""
    scope, colon, rest = name.partition(":")
    if not colon:
        return name.isidentifier()
    return scope + colon in SCOPE_PREFIXES and rest.isidentifier()


def _counts(match: re.Match[str]) -> bool:
    return match.group(1) is None or is_state_name(match.group(1))


class _TemplateVars:
    """`{key}` / `{key?}` as ADK substitutes them, used like a compiled pattern (`finditer`,
    `sub`): a match's group 1 is the key and group 2 the `?`; a doubled `{{...}}` matches with
    group 1 None; any other braces never match. (Python's re cannot say "identifier" exactly,
    so each candidate is checked with ADK's own rule.)"""

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return (match for match in _CANDIDATE.finditer(text) if _counts(match))

    def sub(self, repl: Callable[[re.Match[str]], str], text: str) -> str:
        return _CANDIDATE.sub(lambda m: repl(m) if _counts(m) else m.group(0), text)


TEMPLATE_VAR = _TemplateVars()


def template_reads(instruction: object) -> frozenset[str]:
    """Every state key a string instruction reads, required or optional."""
    if not isinstance(instruction, str):
        return frozenset()
    return text_reads(instruction)


@functools.lru_cache(maxsize=4096)
def text_reads(instruction: str) -> frozenset[str]:
    """template_reads of text, parsed once per distinct instruction (each build asks)."""
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
