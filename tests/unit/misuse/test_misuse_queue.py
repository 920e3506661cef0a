"""Misuse of queue boundaries (`.execution_boundary(url="redis://...")`, `to_apps`,
`split.worker`, `adk-fluent worker`). Each case fails at build, before any broker is reached,
naming the boundary, service or option, the field, and with a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, S, gate
from adk_fluent.cli.targets import TargetError
from adk_fluent.remote import to_apps
from tests.support.misuse import case, check, ids

QUEUE = "redis://queue:6379/0"


def _worker():
    return Agent("worker").instruct("Work on {intent}.").outputs("result")


def _classifier():
    return Agent("classifier").instruct("Classify.").outputs("intent")


def _queued(url: str = QUEUE):
    return _classifier() >> _worker().execution_boundary("heavy", url=url)


def _split_then(make, url: str = QUEUE):
    return lambda: make(to_apps(_queued(url)))


def _cli(*argv: str):
    def attempt():
        from adk_fluent.cli.main import _parser

        args = _parser().parse_args(["worker", *argv])
        return args.run(args)

    return attempt


CASES = [
    case(
        "queue-boundary-unknown-scheme",
        lambda: _worker().execution_boundary("heavy", url="amqp://queue:5672"),
        "worker",
        "url",
        "queue URL",
    ),
    case(
        "queue-boundary-timeout-zero",
        lambda: _worker().execution_boundary("heavy", url=QUEUE, timeout=0),
        "worker",
        "timeout",
    ),
    case(
        "queue-boundary-timeout-text",
        lambda: _worker().execution_boundary("heavy", url=QUEUE, timeout="60"),
        "timeout",
        "number of seconds",
    ),
    case(
        "queue-to-apps-url-unknown-scheme",
        lambda: to_apps(
            _classifier() >> _worker().execution_boundary("heavy"), {"heavy": "nats://q:4222"}
        ),
        "'heavy'",
        "queue URL",
    ),
    case(
        "queue-service-served-over-a2a",
        _split_then(lambda split: split.a2a_app("heavy")),
        "'heavy'",
        "queue workers",
        "adk-fluent worker",
    ),
    case(
        "queue-worker-for-an-a2a-boundary",
        _split_then(lambda split: split.worker("heavy"), url="http://heavy:8001"),
        "'heavy'",
        "over A2A",
        "url",
    ),
    case(
        "queue-worker-unknown-service",
        _split_then(lambda split: split.worker("hevy")),
        "'hevy'",
        "heavy",
    ),
    case(
        "queue-worker-concurrency-zero",
        _split_then(lambda split: split.worker("heavy", concurrency=0)),
        "heavy",
        "concurrency",
    ),
    case(
        "queue-worker-max-tries-zero",
        _split_then(lambda split: split.worker("heavy", max_tries=0)),
        "heavy",
        "max_tries",
    ),
    case(
        "queue-worker-visibility-timeout-negative",
        _split_then(lambda split: split.worker("heavy", visibility_timeout=-1)),
        "heavy",
        "visibility_timeout",
    ),
    case(
        "queue-temp-key-into-the-boundary",
        lambda: to_apps(
            S.set(**{"temp:draft": "x"})
            >> Agent("worker").instruct("Use {temp:draft}.").execution_boundary("heavy", url=QUEUE)
        ),
        "'heavy'",
        "temp:draft",
        "sends",
    ),
    case(
        "queue-gate-inside-the-boundary",
        lambda: to_apps(
            _classifier()
            >> (gate(lambda s: True, "Go?") >> _worker()).execution_boundary("heavy", url=QUEUE)
        ),
        "'heavy'",
        "gate",
    ),
    case(
        "queue-cli-unknown-boundary",
        _cli("tests.support.queue_pipeline:pipeline", "--boundary", "hevy"),
        "'hevy'",
        "heavy",
    ),
    case(
        "queue-cli-processes-zero",
        _cli("tests.support.queue_pipeline:pipeline", "--boundary", "heavy", "--processes", "0"),
        "--processes",
        error=TargetError,
        needs_hint=False,
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
