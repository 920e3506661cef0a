"""Render manifests through the Jinja templates into the generated package and diff reports."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .diff import diff_manifests, load_acknowledgements, report_pairs, unacknowledged
from .errors import CodegenError
from .layout import GENERATED_PACKAGE, Layout
from .model import render_context
from .shadowing import check_shadowing


def template_environment(templates: Path) -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["md"] = _markdown_cell
    env.filters["pyrepr"] = python_literal
    return env


def python_literal(value: Any) -> str:
    """A JSON value (from a manifest) as a Python literal, dict keys sorted (deterministic)."""
    if isinstance(value, dict):
        items = ", ".join(
            f"{python_literal(k)}: {python_literal(v)}" for k, v in sorted(value.items())
        )
        return "{" + items + "}"
    if isinstance(value, list | tuple):
        return "(" + "".join(f"{python_literal(v)}, " for v in value) + ")"
    return repr(value)


def _markdown_cell(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def _render(env: Any, template_name: str, context: dict[str, Any]) -> str:
    import jinja2

    try:
        return env.get_template(template_name).render(template_path=template_name, **context)
    except jinja2.UndefinedError as exc:
        raise CodegenError(
            f"Template templates/{template_name} refers to an undefined variable: {exc.message}.",
            hint="templates may only use what codegen/adk_fluent_codegen/model.py's render_context() provides.",
        ) from None
    except jinja2.TemplateNotFound as exc:
        raise CodegenError(
            f"Template {exc.name} was not found under {env.loader.searchpath[0]}.",
            hint="run from the adk-fluent checkout, or point --root at it.",
        ) from None
    except jinja2.TemplateSyntaxError as exc:
        raise CodegenError(
            f"Template templates/{exc.filename or template_name} has a syntax error on line {exc.lineno}: {exc.message}."
        ) from None


def ruff_format(source: str, filename: str) -> str:
    """Format Python source with ruff (isolated settings, so output never depends on the caller)."""
    try:
        from ruff.__main__ import find_ruff_bin
    except ImportError:
        raise CodegenError(
            "ruff is not installed, and generated code must be formatted by it.",
            hint="install the codegen extra: `pip install -e '.[codegen]'` (or run `make setup`).",
        ) from None
    result = subprocess.run(
        [
            find_ruff_bin(),
            "format",
            "--isolated",
            "--line-length",
            "100",
            "--stdin-filename",
            filename,
            "-",
        ],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise CodegenError(
            f"ruff could not format the generated {filename}: {result.stderr.strip()}",
            hint="the template that produces it renders invalid Python; fix the template.",
        )
    return result.stdout


def _is_partial(template_name: str) -> bool:
    """Partials start with `_` (`_header.j2`); dunder modules (`__init__.py.j2`) are not partials."""
    return template_name.startswith("_") and not template_name.startswith("__")


def render_package(
    layout: Layout, manifests: list[dict[str, Any]], builders: Iterable[type] | None = None
) -> dict[Path, str]:
    """The generated package's files, rendered and formatted, keyed by output path.

    Refuses setters that would collide with the hand-written `builders` (by default the
    installed adk-fluent builders; see shadowing.check_shadowing).
    """
    env = template_environment(layout.templates)
    context = render_context(manifests)
    template_dir = layout.templates / GENERATED_PACKAGE
    outputs: dict[Path, str] = {}
    for template in sorted(template_dir.glob("*.j2")):
        if _is_partial(template.name):
            continue
        name = f"{GENERATED_PACKAGE}/{template.name}"
        text = _render(env, name, context)
        out_name = template.name[: -len(".j2")]
        if out_name.endswith(".py"):
            text = ruff_format(text, out_name)
        outputs[layout.package / out_name] = text
    check_shadowing(context["targets"], builders)
    return outputs


def render_diff_reports(layout: Layout, manifests: list[dict[str, Any]]) -> dict[Path, str]:
    """Markdown and JSON diff reports for each pair of `report_pairs`."""
    env = template_environment(layout.templates)
    acks = load_acknowledgements(layout.acks)
    outputs: dict[Path, str] = {}
    for old, new in report_pairs(manifests):
        outputs.update(render_diff_report(layout, env, acks, old, new))
    return outputs


def render_diff_report(
    layout: Layout,
    env: Any,
    acks: set[tuple[str, str, str]],
    old: dict[str, Any],
    new: dict[str, Any],
) -> dict[Path, str]:
    """The Markdown and JSON report of one pair, keyed by their paths under diffs/."""
    report = diff_manifests(old, new)
    stem = f"{report.old_version}..{report.new_version}"
    by_class: dict[str, list[Any]] = {}
    for change in report.changes:
        by_class.setdefault(change.class_name, []).append(change)
    markdown = _render(
        env,
        "diff_report.md.j2",
        {
            "report": report,
            "summary": report.summary(),
            "by_class": sorted(by_class.items()),
            "acks": acks,
            "unacknowledged": unacknowledged(report, acks),
        },
    )
    return {
        layout.diffs / f"{stem}.md": markdown,
        layout.diffs / f"{stem}.json": json.dumps(report.to_json(), indent=2, sort_keys=True)
        + "\n",
    }


def _answer_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "; ".join(
            f"`{key}({', '.join(names)})`" if isinstance(names, list) else f"`{key}`: {names}"
            for key, names in sorted(value.items())
        )
    return f"`{value}`"


def render_compatibility(layout: Layout, manifests: list[dict[str, Any]]) -> dict[Path, str]:
    """docs/compatibility.md: releases, behaviour answers, field presence and field changes."""
    from .model import behaviour_runs, describe_spans, plugin_callback_spans, union_fields
    from .releases import minor_line
    from .targets import BEHAVIOUR_NOTES

    versions = [m["adk_version"] for m in manifests]
    oldest, newest = versions[0], versions[-1]
    lines: dict[str, list[str]] = {}  # versions are oldest first, so the lines are too
    for version in versions:
        lines.setdefault("{}.{}".format(*minor_line(version)), []).append(version)
    behaviours = []
    for name, runs in behaviour_runs(manifests).items():
        question, effect = BEHAVIOUR_NOTES.get(name, (f"Probe `{name}`.", ""))
        behaviours.append(
            {
                "name": name,
                "question": question,
                "effect": effect,
                "runs": [
                    {
                        "answer": _answer_text(value),
                        "releases": describe_spans(((first, last),), newest),
                    }
                    for first, last, value in runs
                ],
            }
        )
    partial_fields = []
    for class_name in sorted({c for m in manifests for c in m["classes"]}):
        rows = [
            (f.name, f.releases)
            for f in union_fields(manifests, class_name)
            if f.spans != ((oldest, newest),)
        ]
        if rows:
            partial_fields.append((class_name, rows))
    field_changes = [
        (new["adk_version"], change)
        for old, new in zip(manifests, manifests[1:], strict=False)
        for change in diff_manifests(old, new).changes
        if change.kind not in ("added", "removed", "class_added", "class_removed")
        and not change.kind.startswith("callback_")
    ]
    plugin_callbacks = [
        (name, describe_spans(spans, newest))
        for name, spans in plugin_callback_spans(manifests).items()
    ]
    env = template_environment(layout.templates)
    text = _render(
        env,
        "compatibility.md.j2",
        {
            "releases": versions,
            "oldest": oldest,
            "newest": newest,
            "lines": list(lines.items()),
            "behaviours": behaviours,
            "partial_fields": partial_fields,
            "field_changes": field_changes,
            "plugin_callbacks": plugin_callbacks,
        },
    )
    return {layout.compatibility: text}


def render_all(
    layout: Layout, manifests: list[dict[str, Any]], builders: Iterable[type] | None = None
) -> dict[Path, str]:
    """Everything `generate` writes and `check` compares."""
    outputs = render_package(layout, manifests, builders)
    outputs.update(render_diff_reports(layout, manifests))
    outputs.update(render_compatibility(layout, manifests))
    return outputs


def stale_outputs(layout: Layout, outputs: dict[Path, str]) -> list[Path]:
    """Files in the generated package or diffs/ that no template produces any more (a module
    whose template was removed, the report of a version pair no longer compared)."""
    candidates = [*layout.package.glob("*.py"), *layout.diffs.glob("*..*.md")]
    candidates += layout.diffs.glob("*..*.json")
    return sorted(p for p in candidates if p not in outputs)


def write_outputs(layout: Layout, outputs: dict[Path, str]) -> tuple[list[Path], list[Path]]:
    """Write `outputs` (all or nothing), then delete the stale files; (changed, removed)."""
    from .writer import write_files_atomically

    changed = write_files_atomically(outputs)
    removed = stale_outputs(layout, outputs)
    for path in removed:
        path.unlink()
    return changed, removed
