"""The checker on code it reads: tools, callbacks, custom agents and agent tools, in the places
and at the times ADK runs them; loops that can or cannot end."""

from __future__ import annotations

from google.adk.agents import BaseAgent
from google.adk.events import Event, EventActions
from google.adk.tools import exit_loop

from adk_fluent import (
    Agent,
    C,
    FanOut,
    Loop,
    Native,
    Pipeline,
    S,
    check_contracts,
    exit_when,
    timeout,
    until,
)
from adk_fluent.analysis.contracts import source


def codes(tree, **options):
    return check_contracts(tree, **options).codes()


def only(report, code):
    found = [issue for issue in report if issue.code == code]
    assert len(found) == 1, report.to_text()
    return found[0]


def set_city(callback_context):
    callback_context.state["city"] = "Lyon"


def set_city_late(callback_context, llm_request):
    callback_context.state["city"] = "Lyon"


def stamp(callback_context):
    callback_context.state["stamped"] = True


def book(hotel: str, tool_context) -> str:
    """Book a hotel."""
    tool_context.state["booking"] = hotel
    return "booked"


def needs_booking(tool_context) -> str:
    """Confirm the booking."""
    return tool_context.state["booking"]


def needs_voucher(tool_context) -> str:
    """Redeem the voucher."""
    return tool_context.state["voucher"]


def persist(tool_context) -> str:
    """Save everything (its keys come from elsewhere)."""
    _store(tool_context)
    return "saved"


def _store(tool_context):
    tool_context.state["stored"] = 1


def finish(tool_context) -> str:
    """End the loop."""
    tool_context.actions.escalate = True
    return "done"


class Gatekeeper(BaseAgent):
    async def _run_async_impl(self, ctx):
        yield Event(author=self.name, actions=EventActions(state_delta={"gate": "open"}))


class Orchestrator(BaseAgent):
    async def _run_async_impl(self, ctx):
        for agent in self.sub_agents:
            async for event in agent.run_async(ctx):
                yield event


# -- when callbacks run ------------------------------------------------------------------------
def test_a_before_agent_callback_writes_before_its_own_instruction_is_rendered():
    tree = Agent("guide").before_agent(set_city).instruct("Tour {city}.").outputs("tour") >> Agent(
        "next"
    ).instruct("Still {city}, after {tour}.").context(C.user_only())
    assert codes(tree) == []


def test_a_before_model_callback_writes_after_its_own_instruction_is_rendered():
    # ADK (1.25 and 2.x) renders the instruction, then calls before_model callbacks
    report = check_contracts(Agent("guide").before_model(set_city_late).instruct("Tour {city}."))
    issue = only(report, "read-before-write")
    assert "before_model_callback 'set_city_late'" in issue.message
    assert ".before_agent(...)" in issue.hint
    # ... but everything after the agent sees it
    later = Agent("guide").before_model(set_city_late) >> Agent("next").instruct("{city}")
    assert "read-before-write" not in codes(later)


def test_after_agent_callbacks_write_when_the_agent_is_done():
    tree = Agent("a").after_agent(stamp).outputs("x") >> Agent("b").instruct("{x} {stamped}")
    assert not check_contracts(tree).failing(strict=True)


def test_a_callback_reading_a_missing_key_is_an_error_naming_the_callback():
    def needs_city(callback_context):
        return callback_context.state["city"]

    report = check_contracts(Agent("guide").before_agent(needs_city))
    issue = only(report, "read-before-write")
    assert "before_agent_callback" in issue.subject and "KeyError" in issue.message


# -- tools -------------------------------------------------------------------------------------
def test_a_tools_write_is_set_only_if_the_model_calls_it_advice_not_warning():
    tree = Agent("booker").tool(book) >> Agent("confirmer").instruct("Confirm {booking}.")
    report = check_contracts(tree)
    issue = only(report, "model-dependent-read")
    assert issue.severity == "info" and "tool 'book' of 'booker'" in issue.message
    assert ".writes(\"booking\") on 'booker'" in issue.hint
    assert not report.failing(strict=True)


def test_declaring_the_tools_write_makes_it_certain():
    tree = Agent("booker").tool(book).writes("booking") >> Agent("confirmer").instruct(
        "Confirm {booking}."
    )
    assert "model-dependent-read" not in codes(tree)


def test_a_tool_reading_what_a_sibling_tool_writes_is_advice():
    report = check_contracts(Agent("desk").tool(book).tool(needs_booking))
    issue = only(report, "tool-read-unverified")
    assert issue.severity == "info" and "tool 'needs_booking' of 'desk'" in issue.message


def test_a_tool_reading_a_key_nothing_writes_is_a_warning_unless_the_app_sets_it():
    report = check_contracts(Agent("desk").tool(needs_voucher))
    issue = only(report, "tool-read-unset")
    assert issue.severity == "warning" and "KeyError" in issue.message
    assert codes(Agent("desk").tool(needs_voucher), initial_keys=["voucher"]) == []


def test_an_opaque_tool_makes_later_reads_unverified_and_names_why():
    tree = Agent("saver").tool(persist) >> Agent("reader").instruct("{stored}")
    issue = only(check_contracts(tree), "read-unverified")
    assert "tool 'persist' of 'saver'" in issue.message
    assert "hands tool_context to _store()" in issue.message
    assert ".writes(\"stored\") on 'saver'" in issue.hint


def test_tool_writes_in_fanout_branches_are_no_conflict():
    tree = FanOut(Agent("a").tool(book).outputs("a_out"), Agent("b").tool(book).outputs("b_out"))
    assert "parallel-write-conflict" not in codes(tree)


# -- delegates ---------------------------------------------------------------------------------
def test_a_delegate_sees_its_coordinators_callback_and_tool_writes():
    tree = (
        Agent("coordinator")
        .before_agent(set_city)
        .tool(book)
        .delegate(Agent("concierge").instruct("In {city}: {booking}.").context(C.user_only()))
    )
    report = check_contracts(tree)
    assert report.codes() == ["model-dependent-read"]  # the booking, only if the tool ran
    assert report[0].key == "booking"


# -- agent tools -------------------------------------------------------------------------------
def test_an_agent_tool_reads_the_callers_state_and_its_path_is_under_the_caller():
    inner = Agent("analyst").instruct("Analyse {topic} for {audience}.").outputs("analysis")
    tree = S.set(topic="tides") >> Agent("lead").tool(inner)
    issue = only(check_contracts(tree), "read-before-write")
    assert issue.key == "audience" and issue.path.endswith("lead/analyst")


def test_an_agent_tools_writes_come_back_as_maybe():
    inner = Agent("analyst").instruct("Analyse.").outputs("analysis")
    tree = Agent("lead").tool(inner) >> Agent("writer").instruct("{analysis}")
    issue = only(check_contracts(tree), "model-dependent-read")
    assert "agent tool 'analyst' of 'lead'" in issue.message


def test_an_agent_tool_sees_its_callers_before_agent_writes():
    inner = Agent("guide").instruct("Tour {city}.")
    assert codes(Agent("lead").before_agent(set_city).tool(inner)) == []


# -- custom agents -----------------------------------------------------------------------------
def test_a_custom_agents_inferred_writes_count():
    tree = Native(Gatekeeper(name="gatekeeper")) >> Agent("a").instruct("{gate}")
    assert codes(tree) == []


def test_a_custom_agent_that_runs_agents_is_opaque_unless_it_declares():
    opaque = Native(Orchestrator(name="orchestrator")) >> Agent("a").instruct("{plan}")
    assert codes(opaque) == ["read-unverified"]
    declared = Native(Orchestrator(name="orchestrator")).writes("other") >> Agent("a").instruct(
        "{plan}"
    )
    assert "read-before-write" in codes(declared)


# -- composites --------------------------------------------------------------------------------
def test_composite_callbacks_and_declarations_hold_at_their_start_and_end():
    body = Pipeline(Agent("a").instruct("{city} {ledger}"), name="body")
    tree = body.before_agent(set_city).after_agent(stamp).writes("ledger") >> Agent("b").instruct(
        "{stamped}"
    )
    assert not check_contracts(tree).failing(strict=True)
    reads = Pipeline(Agent("a"), name="body").reads("budget")
    assert only(check_contracts(reads), "read-before-write").key == "budget"


# -- loops -------------------------------------------------------------------------------------
def test_a_loop_without_a_maximum_or_an_exit_is_a_warning():
    body = (Agent("w").instruct("{d?}").outputs("d"), Agent("c").instruct("{d}"))
    issue = only(check_contracts(Loop(*body)), "loop-never-ends")
    assert issue.severity == "warning" and "max_iterations" in issue.hint


def test_every_way_of_ending_a_loop_is_seen():
    w = Agent("w").instruct("{d?}").outputs("d")
    endings = [
        Loop(w, max_iterations=3),
        Loop(w, until=until(lambda s: s.get("d") == "ok", max=None)),
        Loop(w, exit_when(lambda s: True)),
        Loop(w, Agent("c").tool(exit_loop)),
        Loop(w, Agent("c").tool(finish)),
        Loop(w, Agent("c").tool(persist)),  # opaque: it might
        Loop(w, Native(Gatekeeper(name="gatekeeper"))),
        Loop(w, Agent("c").tool(Agent("inner"))),
        timeout(Loop(w), 30),
    ]
    for tree in endings:
        assert "loop-never-ends" not in codes(tree), tree


def test_exit_when_mid_body_joins_every_exit_point():
    tree = Loop(
        Agent("a").outputs("first"),
        exit_when(lambda s: True),
        Agent("b").outputs("second"),
        max_iterations=3,
    ) >> Agent("c").instruct("{first} {second}").context(C.user_only())
    report = check_contracts(tree)
    issue = only(report, "maybe-unset")
    assert issue.key == "second" and "stops after 'exit_when' in the first iteration" in (
        issue.message
    )


# -- speed -------------------------------------------------------------------------------------
def test_each_function_is_read_once_however_often_the_tree_uses_it(monkeypatch):
    source._code_effects.cache_clear()
    calls = []
    real = source.inspect.getsource
    monkeypatch.setattr(source.inspect, "getsource", lambda obj: calls.append(obj) or real(obj))
    tree = Pipeline(
        *(Agent(f"a{i}").tool(book).before_agent(set_city).instruct("{city}") for i in range(40))
    )
    for _ in range(3):
        check_contracts(tree)
    assert len(calls) == 2  # book and set_city, once each


def test_an_instruction_provider_is_read_like_an_instruction():
    def instruction(readonly_context):
        return f"Tour {readonly_context.state['city']}."

    issue = only(check_contracts(Agent("guide").instruct(instruction)), "read-before-write")
    assert issue.key == "city" and "instruction provider" in issue.subject
    assert codes(Agent("guide").before_agent(set_city).instruct(instruction)) == []


def test_a_tool_read_is_only_unverified_when_opaque_code_anywhere_may_write_it():
    tree = Agent("desk").tool(needs_voucher) >> Agent("saver").tool(persist)
    issue = only(check_contracts(tree), "tool-read-unverified")
    assert "tool 'persist' of 'saver'" in issue.message


def test_a_gate_in_a_loop_stops_the_run_so_the_loop_may_end():
    from adk_fluent import gate

    tree = Loop(Agent("w").instruct("{d?}").outputs("d"), gate(True, "Another round?"))
    assert "loop-never-ends" not in codes(tree)
