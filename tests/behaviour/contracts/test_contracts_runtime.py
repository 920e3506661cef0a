"""The checker's predictions against the real ADK Runner (scripted models, both ADK ends): what
it calls an error does break the run, and version-dependent verdicts match the installed ADK."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, C, Route, S, check_contracts, map_over
from adk_fluent.adk.compat import temp_keys_carry_over
from adk_fluent.testing import mock_backend
from tests.conftest import request_texts, system_instruction


async def test_read_before_write_is_the_failure_adk_reports():
    pipeline = Agent("classifier").outputs("intent") >> Agent("booker").instruct("Book {intnet}.")
    issue = check_contracts(pipeline).errors[0]
    assert issue.code == "read-before-write"
    assert 'ADK fails the turn with "Context variable not found: `intnet`"' in issue.message
    with pytest.raises(KeyError, match="Context variable not found: `intnet`"):
        await pipeline.run("hi", backend=mock_backend({"classifier": "booking"}))


async def test_maybe_unset_breaks_exactly_the_path_that_skips_the_writer():
    pipeline = (
        S.capture("intent")
        >> Route("intent").eq("booking", Agent("booker").outputs("booking")).otherwise(S.log())
        >> Agent("presenter").instruct("{booking}").context(C.user_only())
    )
    assert check_contracts(pipeline).codes() == ["maybe-unset"]
    ok = await pipeline.ask("booking", backend=mock_backend({"booker": "B", "presenter": "P"}))
    assert ok == "P"
    with pytest.raises(KeyError, match="booking"):
        await pipeline.run("other", backend=mock_backend({}))


async def test_from_state_unset_shows_the_agent_a_null():
    pipeline = Agent("writer").context(C.user_only() + C.from_state("summary"))
    assert check_contracts(pipeline).codes() == ["from-state-unset"]
    backend = mock_backend({"writer": "W"})
    await pipeline.run("hi", backend=backend)
    assert "summary = null" in "\n".join(request_texts(backend.requests["writer"][0]))


async def test_map_over_item_is_gone_after_the_map():
    pipeline = (
        S.set(docs=["a"])
        >> map_over("docs", Agent("s").instruct("{doc}"), item_key="doc")
        >> Agent("presenter").instruct("Doc: [{doc?}]").context(C.user_only())
    )
    strict_reader = (
        S.set(docs=["a"])
        >> map_over("docs", Agent("s").instruct("{doc}"), item_key="doc")
        >> Agent("presenter").instruct("{doc}").context(C.user_only())
    )
    assert [i.code for i in check_contracts(strict_reader).failing()] == ["read-after-delete"]
    backend = mock_backend({"s": "S", "presenter": "P"})
    await pipeline.run("go", backend=backend)
    assert "Doc: []" in system_instruction(backend.requests["presenter"][0])


async def test_temp_key_verdict_matches_the_installed_adk():
    pipeline = Agent("w").outputs("temp:y") >> Agent("r").instruct("Y is {temp:y?}.").context(
        C.user_only()
    )
    strict_reader = Agent("w").outputs("temp:y") >> Agent("r").instruct("Y is {temp:y}.").context(
        C.user_only()
    )
    backend = mock_backend({"w": "VALUE", "r": "ok"})
    await pipeline.run("hi", backend=backend)
    arrived = "Y is VALUE." in system_instruction(backend.requests["r"][0])
    warned = "temp-key-not-carried" in check_contracts(strict_reader).codes()
    assert arrived == temp_keys_carry_over()  # the behaviour table (or probe) is right
    assert warned == (not arrived)  # the checker says what this ADK actually does


async def test_a_clean_report_runs_clean():
    pipeline = (
        S.capture("question")
        >> Agent("classifier")
        .instruct("Classify the question.")
        .context(C.from_state("question"))
        .outputs("intent")
        >> Route("intent")
        .eq(
            "booking",
            Agent("booker")
            .instruct("Book what the question asks.")
            .context(C.user_only() + C.from_state("question")),
        )
        .otherwise(Agent("helper").context(C.user_only()))
    )
    assert not check_contracts(pipeline).failing(strict=True)
    backend = mock_backend({"classifier": "booking", "booker": "Booked."})
    assert await pipeline.strict().ask("a trip", backend=backend) == "Booked."
    backend.assert_consumed()
