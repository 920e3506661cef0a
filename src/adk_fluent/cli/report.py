"""`adk-fluent report`: tokens, cost and model latency per agent of a stored session's last run
(or all of it), read from the usage records cost_attribution leaves in the events.

    adk-fluent report --store sqlite:///sessions.db --app shop [--user u1] [--session s1] [--all] [--json]

Without --session, the session updated last (of --user, else of every user) is shown.
Exit codes (adk_fluent.cli.common): 0 the report was printed; 2 a store, app, user or session
that cannot be found (one line on stderr); 3 an internal error (a bug in adk-fluent).
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
    report.add_argument(
        "--store",
        required=True,
        metavar="URL",
        help="the session store, e.g. sqlite:///sessions.db (what adk api_server was given)",
    )
    report.add_argument(
        "--app",
        default=DEFAULT_APP_NAME,
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
    report.add_argument("--json", action="store_true", help="print the report as JSON")
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


def run_report(args: argparse.Namespace) -> int:
    """The `report` command: print the report, 0 when the session was found."""
    from adk_fluent.telemetry.usage import usage

    path = _sqlite_file(args.store)
    if path is not None and not path.exists():  # ADK would create an empty database there
        raise ReportError(f"no database file {path}")
    session, events = asyncio.run(_load(args))
    report = usage(events)
    shown = report if args.all else report.last_invocation()
    if args.json:
        body = shown.to_dict()
        body.update(app=args.app, user_id=session.user_id, session_id=session.id)
        import json

        print(json.dumps(body, indent=2))
        return EXIT_OK
    runs = len(report.by_invocation())
    scope = f"all {runs} run(s)" if args.all else f"last run of {runs}"
    print(f"session {session.id} (app {args.app}, user {session.user_id}): {scope}")
    table = shown.table()
    if not shown.calls and report.unattributed_calls and not shown.unattributed_calls:
        table = report.table()  # say why nothing was recorded
    print(table, end="")
    return EXIT_OK
