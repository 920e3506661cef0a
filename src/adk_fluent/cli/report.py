"""`adk-fluent report`: tokens, cost and model latency per agent of a stored session's last run
(or all of it), read from the usage records cost_attribution leaves in the events; with --html,
a page to look at (telemetry/report_html.py: timeline, charts, state changes, errors).

    adk-fluent report --store sqlite:///sessions.db --app shop [--user u1] [--session s1] [--all] [--json]
    adk-fluent report --store sqlite:///sessions.db --html run.html      (or --recording FILE)

Without --session, the session updated last (of --user, else of every user) is shown.
Exit codes (adk_fluent.cli.common): 0 the report was printed (or written); 2 a store, app,
user, session or recording that cannot be found or read, an output path that cannot be written,
or the report extra missing for --html (one line on stderr); 3 an internal error (a bug).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from adk_fluent.cli.common import EXIT_OK, exit_codes_epilog
from adk_fluent.ir.options import DEFAULT_APP_NAME


class ReportError(Exception):
    """A store, app or session that cannot be found; the message is one line for the terminal."""


def add_parser(commands: Any) -> None:
    """Register `report` on the CLI's subcommands."""
    report = commands.add_parser(
        "report",
        help="print tokens, cost and model latency per agent of a stored session's last run",
        description="Print tokens, cost and model latency per agent of a stored session's last\n"
        "run (or all of it), from the usage records cost_attribution leaves in the events.",
        epilog="Without --session, the session updated last (of --user, else of every user)\n"
        "is shown.\n\n" + exit_codes_epilog(None),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = report.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--store",
        metavar="URL",
        help="the session store, e.g. sqlite:///sessions.db (what adk api_server was given)",
    )
    source.add_argument(
        "--recording",
        metavar="FILE",
        help="a recording (.json or .jsonl, replay's Recorder) instead of a store; its calls "
        "are priced with the default price table",
    )
    report.add_argument(
        "--app",
        metavar="NAME",
        help=f"the app's name (adk api_server: the agent folder; default {DEFAULT_APP_NAME})",
    )
    report.add_argument(
        "--user", metavar="USER_ID", help="the user whose sessions to look at (default: all)"
    )
    report.add_argument(
        "--session", metavar="SESSION_ID", help="the session (default: the one updated last)"
    )
    report.add_argument(
        "--all", action="store_true", help="every run of the session, not only the last"
    )
    shape = report.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print the report as JSON")
    shape.add_argument(
        "--html",
        metavar="OUT",
        help="write the report as one self-contained HTML page to OUT: a timeline of the "
        "agents, tokens and cost per agent, state changes and errors (the report extra)",
    )
    report.set_defaults(run=run_report)


def _sqlite_file(url: str) -> Path | None:
    for prefix in ("sqlite:///", "sqlite+aiosqlite:///"):
        if url.startswith(prefix):
            database = url[len(prefix) :]
            return None if database.startswith(":memory:") else Path(database)
    return None


async def _load(args: argparse.Namespace) -> tuple[Any, Any]:
    from adk_fluent.run.stores import close_session_stores, session_service_for

    service = session_service_for(args.store)
    try:
        session_id, user_id = args.session, args.user
        if session_id is None or user_id is None:
            listed = await service.list_sessions(app_name=args.app, user_id=user_id)
            sessions = [s for s in listed.sessions if session_id is None or s.id == session_id]
            if not sessions:
                who = f" of user {user_id!r}" if user_id else ""
                which = f" {session_id!r}" if session_id else "s"
                raise ReportError(
                    f"no session{which}{who} of app {args.app!r} in {args.store} "
                    "(--app names the app: for adk api_server, the agent folder)"
                )
            latest = max(sessions, key=lambda s: s.last_update_time or 0.0)
            session_id, user_id = latest.id, latest.user_id
        session = await service.get_session(
            app_name=args.app, user_id=user_id, session_id=session_id
        )
        if session is None:
            raise ReportError(
                f"no session {session_id!r} of user {user_id!r} and app {args.app!r} in {args.store}"
            )
        return session, session.events
    finally:
        await close_session_stores()


def _html_target(value: str) -> Path:
    """Where --html writes: a file in a folder that exists (checked before any work)."""
    target = Path(value)
    if target.is_dir():
        raise ReportError(
            f"--html {value}: that is a folder; name a file, e.g. {target / 'run.html'}"
        )
    if not target.parent.is_dir():
        raise ReportError(f"--html {value}: no folder {target.parent} to write it in")
    return target


def _check_report_extra() -> None:
    try:
        import plotly  # noqa: F401
    except ImportError:
        from adk_fluent.errors import install_extra

        raise ReportError(
            f"--html draws its charts with plotly, which is not installed: {install_extra('report')}"
        ) from None


def _load_recording(args: argparse.Namespace) -> Any:
    from adk_fluent.errors import RecordingError
    from adk_fluent.replay import Recording

    given = [f"--{name}" for name in ("app", "user", "session") if getattr(args, name) is not None]
    if given:
        raise ReportError(
            f"{', '.join(given)} names a stored session; a recording is read whole (--recording "
            "FILE alone, with --all for every run)"
        )
    try:
        return Recording.load(args.recording)
    except RecordingError as error:
        raise ReportError(f"--recording {args.recording}: {error.message}") from None


def run_report(args: argparse.Namespace) -> int:
    """The `report` command: print the report (or write the HTML page), 0 when the session or
    recording was found."""
    from adk_fluent.telemetry.usage import usage

    target = _html_target(args.html) if args.html else None
    if target is not None:
        _check_report_extra()
    if args.recording is not None:
        from adk_fluent.telemetry.report_html import recording_usage

        run: Any = _load_recording(args)
        report = recording_usage(run)
        where = f"recording {args.recording}"
    else:
        args.app = args.app or DEFAULT_APP_NAME
        path = _sqlite_file(args.store)
        if path is not None and not path.exists():  # ADK would create an empty database there
            raise ReportError(f"no database file {path}")
        run, events = asyncio.run(_load(args))
        report = usage(events)
        where = f"session {run.id} (app {args.app}, user {run.user_id})"
    if target is not None:
        from adk_fluent.telemetry.report_html import html_report

        page = html_report(run, last_run=not args.all)
        try:
            target.write_text(page, encoding="utf-8")
        except OSError as error:  # a read-only folder, a full disk
            raise ReportError(f"--html {args.html}: cannot write it ({error.strerror})") from None
        print(f"wrote {target} ({len(page) // 1024} KB): the report of {where}")
        return EXIT_OK
    shown = report if args.all else report.last_invocation()
    if args.json:
        body = shown.to_dict()
        if args.recording is not None:
            body.update(recording=args.recording)
        else:
            body.update(app=args.app, user_id=run.user_id, session_id=run.id)
        import json

        print(json.dumps(body, indent=2))
        return EXIT_OK
    runs = len(report.by_invocation())
    scope = f"all {runs} run(s)" if args.all else f"last run of {runs}"
    print(f"{where}: {scope}")
    table = shown.table()
    if not shown.calls and report.unattributed_calls and not shown.unattributed_calls:
        table = report.table()  # say why nothing was recorded
    print(table, end="")
    return EXIT_OK
