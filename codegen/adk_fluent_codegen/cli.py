"""`adk-fluent-codegen`: scan, diff, generate, check, regen."""

from __future__ import annotations

import difflib
import functools
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from .errors import CodegenError, CodegenWarning
from .layout import Layout

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Generate adk-fluent's IR nodes, builders and compile cases from scans of google-adk.",
)

RootOption = Annotated[
    Path,
    typer.Option("--root", help="The adk-fluent checkout (holds templates/, generated/, diffs/)."),
]


def _friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a CodegenError into one readable paragraph on stderr and exit code 2, and each
    CodegenWarning into one `warning:` line."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        caught: list[warnings.WarningMessage] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                return fn(*args, **kwargs)
        except CodegenError as exc:
            typer.secho(f"error: {exc.message}", err=True, fg=typer.colors.RED)
            if exc.hint:
                typer.echo(f"hint: {exc.hint}", err=True)
            raise typer.Exit(2) from None
        finally:
            _show_warnings(caught)  # once the recording has stopped

    return wrapper


def _show_warnings(caught: list[warnings.WarningMessage]) -> None:
    for warning in caught:
        if issubclass(warning.category, CodegenWarning):
            typer.secho(f"warning: {warning.message}", err=True, fg=typer.colors.YELLOW)
        else:  # anybody else's warning, shown as Python would have
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )


def _layout(root: Path) -> Layout:
    return Layout(root.resolve())


BehavioursOption = Annotated[
    bool,
    typer.Option(
        "--behaviours/--no-behaviours",
        help="Also record the answers of adk-fluent's behaviour probes (needs adk-fluent "
        "importable in this environment).",
    ),
]


def _scan_installed(behaviours: bool) -> dict[str, Any]:
    from .scan import probe_behaviours
    from .scan import scan as do_scan

    manifest = do_scan()
    if behaviours:
        manifest["behaviours"] = probe_behaviours()
    return manifest


@app.command()
@_friendly
def scan(
    root: RootOption = Path("."),
    output: Annotated[
        Path | None, typer.Option(help="Manifest path (default: generated/manifests/).")
    ] = None,
    behaviours: BehavioursOption = True,
) -> None:
    """Scan the installed google-adk into a manifest (its fields and its behaviour probes)."""
    from .manifest import manifest_filename
    from .scan import dumps
    from .writer import write_files_atomically

    manifest = _scan_installed(behaviours)
    path = output or _layout(root).manifests / manifest_filename(manifest["adk_version"])
    write_files_atomically({path: dumps(manifest)})
    fields = sum(len(c["fields"]) for c in manifest["classes"].values())
    typer.echo(
        f"scanned google-adk {manifest['adk_version']}: {len(manifest['classes'])} classes, "
        f"{fields} fields, {len(manifest['plugin_callbacks'])} plugin callbacks -> {path}"
    )


@app.command()
@_friendly
def diff(
    old: Annotated[Path, typer.Argument(help="The older manifest.")],
    new: Annotated[Path, typer.Argument(help="The newer manifest.")],
    ack: Annotated[
        Path | None, typer.Option(help="TOML file of reviewed breaking changes.")
    ] = None,
    markdown: Annotated[Path | None, typer.Option(help="Write the Markdown report here.")] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the JSON report here.")
    ] = None,
    root: RootOption = Path("."),
) -> None:
    """Classify changes between two manifests; exit 1 on unacknowledged breaking changes."""
    from .diff import diff_manifests, load_acknowledgements, unacknowledged
    from .manifest import load_manifest
    from .writer import write_files_atomically

    layout = _layout(root)
    report = diff_manifests(load_manifest(old), load_manifest(new))
    acks = load_acknowledgements(ack if ack is not None else layout.acks)
    if markdown or json_out:
        from .render import render_diff_report, template_environment

        rendered = render_diff_report(
            layout,
            template_environment(layout.templates),
            acks,
            load_manifest(old),
            load_manifest(new),
        )
        stem = f"{report.old_version}..{report.new_version}"
        files = {}
        if markdown:
            files[markdown] = rendered[layout.diffs / f"{stem}.md"]
        if json_out:
            files[json_out] = rendered[layout.diffs / f"{stem}.json"]
        write_files_atomically(files)
    _print_summary(report)
    missing = unacknowledged(report, acks)
    if missing:
        typer.secho(
            f"{len(missing)} breaking change(s) not acknowledged:", err=True, fg=typer.colors.RED
        )
        for change in missing:
            typer.echo(
                f"  {change.class_name}.{change.field or '(class)'}: {change.kind} "
                f"({change.label}) {change.old!r} -> {change.new!r}",
                err=True,
            )
        typer.echo(
            "Review each, then add it to diffs/acknowledged.toml as\n"
            '  [[change]]\n  class = "..."\n  field = "..."\n  kind = "..."\n'
            '  reviewed = "what adk-fluent does about it"',
            err=True,
        )
        raise typer.Exit(1)


def _print_summary(report: Any) -> None:
    s = report.summary()
    typer.echo(
        f"google-adk {report.old_version} -> {report.new_version}: {s['added']} added, "
        f"{s['removed']} removed, {s['changed']} changed, {s['widened']} widened, "
        f"{s['breaking']} breaking"
    )


@app.command()
@_friendly
def generate(root: RootOption = Path(".")) -> None:
    """Render the committed manifests into generated/ and diffs/ (atomic, byte-identical on re-run)."""
    from .manifest import load_manifests
    from .render import render_all, write_outputs

    layout = _layout(root)
    outputs = render_all(layout, load_manifests(layout.manifests))
    changed, removed = write_outputs(layout, outputs)
    typer.echo(f"generated {len(outputs)} files ({len(changed)} changed, {len(removed)} removed)")


@app.command()
@_friendly
def check(root: RootOption = Path(".")) -> None:
    """Regenerate in memory and fail with a diff if generated/, diffs/ or docs/compatibility.md
    drifted."""
    from .manifest import load_manifests
    from .render import render_all, stale_outputs

    layout = _layout(root)
    outputs = render_all(layout, load_manifests(layout.manifests))
    drift: list[str] = []
    for path, expected in sorted(outputs.items()):
        actual = path.read_text(encoding="utf-8") if path.exists() else ""
        if actual != expected:
            rel = path.relative_to(layout.root)
            drift.extend(
                difflib.unified_diff(
                    actual.splitlines(keepends=True),
                    expected.splitlines(keepends=True),
                    fromfile=f"{rel} (committed)",
                    tofile=f"{rel} (from templates)",
                )
            )
    stale = stale_outputs(layout, outputs)
    if drift or stale:
        sys.stdout.writelines(drift)
        for path in stale:
            typer.echo(
                f"stale generated file (nothing produces it now): {path.relative_to(layout.root)}"
            )
        typer.secho(
            "generated code is out of date with templates/ or the manifests.",
            err=True,
            fg=typer.colors.RED,
        )
        typer.echo("fix: make regen   (or: adk-fluent-codegen generate)", err=True)
        raise typer.Exit(1)
    typer.echo(f"generated code is up to date ({len(outputs)} files)")


@app.command()
@_friendly
def regen(root: RootOption = Path("."), behaviours: BehavioursOption = True) -> None:
    """Scan the installed ADK, regenerate, write diff reports, print a summary."""
    from .diff import diff_manifests
    from .manifest import load_manifests, manifest_filename, version_key
    from .render import render_all, write_outputs
    from .scan import dumps
    from .writer import write_files_atomically

    layout = _layout(root)
    manifest = _scan_installed(behaviours)
    version = manifest["adk_version"]
    write_files_atomically({layout.manifests / manifest_filename(version): dumps(manifest)})
    manifests = load_manifests(layout.manifests)
    older = [m for m in manifests if version_key(m["adk_version"]) < version_key(version)]
    outputs = render_all(layout, manifests)
    changed, removed = write_outputs(layout, outputs)
    fields = sum(len(c["fields"]) for c in manifest["classes"].values())
    typer.echo(f"google-adk {version}: {len(manifest['classes'])} classes, {fields} fields")
    if older:
        _print_summary(diff_manifests(older[-1], manifest))
    typer.echo(f"regenerated {len(outputs)} files ({len(changed)} changed, {len(removed)} removed)")


@app.command("scan-releases")
@_friendly
def scan_releases(
    versions: Annotated[
        list[str] | None,
        typer.Argument(
            help="Releases to scan, e.g. 2.14.0 2.15.0; or `all`, `missing` or `newest`."
        ),
    ] = None,
    jobs: Annotated[int, typer.Option(help="Releases scanned at once.")] = 2,
    root: RootOption = Path("."),
) -> None:
    """Scan google-adk releases, each in its own throwaway environment, then regenerate.

    `all`: every final release on PyPI from 1.25.0 on; `missing`: those without a manifest;
    `newest`: the newest one. Needs uv and the network (PyPI)."""
    from concurrent.futures import ThreadPoolExecutor

    from .manifest import load_manifests, manifest_filename
    from .releases import published_releases, scan_in_throwaway_env, supported
    from .render import render_all, write_outputs

    layout = _layout(root)
    wanted = list(versions or [])
    if jobs < 1:
        raise CodegenError(
            f"--jobs must be at least 1, not {jobs}.", hint="e.g. --jobs 2 (one per core)."
        )
    if not wanted:
        raise CodegenError(
            "Name the releases to scan.",
            hint="e.g. `adk-fluent-codegen scan-releases 2.14.0`, or `all`, `missing`, `newest`.",
        )
    if wanted in (["all"], ["missing"], ["newest"]):
        chosen = published_releases()
        if wanted == ["missing"]:
            chosen = [v for v in chosen if not (layout.manifests / manifest_filename(v)).exists()]
        elif wanted == ["newest"]:
            chosen = chosen[-1:]
    else:
        chosen = supported(wanted)
        refused = sorted(set(wanted) - set(chosen))
        if refused:
            raise CodegenError(
                f"Not a supported google-adk release: {', '.join(refused)}.",
                hint="name final releases from 1.25.0 on, e.g. 2.13.0 (no pre-releases).",
            )
    typer.echo(f"scanning {len(chosen)} release(s): {', '.join(chosen) or '(none)'}")
    failures: list[str] = []

    def one(version: str) -> None:
        try:
            typer.echo(scan_in_throwaway_env(version, layout.root, layout.manifests))
        except CodegenError as exc:
            failures.append(version)
            typer.secho(f"error: google-adk {version}: {exc.message}", err=True, fg="red")

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(one, chosen))
    outputs = render_all(layout, load_manifests(layout.manifests))
    changed, removed = write_outputs(layout, outputs)
    typer.echo(f"regenerated {len(outputs)} files ({len(changed)} changed, {len(removed)} removed)")
    if failures:
        raise CodegenError(
            f"{len(failures)} release(s) could not be scanned: {', '.join(failures)}."
        )


def main() -> None:
    """Console-script entry point.

    Exits with os._exit once the command is done and its output flushed: tearing down the
    thousands of modules a scan imports (ADK, google-genai, pydantic) takes longer than some
    whole commands, and every file has been written and closed by then.
    """
    try:
        app()
        code = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
