"""Scan the installed google-adk into a manifest (a plain, deterministic dict)."""

from __future__ import annotations

import enum
import importlib
import importlib.metadata
import inspect
import json
import warnings
from typing import Any

from . import MANIFEST_SCHEMA_VERSION
from .annotations import render
from .docstrings import class_attribute_docs
from .errors import CodegenError
from .manifest import version_key
from .targets import PLUGIN_BASE, SCAN_TARGETS, ScanTarget

MIN_ADK = (1, 25, 0)
_PRIMITIVES = (str, int, float, bool, type(None))


def installed_adk_version() -> str:
    """The installed google-adk version, or a CodegenError saying how to install a supported one."""
    try:
        version = importlib.metadata.version("google-adk")
    except importlib.metadata.PackageNotFoundError:
        raise CodegenError(
            "google-adk is not installed in this Python environment, so there is nothing to scan.",
            hint="install a supported release first, e.g. `pip install 'google-adk>=1.25,<3'` "
            "(or run `make setup`).",
        ) from None
    if version_key(version) < MIN_ADK:
        raise CodegenError(
            f"google-adk {version} is installed, but adk-fluent supports 1.25.0 and newer.",
            hint="upgrade it: `pip install 'google-adk>=1.25,<3'`.",
        )
    return version


def _import_class(target: ScanTarget) -> type | None:
    for module_name in target.modules:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        cls = getattr(module, target.name, None)
        if isinstance(cls, type):
            return cls
    if target.optional:
        return None
    raise CodegenError(
        f"Could not import {target.name} from {', '.join(target.modules)} in the installed google-adk.",
        hint="if ADK moved it, add the new module to SCAN_TARGETS in codegen/adk_fluent_codegen/targets.py.",
    )


def _declaring_class(cls: type, field_name: str) -> type:
    for klass in cls.__mro__:
        if field_name in vars(klass).get("__annotations__", {}):
            return klass
    return cls


def _default_repr(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return {"enum": f"{type(value).__name__}.{value.name}"}
    if isinstance(value, _PRIMITIVES):
        return {"value": value}
    if isinstance(value, list | tuple | dict) and not value:
        return {"value": type(value)()}  # empty containers are stable
    return {"instance_of": type(value).__name__}


def scan_model(cls: type) -> dict[str, Any]:
    """Describe one pydantic model class: module, bases and every field."""
    from pydantic_core import PydanticUndefined

    doc_cache: dict[type, dict[str, str]] = {}
    fields: dict[str, Any] = {}
    for name, info in cls.model_fields.items():  # type: ignore[attr-defined]
        owner = _declaring_class(cls, name)
        if owner not in doc_cache:
            doc_cache[owner] = class_attribute_docs(owner)
        doc = doc_cache[owner].get(name) or (info.description or "")
        default: Any = None
        if info.default is not PydanticUndefined:
            default = _default_repr(info.default)
        factory = None
        if info.default_factory is not None:
            factory = getattr(
                info.default_factory, "__qualname__", type(info.default_factory).__name__
            )
        deprecated = getattr(info, "deprecated", None)
        if deprecated is not None and not isinstance(deprecated, str):
            deprecated = getattr(deprecated, "message", None) or "deprecated"
        if deprecated is None and doc.lower().lstrip().startswith("deprecated"):
            deprecated = doc.splitlines()[0]
        fields[name] = {
            "alias": info.alias if info.alias and info.alias != name else None,
            "annotation": render(info.annotation),
            "declared_in": owner.__name__,
            "default": default,
            "default_factory": factory,
            "deprecated": deprecated,
            "doc": doc,
            "required": info.is_required(),
        }
    bases = [
        b.__name__
        for b in cls.__mro__[1:]
        if hasattr(b, "model_fields") and b.__name__ != "BaseModel"
    ]
    return {
        "module": cls.__module__,
        "bases": bases,
        "extra": cls.model_config.get("extra"),  # type: ignore[attr-defined]
        "fields": dict(sorted(fields.items())),
    }


def _is_plugin_hook(name: str, member: Any) -> bool:
    """A plugin hook: a `*_callback` method, or any other public coroutine method (`close`)."""
    if name.startswith("_") or not inspect.isfunction(member):
        return False
    return name.endswith("_callback") or inspect.iscoroutinefunction(member)


def scan_plugin_callbacks(cls: type) -> dict[str, Any]:
    """BasePlugin's hooks (callbacks and `close`) with normalised signatures."""
    callbacks: dict[str, Any] = {}
    for name, member in sorted(vars(cls).items()):
        if not _is_plugin_hook(name, member):
            continue
        try:
            signature = inspect.signature(member, eval_str=True)
        except Exception:  # unresolvable forward refs: fall back to the source text
            signature = inspect.signature(member)
        params = []
        for param in signature.parameters.values():
            if param.name == "self":
                continue
            text = param.name
            if param.annotation is not inspect.Parameter.empty:
                text += f": {render(param.annotation)}"
            params.append({"kind": param.kind.name, "text": text})
        returns = (
            render(signature.return_annotation)
            if signature.return_annotation is not inspect.Signature.empty
            else None
        )
        callbacks[name] = {
            "async": inspect.iscoroutinefunction(member),
            "params": params,
            "returns": returns,
            "doc": inspect.cleandoc(member.__doc__ or "").split("\n\n")[0],
        }
    return callbacks


def scan() -> dict[str, Any]:
    """Scan the installed google-adk into a manifest dict."""
    version = installed_adk_version()
    classes: dict[str, Any] = {}
    with warnings.catch_warnings():
        # Importing ADK modules may warn (experimental features); the scan must stay quiet.
        warnings.simplefilter("ignore")
        for target in SCAN_TARGETS:
            cls = _import_class(target)
            if cls is None:
                continue
            entry = scan_model(cls)
            entry["kind"] = target.kind
            classes[target.name] = entry
        module_name, class_name = PLUGIN_BASE
        plugin_cls = getattr(importlib.import_module(module_name), class_name)
        plugin_callbacks = scan_plugin_callbacks(plugin_cls)
    return {
        "schema_version": MANIFEST_SCHEMA_VERSION,
        "package": "google-adk",
        "adk_version": version,
        "classes": dict(sorted(classes.items())),
        "plugin_callbacks": plugin_callbacks,
    }


def dumps(manifest: dict[str, Any]) -> str:
    """Serialise a manifest deterministically."""
    return json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class Probes:
    """adk-fluent's behaviour probes (`adk_fluent.adk.probes`) on the installed ADK, running in
    a child process of this Python so that their Runners and event loops never touch the scan.
    Started before the scan, they run while it does; `answers()` waits for them."""

    def __init__(self) -> None:
        import subprocess
        import sys
        import tempfile

        # Files, not pipes: nobody reads the child's output before it is done, and a full pipe
        # would stop it halfway. answers() or stop() closes them.
        self._output = tempfile.TemporaryFile("w+")  # noqa: SIM115
        self._errors = tempfile.TemporaryFile("w+")  # noqa: SIM115
        self._process = subprocess.Popen(
            [sys.executable, "-m", "adk_fluent.adk.probes"],
            stdout=self._output,
            stderr=self._errors,
            text=True,
        )

    def stop(self) -> None:
        """Stop the probes whose answers are no longer wanted."""
        self._process.kill()
        self._process.wait()
        self._output.close()
        self._errors.close()

    def answers(self) -> dict[str, Any]:
        """The probes' answers, sorted. A CodegenError when adk-fluent is not importable here or
        a probe fails."""
        returncode = self._process.wait()
        with self._output as output, self._errors as errors:
            output.seek(0)
            errors.seek(0)
            stdout, stderr = output.read(), errors.read()
        if returncode != 0:
            tail = "\n".join(stderr.strip().splitlines()[-10:])
            raise CodegenError(
                f"The behaviour probes failed on google-adk {installed_adk_version()}:\n{tail}",
                hint="run `python -m adk_fluent.adk.probes` to see the failure; scan with "
                "--no-behaviours to record fields only.",
            )
        answers = json.loads(stdout)
        if not isinstance(answers, dict):
            raise CodegenError("The behaviour probes printed something other than a JSON object.")
        return dict(sorted(answers.items()))


def probe_behaviours() -> dict[str, Any]:
    """The installed ADK's answers to adk-fluent's behaviour probes (see `Probes`)."""
    return Probes().answers()
