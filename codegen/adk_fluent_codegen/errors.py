"""The generator's error and warning types for user-facing problems, and the exit codes of
`adk-fluent-codegen` and `python -m adk_fluent_codegen.gate` (docs/cli.md has the table):

    0    ok: nothing drifted, nothing unacknowledged, the files were written
    1    findings: `check` found drift, `diff` or the gate found unacknowledged breaking changes
    2    usage error: bad arguments or option values, a folder that is not an adk-fluent
         checkout, a manifest, template or acknowledgement file that cannot be read, no
         google-adk installed, a release that could not be scanned (a CodegenError: `error:`
         and `hint:` lines on stderr)
    3    internal error: an unexpected exception, a bug in the generator (one line and a
         request to report it; --debug or ADK_FLUENT_DEBUG=1 prints the traceback)
    130  interrupted (Ctrl-C)
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

DEBUG_ENV = "ADK_FLUENT_DEBUG"


class CodegenError(Exception):
    """A problem the person running the generator can fix; printed as one paragraph, no traceback."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message}\nHint: {hint}")


class CodegenWarning(UserWarning):
    """Something the generator could not do but that need not stop it; the CLI prints one line."""
