"""Every behaviour probe (adk_fluent.adk.probes) against the installed google-adk.

Two things are proven on whichever release the suite runs on (the tide matrix runs it on many):
* the scans' table (adk_fluent_generated.behaviours, what adk-fluent reads on a scanned
  release) says what the probe, run now, sees;
* what the probe sees is what ADK does to an adk-fluent pipeline run through the real Runner
  with scripted models, watched independently of the probe's own scenario.
"""

from __future__ import annotations

import re
import warnings

import pytest
from adk_fluent_generated.behaviours import UnknownBehaviour, behaviour_on

from adk_fluent import Agent
from adk_fluent.adk import probes
from adk_fluent.adk.compat import adk_version, behaviour
from adk_fluent.adk.compile import callback_keywords
from adk_fluent.analysis.contracts.flow_state import View
from adk_fluent.testing import mock_backend
from tests.conftest import request_texts


@pytest.mark.parametrize("name", sorted(probes.PROBES))
def test_the_scans_answer_is_what_the_probe_sees(name):
    seen = probes.PROBES[name]()
    assert behaviour(name) == seen  # what adk-fluent decides by
    try:
        recorded = behaviour_on(name, adk_version())
    except UnknownBehaviour:
        pytest.skip(f"google-adk {adk_version()} has no committed scan yet (make regen)")
    assert recorded == seen, f"the scan of {adk_version()} recorded {recorded!r}; rescan it"


def test_an_unknown_probe_name_is_refused():
    with pytest.raises(KeyError, match="no behaviour probe named 'plugin_edit'"):
        behaviour("plugin_edit")


def test_every_workflow_agent_warns_exactly_where_the_probe_says_and_the_filter_knows_the_words():
    from google.adk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent

    for kind in (SequentialAgent, ParallelAgent, LoopAgent):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            kind(name="mine", sub_agents=[LlmAgent(name="x")])
        messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
        about_workflow = [m for m in messages if "Workflow" in m]
        assert bool(about_workflow) == probes.workflow_agents_warn(), kind.__name__
        for message in about_workflow:  # quiet_workflow_deprecation's filter matches it
            assert re.match(probes.WORKFLOW_DEPRECATION, message, re.IGNORECASE), message


async def test_another_agents_reply_reaches_the_next_model_as_the_probe_says():
    backend = mock_backend({"first": "the-first-reply", "second": "ok"})
    await (Agent("first") >> Agent("second")).run("the-question", backend=backend)
    texts = request_texts(backend.requests["second"][0])
    carrying = [t for t in texts if "the-first-reply" in t]
    assert carrying, texts
    form = probes.other_agent_reply_format()
    if form == "quoted":
        assert "QUOTED_AGENT_CONTENT" in "\n".join(carrying)
    else:
        assert form == "for_context"
        assert "For context:" in texts  # a part of its own, before the quoted reply
        assert any(t.startswith("[first] said: the-first-reply") for t in carrying)


async def test_include_contents_none_keeps_what_the_probe_says_and_the_checker_assumes():
    backend = mock_backend({"first": "the-first-reply", "second": "ok"})
    pipeline = Agent("first") >> Agent("second").include_contents("none")
    await pipeline.run("the-question", backend=backend)
    joined = "\n".join(request_texts(backend.requests["second"][0]))
    saw = ("the-question" in joined, "the-first-reply" in joined)
    answer = probes.include_contents_none_keeps()
    assert {
        (False, True): "latest_agent_reply",
        (True, True): "whole_turn",
        (True, False): "user_message",
        (False, False): "nothing",
    }[saw] == answer
    # The contract checker's data flow models include_contents='none' as the latest other
    # agent's reply only: if a release answers otherwise, analysis/contracts/dataflow.py's
    # "adk_none" view must learn it (docs/compatibility.md shows the release).
    assert answer == "latest_agent_reply"
    view = View("adk_none")
    assert view.shows("first", frozenset({"first"}))
    assert not view.shows("earlier", frozenset({"first"}))


def test_adk_calls_callbacks_with_the_keywords_compile_binds_them_by():
    seen = probes.callback_keywords()
    assert seen  # six callbacks observed
    for field, names in seen.items():
        assert names, f"ADK never called {field}"
        assert sorted(names) == sorted(callback_keywords(field) or ()), field
