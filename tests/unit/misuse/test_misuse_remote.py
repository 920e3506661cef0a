"""Misuse of the A2A API: RemoteAgent, serving (`a2a_app`, `serve`, `served_app`) and
`adk-fluent serve`. Each case fails before any connection or server, naming the agent or the
option, the field, and with a hint (the CLI's one-line errors say what to write instead)."""

from __future__ import annotations

import json

import pytest

from adk_fluent import Agent, RemoteAgent
from adk_fluent.cli.targets import TargetError
from tests.support.misuse import case, check, ids

pytest.importorskip("a2a", reason="a2a-sdk (the a2a extra) is not installed")

CARD = "http://peer:8001/.well-known/agent-card.json"
TARGET = "examples.contracts_example:pipeline"  # a pipeline the CLI can load (cwd is the repo)


def _pipeline():
    return Agent("refunder").instruct("Refund.") >> Agent("notifier").instruct("Notify.")


def _card_file(tmp_dir, text: str) -> str:
    path = tmp_dir / "card.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _remote_from_file(text: str):
    def attempt():
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as folder:
            return RemoteAgent("payments", _card_file(Path(folder), text))

    return attempt


def _a2a_app(pipeline=None, **options):
    def attempt():
        from adk_fluent.remote import a2a_app

        return a2a_app(_pipeline() if pipeline is None else pipeline, **options)

    return attempt


def _serve(pipeline, **options):
    def attempt():
        from adk_fluent.remote import serve

        return serve(pipeline, **options)

    return attempt


def _served_app(pipeline):
    def attempt():
        from adk_fluent.remote.serve import served_app

        return served_app(pipeline)

    return attempt


def _native_agent():
    from google.adk.agents import LlmAgent

    return LlmAgent(name="native", model="some-model", instruction="Do it.")


def _cli(*argv: str):
    """`adk-fluent serve ...` as the CLI parses and runs it (main() turns the error into one
    line on stderr and exit 2)."""

    def attempt():
        from adk_fluent.cli.main import _parser

        args = _parser().parse_args(["serve", *argv])
        return args.run(args)

    return attempt


CASES = [
    # RemoteAgent: the name
    case("remote-name-space", lambda: RemoteAgent("pay ments", CARD), "'pay ments'", "name"),
    case("remote-name-int", lambda: RemoteAgent(42, CARD), "int", "name"),
    case("remote-name-user", lambda: RemoteAgent("user", CARD), "'user'", "name"),
    case(
        "remote-renamed-badly",
        lambda: RemoteAgent("payments", CARD).named("1st"),
        "'1st'",
        "name",
    ),
    # RemoteAgent: the card
    case("remote-card-empty", lambda: RemoteAgent("payments", ""), "payments", "card", "empty"),
    case("remote-card-blank", lambda: RemoteAgent("payments", "   "), "payments", "empty"),
    case(
        "remote-card-host-port",
        lambda: RemoteAgent("payments", "peer:8001"),
        "payments",
        "card",
        "neither an http(s) URL nor a file",
        "/.well-known/agent-card.json",
    ),
    case(
        "remote-card-ftp",
        lambda: RemoteAgent("payments", "ftp://peer/card.json"),
        "neither an http(s) URL nor a file",
    ),
    case(
        "remote-card-file-not-json",
        _remote_from_file("name: payments\nurl: http://peer:8001/\n"),
        "payments",
        "card",
        "is not JSON",
    ),
    case(
        "remote-card-file-a-list",
        _remote_from_file(json.dumps([{"name": "payments"}])),
        "payments",
        "a list",
        "not a JSON object",
    ),
    case(
        "remote-card-dict-no-url",
        lambda: RemoteAgent("payments", {"name": "payments", "description": "Refunds."}),
        "payments",
        "card",
        "no 'url'",
    ),
    case(
        "remote-card-dict-no-name",
        lambda: RemoteAgent("payments", {"url": "http://peer:8001/"}),
        "payments",
        "no 'name'",
    ),
    case(
        "remote-card-dict-not-json",
        lambda: RemoteAgent(
            "payments", {"name": "payments", "url": "http://peer:8001/", "tags": {"a", "b"}}
        ),
        "payments",
        "not JSON",
    ),
    case(
        "remote-card-a-port-number",
        lambda: RemoteAgent("payments", 8001),
        "payments",
        "card",
        "URL, a file path or an agent card",
    ),
    case(
        "remote-card-none",
        lambda: RemoteAgent("payments", None),
        "payments",
        "card",
    ),
    # RemoteAgent: the keys that cross
    case(
        "remote-sends-a-str",
        lambda: RemoteAgent("payments", CARD, sends="topic"),
        "payments",
        "sends",
        "list",
    ),
    case(
        "remote-receives-a-str",
        lambda: RemoteAgent("payments", CARD, receives="refund_id"),
        "payments",
        "receives",
        "list",
    ),
    case(
        "remote-sends-an-int",
        lambda: RemoteAgent("payments", CARD, sends=3),
        "payments",
        "sends",
    ),
    case(
        "remote-sends-temp-key",
        lambda: RemoteAgent("payments", CARD, sends=["temp:draft"]),
        "payments",
        "sends",
        "'temp:draft'",
        "cannot cross an A2A boundary",
    ),
    case(
        "remote-receives-temp-key",
        lambda: RemoteAgent("payments", CARD, receives=["temp:refund"]),
        "payments",
        "receives",
        "temp:",
    ),
    case(
        "remote-sends-empty-key",
        lambda: RemoteAgent("payments", CARD, sends=["topic", ""]),
        "payments",
        "sends",
        "state key",
    ),
    case(
        "remote-receives-a-non-str-key",
        lambda: RemoteAgent("payments", CARD, receives=[1]),
        "payments",
        "receives",
    ),
    # RemoteAgent: the options
    case(
        "remote-timeout-zero",
        lambda: RemoteAgent("payments", CARD, timeout=0),
        "payments",
        "timeout",
        "positive",
    ),
    case(
        "remote-timeout-negative",
        lambda: RemoteAgent("payments", CARD, timeout=-5),
        "payments",
        "timeout",
    ),
    case(
        "remote-timeout-a-str",
        lambda: RemoteAgent("payments", CARD, timeout="30"),
        "payments",
        "timeout",
    ),
    case(
        "remote-timeout-a-bool",
        lambda: RemoteAgent("payments", CARD, timeout=True),
        "payments",
        "timeout",
    ),
    case(
        "remote-description-not-str",
        lambda: RemoteAgent("payments", CARD, description=["Refunds."]),
        "payments",
        "description",
    ),
    case(
        "remote-from-card-url-without-name",
        lambda: RemoteAgent.from_card(CARD),
        "from_card",
        "card",
        "name=",
    ),
    case(
        "remote-from-card-dict-no-url",
        lambda: RemoteAgent.from_card({"name": "payments"}),
        "payments",
        "no 'url'",
    ),
    # serving
    case("serve-host-empty", _a2a_app(host=""), "host", "non-empty"),
    case("serve-host-none", _a2a_app(host=None), "host"),
    case("serve-port-zero", _a2a_app(port=0), "port", "1 to 65535"),
    case("serve-port-too-big", _a2a_app(port=70000), "port", "70000"),
    case("serve-port-a-str", _a2a_app(port="8000"), "port", "'8000'"),
    case("serve-port-a-bool", _a2a_app(port=True), "port"),
    case(
        "serve-a-native-agent",
        _a2a_app(pipeline=_native_agent()),
        "pipeline",
        "LlmAgent",
        "Native(agent)",
    ),
    case("serve-a-str", _serve("payments:pipeline"), "pipeline", "not str 'payments:pipeline'"),
    case("served-app-of-a-dict", _served_app({"agent": "x"}), "pipeline", "dict"),
    case(
        "serve-session-store-int",
        _a2a_app(session_store=42),
        "session_store",
        "int",
    ),
    # adk-fluent serve
    case(
        "cli-serve-target-not-module-attr",
        _cli("examples/contracts_example.py"),
        "not a target",
        "module:attr",
        error=TargetError,
        needs_hint=False,
    ),
    case(
        "cli-serve-target-a-file",
        _cli("examples/contracts_example.py:pipeline"),
        "did you mean 'examples.contracts_example:pipeline'",
        error=TargetError,
        needs_hint=False,
    ),
    case(
        "cli-serve-public-url-no-scheme",
        _cli(TARGET, "--public-url", "payments.example:443"),
        "--public-url",
        "http(s) URL",
        error=TargetError,
        needs_hint=False,
    ),
    case("cli-serve-port-zero", _cli(TARGET, "--port", "0"), "port", "1 to 65535"),
    case("cli-serve-host-blank", _cli(TARGET, "--host", " "), "host"),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
