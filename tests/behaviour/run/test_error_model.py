"""The error model's public face (docs/errors.md): a failed step is one error event, which
`run()` returns and `stream()` yields as an AgentEvent that says it is an error, which the store
holds, and after which nothing runs; `ask()` / `ask_sync()` raise RunError for it. Exceptions
from a user's tool or model propagate as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_fluent import Agent, Route, S
from adk_fluent.errors import RunError
from adk_fluent.testing import call, mock_backend
from tests.conftest import fresh_db_service


def no_match_route():
    return (
        Agent("classifier").outputs("intent")
        >> Route("intent").eq("booking", Agent("booker")).eq("refund", Agent("refunds"))
        >> Agent("after")
    )


def guarded():
    return (
        Agent("drafter").outputs("amount")
        >> S.guard(lambda s: int(s["amount"]) < 1000, "amount over the limit")
        >> Agent("payer")
    )


async def stored_events(url: str, session_id: str):
    session = await fresh_db_service(url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id=session_id
    )
    return session.events


async def test_run_returns_the_error_event_and_nothing_runs_after_it(sqlite_url):
    backend = mock_backend({"classifier": "weather"})  # no script for booker, refunds, after
    events = await no_match_route().run(
        "hi", backend=backend, session_id="e1", session_store=sqlite_url
    )
    error = events[-1]
    assert error.is_error and error.error_code == "ROUTE_NO_MATCH"
    assert "weather" in error.error_message
    assert [e.is_error for e in events] == [False, True]
    stored = await stored_events(sqlite_url, "e1")
    assert [e.author for e in stored][-1] == error.author
    assert stored[-1].error_code == "ROUTE_NO_MATCH"  # the store holds it like any event


async def test_stream_yields_the_error_event():
    backend = mock_backend({"classifier": "weather"})
    seen = [e async for e in no_match_route().stream("hi", backend=backend)]
    assert seen[-1].is_error and seen[-1].error_code == "ROUTE_NO_MATCH"


async def test_ask_raises_run_error_for_a_route_with_no_match(sqlite_url):
    backend = mock_backend({"classifier": "weather"})
    with pytest.raises(RunError) as raised:
        await no_match_route().ask("hi", backend=backend, session_id="e2", session_store=sqlite_url)
    error = raised.value
    assert error.code == "ROUTE_NO_MATCH" and "weather" in error.message
    stored = await stored_events(sqlite_url, "e2")
    assert error.author == stored[-1].author and stored[-1].error_code == error.code
    assert f"({error.code})" in str(error) and error.author in str(error)


async def test_ask_raises_run_error_for_a_failed_state_step(sqlite_url):
    backend = mock_backend({"drafter": "5000"})  # payer has no script: it must not run
    with pytest.raises(RunError) as raised:
        await guarded().ask("pay", backend=backend, session_id="g", session_store=sqlite_url)
    error = raised.value
    assert error.code == "STATE_GUARD_FAILED"
    assert "amount over the limit" in error.message
    stored = await stored_events(sqlite_url, "g")
    assert [e.author for e in stored] == ["user", "drafter", error.author]
    assert stored[-1].error_code == "STATE_GUARD_FAILED"


async def test_ask_returns_the_final_text_when_nothing_failed():
    backend = mock_backend({"drafter": "50", "payer": "Paid 50."})
    assert await guarded().ask("pay", backend=backend) == "Paid 50."


def test_ask_sync_raises_run_error_too():
    backend = mock_backend({"classifier": "weather"})
    with pytest.raises(RunError, match="ROUTE_NO_MATCH"):
        no_match_route().ask_sync("hi", backend=backend)


async def test_a_users_tool_exception_propagates_as_itself(sqlite_url):
    def charge(amount: int) -> dict:
        """Charge a card."""
        raise ConnectionError("payment gateway down")

    agent = Agent("cashier").tool(charge)
    backend = mock_backend({"cashier": call("charge", amount=5)})
    with pytest.raises(ConnectionError, match="payment gateway down"):
        await agent.ask("pay", backend=backend, session_id="t", session_store=sqlite_url)
    with pytest.raises(ConnectionError):
        await agent.run("pay", backend=mock_backend({"cashier": call("charge", amount=5)}))


async def test_a_model_exception_propagates_as_itself():
    backend = mock_backend({"classifier": TimeoutError("model quota")})
    with pytest.raises(TimeoutError, match="model quota"):
        await no_match_route().ask("hi", backend=backend)


def test_the_example_in_docs_errors_runs_as_it_says(capsys):
    docs = Path(__file__).parents[3] / "docs" / "errors.md"
    example = docs.read_text().split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(example, str(docs), "exec"), {"__name__": "docs_errors_example"})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "True ROUTE_NO_MATCH route_intent"
    assert printed[1].startswith("ROUTE_NO_MATCH - Route 'route_intent': no rule matched")


# -- the traceback a user sees (issue 36) ------------------------------------------------------
def _seen(error: BaseException) -> str:
    """The traceback Python prints for `error` (chained exceptions and all)."""
    import traceback

    return "".join(traceback.format_exception(error))


def _failing_cashier():
    def charge(amount: int) -> dict:
        """Charge a card."""
        raise ConnectionError("payment gateway down")

    return Agent("cashier").tool(charge), mock_backend({"cashier": call("charge", amount=5)})


def test_ask_sync_raises_the_tools_error_alone():
    """It was chained under "RuntimeError: no running event loop" (ask_sync() ran the turn
    inside the `except` that found no loop), and on ADK 2.x under ADK's DynamicNodeFailError."""
    agent, backend = _failing_cashier()
    with pytest.raises(ConnectionError) as raised:
        agent.ask_sync("pay", backend=backend)
    shown = _seen(raised.value)
    assert shown.count("Traceback (most recent call last)") == 1
    assert "During handling of the above exception" not in shown
    assert "no running event loop" not in shown and "DynamicNodeFailError" not in shown
    assert shown.rstrip().endswith("ConnectionError: payment gateway down")


async def test_ask_and_stream_raise_the_tools_error_alone():
    agent, backend = _failing_cashier()
    with pytest.raises(ConnectionError) as raised:
        await agent.ask("pay", backend=backend)
    assert "During handling of the above exception" not in _seen(raised.value)
    agent, backend = _failing_cashier()
    with pytest.raises(ConnectionError) as raised:
        async for _ in agent.stream("pay", backend=backend):
            pass
    assert "During handling of the above exception" not in _seen(raised.value)


def test_only_adks_wrapper_is_hidden_not_a_context_of_the_users_own():
    """The rule adk-fluent applies to what a turn raises (adk.compat.hide_adk_wrapper): a
    context that wraps the error itself (ADK 2.x's DynamicNodeFailError, whose `.error` is
    it) is hidden; a tool's own chain stays. (ADK 2.x re-raises a node's error inside its
    wrapper's `except`, which replaces the error's own context: that much is ADK's.)"""
    from adk_fluent.adk.compat import hide_adk_wrapper

    class Wrapper(Exception):
        def __init__(self, error: BaseException) -> None:
            super().__init__("node failed")
            self.error = error

    def raised(make):
        try:
            make()
        except Exception as error:
            return error
        raise AssertionError("nothing raised")

    original = ConnectionError("payment gateway down")

    def rewrapped():
        try:
            raise Wrapper(original)
        except Wrapper as wrapper:
            raise wrapper.error  # noqa: B904 (what ADK does)

    def users_own():
        try:
            {}["Atlantis"]
        except KeyError:
            raise LookupError("no such city")  # noqa: B904 (the chain is the point)

    shown = _seen(hide_adk_wrapper(raised(rewrapped)))
    assert "Wrapper" not in shown and "During handling" not in shown
    shown = _seen(hide_adk_wrapper(raised(users_own)))
    assert "KeyError: 'Atlantis'" in shown and "During handling" in shown
