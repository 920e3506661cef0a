"""A split pipeline as folders `adk api_server` serves: one agent folder per part, each loading
its App with load_part (the same split, made again in the serving process)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from adk_fluent.errors import BuildError, describe_value, did_you_mean
from adk_fluent.remote.boundaries import endpoint, to_apps
from adk_fluent.remote.cards import StateInterface, agent_card
from adk_fluent.remote.serve import tree_of

_AGENT_PY = '''"""The part {part!r} of the split pipeline {module_ref!r}, written by
adk_fluent.remote.write_agent_folders: `adk api_server{a2a}` serves it
({role})."""

from adk_fluent.remote import load_part

app = load_part(
    {module_ref!r},
    {service!r},
    urls={urls!r},
    backend_ref={backend_ref!r},
    config_ref={config_ref!r},
)
'''


def write_agent_folders(
    pipeline: Any,
    out_dir: Any,
    module_ref: str,
    *,
    urls: Mapping[str, str] | None = None,
    root: str = "root",
    backend_ref: str | None = None,
    config_ref: str | None = None,
) -> dict[str, Any]:
    """Write the parts of a split pipeline as ADK agent folders under `out_dir`: `<root>/` the
    entry App and `<service>/` each service, with an `agent.json` card so that `adk api_server
    --a2a` (or `adk deploy cloud_run` with `--a2a`) serves it at `<base>/a2a/<service>`.

    Each folder's agent.py imports the pipeline from `module_ref` ("package.module:name") and
    builds its part when ADK loads it (`load_part`); `backend_ref` / `config_ref` name a model
    backend and an ExecutionConfig the same way. `urls` as for `to_apps`: for a service served
    by api_server, `http://host:port/a2a/<service>`. Returns the folders by part name."""
    from pathlib import Path

    loaded = _imported(module_ref, "module_ref")
    if tree_of(loaded, "write_agent_folders()")[0] != tree_of(pipeline, "write_agent_folders()")[0]:
        raise BuildError(
            f"module_ref {module_ref!r} names another pipeline than the one given",
            field="module_ref",
            hint="name the module and variable holding this pipeline: 'shop.agents:pipeline'.",
        )
    backend = _imported(backend_ref, "backend_ref") if backend_ref else None
    split = to_apps(pipeline, urls, backend=backend)
    if not isinstance(root, str) or not root.isidentifier() or root in split.services:
        raise BuildError(
            f"the root folder cannot be named {root!r}",
            field="root",
            hint="an identifier that no service has, e.g. root='entry'.",
        )
    out = Path(out_dir)
    folders: dict[str, Any] = {}
    for part, service in ((root, None), *((name, name) for name in split.services)):
        folder = out / part
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
        role = "the entry App" if service is None else "over A2A, with its agent.json card"
        source = _AGENT_PY.format(
            part=part,
            module_ref=module_ref,
            a2a="" if service is None else " --a2a",
            role=role,
            service=service,
            urls=dict(urls or {}),
            backend_ref=backend_ref,
            config_ref=config_ref,
        )
        (folder / "agent.py").write_text(source, encoding="utf-8")
        if service is not None:
            crossing = split.crossing(service)
            card = agent_card(
                split.trees[service],
                endpoint(crossing.url),
                name=service,
                description=crossing.description,
                interface=StateInterface(crossing.sends, crossing.receives),
            )
            text = card.model_dump_json(by_alias=True, exclude_none=True, indent=2)
            (folder / "agent.json").write_text(text + "\n", encoding="utf-8")
        folders[part] = folder
    return folders


def load_part(
    module_ref: str,
    service: str | None = None,
    *,
    urls: Mapping[str, str] | None = None,
    backend_ref: str | None = None,
    config_ref: str | None = None,
) -> Any:
    """The App of one part of the pipeline at `module_ref` split by `to_apps`: the entry App
    (`service=None`) or a service's. What the agent.py of `write_agent_folders` calls; called
    from an agent folder, the App is named after it, as ADK's servers look it up."""
    pipeline = _imported(module_ref, "module_ref")
    backend = _imported(backend_ref, "backend_ref") if backend_ref else None
    config = _imported(config_ref, "config_ref") if config_ref else None
    split = to_apps(pipeline, urls, config=config, backend=backend)
    if service is None:
        return split.root
    split.crossing(service)  # an unknown service: a BuildError with a did-you-mean
    return split.services[service]


def _imported(ref: Any, field: str) -> Any:
    """The object `ref` ("package.module:name") names."""
    module_name, _, attribute = ref.partition(":") if isinstance(ref, str) else ("", "", "")
    if not module_name or not attribute:
        raise BuildError(
            f"{field} must be 'package.module:name', got {describe_value(ref)}",
            field=field,
            hint="e.g. 'shop.agents:pipeline' for `pipeline = ...` in shop/agents.py.",
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise BuildError(
            f"{field} {ref!r}: cannot import {module_name!r} ({error})",
            field=field,
            hint="the module must be importable where the agent folders run (on sys.path).",
        ) from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise BuildError(
            f"{field} {ref!r}: {module_name!r} has no {attribute!r}",
            field=field,
            hint=did_you_mean(attribute, dir(module)) or "name a module-level variable.",
        ) from None
