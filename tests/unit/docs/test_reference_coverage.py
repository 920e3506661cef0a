"""The API reference (docs/reference/*.md) documents every public name, each once.

The reference pages are mkdocstrings directives (`::: adk_fluent.Agent`). This test reads them
and the `__all__` of `adk_fluent` and of its public subpackages, and fails when a public name has
no directive (a new export nobody documented), when a directive names something that does not
exist (a rename the reference missed; `mkdocs build --strict` would fail later and slower), or
when one object is documented twice. It also keeps the builders' directives honest: a builder
that gets generated setters from a mixin must list inherited members, and the filter that keeps
the methods every builder shares off those pages must name exactly those methods.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
REFERENCE = REPO / "docs" / "reference"
PUBLIC_PACKAGES = (
    "adk_fluent",
    "adk_fluent.testing",
    "adk_fluent.middleware",
    "adk_fluent.evaluation",
    "adk_fluent.remote",
    "adk_fluent.replay",
    "adk_fluent.telemetry",
)
SETTER_MIXINS = "adk_fluent_generated.builder_bases"
SHARED_BASE = "adk_fluent.api.expression.Expression"
_DIRECTIVE = re.compile(r"^::: (\S+)[ \t]*$", re.M)


@dataclass(frozen=True)
class Directive:
    page: str
    line: int
    target: str
    options: dict[str, Any]

    @property
    def where(self) -> str:
        return f"docs/reference/{self.page}:{self.line}"


def directives() -> list[Directive]:
    """Every `::: target` of the reference pages, with its indented `options:` block."""
    found = []
    for page in sorted(REFERENCE.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in _DIRECTIVE.finditer(text):
            body = []
            for line in text[match.end() :].splitlines()[1:]:
                if line.strip() and not line.startswith("    "):
                    break
                body.append(line[4:])
            block = yaml.safe_load("\n".join(body)) or {}
            found.append(
                Directive(
                    page.name,
                    text.count("\n", 0, match.start()) + 1,
                    match.group(1),
                    block.get("options", {}),
                )
            )
    return found


def page_text(page: str) -> str:
    return (REFERENCE / page).read_text(encoding="utf-8")


def resolve(target: str) -> Any:
    """The object a dotted directive target names: the longest importable module prefix, then
    attributes. Like griffe, a submodule wins over a package attribute of the same name
    (`adk_fluent.middleware.cache` is the module; the function is `...cache.cache`)."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(target)


def public_names() -> list[tuple[str, str]]:
    return [
        (package, name)
        for package in PUBLIC_PACKAGES
        for name in importlib.import_module(package).__all__
    ]


def test_the_reference_pages_exist_and_hold_directives() -> None:
    assert REFERENCE.is_dir(), "docs/reference/ is missing"
    assert len(directives()) > 100


def test_every_directive_names_an_existing_object() -> None:
    broken = []
    for directive in directives():
        try:
            resolve(directive.target)
        except (ImportError, AttributeError) as error:
            broken.append(f"{directive.where}: ::: {directive.target} ({error})")
    assert not broken, "reference directives that name nothing:\n" + "\n".join(broken)


@pytest.mark.parametrize("package", PUBLIC_PACKAGES)
def test_every_public_name_is_in_the_reference(package: str) -> None:
    documented: dict[int, list[Directive]] = {}
    for directive in directives():
        documented.setdefault(id(resolve(directive.target)), []).append(directive)
    missing = []
    for name in importlib.import_module(package).__all__:
        obj = getattr(importlib.import_module(package), name)
        hits = [
            d
            for d in documented.get(id(obj), [])
            # a name documented on a page under another name's directive
            if d.target.rsplit(".", 1)[-1] == name or f"`{name}`" in page_text(d.page)
        ]
        if not hits:
            missing.append(f"{package}.{name}")
    assert not missing, (
        "public names missing from docs/reference/*.md (add a `::: <package>.<name>` directive "
        "to the page of its group):\n" + "\n".join(missing)
    )


def test_no_object_is_documented_twice() -> None:
    seen: dict[int, Directive] = {}
    twice = []
    for directive in directives():
        key = id(resolve(directive.target))
        if key in seen:
            twice.append(f"{directive.where} repeats {seen[key].where} ({directive.target})")
        seen[key] = directive
    assert not twice, "documented twice (anchors would clash):\n" + "\n".join(twice)


def _shared_methods() -> set[str]:
    """Public attributes every builder gets from Expression and its bases."""
    names: set[str] = set()
    for base in resolve(SHARED_BASE).__mro__[:-1]:
        names |= {name for name in vars(base) if not name.startswith("_")}
    return names


def test_builders_with_generated_setters_list_them() -> None:
    """A builder whose setters come from a generated mixin shows inherited members (so every
    setter and its ADK field doc is on its page), minus the methods Expression documents once."""
    shared = _shared_methods()
    problems = []
    builders = 0
    for directive in directives():
        obj = resolve(directive.target)
        mro = getattr(obj, "__mro__", ())
        if not any(base.__module__ == SETTER_MIXINS for base in mro):
            continue
        builders += 1
        if directive.options.get("inherited_members") is not True:
            problems.append(f"{directive.where}: {directive.target} needs inherited_members: true")
            continue
        filters = directive.options.get("filters", [])
        excluded = {
            name
            for name in shared | {m for base in mro for m in vars(base)}
            if any(f.startswith("!") and re.search(f[1:], name) for f in filters)
        }
        if excluded - {n for n in excluded if n.startswith("_")} != shared:
            problems.append(
                f"{directive.where}: {directive.target}'s filters must exclude exactly the "
                f"shared methods; missing {sorted(shared - excluded)}, extra "
                f"{sorted(excluded - shared - {n for n in excluded if n.startswith('_')})}"
            )
    assert builders >= 4, "Agent, Pipeline, FanOut and Loop should be in the reference"
    assert not problems, "\n".join(problems)


def test_the_shared_methods_are_documented_once_with_their_bases() -> None:
    shared = [d for d in directives() if d.target == SHARED_BASE]
    assert len(shared) == 1
    assert shared[0].options.get("inherited_members") is True
