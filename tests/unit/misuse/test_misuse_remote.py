"""Misuse of the A2A API: RemoteAgent (its card, keys, credentials and retry policy), serving
(`a2a_app`, `serve`, `served_app`, the card's options), `AgentDirectory` in async code, and
`adk-fluent serve`. Each case fails before any connection or server, naming the agent or the
option, the field, and with a hint (the CLI's one-line errors say what to write instead)."""

from __future__ import annotations

import json

import pytest

from adk_fluent import Agent, AgentDirectory, RemoteAgent
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


def _card(**options):
    def attempt():
        from adk_fluent.remote import agent_card

        return agent_card(_pipeline(), "http://peer:8001/", **options)

    return attempt


def _built(**options):
    """A RemoteAgent compiled to ADK's agent (the client factory is called then)."""
    return lambda: RemoteAgent("payments", CARD, **options).build()


def _retry(**options):
    from adk_fluent.middleware import retry

    return retry(**options)


def _in_a_running_loop(make):
    """`make()` called inside a running event loop, as async code calls it."""

    async def attempt():
        return make()

    return attempt


def _directory_file_in_a_loop():
    async def attempt():
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "agents.yaml"
            path.write_text("- url: http://peer:8001\n", encoding="utf-8")
            return AgentDirectory.from_file(path)

    return attempt


def _sync_client():
    import httpx

    return httpx.Client()


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
        "more than 0",
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
    # RemoteAgent: credentials and retry
    case(
        "remote-headers-a-list",
        lambda: RemoteAgent("payments", CARD, headers=[("X-Api-Key", "k")]),
        "payments",
        "headers",
        "mapping",
    ),
    case(
        "remote-header-name-with-its-value",
        lambda: RemoteAgent("payments", CARD, headers={"Authorization: Bearer abc": ""}),
        "payments",
        "headers",
        "not an HTTP header name",
    ),
    case(
        "remote-header-value-an-int",
        lambda: RemoteAgent("payments", CARD, headers={"X-Api-Key": 1234}),
        "payments",
        "X-Api-Key",
        "one line of text",
    ),
    case(
        "remote-header-value-two-lines",
        lambda: RemoteAgent("payments", CARD, headers={"X-Api-Key": "a\nX-Other: b"}),
        "X-Api-Key",
        "line break",
    ),
    case(
        "remote-bearer-token-empty",
        lambda: RemoteAgent("payments", CARD, bearer_token=" "),
        "payments",
        "bearer_token",
        "non-empty",
    ),
    case(
        "remote-bearer-token-bytes",
        lambda: RemoteAgent("payments", CARD, bearer_token=b"tok"),
        "bearer_token",
        "bytes",
    ),
    case(
        "remote-bearer-token-with-its-scheme",
        lambda: RemoteAgent("payments", CARD, bearer_token="Bearer tok"),
        "bearer_token",
        "white space",
        "without 'Bearer '",
    ),
    case(
        "remote-bearer-token-and-authorization-header",
        lambda: RemoteAgent(
            "payments", CARD, bearer_token="tok", headers={"authorization": "Basic x"}
        ),
        "bearer_token",
        "both",
    ),
    case(
        "remote-client-factory-a-client",
        lambda: RemoteAgent("payments", CARD, httpx_client_factory=_sync_client()),
        "payments",
        "httpx_client_factory",
        "a function that returns an httpx.AsyncClient",
    ),
    case(
        "remote-client-factory-a-str",
        lambda: RemoteAgent("payments", CARD, httpx_client_factory="httpx.AsyncClient"),
        "httpx_client_factory",
        "a str",
    ),
    case(
        "remote-client-factory-returns-a-sync-client",
        _built(httpx_client_factory=_sync_client),
        "payments",
        "httpx_client_factory",
        "returned Client",
        "httpx.AsyncClient",
    ),
    case(
        "remote-retry-a-number",
        lambda: RemoteAgent("payments", CARD, retry=3),
        "payments",
        "retry",
        "retry(...)",
    ),
    case(
        "remote-retry-on-an-exception",
        lambda: RemoteAgent("payments", CARD, retry=_retry(on=TimeoutError)),
        "payments",
        "retry",
        "on=",
        "503",
    ),
    case(
        "remote-retry-scoped",
        lambda: RemoteAgent("payments", CARD, retry=_retry(scope="payments")),
        "retry",
        "scope=",
    ),
    # AgentDirectory in async code
    case(
        "directory-from-urls-in-a-running-loop",
        _in_a_running_loop(lambda: AgentDirectory.from_urls(["http://peer:8001"])),
        "from_urls",
        "urls",
        "block the running event loop",
        "await AgentDirectory.load(urls)",
    ),
    case(
        "directory-from-file-with-urls-in-a-running-loop",
        _directory_file_in_a_loop(),
        "from_file",
        "path",
        "await AgentDirectory.load(path)",
    ),
    # the card's options
    case("card-skills-a-str", _card(skills="refunds"), "refunder", "skills", "list"),
    case(
        "card-skill-without-id",
        _card(skills=[{"tags": ["refunds"]}]),
        "skills",
        "no 'id'",
        "refunder, notifier",
    ),
    case(
        "card-new-skill-without-description",
        _card(skills=[{"id": "faq", "name": "FAQ"}]),
        "skills",
        "'faq'",
        "description",
    ),
    case(
        "card-skill-tags-a-str",
        _card(skills=[{"id": "refunder", "tags": "refunds"}]),
        "skills",
        "'refunder'",
        "tags",
    ),
    case(
        "card-provider-without-url",
        _card(provider={"organization": "Payments"}),
        "provider",
        "organization and its URL",
    ),
    case("card-provider-a-str", _card(provider="Payments team"), "provider"),
    case(
        "card-capabilities-streaming",
        _card(capabilities={"streaming": True}),
        "capabilities",
        "streaming=",
    ),
    case(
        "card-capabilities-push-notifications",
        _card(capabilities={"pushNotifications": True}),
        "capabilities",
        "push notifications",
    ),
    case(
        "card-capabilities-a-list",
        _card(capabilities=["streaming"]),
        "capabilities",
        "mapping",
    ),
    case(
        "card-capabilities-repeat-the-state-extension",
        _card(capabilities={"extensions": [{"uri": "urn:adk-fluent:a2a:state-keys:v1"}]}),
        "capabilities",
        "repeats",
    ),
    case("card-streaming-a-str", _card(streaming="yes"), "streaming", "True or False"),
    case(
        "serve-card-skills-a-dict",
        _a2a_app(skills={"refunder": {"tags": ["x"]}}),
        "skills",
        "list",
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
