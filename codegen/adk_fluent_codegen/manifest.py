"""Load and validate manifests; order them by ADK version."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from . import MANIFEST_SCHEMA_VERSION
from .errors import CodegenError

_REQUIRED_KEYS = ("schema_version", "adk_version", "classes", "plugin_callbacks")
_FIELD_KEYS = ("annotation", "required", "default", "default_factory", "alias", "deprecated", "doc")


def version_key(version: str) -> tuple[int, ...]:
    """Sort key for 'X.Y.Z' versions (pre-release suffixes sort with their release)."""
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(itertools.takewhile(str.isdigit, piece))  # '0rc1' -> 0
        parts.append(int(digits or 0))
    return tuple(parts)


def manifest_filename(version: str) -> str:
    """The manifest's file name for one ADK version (`*` gives the pattern of them all)."""
    return f"google-adk-{version}.json"


def load_manifest(path: Path) -> dict[str, Any]:
    """Read and validate one manifest; a CodegenError names the file and what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CodegenError(f"Manifest {path} does not exist.") from None
    except json.JSONDecodeError as exc:
        raise CodegenError(
            f"Manifest {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).",
            hint="restore it with `git checkout -- {path}` or rescan with `make regen`.",
        ) from None
    if not isinstance(data, dict) or any(key not in data for key in _REQUIRED_KEYS):
        missing = [k for k in _REQUIRED_KEYS if not isinstance(data, dict) or k not in data]
        raise CodegenError(
            f"Manifest {path} is malformed: missing {', '.join(missing)}.",
            hint="rescan it with `adk-fluent-codegen scan` in an environment with that ADK version.",
        )
    if data["schema_version"] != MANIFEST_SCHEMA_VERSION:
        raise CodegenError(
            f"Manifest {path} has schema version {data['schema_version']!r}; this generator "
            f"reads version {MANIFEST_SCHEMA_VERSION}.",
            hint="rescan it with this generator (`make regen`, or the nox `scan` session per version).",
        )
    for class_name, entry in data["classes"].items():
        fields = entry.get("fields") if isinstance(entry, dict) else None
        if not isinstance(fields, dict):
            raise CodegenError(f"Manifest {path}: class {class_name} has no 'fields' mapping.")
        for field_name, field in fields.items():
            missing = [k for k in _FIELD_KEYS if not isinstance(field, dict) or k not in field]
            if missing:
                raise CodegenError(
                    f"Manifest {path}: field {class_name}.{field_name} is missing {', '.join(missing)}.",
                    hint="manifests are written by `adk-fluent-codegen scan`; do not edit them by hand.",
                )
    return data


def load_manifests(directory: Path) -> list[dict[str, Any]]:
    """All manifests in a directory, oldest ADK version first."""
    paths = sorted(directory.glob(manifest_filename("*")))
    if not paths:
        raise CodegenError(
            f"No manifests found in {directory}.",
            hint="scan the installed ADK with `adk-fluent-codegen scan` (or `make regen`).",
        )
    manifests = [load_manifest(p) for p in paths]
    return sorted(manifests, key=lambda m: version_key(m["adk_version"]))
