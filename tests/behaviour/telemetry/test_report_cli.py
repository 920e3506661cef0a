"""`adk-fluent report`: the usage of a stored session's runs, read from a SQLite store that
adk-fluent's run() wrote, in the terminal and as JSON; a missing store, app or session is exit
code 2 with a one-line reason."""

from __future__ import annotations

import asyncio
import json

import pytest

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.cli.main import main
from adk_fluent.telemetry import cost_attribution
from adk_fluent.testing import mock_backend, with_usage


def _two_runs(url: str, middleware=(cost_attribution(),)) -> None:
    agent = Agent("chat").instruct("Chat.")
    backend = mock_backend(
        {"chat": [with_usage("a", input=100, output=10), with_usage("b", input=300, output=20)]}
    )
    config = ExecutionConfig(middleware=tuple(middleware))

    async def runs() -> None:
        for prompt in ("one", "two"):
            await agent.run(
                prompt, backend=backend, config=config, session_id="s1", session_store=url
            )

    asyncio.run(runs())


def test_the_last_run_by_default_and_every_run_with_all(sqlite_url, capsys):
    _two_runs(sqlite_url)
    assert main(["report", "--store", sqlite_url]) == 0
    last = capsys.readouterr().out
    assert "session s1 (app adk_fluent_app, user user): last run of 2" in last
    [row] = [line for line in last.splitlines() if line.startswith("chat")]
    assert row.split()[1:4] == ["1", "300", "20"]
    assert main(["report", "--store", sqlite_url, "--all", "--session", "s1"]) == 0
    every = capsys.readouterr().out
    [row] = [line for line in every.splitlines() if line.startswith("chat")]
    assert row.split()[1:4] == ["2", "400", "30"]


def test_json(sqlite_url, capsys):
    _two_runs(sqlite_url)
    assert main(["report", "--store", sqlite_url, "--json", "--all"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert (body["session_id"], body["calls"], body["input_tokens"]) == ("s1", 2, 400)
    assert body["cost_usd"] == pytest.approx((100 * 0.3 + 10 * 2.5 + 300 * 0.3 + 20 * 2.5) / 1e6)
    assert [i["calls"] for i in body["invocations"]] == [1, 1]


def test_a_store_without_records_says_what_to_add(sqlite_url, capsys):
    _two_runs(sqlite_url, middleware=())
    assert main(["report", "--store", sqlite_url]) == 0
    assert "add cost_attribution()" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (["--app", "shop"], "no sessions of app 'shop'"),
        (["--session", "nope"], "no session 'nope'"),
        (["--user", "someone"], "of user 'someone'"),
    ],
)
def test_what_is_not_there_is_exit_code_2(sqlite_url, capsys, extra, reason):
    _two_runs(sqlite_url)
    assert main(["report", "--store", sqlite_url, *extra]) == 2
    err = capsys.readouterr().err
    assert reason in err and err.count("\n") == 1


def test_a_missing_database_file_is_not_created(tmp_path, capsys):
    missing = tmp_path / "missing.db"
    assert main(["report", "--store", f"sqlite:///{missing}"]) == 2
    assert "no database file" in capsys.readouterr().err
    assert not missing.exists()
