"""`adk-fluent worker`: run one execution boundary's jobs from its queue (remote/worker.py).

    adk-fluent worker app.flows:pipeline --boundary heavy
                      [--queue redis://queue:6379/0] [--session-store postgresql+asyncpg://...]
                      [--processes 4] [--concurrency 4] [--visibility-timeout 30] [--max-tries 3]

The pipeline is split as `to_apps` splits it; the boundary's URL (or --queue) names the broker.
With --processes N it starts N worker processes of itself and waits for them; SIGTERM or
Ctrl-C stops them all (a job in hand is finished or, if killed, redelivered). What each exit
code means is in EPILOG below.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import subprocess
import sys
from typing import Any

from adk_fluent.cli.common import EXIT_FINDINGS, EXIT_OK
from adk_fluent.cli.targets import TargetError, load_target
from adk_fluent.errors import redacted

EPILOG = """\
The boundary's URL is the broker's (.execution_boundary('heavy', url='redis://...') or
--queue); every worker and the caller share --session-store (each job runs in a session of
its own there).

exit codes:
  0  stopped (SIGTERM, Ctrl-C)
  1  the broker does not answer at start (the message names its URL), or a worker failed
  2  a usage or target error: a module that cannot be loaded, no boundary of that name, a
     boundary called over A2A, a bad option
  3  internal error, a bug in adk-fluent: please report it (--debug prints the traceback)
"""


def add_parser(commands: Any) -> None:
    """Register `worker` on the CLI's subcommands."""
    command = commands.add_parser(
        "worker",
        help="run an execution boundary's jobs from its queue (Redis Streams) until stopped",
        description="Run the workers of an execution boundary served by a queue.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("target", metavar="TARGET", help="module:attr naming the pipeline")
    command.add_argument("--boundary", required=True, metavar="NAME", help="the service to run")
    command.add_argument("--queue", metavar="URL", help="the broker (default: the boundary's)")
    command.add_argument(
        "--session-store",
        metavar="URL",
        help="where the jobs' sessions live: memory (default), sqlite:///file.db, "
        "postgresql+asyncpg://user@host/db (shared by every worker and the caller)",
    )
    command.add_argument("--processes", type=int, default=1, metavar="N", help="default 1")
    command.add_argument(
        "--concurrency", type=int, default=4, metavar="N", help="jobs at once per process"
    )
    command.add_argument(
        "--visibility-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="a job idle this long in a dead worker's hands goes to another (default 30)",
    )
    command.add_argument(
        "--max-tries", type=int, default=3, metavar="N", help="tries before parking a job"
    )
    command.set_defaults(run=run_worker)


def run_worker(args: argparse.Namespace) -> int:
    """The `worker` command: build the worker (a mistake is exit 2 before anything starts),
    check the broker, then serve until stopped."""
    if args.processes < 1:
        raise TargetError(f"--processes must be at least 1, not {args.processes}")
    from adk_fluent.remote import to_apps
    from adk_fluent.remote.worker import BrokerUnreachable

    pipeline = load_target(args.target)
    urls = {args.boundary: args.queue} if args.queue else None
    split = to_apps(pipeline, urls=urls)
    worker = split.worker(
        args.boundary,
        url=args.queue,
        session_store=args.session_store,
        concurrency=args.concurrency,
        visibility_timeout=args.visibility_timeout,
        max_tries=args.max_tries,
    )
    if args.processes > 1:
        return _pool(args)
    try:
        asyncio.run(worker.check_broker())
    except BrokerUnreachable as error:
        print(f"adk-fluent worker: {error}", file=sys.stderr, flush=True)
        return EXIT_FINDINGS
    print(
        f"adk-fluent worker: {args.target} boundary {args.boundary} on {redacted(worker.url)}"
        f" ({worker.name}, {worker.concurrency} at once)",
        flush=True,
    )
    asyncio.run(_serve(worker))
    return EXIT_OK


async def _serve(worker: Any) -> None:
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, worker.stop)
    await worker.run()


def _pool(args: argparse.Namespace) -> int:
    """N processes of this command, one worker each; stopped together."""
    command = [sys.executable, "-m", "adk_fluent.cli", "worker", args.target]
    command += ["--boundary", args.boundary, "--concurrency", str(args.concurrency)]
    command += ["--visibility-timeout", str(args.visibility_timeout)]
    command += ["--max-tries", str(args.max_tries)]
    if args.queue:
        command += ["--queue", args.queue]
    if args.session_store:
        command += ["--session-store", args.session_store]
    children = [subprocess.Popen(command) for _ in range(args.processes)]

    def stop(*_: Any) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    codes = [child.wait() for child in children]
    return EXIT_OK if all(code in (0, -signal.SIGTERM) for code in codes) else EXIT_FINDINGS
