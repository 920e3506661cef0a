"""`adk-fluent serve`: serve a pipeline over A2A on ADK's own server (`to_a2a`, uvicorn), so
another process calls it with `RemoteAgent(name, "http://host:port/.well-known/agent-card.json")`.

    adk-fluent serve app.flows:payments [--host 127.0.0.1] [--port 8000]
                     [--session-store sqlite:///sessions.db] [--public-url https://pay.example/]

The pipeline runs with its agents' own models. The card, made from the pipeline, is served at
`/.well-known/agent-card.json` and declares the state keys the pipeline reads (a caller sends
them) and writes (it sends them back). Exit codes (adk_fluent.cli.common): what each means for
`serve` is in EPILOG below.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adk_fluent.cli.common import EXIT_FINDINGS, EXIT_OK
from adk_fluent.cli.targets import TargetError, load_target
from adk_fluent.errors import install_extra

_EVERY_INTERFACE = ("0.0.0.0", "::", "[::]")  # noqa: S104 - names compared, nothing bound

EPILOG = """\
The card is served at <url>/.well-known/agent-card.json, JSON-RPC at <url>/ (the URL is
http://HOST:PORT/ unless --public-url names the address callers use, e.g. a load balancer).

exit codes:
  0  the server was stopped (Ctrl-C, SIGTERM)
  1  the server failed (for one, the port is in use)
  2  a usage or target error: a module that cannot be loaded, a name that is not a pipeline,
     a bad --host / --port / --session-store, or no A2A support installed
  3  internal error, a bug in adk-fluent: please report it (--debug, or ADK_FLUENT_DEBUG=1,
     prints the traceback)
"""


def add_parser(commands: Any) -> None:
    """Register `serve` on the CLI's subcommands."""
    command = commands.add_parser(
        "serve",
        help="serve a pipeline over A2A (ADK's to_a2a on uvicorn) until stopped",
        description="Serve an adk-fluent pipeline over A2A, with its agent card.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("target", metavar="TARGET", help="module:attr naming the pipeline")
    command.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="HOST",
        help="interface to listen on (default 127.0.0.1)",
    )
    command.add_argument(
        "--port", type=int, default=8000, metavar="PORT", help="port (default 8000)"
    )
    command.add_argument(
        "--session-store",
        metavar="URL",
        help="where served sessions live: memory (default), sqlite:///file.db, "
        "postgresql+asyncpg://user@host/db",
    )
    command.add_argument(
        "--public-url",
        metavar="URL",
        help="the URL the card advertises, when callers reach the server by another name",
    )
    command.add_argument(
        "--log-level",
        default="warning",
        choices=("critical", "error", "warning", "info", "debug"),
        help="uvicorn's log level (default warning)",
    )
    command.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    """The `serve` command: build the A2A app, say where it answers, then serve until stopped."""
    if args.public_url is not None and not args.public_url.startswith(("http://", "https://")):
        raise TargetError(
            f"--public-url must be an http(s) URL, not {args.public_url!r} (e.g. "
            "https://payments.example/)"
        )
    pipeline = load_target(args.target)
    try:
        import uvicorn
    except ImportError:  # pragma: no cover - a2a-sdk[http-server] brings it
        raise TargetError(f"serving needs uvicorn: {install_extra('a2a')}") from None
    # Built before uvicorn starts, so a mistake is one line and exit 2, not a server that fails.
    try:
        from adk_fluent.remote.serve import a2a_app

        app = a2a_app(
            pipeline,
            host=args.host,
            port=args.port,
            session_store=args.session_store,
            public_url=args.public_url,
        )
    except ImportError as error:
        raise TargetError(
            f"serving over A2A needs ADK's A2A support, which failed to import ({error}); "
            f"{install_extra('a2a')}"
        ) from None
    url = args.public_url or f"http://{args.host}:{args.port}/"
    print(
        f"adk-fluent serve: {args.target} over A2A at {url} "
        f"(card: {url.rstrip('/')}/.well-known/agent-card.json)",
        flush=True,
    )
    if args.public_url is None and args.host in _EVERY_INTERFACE:
        print(
            f"adk-fluent serve: note: the card advertises {url}, which no caller can reach; "
            "pass --public-url with the address callers use",
            file=sys.stderr,
            flush=True,
        )
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    except SystemExit as stop:  # uvicorn exits non-zero when it cannot bind; its log says why
        return EXIT_OK if stop.code in (0, None) else EXIT_FINDINGS
    return EXIT_OK
