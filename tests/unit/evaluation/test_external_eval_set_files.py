"""ADK's own eval-set files (../shared/external-evalsets: ADK's integration fixtures and sample
agents, as published) read as ADK reads them, and written back as ADK's model holds them.

For every *.test.json / *.evalset.json there (a file added later is covered too):
- ADK's own public reader (the EvalSet schema, `adk eval`'s reader of the older `[{name, data}]`
  list, or AgentEvaluator's migration of the older `[{query, ...}]` list) and
  `FluentEvalSuite.from_eval_set` agree on every case: ids, the user's turns, the expected tool
  calls and answers, the starting state, the scenario;
- the suite's export, read back by ADK's EvalSet, equals what ADK read, field for field
  (rubrics, intermediate responses, invocation ids, the set's name and description, the app
  name), except what ADK makes up afresh each time it converts an older list file.

Running them is tests/behaviour/evaluation/test_external_eval_set_runs.py."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from adk_fluent import Agent
from adk_fluent.errors import AdkFluentWarning
from adk_fluent.evaluation import FluentEvalSuite
from tests.support.evaluation import (
    EXTERNAL_EVAL_SETS,
    adk_case_view,
    adk_reads,
    external_eval_set_files,
    file_id,
    fluent_case_view,
    is_list_format,
)

FILES = external_eval_set_files()
PIPELINE = Agent("agent").instruct("Help the user.")


def load(path: Path) -> FluentEvalSuite:
    """The suite adk-fluent reads from the file (with the metrics ADK's tools would use). Under
    ADK's default criteria a file that records no answer for a turn gets the suite's warning
    that response_match_score scores that turn 0: true, and not what these tests are about."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AdkFluentWarning)
        return FluentEvalSuite.from_eval_set(path, PIPELINE)


def test_the_external_eval_sets_are_there():
    """The data folder is present (CI has ../shared): without it every test below would be
    collected with no file and pass vacuously."""
    assert EXTERNAL_EVAL_SETS.is_dir(), f"missing {EXTERNAL_EVAL_SETS}"
    assert len(FILES) >= 16
    listed = json.loads((EXTERNAL_EVAL_SETS / "SOURCES.json").read_text(encoding="utf-8"))
    local = {EXTERNAL_EVAL_SETS / entry["local"] for entry in listed}
    assert set(FILES) <= local  # each file's origin is recorded


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_adk_and_adk_fluent_read_the_same_cases(path: Path, tmp_path: Path):
    adk = adk_reads(path, tmp_path)
    suite = load(path)

    assert [fluent_case_view(case) for case in suite.cases] == [
        adk_case_view(case) for case in adk.eval_cases
    ]
    assert adk.eval_cases  # not a vacuous match


def _without_what_adk_makes_up(dump: dict[str, Any]) -> dict[str, Any]:
    """An older list-format file holds no ids or times: ADK makes them up on every conversion
    (`convert_eval_set_to_pydantic_schema`: the set's id is a fresh uuid4 or the file's path, and
    its name that id; each invocation id a fresh uuid4; each creation_timestamp the clock's time),
    so two conversions of the same file differ in exactly these fields and nothing else."""
    dump = dict(dump)
    for made_up in ("eval_set_id", "name", "creation_timestamp"):
        dump.pop(made_up)
    cases = []
    for case in dump["eval_cases"]:
        case = {key: value for key, value in case.items() if key != "creation_timestamp"}
        case["conversation"] = [
            {k: v for k, v in turn.items() if k not in ("invocation_id", "creation_timestamp")}
            for turn in case["conversation"] or []
        ]
        cases.append(case)
    dump["eval_cases"] = cases
    return dump


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_the_export_gives_back_every_field_adk_read(path: Path, tmp_path: Path):
    from google.adk.evaluation.eval_set import EvalSet

    adk = adk_reads(path, tmp_path)
    suite = load(path)
    written, _ = suite.to_eval_set_file(tmp_path / "out" / "exported.evalset.json")
    back = EvalSet.model_validate_json(written.read_text(encoding="utf-8"))

    expected, actual = adk.model_dump(), back.model_dump()
    if is_list_format(path):
        expected, actual = _without_what_adk_makes_up(expected), _without_what_adk_makes_up(actual)
    assert actual == expected
    # the in-memory EvalSet (what `adk eval` would be handed) is the same as the file
    assert suite.to_eval_set().model_dump() == back.model_dump()


def test_per_turn_rubrics_and_intermediate_responses_survive_the_export(tmp_path: Path):
    """The fields the old export lost, named: the set's description and name, per-turn rubrics,
    intermediate responses, invocation ids and the app name."""
    [guardrail] = [path for path in FILES if path.name == "guardrail_halt.evalset.json"]
    [pretrip] = [path for path in FILES if path.name == "pretrip.test.json"]

    suite = load(guardrail)
    written, _ = suite.to_eval_set_file(tmp_path / "guardrail.evalset.json")
    data = json.loads(written.read_text(encoding="utf-8"))
    source = json.loads(guardrail.read_text(encoding="utf-8"))
    assert (data["name"], data["description"]) == (source["name"], source["description"])
    first = data["eval_cases"][0]
    assert (
        first["conversation"][0]["rubrics"] == source["eval_cases"][0]["conversation"][0]["rubrics"]
    )
    assert first["session_input"]["app_name"] == "app"  # the file's, not adk-fluent's default

    suite = load(pretrip)
    [case] = suite.to_eval_set().eval_cases
    recorded = json.loads(pretrip.read_text(encoding="utf-8"))["eval_cases"][0]["conversation"]
    assert [turn.invocation_id for turn in case.conversation] == [
        turn["invocation_id"] for turn in recorded
    ]
    kept = case.conversation[1].intermediate_data.intermediate_responses
    said = recorded[1]["intermediate_data"]["intermediate_responses"]
    assert [(author, parts[0].text) for author, parts in kept] == [
        (author, parts[0]["text"]) for author, parts in said
    ]
    assert len(kept) == 5


def test_app_name_renames_the_app_of_cases_read_from_a_file():
    [path] = [path for path in FILES if path.name == "crypto_payroll_eval_set.evalset.json"]
    suite = load(path)
    assert {c.session_input.app_name for c in suite.to_eval_set().eval_cases} == {
        "crypto_payroll_agent"
    }
    renamed = suite.to_eval_set(app_name="payroll")
    assert {c.session_input.app_name for c in renamed.eval_cases} == {"payroll"}
    # only the app's name changed
    before = suite.to_eval_set().eval_cases[0].model_dump()
    after = renamed.eval_cases[0].model_dump()
    before["session_input"]["app_name"] = "payroll"
    assert after == before


def test_an_older_list_file_is_named_after_the_file():
    [path] = [path for path in FILES if path.name == "trip_inquiry.test.json"]
    suite = load(path)
    assert suite.name == "trip_inquiry"
    [case] = suite.cases
    assert case.case_id == str(path)  # as AgentEvaluator names it
    assert [turn.text for turn in case.turns][0] == "Hi, who are you? What can you do?"


def test_the_yaml_format_says_which_adk_fields_it_leaves_out():
    [guardrail] = [path for path in FILES if path.name == "guardrail_halt.evalset.json"]
    with pytest.warns(AdkFluentWarning, match="no field for ADK's rubrics of halt_repeated"):
        load(guardrail).to_yaml()
