"""What every `adk-fluent` command shares: its exit codes, the `--version` line, one-line usage
errors, and how an unexpected error (a bug in adk-fluent) is reported.

Exit codes, the same for every command (docs/cli.md has the table):

    0    ok: the command did its job and found nothing wrong
    1    findings: the command ran and what it checks failed (check: contract errors, or
         warnings with --strict; eval: a case failed or regressed; serve: the server failed)
    2    usage error: bad arguments or option values, an unknown command, a target or file
         that cannot be loaded (one line on stderr)
    3    internal error: an unexpected exception, a bug in adk-fluent (one line and a request
         to report it; --debug or ADK_FLUENT_DEBUG=1 prints the traceback)
    130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
import traceback
from typing import NoReturn

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

DEBUG_ENV = "ADK_FLUENT_DEBUG"


def exit_codes_epilog(findings: str | None) -> str:
    """The `exit codes:` block of a command's --help; `findings` says what exit 1 means there
    (None: the command never exits 1)."""
    return (
        "exit codes:\n"
        f"  {EXIT_OK}  ok\n"
        + (f"  {EXIT_FINDINGS}  {findings}\n" if findings else "")
        + f"  {EXIT_USAGE}  usage error: bad arguments or option values, or a target or file that\n"
        "     cannot be loaded (one line on stderr)\n"
        + f"  {EXIT_INTERNAL}  internal error, a bug in adk-fluent: please report it (--debug, or\n"
        f"     {DEBUG_ENV}=1, prints the traceback)\n"
    )


def _distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def version_line() -> str:
    """'adk-fluent 0.1.0 (google-adk 2.13.0)': this package's version and the installed ADK's."""
    fluent = _distribution_version("adk-fluent")
    if fluent is None:  # run from a source tree that was never installed
        import adk_fluent

        fluent = getattr(adk_fluent, "__version__", "unknown")
    adk = _distribution_version("google-adk")
    return f"adk-fluent {fluent} ({'google-adk ' + adk if adk else 'google-adk not installed'})"


def debug_requested(flag: bool = False) -> bool:
    """True when --debug was given or ADK_FLUENT_DEBUG is set to something other than 0/empty."""
    return flag or os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def report_crash(prog: str, error: BaseException, debug: bool) -> int:
    """Say on stderr that `prog` hit a bug (the traceback only when `debug`); EXIT_INTERNAL."""
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    detail = " ".join(str(error).split())
    if len(detail) > 200:
        detail = detail[:197] + "..."
    print(
        f"{prog}: internal error: {type(error).__name__}" + (f": {detail}" if detail else ""),
        file=sys.stderr,
    )
    how = (
        "the traceback is above"
        if debug
        else f"rerun with --debug (or {DEBUG_ENV}=1) for the traceback"
    )
    print(
        f"{prog}: this is a bug in adk-fluent; please report it with the command you ran ({how})",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        """Print `prog: error: message` and a pointer to --help, then exit with EXIT_USAGE."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}; see '{self.prog} --help'\n")
