"""The command line's help text: argparse-like, naming each value by the metavar we chose.

Typer's own help (rich panels, or its plain form) shows each parameter's Python type as a
placeholder (`--help <bool>`, `OLD <path>`, `{old}` in the usage line), which changes from one
Typer release to the next. `Command` and `Group` write the help from click's parameters instead;
`EXIT_CODES` and `command_codes` are the exit-code tables the epilogs print. Imported by cli.py
only after it checked that the codegen extra (typer) is installed.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

from typer.core import TyperCommand, TyperGroup

from .errors import DEBUG_ENV, EXIT_FINDINGS, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

EXIT_CODES = f"""\
exit codes:
  {EXIT_OK}    ok
  {EXIT_FINDINGS}    findings: `check` found drift, `diff` found unacknowledged breaking changes
  {EXIT_USAGE}    usage error: bad arguments or option values, not an adk-fluent checkout, a
       manifest, template or acknowledgement file that cannot be read, no google-adk,
       a release that could not be scanned (`error:` and `hint:` on stderr)
  {EXIT_INTERNAL}    internal error, a bug in the generator: please report it (--debug, or
       {DEBUG_ENV}=1, prints the traceback)
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C)
"""


def command_codes(findings: str | None) -> str:
    """The exit codes one command uses; `findings` says what 1 means there (None: never 1)."""
    lines = ["exit codes:", f"  {EXIT_OK}  ok"]
    if findings:
        lines.append(f"  {EXIT_FINDINGS}  {findings}")
    lines += [
        f"  {EXIT_USAGE}  usage error (`error:` and `hint:` on stderr)",
        f"  {EXIT_INTERNAL}  internal error, a bug in the generator: please report it",
    ]
    return "\n".join(lines) + "\n"


def _metavar(param: Any) -> str:
    return param.metavar or (param.name or "value").upper()


def _default_text(param: Any) -> str | None:
    if getattr(param, "is_flag", False):
        secondary = getattr(param, "secondary_opts", None)
        if secondary and isinstance(param.default, bool):
            return (param.opts if param.default else secondary)[0]
        return None
    if not getattr(param, "show_default", True) or param.default in (None, (), []):
        return None
    return str(param.default)


def _usage_pieces(command: Any, ctx: Any) -> list[str]:
    pieces = ["[OPTIONS]"]
    for param in command.get_params(ctx):
        if param.param_type_name != "argument" or getattr(param, "hidden", False):
            continue
        name = _metavar(param) + ("..." if param.nargs != 1 else "")
        pieces.append(name if param.required else f"[{name}]")
    return pieces


def _param_rows(command: Any, ctx: Any, kind: str) -> list[tuple[str, str]]:
    rows = []
    for param in command.get_params(ctx):
        if param.param_type_name != kind or getattr(param, "hidden", False):
            continue
        if kind == "argument":
            name = _metavar(param) + ("..." if param.nargs != 1 else "")
        else:
            name = ", ".join(sorted(param.opts, key=lambda opt: opt.startswith("--")))
            if param.secondary_opts:
                name += " / " + ", ".join(param.secondary_opts)
            if not param.is_flag:
                name += f" {_metavar(param)}"
        extra = []
        default = _default_text(param)
        if default is not None:
            extra.append(f"default: {default}")
        if param.required and kind == "option":
            extra.append("required")
        text = param.help or ""
        if extra:
            text = f"{text}  [{'; '.join(extra)}]".strip()
        rows.append((name, text))
    return rows


def _write_help(command: Any, ctx: Any, formatter: Any, commands: Any = None) -> None:
    command.format_usage(ctx, formatter)
    if command.help:
        for paragraph in inspect.cleandoc(command.help).split("\n\n"):
            formatter.write_paragraph()
            with formatter.indentation():
                formatter.write_text(paragraph)
    for title, kind in (("Arguments", "argument"), ("Options", "option")):
        rows = _param_rows(command, ctx, kind)
        if rows:
            with formatter.section(title):
                formatter.write_dl(rows)
    if commands:
        with formatter.section("Commands"):
            formatter.write_dl(commands)
    if command.epilog:
        formatter.write_paragraph()
        for line in textwrap.dedent(command.epilog).strip("\n").splitlines():
            formatter.write(f"{line}\n" if line else "\n")


class Command(TyperCommand):
    """A command whose help and usage line name each value by its metavar."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """[OPTIONS] and the arguments by metavar."""
        return _usage_pieces(self, ctx)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Usage, description, arguments, options, exit codes."""
        _write_help(self, ctx, formatter)


class Group(TyperGroup):
    """The top-level command: the same help layout, with the commands listed."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """[OPTIONS] COMMAND [ARGS]..."""
        return [*_usage_pieces(self, ctx), "COMMAND [ARGS]..."]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Usage, description, options, commands, exit codes."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                # the whole first paragraph: write_dl wraps it, where click would cut it off
                summary = inspect.cleandoc(command.help or "").split("\n\n")[0]
                rows.append((name, " ".join(summary.split())))
        _write_help(self, ctx, formatter, rows)
