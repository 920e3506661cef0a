"""One real use of an install extra, in an environment that has adk-fluent with only that extra
(`nox -s extras`, which CI runs): `python extra_smoke.py EXTRA`, from a folder outside the
checkout. It imports nothing of the checkout (no `tests`, no `examples`): it is what a user who
ran `pip install 'path/to/adk-fluent[EXTRA]'` could run. Exit 0 with one `ok` line per check.

base     the package alone: a scripted turn; the codegen command says which extra it needs
db       a conversation on SQLite, continued after the stores are closed (a reload)
a2a      a pipeline served over A2A on 127.0.0.1, its card and one message/send answered
eval     an evaluation suite run offline, and ADK's user simulator imports
otel     otel_enrichment's attributes on ADK's spans, read by an in-memory exporter
queue    a boundary served by a queue worker over a redis-server this script starts (and,
         without a server here, a turn refused with QUEUE_UNREACHABLE naming the broker)
report   `adk-fluent report --recording F --html OUT` writes a page that needs no network
codegen  `adk-fluent-codegen scan --output` of the installed google-adk
docs     MkDocs with the theme and the reference plugin the site uses
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run by path, this script's folder is sys.path[0], and tests/support/a2a.py would shadow the
# a2a-sdk package: a user's script sees only the installed packages.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    del sys.path[0]

REPLY = "Scripted hello."


def ok(what: str) -> None:
    print(f"ok   {what}", flush=True)


def scripted(name: str = "helper") -> Any:
    """An agent answering REPLY offline."""
    from adk_fluent import Agent
    from adk_fluent.testing import ScriptedModel

    return Agent(name).instruct("Say hello.").model(ScriptedModel([REPLY]))


def check_base() -> None:
    from adk_fluent import Agent
    from adk_fluent.testing import mock_backend

    reply = (
        Agent("helper")
        .instruct("Say hello.")
        .ask_sync("Hi", backend=mock_backend({"helper": REPLY}))
    )
    assert reply == REPLY, reply
    ok("a scripted turn through ADK's Runner")
    cli = shutil.which("adk-fluent-codegen")
    assert cli, "the console script adk-fluent-codegen is not installed"
    done = subprocess.run([cli, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode in (2, 3), (done.returncode, done.stdout, done.stderr)
    assert "[codegen]" in done.stderr and "Traceback" not in done.stderr, done.stderr
    ok(f"adk-fluent-codegen without its extra exits {done.returncode} naming the extra")
    done = _report_html()
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "[report]" in done.stderr and done.stderr.count("\n") == 1, done.stderr
    ok("adk-fluent report --html without its extra exits 2 naming the extra")


def _report_html() -> subprocess.CompletedProcess[str]:
    """A scripted turn recorded to rec.json, then `adk-fluent report --recording rec.json
    --html run.html`."""
    from adk_fluent import ExecutionConfig
    from adk_fluent.replay import Recorder
    from adk_fluent.testing import mock_backend

    recorder = Recorder()
    config = ExecutionConfig(middleware=[recorder])
    scripted().ask_sync("Hi", backend=mock_backend({"helper": REPLY}), config=config)
    recorder.save("rec.json")
    cli = shutil.which("adk-fluent")
    assert cli, "the console script adk-fluent is not installed"
    command = [cli, "report", "--recording", "rec.json", "--html", "run.html"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


async def _db() -> None:
    from adk_fluent import Agent, close_session_stores
    from adk_fluent.testing import mock_backend

    url = f"sqlite:///{Path('sessions.db').resolve()}"
    agent = Agent("helper").instruct("Say hello.")
    backend = mock_backend({"helper": [REPLY, "Again."]})
    await agent.run("Hi", session_id="s1", session_store=url, backend=backend)
    await close_session_stores()
    await agent.run("Once more", session_id="s1", session_store=url, backend=backend)
    session = await agent.session("s1", session_store=url)
    texts = [p.text for e in session.events if e.content for p in e.content.parts or [] if p.text]
    assert texts == ["Hi", REPLY, "Once more", "Again."], texts
    await close_session_stores()


def check_db() -> None:
    asyncio.run(_db())
    ok("a SQLite conversation continued after the stores were closed")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def check_a2a() -> None:
    import httpx
    import uvicorn

    from adk_fluent.remote import a2a_app

    port = _free_port()
    app = a2a_app(scripted("greeter"), host="127.0.0.1", port=port)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started, "the A2A server did not start within 60 s"
        card = httpx.get(f"{base}/.well-known/agent-card.json", timeout=30).json()
        assert card["name"] == "greeter", card
        ok("the agent card is served")
        message = {
            "role": "user",
            "parts": [{"kind": "text", "text": "Hi"}],
            "messageId": "m-1",
            "kind": "message",
        }
        answer = httpx.post(
            base,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "message/send",
                "params": {"message": message},
            },
            timeout=60,
        ).json()
        assert "error" not in answer and REPLY in json.dumps(answer), answer
        ok("message/send answered with the pipeline's reply")
    finally:
        server.should_exit = True
        thread.join(timeout=30)


async def _queued_turn(url: str, serve: bool) -> Any:
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from adk_fluent.remote import to_apps

    pipeline = scripted("greeter").execution_boundary("greeting", url=url, timeout=30)
    split = to_apps(pipeline)
    worker = split.worker("greeting") if serve else None
    task = asyncio.create_task(worker.run()) if worker else None
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=split.root.name, user_id="u")
    runner = Runner(app=split.root, session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="Hi")])
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
    ]
    if worker and task:
        worker.stop()
        await task
    return events[-1]


def check_queue() -> None:
    port = _free_port()
    server = shutil.which("redis-server")
    if server is None:
        last = asyncio.run(_queued_turn(f"redis://127.0.0.1:{port}/0", serve=False))
        assert last.error_code == "QUEUE_UNREACHABLE" and str(port) in last.error_message, last
        ok("no redis-server here: the turn is refused with QUEUE_UNREACHABLE naming the broker")
        return
    command = [server, "--bind", "127.0.0.1", "--port", str(port), "--save", ""]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        last = asyncio.run(_queued_turn(f"redis://127.0.0.1:{port}/0", serve=True))
        assert last.content.parts[0].text == REPLY, last
        ok("a boundary's turn answered by a queue worker over redis-server")
    finally:
        process.terminate()
        process.wait(15)


def check_eval() -> None:
    from adk_fluent.evaluation import FluentCase, FluentEvalSuite, contains
    from adk_fluent.testing import mock_backend

    suite = FluentEvalSuite("smoke", scripted(), [FluentCase("Hi", response=contains("hello"))])
    report = asyncio.run(suite.run(backend=mock_backend({"helper": REPLY})))
    assert report.passed, report.to_text()
    ok("an evaluation suite passed offline")
    import google.adk.evaluation.simulation.llm_backed_user_simulator  # noqa: F401 - jinja2

    ok("ADK's user simulator imports (jinja2)")


def check_otel() -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from adk_fluent import ExecutionConfig
    from adk_fluent.telemetry import otel_enrichment
    from adk_fluent.testing import mock_backend

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    config = ExecutionConfig(middleware=[otel_enrichment()])
    scripted().ask_sync("Hi", backend=mock_backend({"helper": REPLY}), config=config)
    ours = [
        key
        for span in exporter.get_finished_spans()
        for key in (span.attributes or {})
        if key.startswith("adk_fluent.")
    ]
    assert ours, [span.name for span in exporter.get_finished_spans()]
    ok("otel_enrichment's attributes on ADK's spans")


def check_report() -> None:
    done = _report_html()
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    page = Path("run.html").read_text(encoding="utf-8")
    assert 'id="timeline"' in page and "Plotly.newPlot" in page, page[:300]
    assert "<script src=" not in page, "the page loads a script from elsewhere"
    ok("adk-fluent report --html wrote a page with plotly.js inside it")


def check_codegen() -> None:
    cli = shutil.which("adk-fluent-codegen")
    assert cli, "the console script adk-fluent-codegen is not installed"
    out = Path("manifest.json").resolve()
    done = subprocess.run(
        [cli, "scan", "--no-behaviours", "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["classes"], "the manifest lists no class"
    ok("adk-fluent-codegen scan wrote a manifest")


def check_docs() -> None:
    import material  # noqa: F401 - the theme
    import mkdocs.commands.build  # noqa: F401
    import mkdocstrings_handlers.python  # noqa: F401 - the reference pages' handler

    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "--version"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    ok("MkDocs, Material and mkdocstrings' Python handler")


CHECKS: dict[str, Callable[[], None]] = {
    "base": check_base,
    "db": check_db,
    "a2a": check_a2a,
    "eval": check_eval,
    "otel": check_otel,
    "report": check_report,
    "queue": check_queue,
    "codegen": check_codegen,
    "docs": check_docs,
}


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CHECKS:
        sys.exit(f"usage: extra_smoke.py {{{','.join(CHECKS)}}}")
    CHECKS[sys.argv[1]]()
