"""The CI diff gate: fail on any breaking change between committed manifests (every consecutive
pair of scanned releases, and oldest..newest) that diffs/acknowledged.toml does not list.

Run as `python -m adk_fluent_codegen.gate [ROOT]` (ROOT defaults to the current directory).
Exit codes as `adk-fluent-codegen`'s (adk_fluent_codegen.errors): 0 every breaking change is
acknowledged, 1 some are not, 2 an error (a manifest or acknowledgement file that cannot be
read), 3 an internal error (a bug; ADK_FLUENT_DEBUG=1 prints the traceback).
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

from .diff import diff_manifests, gate_pairs, load_acknowledgements, unacknowledged
from .errors import DEBUG_ENV, EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, CodegenError
from .layout import Layout
from .manifest import load_manifests


def run(root: Path) -> int:
    """Print the gate's verdict; 0 when every breaking change is acknowledged."""
    layout = Layout(root)
    manifests = load_manifests(layout.manifests)
    acks = load_acknowledgements(layout.acks)
    failures = 0
    for old, new in gate_pairs(manifests):
        report = diff_manifests(old, new)
        missing = unacknowledged(report, acks)
        if not report.breaking:
            continue  # most steps between patch releases change nothing that could break
        verdict = "ok" if not missing else f"{len(missing)} unacknowledged"
        print(
            f"google-adk {report.old_version} -> {report.new_version}: "
            f"{len(report.breaking)} breaking, {verdict}"
        )
        for change in missing:
            print(
                f"  {change.class_name}.{change.field or '(class)'}: {change.kind} ({change.label})"
            )
        failures += len(missing)
    if failures:
        print(
            "Review each change, then list it in diffs/acknowledged.toml "
            "([[change]] with class, field, kind, reviewed).",
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    return EXIT_OK


def main(argv: list[str] | None = None) -> None:
    """Entry point: exit 0 (all acknowledged), 1 (unacknowledged breaking changes), 2 (error)
    or 3 (a bug)."""
    args = sys.argv[1:] if argv is None else argv
    try:
        code = run(Path(args[0]) if args else Path.cwd())
    except CodegenError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
        code = EXIT_USAGE
    except Exception as exc:  # a bug: one line, the traceback only when asked for
        if os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no"):
            traceback.print_exception(exc, file=sys.stderr)
        print(f"internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print(
            f"this is a bug in the gate; please report it ({DEBUG_ENV}=1 prints the traceback)",
            file=sys.stderr,
        )
        code = EXIT_INTERNAL
    sys.exit(code)


if __name__ == "__main__":
    main()
