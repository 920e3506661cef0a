"""`adk-fluent-codegen`: scan, diff, generate, check, regen, scan-releases.

    adk-fluent-codegen scan [--output FILE] [--no-behaviours]   scan the installed google-adk
    adk-fluent-codegen diff OLD NEW [--ack FILE] [--markdown FILE] [--json FILE]
    adk-fluent-codegen generate | check | regen                 in the root of a checkout
    adk-fluent-codegen scan-releases 2.14.0 | all | missing | newest [--jobs N]
    adk-fluent-codegen --version        adk-fluent 0.1.0 (google-adk 2.13.0)
    adk-fluent-codegen                  the help, exit 0

Every command that writes into the tree (generate, regen, scan-releases, and scan without
--output) and `check` refuse a folder that is not an adk-fluent checkout (no
templates/adk_fluent_generated/) instead of writing files there; --root names the checkout.

Exit codes (defined in adk_fluent_codegen.errors; docs/cli.md has the table):
0 ok; 1 findings: `check` found drift, `diff` found unacknowledged breaking changes;
2 a usage error: bad arguments or option values, not a checkout, a manifest, template or
acknowledgement file that cannot be read, no google-adk, a release that could not be scanned
(`error:` and `hint:` on stderr);
3 an internal error, a bug in the generator: one line and a request to report it (`--debug`
or ADK_FLUENT_DEBUG=1 also prints the traceback); 130 interrupted.
"""

from __future__ import annotations

import difflib
import functools
import gc
import importlib.metadata
import importlib.util
import os
import sys
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from .errors import EXIT_USAGE as _EXIT_USAGE

# The modules of the `codegen` extra (pyproject.toml), which every command needs (typer for the
# command line itself): checked by name, without importing them, so `--help` stays fast.
CODEGEN_EXTRA = ("typer", "jinja2", "libcst", "ruff", "deepdiff")


def _missing_tools() -> list[str]:
    """The modules of the codegen extra this environment cannot import."""
    missing = []
    for name in CODEGEN_EXTRA:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def _install_command() -> str:
    """What to run to install the extra: this checkout's path when the generator runs from one
    (the only way adk-fluent-codegen is installed), else a placeholder for it."""
    root = Path(__file__).resolve().parents[2]
    where = str(root) if (root / "pyproject.toml").is_file() else "path/to/adk-fluent"
    return f"pip install -e '{where}[codegen]'"


def _exit_without_the_extra() -> None:
    """Without the codegen extra, any `adk-fluent-codegen ...` (even --help or --version) says
    what to install, with exit code 2 (a usage problem the user fixes), instead of an
    ImportError traceback and exit code 1 (which means "findings")."""
    missing = _missing_tools()
    if not missing:
        return
    sys.stderr.write(
        f"error: adk-fluent-codegen needs the codegen extra of adk-fluent, which is not "
        f"installed here (missing: {', '.join(missing)})\n"
        f"hint: install it into this environment ({sys.executable}): {_install_command()}\n"
    )
    raise SystemExit(_EXIT_USAGE)


_exit_without_the_extra()  # before the first import the extra provides

import typer  # noqa: E402

from .errors import (  # noqa: E402
    DEBUG_ENV,
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    CodegenError,
    CodegenWarning,
)
from .help import EXIT_CODES, Command, Group, command_codes  # noqa: E402
from .layout import GENERATED_PACKAGE, Layout  # noqa: E402

app = typer.Typer(
    cls=Group,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,  # plain usage errors: no boxes, no colour codes in CI logs
    pretty_exceptions_enable=False,  # _friendly reports a crash in one line, no locals dump
    help="Generate adk-fluent's IR nodes, builders and compile cases from scans of google-adk.",
    epilog="Run `adk-fluent-codegen COMMAND --help` for a command's options.\n\n" + EXIT_CODES,
)

_debug = False  # --debug of this run (the callback sets it before the command runs)


def _version_line() -> str:
    """'adk-fluent 0.1.0 (google-adk 2.13.0)', as `adk-fluent --version` prints it."""
    try:
        fluent = importlib.metadata.version("adk-fluent")
    except importlib.metadata.PackageNotFoundError:  # a source tree that was never installed
        fluent = _checkout_version() or "unknown"
    try:
        adk = f"google-adk {importlib.metadata.version('google-adk')}"
    except importlib.metadata.PackageNotFoundError:
        adk = "google-adk not installed"
    return f"adk-fluent {fluent} ({adk})"


def _checkout_version() -> str | None:
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return project.get("version") if project.get("name") == "adk-fluent" else None


def _debug_requested() -> bool:
    return _debug or os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _report_crash(error: BaseException) -> None:
    debug = _debug_requested()
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    detail = " ".join(str(error).split())
    if len(detail) > 200:
        detail = detail[:197] + "..."
    typer.secho(
        f"internal error: {type(error).__name__}" + (f": {detail}" if detail else ""),
        err=True,
        fg=typer.colors.RED,
    )
    how = (
        "the traceback is above"
        if debug
        else f"rerun with --debug (or {DEBUG_ENV}=1) for the traceback"
    )
    typer.echo(
        f"this is a bug in adk-fluent-codegen; please report it with the command you ran ({how})",
        err=True,
    )


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            help="Print adk-fluent's version and the installed google-adk's, then exit.",
        ),
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Print the traceback of an internal error.")
    ] = False,
) -> None:
    """Generate adk-fluent's IR nodes, builders and compile cases from scans of google-adk."""
    global _debug
    _debug = debug
    if version:
        typer.echo(_version_line())
        raise typer.Exit(EXIT_OK)
    if ctx.invoked_subcommand is None:  # no command: the help, and nothing went wrong
        typer.echo(ctx.get_help())
        raise typer.Exit(EXIT_OK)


RootOption = Annotated[
    Path,
    typer.Option(
        "--root",
        metavar="PATH",
        help="The adk-fluent checkout (holds templates/, generated/, diffs/).",
    ),
]


def _friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a CodegenError into one readable paragraph on stderr and exit code 2, an unexpected
    exception into one line and exit code 3, and each CodegenWarning into one `warning:` line."""

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
            raise typer.Exit(EXIT_USAGE) from None
        except typer.Exit:
            raise
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:  # a bug: one line, not a traceback (unless --debug)
            _report_crash(exc)
            raise typer.Exit(EXIT_INTERNAL) from None
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


_WRITES = "writes generated files into a checkout; nothing was written"


def _checkout(root: Path, command: str, purpose: str = _WRITES) -> Layout:
    """The layout of `root`, or a CodegenError when it is not an adk-fluent checkout: the
    commands that write generated files must not scatter them into some other folder."""
    layout = _layout(root)
    if not layout.is_checkout():
        raise CodegenError(
            f"{layout.root} is not an adk-fluent checkout (it has no "
            f"templates/{GENERATED_PACKAGE}/); `{command}` {purpose}.",
            hint="run it in the root of the adk-fluent repository, or name it: --root PATH.",
        )
    return layout


BehavioursOption = Annotated[
    bool,
    typer.Option(
        "--behaviours/--no-behaviours",
        help="Also record the answers of adk-fluent's behaviour probes (needs adk-fluent "
        "importable in this environment).",
    ),
]


def _scan_installed(behaviours: bool) -> dict[str, Any]:
    from .scan import Probes, installed_adk_version
    from .scan import scan as do_scan

    installed_adk_version()  # no ADK, or one too old: said before anything starts
    # The probes import ADK in a process of their own and run there while this one scans: on
    # two cores the scan and the probes take as long as the longer of them, not the sum.
    probes = Probes() if behaviours else None
    try:
        manifest = do_scan()
    except BaseException:
        if probes is not None:
            probes.stop()
        raise
    if probes is not None:
        manifest["behaviours"] = probes.answers()
    return manifest


@app.command(cls=Command, epilog=command_codes(None))
@_friendly
def scan(
    root: RootOption = Path("."),
    output: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="Manifest path (default: generated/manifests/ of the checkout).",
        ),
    ] = None,
    behaviours: BehavioursOption = True,
) -> None:
    """Scan the installed google-adk into a manifest (its fields and its behaviour probes)."""
    from .manifest import manifest_filename
    from .scan import dumps
    from .writer import write_files_atomically

    layout = None if output else _checkout(root, "scan")
    manifest = _scan_installed(behaviours)
    if output is None:
        assert layout is not None
        output = layout.manifests / manifest_filename(manifest["adk_version"])
    write_files_atomically({output: dumps(manifest)})
    fields = sum(len(c["fields"]) for c in manifest["classes"].values())
    typer.echo(
        f"scanned google-adk {manifest['adk_version']}: {len(manifest['classes'])} classes, "
        f"{fields} fields, {len(manifest['plugin_callbacks'])} plugin callbacks -> {output}"
    )


@app.command(cls=Command, epilog=command_codes("unacknowledged breaking changes"))
@_friendly
def diff(
    old: Annotated[
        Path,
        typer.Argument(metavar="OLD", exists=True, dir_okay=False, help="The older manifest."),
    ],
    new: Annotated[
        Path,
        typer.Argument(metavar="NEW", exists=True, dir_okay=False, help="The newer manifest."),
    ],
    ack: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            exists=True,
            dir_okay=False,
            help="TOML file of reviewed breaking changes (default: diffs/acknowledged.toml "
            "of --root, when it exists).",
        ),
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option(metavar="FILE", help="Write the Markdown report here.")
    ] = None,
    json_out: Annotated[
        Path | None,
        typer.Option("--json", metavar="FILE", help="Write the JSON report here."),
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
        raise typer.Exit(EXIT_FINDINGS)


def _print_summary(report: Any) -> None:
    s = report.summary()
    typer.echo(
        f"google-adk {report.old_version} -> {report.new_version}: {s['added']} added, "
        f"{s['removed']} removed, {s['changed']} changed, {s['widened']} widened, "
        f"{s['breaking']} breaking"
    )


@app.command(cls=Command, epilog=command_codes(None))
@_friendly
def generate(root: RootOption = Path(".")) -> None:
    """Render the committed manifests into generated/ and diffs/ (atomic, byte-identical on re-run)."""
    from .manifest import load_manifests
    from .render import render_all, write_outputs

    layout = _checkout(root, "generate")
    outputs = render_all(layout, load_manifests(layout.manifests))
    changed, removed = write_outputs(layout, outputs)
    typer.echo(f"generated {len(outputs)} files ({len(changed)} changed, {len(removed)} removed)")


@app.command(cls=Command, epilog=command_codes("generated files drifted (the diff is printed)"))
@_friendly
def check(root: RootOption = Path(".")) -> None:
    """Regenerate in memory and fail with a diff if generated/, diffs/ or docs/compatibility.md
    drifted."""
    from .manifest import load_manifests
    from .render import render_all, stale_outputs

    layout = _checkout(root, "check", "compares a checkout's generated files with its templates")
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
        raise typer.Exit(EXIT_FINDINGS)
    typer.echo(f"generated code is up to date ({len(outputs)} files)")


@app.command(cls=Command, epilog=command_codes(None))
@_friendly
def regen(root: RootOption = Path("."), behaviours: BehavioursOption = True) -> None:
    """Scan the installed ADK, regenerate, write diff reports, print a summary."""
    from .diff import diff_manifests
    from .manifest import load_manifests, manifest_filename, version_key
    from .render import render_all, write_outputs
    from .scan import dumps
    from .writer import write_files_atomically

    layout = _checkout(root, "regen")  # before the scan: nothing is written elsewhere
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


@app.command("scan-releases", cls=Command, epilog=command_codes(None))
@_friendly
def scan_releases(
    versions: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="VERSION",
            show_default=False,
            help="Releases to scan, e.g. 2.14.0 2.15.0; or `all`, `missing` or `newest`.",
        ),
    ] = None,
    jobs: Annotated[int, typer.Option(metavar="N", help="Releases scanned at once.")] = 2,
    root: RootOption = Path("."),
) -> None:
    """Scan google-adk releases, each in its own throwaway environment, then regenerate.

    `all`: every final release on PyPI from 1.25.0 on; `missing`: those without a manifest;
    `newest`: the newest one. Needs uv and the network (PyPI)."""
    from concurrent.futures import ThreadPoolExecutor

    from .manifest import load_manifests, manifest_filename
    from .releases import published_releases, scan_in_throwaway_env, supported
    from .render import render_all, write_outputs

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
    keywords = wanted in (["all"], ["missing"], ["newest"])
    if not keywords:
        refused = sorted(set(wanted) - set(supported(wanted)))
        if refused:
            raise CodegenError(
                f"Not a supported google-adk release: {', '.join(refused)}.",
                hint="name final releases from 1.25.0 on, e.g. 2.13.0 (no pre-releases), "
                "or one of `all`, `missing`, `newest`.",
            )
    layout = _checkout(root, "scan-releases")
    if keywords:
        chosen = published_releases()
        if wanted == ["missing"]:
            chosen = [v for v in chosen if not (layout.manifests / manifest_filename(v)).exists()]
        elif wanted == ["newest"]:
            chosen = chosen[-1:]
    else:
        chosen = supported(wanted)
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
    whole commands, and every file has been written and closed by then. For the same reason
    the cyclic garbage collector stays off: a command lives seconds, and the collector would
    walk the million objects importing ADK makes again and again while they are made (a few
    MB of uncollected cycles cost less).
    """
    gc.disable()
    try:
        app()
        code = EXIT_OK
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or EXIT_OK
        else:
            print(exc.code, file=sys.stderr)
            code = EXIT_USAGE
    except Exception as exc:  # outside a command (the commands report their own)
        _report_crash(exc)
        code = EXIT_INTERNAL
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
