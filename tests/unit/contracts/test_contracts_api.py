"""The checker's API: reports (text, JSON, iteration), strictness, `.strict()` builds, the check
registry, and version-dependent judgement."""

from __future__ import annotations

import json
import re

import pytest
from adk_fluent_generated.behaviours import first_release_where
from adk_fluent_generated.field_versions import SCANNED_ADK_VERSIONS

from adk_fluent import (
    Agent,
    BuildError,
    C,
    ContractError,
    ContractReport,
    ExecutionConfig,
    Issue,
    Route,
    S,
    check_contracts,
    register_check,
)
from adk_fluent.adk.compat import temp_keys_carry_over
from adk_fluent.analysis.contracts import registered_checks, unregister_check
from tests.conftest import ADK_VERSION


def broken():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct("Book {intnet}.")


def warned():
    return (
        Agent("classifier").outputs("intent")
        >> Route("intent").eq("x", Agent("a").outputs("k")).otherwise(Agent("b"))
        >> Agent("presenter").instruct("{k}").context(C.user_only())
    )


def clean():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct(
        "Book {intent}."
    ).context(C.user_only())


def test_report_is_an_iterable_of_issues_with_everything_a_fix_needs():
    report = check_contracts(broken())
    assert isinstance(report, ContractReport) and len(report) == 2
    error = report[0]
    assert isinstance(error, Issue)
    assert (error.severity, error.code, error.node, error.key) == (
        "error",
        "read-before-write",
        "booker",
        "intnet",
    )
    assert error.path == "pipeline__classifier__booker/booker"
    assert error.subject == "booker reads {intnet} in instruction"
    assert "Context variable not found" in error.message
    assert error.hint.startswith("Did you mean 'intent'?")
    assert [i.code for i in report] == report.codes() == ["read-before-write", "dead-state"]
    assert report.errors == [error] and not report.warnings and len(report.infos) == 1
    assert not report.ok


def test_text_format_gives_each_severity_its_own_mark():
    text = check_contracts(broken()).to_text()
    assert text.startswith("✗ booker reads {intnet} in instruction: ERROR\n")
    # advice is not dressed as a warning: ℹ, not ⚠
    assert '\nℹ classifier.outputs("intent") is never read: INFO\n' in text
    assert "⚠" not in text
    assert text.rstrip().endswith("1 error, 0 warnings, 1 info")
    assert "⚠ presenter reads {k} in instruction: WARNING" in check_contracts(warned()).to_text()
    verbose = check_contracts(clean()).to_text(verbose=True)
    assert '✓ classifier.outputs("intent") → booker reads {intent} in instruction: OK' in verbose
    assert verbose.rstrip().endswith("✓ no contract issues (1 state contract holds)")


def test_json_holds_the_same_issues():
    report = check_contracts(broken())
    data = json.loads(report.to_json())
    assert data["root"] == "pipeline__classifier__booker"
    assert data["adk_version"] == ADK_VERSION
    assert data["summary"] == {"error": 1, "warning": 0, "info": 1}
    assert data["issues"][0] == report[0].to_dict()
    assert set(data["issues"][0]) == {
        "severity",
        "code",
        "node",
        "path",
        "key",
        "subject",
        "message",
        "hint",
    }
    assert "reads" in data["checks"]


def test_strict_raises_on_errors_and_on_warnings_but_not_on_advice():
    with pytest.raises(ContractError) as info:
        check_contracts(broken(), strict=True)
    assert "booker reads {intnet}" in str(info.value) and info.value.report.errors
    with pytest.raises(ContractError, match="maybe-unset"):
        check_contracts(warned(), strict=True)
    assert check_contracts(warned()).warnings  # not strict: a report, no exception
    advice_only = Agent("a").outputs("notes") >> Agent("b")
    assert check_contracts(advice_only, strict=True).infos


def test_check_contracts_runs_every_registered_check():
    assert check_contracts(broken()).checks == tuple(spec.name for spec in registered_checks())


def test_builder_and_ir_give_the_same_report():
    assert check_contracts(broken()).to_text() == check_contracts(broken().to_ir()).to_text()


def test_initial_keys_declare_what_the_app_sets():
    reader = Agent("greeter").instruct("Hello {tenant}.")
    assert check_contracts(reader).codes() == ["read-before-write"]
    assert not check_contracts(reader, initial_keys=["tenant"]).issues


def test_selecting_checks_by_name_and_unknown_names():
    report = check_contracts(broken(), checks=["dead-state"])
    assert report.codes() == ["dead-state"]
    with pytest.raises(BuildError, match="did you mean 'dead-state'"):
        check_contracts(broken(), checks=["dead-sate"])


def test_a_plugged_in_check_runs_with_the_rest():
    @register_check("shouting", codes=("shouting",))
    def shouting(ctx):
        """Instructions in capitals."""
        for node in ctx.llm_agents():
            if isinstance(node.instruction, str) and node.instruction.isupper():
                yield ctx.issue(
                    "warning",
                    "shouting",
                    node,
                    None,
                    f"{node.name} shouts",
                    "The instruction is all capitals.",
                    "Write it in sentence case.",
                )

    try:
        report = check_contracts(Agent("a").instruct("DO IT NOW."))
        assert report.codes() == ["shouting"] and report[0].path == "a"
        assert "Instructions in capitals." in [s.description for s in registered_checks()]
    finally:
        unregister_check("shouting")
    assert not check_contracts(Agent("a").instruct("DO IT NOW.")).issues


def test_a_non_pipeline_is_a_clear_error():
    with pytest.raises(BuildError, match="needs a builder .* not str"):
        check_contracts("pipeline")


def test_temp_keys_are_judged_by_the_installed_adk_unless_told_otherwise():
    pipeline = Agent("w").outputs("temp:y") >> Agent("r").instruct("{temp:y}").context(
        C.user_only()
    )
    installed = check_contracts(pipeline)
    if not temp_keys_carry_over():  # what the installed ADK does (the scans' table, or a probe)
        assert installed.codes() == ["temp-key-not-carried"]
        assert f"google-adk {ADK_VERSION} (installed)" in installed[0].message
    else:
        assert not installed.issues
    # judged by another release: what the scans recorded for it
    assert check_contracts(pipeline, target_adk="1.25.0").codes() == ["temp-key-not-carried"]
    assert not check_contracts(pipeline, target_adk="2.13.0").issues
    since = first_release_where("temp_keys_carry_over", True)
    assert since is not None
    assert not check_contracts(pipeline, target_adk=since).issues
    before = SCANNED_ADK_VERSIONS[SCANNED_ADK_VERSIONS.index(since) - 1]
    report = check_contracts(pipeline, target_adk=before)
    assert report.codes() == ["temp-key-not-carried"]
    assert f"google-adk {since} and newer carry temp: keys" in report[0].message


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("1.2.0", "target_adk '1.2.0' is older than google-adk 1.25.0"),
        ("2", "target_adk must be a google-adk release, not str '2'"),
        ("2.x", "target_adk must be a google-adk release"),
    ],
)
def test_a_target_adk_no_scan_covers_is_a_clear_error(target, message):
    pipeline = Agent("w").outputs("temp:y") >> Agent("r").instruct("{temp:y}").context(
        C.user_only()
    )
    with pytest.raises(BuildError, match=re.escape(message)) as info:
        check_contracts(pipeline, target_adk=target)
    assert info.value.field == "target_adk" and info.value.hint


def test_a_target_newer_than_every_scan_is_judged_like_the_newest():
    pipeline = Agent("w").outputs("temp:y") >> Agent("r").instruct("{temp:y}").context(
        C.user_only()
    )
    newest = check_contracts(pipeline, target_adk=SCANNED_ADK_VERSIONS[-1])
    assert check_contracts(pipeline, target_adk="99.0.0").codes() == newest.codes()


def test_strict_builder_refuses_to_build_with_errors():
    with pytest.raises(ContractError) as info:
        broken().strict().build()
    message = str(info.value)
    assert "booker reads {intnet} in instruction" in message
    assert "drop .strict() to build anyway" in message
    with pytest.raises(ContractError):
        broken().strict().to_app()
    assert broken().build() is not None  # without .strict() nothing changes
    assert warned().strict().build() is not None  # warnings do not refuse a build
    assert clean().strict().to_app().root_agent.name == "pipeline__classifier__booker"


def test_strict_builder_takes_initial_keys_and_a_schema():
    from adk_fluent import StateSchema

    class Tenancy(StateSchema):
        tenant: str

    reader = Agent("greeter").instruct("Hello {tenant}.")
    with pytest.raises(ContractError):
        reader.strict().build()
    assert reader.strict(initial_keys=("tenant",)).build().name == "greeter"
    scoped = Agent("greeter").instruct("Hello {user:tenant?}.")
    with pytest.raises(ContractError, match="scope-mismatch"):
        scoped.strict(schema=Tenancy).build()
    # check_contracts on a strict builder uses the options it was given
    assert not check_contracts(reader.strict(initial_keys=("tenant",))).issues


def test_filtered_mode_from_the_builder_or_the_config():
    pipeline = Agent("researcher").instruct("Research.") >> Agent("writer")
    assert not check_contracts(pipeline).issues
    assert check_contracts(pipeline.filtered()).codes() == ["internal-no-output"]
    assert check_contracts(pipeline, visibility_mode="filtered").codes() == ["internal-no-output"]
    # .strict() builds only refuse errors; the silent-agent warning stays a warning
    app_config = ExecutionConfig(visibility="annotated")
    assert pipeline.strict().to_app(app_config) is not None


def test_route_with_otherwise_copes_with_a_missing_key():
    maybe = Route("mode").eq("x", S.set(kind="k")).otherwise(S.set(other="o")) >> Route("kind").eq(
        "k", Agent("a")
    ).otherwise(Agent("b"))
    report = check_contracts(maybe, initial_keys=["mode"])
    assert "maybe-unset" not in report.codes()  # a missing 'kind' takes .otherwise()
    no_otherwise = Route("mode").eq("x", S.set(kind="k")).otherwise(S.set(other="o")) >> Route(
        "kind"
    ).eq("k", Agent("a"))
    assert "maybe-unset" in check_contracts(no_otherwise, initial_keys=["mode"]).codes()
