"""`adk-fluent eval`, called in-process as the console script would be: a suite named by
module:attr (or a YAML / ADK eval-set file run on --pipeline) runs on the scripted booking
pipeline; the exit code is 0 only when every selected case passed and nothing regressed against
the baseline, 1 otherwise, on both ADK ends; usage and target mistakes are exit code 2 with one
line on stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from adk_fluent.cli.main import main

SUITES = """\
from adk_fluent.evaluation import ANY, FluentCase, FluentEvalSuite, FluentJudge, contains, regex, tool
from tests.support.evaluation import booking_backend, booking_pipeline

pipeline = booking_pipeline()
backend = booking_backend  # a function: the command calls it for a fresh backend
scripted = booking_backend()  # a backend object, used as it is
CASES = [
    FluentCase("Book a trip to Paris", response=contains("booked"),
               tools=[tool("book", city="Paris", date=ANY)], id="paris", tags=["booking"]),
    FluentCase("Hello there", response=regex("Which city"), tools=[], id="hello", tags=["chat"]),
]


def rome(expected_city):
    return FluentCase("Book a trip to Rome", response=contains("booked"),
                      tools=[tool("book", city=expected_city, date=ANY)], id="rome",
                      tags=["booking"])


suite = FluentEvalSuite("booking", pipeline, CASES)
before = FluentEvalSuite("booking", pipeline, [*CASES, rome("Rome")])
after = FluentEvalSuite("booking", pipeline, [*CASES, rome("Paris")])  # rome now fails


def answer(reference):
    return FluentEvalSuite("answer", pipeline, [FluentCase(
        "Book a trip to Paris", reference=reference, id="paris")],
        metrics={"response_match_score": 0.5})


exact_answer = answer("Done: BK-PAR-001. Your trip is booked.")
close_answer = answer("Done: BK-PAR-001. Your trip to Paris is booked now.")


def out_of_range(turn):
    return 7.0  # a judge score outside 0..1: ADK cannot evaluate the case


unjudged = FluentEvalSuite("unjudged", pipeline, [FluentCase("Book Paris", id="x")],
                           judges=[FluentJudge("broken", out_of_range)])

# What is deployed: the App is built with this config (retry for a model that fails once).
from adk_fluent import ExecutionConfig
from adk_fluent.middleware import retry
from tests.support.evaluation import flaky_backend, flaky_helper
from tests.support.middleware import no_wait

deployed = ExecutionConfig(middleware=[retry(max_attempts=3, sleep=no_wait)])
flaky = FluentEvalSuite("flaky", flaky_helper(), [FluentCase(
    "Book me a trip to Paris", response=contains("booked"), id="paris")])
native = FluentEvalSuite("native", pipeline.to_app(backend=scripted), CASES[:1])
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder holding evals.py, as the current directory (and first on sys.path)."""
    (tmp_path / "evals.py").write_text(SUITES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(Path.cwd()))
    monkeypatch.delitem(sys.modules, "evals", raising=False)
    yield tmp_path
    sys.modules.pop("evals", None)  # the next test's evals.py is another file


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["eval", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _status_column(out: str) -> dict[str, str]:
    """The table's case -> status column (the lines after its header, up to a blank line)."""
    lines = out.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("case "))
    rows = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows[line.split()[0]] = line.split()[1]
    return rows


def statuses(out: str) -> dict[str, str]:
    return {case["id"]: case["status"] for case in json.loads(out)["cases"]}


def test_a_passing_suite_exits_0_and_prints_the_table(project, capsys):
    code, out, err = run(capsys, "evals:suite", "--backend", "evals:backend")
    assert code == 0, err
    assert "2 case(s), 2 passed, 0 not" in out
    assert out.splitlines()[1] == "Config: none (the App as the pipeline builds it)"
    assert _status_column(out) == {"paris": "PASS", "hello": "PASS"}
    assert "Failures" not in out


def test_a_failing_suite_exits_1_and_says_which_case_and_why(project, capsys):
    code, out, _ = run(capsys, "evals:after", "--backend", "evals:scripted")
    assert code == 1
    failures = out[out.index("Failures") :]
    assert "rome (FAIL)" in failures and "paris" not in failures
    assert "expected book(city='Paris', date=ANY)" in failures
    assert "'Rome' != 'Paris'" in failures


def test_json_has_each_case_status(project, capsys):
    code, out, _ = run(capsys, "evals:after", "--backend", "evals:backend", "--json")
    assert code == 1
    assert statuses(out) == {"paris": "passed", "hello": "passed", "rome": "failed"}
    assert json.loads(out)["passed"] is False


def test_a_regression_against_the_saved_baseline_exits_1(project, capsys):
    code, out, _ = run(
        capsys, "evals:before", "--backend", "evals:backend", "--save", "runs/base.json"
    )
    assert code == 0 and "Saved the report to runs/base.json" in out
    assert (project / "runs/base.json").is_file()
    code, out, _ = run(
        capsys, "evals:after", "--backend", "evals:backend", "--baseline", "runs/base.json"
    )
    assert code == 1
    compared = out[out.index("Against the baseline:") :].splitlines()
    assert [line.split()[:2] for line in compared[1:]] == [["regressed", "rome:"]]
    code, out, _ = run(
        capsys,
        "evals:after",
        "--backend",
        "evals:backend",
        "--baseline",
        "runs/base.json",
        "--json",
    )
    assert code == 1
    assert [change["id"] for change in json.loads(out)["baseline"]["regressed"]] == ["rome"]


def test_a_score_drop_alone_fails_unless_within_the_tolerance(project, capsys):
    assert (
        run(capsys, "evals:exact_answer", "--backend", "evals:backend", "--save", "b.json")[0] == 0
    )
    args = ("evals:close_answer", "--backend", "evals:backend", "--baseline", "b.json")
    code, out, _ = run(capsys, *args)
    assert code == 1 and "0 not" in out  # every case passed; the score fell
    assert "scores dropped" in out and "response_match_score" in out
    code, out, _ = run(capsys, *args, "--tolerance", "0.9")
    assert code == 0 and "Against the baseline: no change." in out


def test_case_and_tag_select_what_runs(project, capsys):
    code, out, _ = run(
        capsys, "evals:after", "--backend", "evals:backend", "--case", "paris", "--json"
    )
    assert (code, statuses(out)) == (0, {"paris": "passed"})
    code, out, _ = run(
        capsys,
        "evals:after",
        "--backend",
        "evals:backend",
        "--case",
        "paris",
        "--case",
        "rome",
        "--json",
    )
    assert (code, statuses(out)) == (1, {"paris": "passed", "rome": "failed"})
    code, out, _ = run(
        capsys, "evals:after", "--backend", "evals:backend", "--tag", "chat", "--json"
    )
    assert (code, statuses(out)) == (0, {"hello": "passed"})


def test_a_case_no_metric_could_evaluate_fails_unless_allowed(project, capsys):
    code, out, _ = run(capsys, "evals:unjudged", "--backend", "evals:backend")
    assert code == 1 and "NOT EVALUATED" in out
    code, out, _ = run(
        capsys, "evals:unjudged", "--backend", "evals:backend", "--allow-not-evaluated"
    )
    assert code == 0 and "allowed by --allow-not-evaluated: x" in out


def test_a_yaml_suite_runs_on_the_pipeline(project, capsys):
    (project / "booking.yaml").write_text(
        "name: booking\n"
        "cases:\n"
        "  - id: paris\n"
        "    input: Book a trip to Paris\n"
        "    response: {contains: booked}\n"
        "    tools: [{name: book, args: {city: Paris, date: {$match: any}}}]\n"
        "  - id: rome\n"
        "    input: Book a trip to Rome\n"
        "    tools: [{name: book, args: {city: Paris, date: {$match: any}}}]\n"
    )
    args = ("booking.yaml", "--pipeline", "evals:pipeline", "--backend", "evals:backend")
    code, out, _ = run(capsys, *args, "--case", "paris")
    assert code == 0 and "Suite booking" in out and "1 passed" in out
    code, out, _ = run(capsys, *args, "--json")
    assert (code, statuses(out)) == (1, {"paris": "passed", "rome": "failed"})


def test_an_adk_eval_set_file_runs_on_the_pipeline(project, capsys):
    from adk_fluent.evaluation import ANY, FluentCase, FluentEvalSuite, contains, tool
    from tests.support.evaluation import booking_pipeline

    FluentEvalSuite(
        "exported",
        booking_pipeline(),
        [
            FluentCase(
                "Book a trip to Paris",
                response=contains("booked"),
                tools=[tool("book", city="Paris", date=ANY)],
                id="paris",
            ),
            FluentCase(
                "Book a trip to Oslo", tools=[tool("book", city="Rome", date=ANY)], id="oslo"
            ),
        ],
    ).to_eval_set_file(project / "eval" / "booking.evalset.json")  # + eval/test_config.json
    args = (
        "eval/booking.evalset.json",
        "--pipeline",
        "evals:pipeline",
        "--backend",
        "evals:backend",
    )
    code, out, _ = run(capsys, *args, "--json")
    assert (code, statuses(out)) == (1, {"paris": "passed", "oslo": "failed"})
    code, out, _ = run(capsys, *args, "--case", "paris")
    assert code == 0 and "Suite exported" in out


def test_config_builds_the_app_as_deployed_and_the_report_names_it(project, capsys):
    """A model that fails once: the case errors on the App alone, and passes on the App built
    with the deployed config's retry; text and JSON name the config that ran."""
    code, out, _ = run(capsys, "evals:flaky", "--backend", "evals:flaky_backend")
    assert code == 1 and _status_column(out) == {"paris": "ERROR"}
    assert "Config: none (the App as the pipeline builds it)" in out
    assert "the model is busy" in out

    args = ("evals:flaky", "--backend", "evals:flaky_backend", "--config", "evals:deployed")
    code, out, err = run(capsys, *args)
    assert code == 0, out + err
    shown = "evals:deployed = ExecutionConfig(middleware=[retry(app, priority=-10)])"
    assert out.splitlines()[1] == f"Config: {shown}"
    code, out, _ = run(capsys, *args, "--json", "--save", "run.json")
    assert code == 0 and json.loads(out)["config"] == shown
    assert json.loads((project / "run.json").read_text())["config"] == shown


def test_the_help_documents_the_exit_codes(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["eval", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    codes = [
        line.split()[0] for line in text.splitlines() if line[:3] in ("  0", "  1", "  2", "  3")
    ]
    assert codes == ["0", "1", "2", "3"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["booking.yaml"], "a suite file needs the pipeline to run on: add --pipeline"),
        (["missing.yaml", "--pipeline", "evals:pipeline"], "no suite file missing.yaml"),
        (["nothere:suite"], "no module named 'nothere'"),
        (["evals:suit"], "has no attribute 'suit' (did you mean 'suite'?)"),
        (["evals:pipeline"], "'evals:pipeline' is a Pipeline, not a FluentEvalSuite"),
        (["evals:CASES"], "'evals:CASES' is a list, not a FluentEvalSuite"),
        (["evals:suite", "--pipeline", "evals:pipeline"], "--pipeline goes with a suite file"),
        (
            ["booking.yaml", "--pipeline", "evals:suite"],
            "is a FluentEvalSuite, not an adk-fluent pipeline",
        ),
        (["evals:suite", "--backend", "evals:CASES"], "gives a list, not a test backend"),
        (["evals:suite", "--config", "evals:CASES"], "'evals:CASES' is a list, not an Execut"),
        (["evals:suite", "--config", "evals:deploy"], "--config: 'evals' has no attribute"),
        (
            ["evals:native", "--config", "evals:deployed"],
            "config= builds an adk-fluent pipeline's App, and this suite evaluates a native App",
        ),
        (
            ["evals:suite", "--backend", "evals:backend", "--case", "pari"],
            "the suite has no case 'pari'; hint: did you mean 'paris'?",
        ),
        (["evals:suite", "--backend", "evals:backend", "--tag", "nope"], "no case is selected"),
        (["evals:suite", "--baseline", "nowhere.json"], "no report at nowhere.json"),
        (["evals:suite", "--baseline", "garbage.json"], "garbage.json is not a saved report"),
        (
            ["evals:suite", "--baseline", "other.json"],
            "other.json is not an adk-fluent eval report",
        ),
    ],
)
def test_usage_and_target_errors_are_exit_2_and_one_line(project, capsys, args, message):
    (project / "booking.yaml").write_text("name: booking\ncases:\n  - {input: Hi, response: Hi}\n")
    (project / "garbage.json").write_text("{not json")
    (project / "other.json").write_text('{"eval_set_id": "x", "eval_cases": []}')
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("adk-fluent eval: ") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err
