"""An evaluation runs what is deployed: `suite.run(config=ExecutionConfig(...))` builds the App
as `pipeline.to_app(config)` does, so the config's middleware, plugins and app name are part of
every case, and the report (text, JSON, a saved baseline) names the config that ran. A model
that fails once fails the case without the config's retry, and passes with it."""

from __future__ import annotations

from adk_fluent import ExecutionConfig
from adk_fluent.evaluation import FluentCase, FluentEvalReport, FluentEvalSuite, contains
from adk_fluent.evaluation.report import NO_CONFIG
from adk_fluent.middleware import retry
from tests.support.evaluation import flaky_backend, flaky_helper
from tests.support.middleware import no_wait

DEPLOYED = ExecutionConfig(app_name="trips", middleware=[retry(max_attempts=3, sleep=no_wait)])
SHOWN = "ExecutionConfig(app_name='trips', middleware=[retry(app, priority=-10)])"


def _suite() -> FluentEvalSuite:
    case = FluentCase("Book me a trip to Paris", response=contains("booked"), id="paris")
    return FluentEvalSuite("flaky", flaky_helper(), [case])


async def test_without_the_config_a_model_that_fails_once_fails_the_case():
    report = await _suite().run(backend=flaky_backend())
    [case] = report.cases
    assert case.status == "error" and "the model is busy" in case.error
    # its check is not reported as holding for a turn that never ran
    assert case.turns[0].response_problem == "the turn did not run"
    assert "response contains('booked'): the turn did not run" in report.to_text()
    assert report.config == NO_CONFIG
    assert f"Config: {NO_CONFIG}" in report.to_text()


async def test_the_configs_retry_makes_the_same_case_pass_and_the_report_names_it(tmp_path):
    report = await _suite().run(backend=flaky_backend(), config=DEPLOYED)
    [case] = report.cases
    assert case.status == "passed", case.problems()
    assert case.turns[0].response == "Your trip is booked."
    assert report.config == SHOWN
    assert report.to_text().splitlines()[1] == f"Config: {SHOWN}"
    assert report.to_dict()["config"] == SHOWN
    assert FluentEvalReport.load(report.save(tmp_path / "run.json")).config == SHOWN


async def test_the_configs_app_name_is_where_the_cases_sessions_are_kept():
    from google.adk.sessions.in_memory_session_service import InMemorySessionService

    store = InMemorySessionService()
    report = await _suite().run(backend=flaky_backend(), config=DEPLOYED, session_service=store)
    assert report.passed
    listed = await store.list_sessions(app_name="trips", user_id="eval_user")
    assert len(listed.sessions) == 1
    assert not (await store.list_sessions(app_name="adk_fluent_app", user_id="eval_user")).sessions
