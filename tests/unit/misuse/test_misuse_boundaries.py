"""Misuse of execution boundaries (`.execution_boundary()`, `to_apps`, `write_agent_folders`)
and of the agent directory (`AgentDirectory`). Each case fails at build, before any server or
request, naming the boundary, service, card or option, and with a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, AgentDirectory, S, gate
from adk_fluent.remote import agent_card, to_apps, write_agent_folders
from tests.support.misuse import case, check, ids

pytest.importorskip("a2a", reason="a2a-sdk (the a2a extra) is not installed")

URL = "http://heavy:8001"


def _worker():
    return Agent("worker").instruct("Work on {intent}.").outputs("result")


def _split(pipeline, urls=None):
    return lambda: to_apps(pipeline, urls)


def _boundary(**options):
    return lambda: _worker().execution_boundary(**options)


def _card(name="payments"):
    pipeline = Agent("refunder").instruct("Refund.").outputs("refund_id")
    return agent_card(pipeline, "http://payments:8001/", name=name)


def _directory(*cards):
    return AgentDirectory.from_cards(list(cards) or [_card()])


def _classifier():
    return Agent("classifier").instruct("Classify.").outputs("intent")


CASES = [
    case("boundary-url-no-scheme", _boundary(url="heavy:8001"), "url", "http(s) URL"),
    case("boundary-url-not-a-str", _boundary(url=8001), "url", "must be a str"),
    case("boundary-description-not-a-str", _boundary(description=3), "description", "str"),
    case("boundary-service-bad-name", _boundary(service="heavy service"), "heavy service"),
    case("to-apps-without-a-boundary", _split(_classifier() >> _worker()), "no execution boundary"),
    case("to-apps-not-a-pipeline", lambda: to_apps("pipeline"), "to_apps()", "str 'pipeline'"),
    case(
        "to-apps-no-url",
        _split(_classifier() >> _worker().execution_boundary("heavy")),
        "'heavy'",
        "no URL",
    ),
    case(
        "to-apps-urls-not-a-mapping",
        _split(_classifier() >> _worker().execution_boundary("heavy"), [URL]),
        "urls",
        "a mapping of service names",
    ),
    case(
        "to-apps-urls-unknown-service",
        _split(_classifier() >> _worker().execution_boundary("heavy"), {"hevy": URL}),
        "'hevy'",
        "no execution",
    ),
    case(
        "to-apps-url-no-scheme",
        _split(_classifier() >> _worker().execution_boundary("heavy"), {"heavy": "heavy:8001"}),
        "'heavy'",
        "http(s) URL",
    ),
    case(
        "to-apps-two-services-one-name",
        _split(
            _classifier().execution_boundary("heavy", url=URL)
            >> _worker().execution_boundary("heavy", url=URL)
        ),
        "two execution boundaries",
        "'heavy'",
    ),
    case(
        "to-apps-service-named-like-an-agent",
        _split(_classifier() >> _worker().execution_boundary("classifier", url=URL)),
        "'classifier'",
        "name of an agent",
    ),
    case(
        "to-apps-gate-inside",
        _split(
            _classifier()
            >> (gate(lambda s: True, "Go?") >> _worker()).execution_boundary("heavy", url=URL)
        ),
        "'heavy'",
        "gate",
    ),
    case(
        "to-apps-temp-key-crosses",
        _split(
            Agent("a").instruct("A.").outputs("temp:plan")
            >> Agent("b").instruct("Do {temp:plan}.").execution_boundary("heavy", url=URL)
        ),
        "temp:plan",
        "'heavy'",
    ),
    case(
        "to-apps-crossing-unknown-service",
        lambda: to_apps(_classifier() >> _worker().execution_boundary("heavy", url=URL)).crossing(
            "hevy"
        ),
        "'hevy'",
        "heavy",
    ),
    case(
        "agent-folders-bad-module-ref",
        lambda: write_agent_folders(
            _classifier() >> _worker().execution_boundary("heavy", url=URL), "/tmp/x", "no_colon"
        ),
        "module_ref",
        "package.module:name",
    ),
    case("directory-unknown-name", lambda: _directory().agent("paymets"), "paymets", "payments"),
    case("directory-from-cards-a-str", lambda: AgentDirectory.from_cards("card"), "cards"),
    case(
        "directory-two-cards-one-name",
        lambda: _directory(_card(), _card()),
        "two cards",
        "payments",
    ),
    case("directory-find-nothing", lambda: _directory().find(), "skill=", "tag="),
    case("directory-find-not-a-str", lambda: _directory().find(skill=3), "skill", "str"),
    case(
        "directory-card-without-url",
        lambda: AgentDirectory.from_cards([{"name": "payments", "skills": []}]),
        "card 1",
        "defaultInputModes",
    ),
    case(
        "directory-a2a-1x-card",
        lambda: AgentDirectory.from_cards(
            [{"name": "p", "protocolVersion": "1.0", "supportedInterfaces": []}]
        ),
        "A2A 1.x card",
        "a2a-sdk",
    ),
    case(
        "directory-agent-bad-sends",
        lambda: _directory().agent("payments", sends="intent"),
        "sends",
        "list",
    ),
    case(
        "s-step-in-boundary-named-like-service",
        _split(_classifier() >> S.set(x=1).execution_boundary("classifier", url=URL)),
        "'classifier'",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
