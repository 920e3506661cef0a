"""`adk-fluent report --html OUT` (and html_report()): one self-contained page of a real run
stored in SQLite or recorded to a file: the timeline of the agents (nested paths, call depth,
durations), cost and tokens per agent, the state changes per step and the errors highlighted;
every string of the run escaped; an empty session, a run without usage records and unpriced
models said so; misuse is exit code 2 with one line. The page in a real browser:
tests/integration/telemetry/test_html_report_browser.py."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from adk_fluent import Prices
from adk_fluent.cli.main import main
from adk_fluent.replay import Recorder
from adk_fluent.telemetry import cost_attribution, usage
from adk_fluent.telemetry.report_html import ERROR_COLOUR, html_report
from tests.support.report_runs import (
    LLM_AGENTS,
    PAYLOAD,
    run_support,
    stored_support_session,
    support_flow,
)

ROOT = "support"
USAGE_ROWS = ["intake", "route_kind/desk", "route_kind/desk/helper", "writer"]


# -- reading the page ---------------------------------------------------------------------------
def figure(page: str, div: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(data, layout) of the plotly figure drawn into `div`."""
    start = page.index(f'Plotly.newPlot(                        "{div}",')
    decoder = json.JSONDecoder()
    at = page.index("[", start)
    data, end = decoder.raw_decode(page, at)
    layout, _ = decoder.raw_decode(page, page.index("{", end))
    return data, layout


class Rows(HTMLParser):
    """The steps table's rows: (classes, cell texts)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[set[str], list[str]]] = []
        self._cell: list[str] | None = None
        self._in_steps = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and found.get("id") == "steps":
            self._in_steps = True
        elif tag == "tr" and self._in_steps and "step" in (found.get("class") or "").split():
            self.rows.append((set((found.get("class") or "").split()), []))
        elif tag == "td" and self._in_steps and self.rows:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.rows[-1][1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._in_steps = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def rows(page: str) -> list[tuple[set[str], list[str]]]:
    parser = Rows()
    parser.feed(page)
    return parser.rows


def report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(["report", *argv])
    except SystemExit as exited:
        code = exited.code if isinstance(exited.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


async def session_of(url: str) -> Any:
    return await support_flow().session("s1", session_store=url)


# -- a stored session ---------------------------------------------------------------------------
def test_the_page_of_a_stored_session_shows_every_agent_its_cost_state_and_error(
    sqlite_url, tmp_path, capsys
):
    stored_support_session(sqlite_url)
    out = tmp_path / "run.html"
    code, said, err = report(["--store", sqlite_url, "--html", str(out), "--all"], capsys)
    assert (code, err) == (0, "")
    assert said.startswith(f"wrote {out} (") and "session s1" in said
    page = out.read_text(encoding="utf-8")
    # self-contained: plotly.js is inside, nothing is loaded from elsewhere
    assert "<script src=" not in page and "Plotly.newPlot" in page

    data, layout = figure(page, "timeline")
    (bars,) = data
    paths = bars["y"]
    for name in (*LLM_AGENTS, "set_seen", "audit"):
        assert any(path.endswith(f"/{name}") for path in paths), name
    # each agent runs once per turn: two bars on its row; the pipeline and route too
    assert paths.count(f"{ROOT}/intake") == 2
    assert paths.count(f"{ROOT}/route_kind") == 2 and paths.count(ROOT) == 2
    # nested: each row under its parent, indented one step more
    order = layout["yaxis"]["tickvals"]
    assert (
        order.index(ROOT)
        < order.index(f"{ROOT}/route_kind")
        < order.index(f"{ROOT}/route_kind/desk")
        < order.index(f"{ROOT}/route_kind/desk/helper")
    )
    labels = dict(zip(order, layout["yaxis"]["ticktext"], strict=True))
    assert labels[f"{ROOT}/route_kind/desk/helper"] == "\u00a0" * 9 + "helper"
    # the delegated helper runs one level below its caller; durations are real seconds
    helper = [h for y, h in zip(paths, bars["hovertext"], strict=True) if y.endswith("/helper")]
    assert all("call depth 1" in text for text in helper)
    assert all(length > 0 for length in bars["x"])
    assert layout["xaxis"]["title"]["text"] == "seconds since the first event"
    # the failed step, and the pipeline it failed in (second turn), are red; the rest not
    colours = dict(zip(zip(paths, bars["base"], strict=True), bars["marker"]["color"], strict=True))
    failed = sorted(path for (path, _), colour in colours.items() if colour == ERROR_COLOUR)
    assert failed == [ROOT, f"{ROOT}/audit"]

    # cost and tokens per LLM agent, as usage() counts them
    stored = usage(asyncio.run(session_of(sqlite_url)))
    data, _ = figure(page, "usage")
    cost = next(trace for trace in data if trace["name"] == "cost")
    assert cost["y"] == USAGE_ROWS  # the root every path shares is left out
    expected = {a.agent: a for a in stored.by_agent().values()}
    assert cost["x"] == pytest.approx([expected[name].cost_usd for name in LLM_AGENTS])
    tokens = next(trace for trace in data if trace["name"] == "input tokens")
    assert tokens["x"] == [expected[name].input_tokens for name in LLM_AGENTS]
    assert "1 error(s)" in page

    # the steps: state changes with their agent, the error row marked
    table = rows(page)
    changed = {cells[2]: cells[4] for classes, cells in table if "state" in classes}
    assert changed["intake"] == "kind = order"
    assert changed["set_seen"] == "seen = true"
    assert "order_status = lost" in [cells[4] for _, cells in table if cells[2] == "desk"]
    (error,) = [cells for classes, cells in table if "error" in classes]
    assert error[2] == "audit" and "STATE_STEP_RAISED" in error[5]
    assert "refund limit exceeded" in error[5]


def test_text_from_the_session_is_shown_never_run(sqlite_url, tmp_path, capsys):
    stored_support_session(sqlite_url, turns=1)
    out = tmp_path / "run.html"
    assert report(["--store", sqlite_url, "--html", str(out)], capsys)[0] == 0
    page = out.read_text(encoding="utf-8")
    assert PAYLOAD not in page and "<script>window.__pwned" not in page
    assert "<img src=x" not in page
    assert "&lt;/script&gt;&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
    # the reply is there as text, in the steps table and in the state the writer wrote
    said = [cells[5] for _, cells in rows(page) if cells[2] in ("helper", "writer")]
    assert any(PAYLOAD in text for text in said)
    assert any(PAYLOAD in cells[4] for _, cells in rows(page) if cells[2] == "writer")
    # only plotly's and the figures' scripts: one <script> for the library, one per figure
    assert page.count("<script") == 3


def test_the_last_run_by_default(sqlite_url, tmp_path, capsys):
    stored_support_session(sqlite_url)
    out = tmp_path / "run.html"
    assert report(["--store", sqlite_url, "--html", str(out)], capsys)[0] == 0
    page = out.read_text(encoding="utf-8")
    assert "the last run" in page
    (bars,), _ = figure(page, "timeline")
    assert bars["y"].count(f"{ROOT}/intake") == 1
    users = [cells[5] for _, cells in rows(page) if cells[2] == "user"]
    assert users == ["Where is B9?"]


def test_a_run_without_usage_records_says_what_to_add(sqlite_url, tmp_path, capsys):
    stored_support_session(sqlite_url, middleware=(), turns=1)
    out = tmp_path / "run.html"
    assert report(["--store", sqlite_url, "--html", str(out)], capsys)[0] == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="usage-none"' in page and 'id="usage"' not in page
    assert "add cost_attribution() to the middleware" in page
    assert 'id="timeline"' in page  # the timeline needs no usage records


async def test_unpriced_models_count_tokens_and_say_no_price(sqlite_url):
    unpriced = cost_attribution(prices=Prices({}, defaults=False))
    with pytest.warns(Warning, match="price"):
        await run_support(sqlite_url, middleware=(unpriced,), turns=1)
    page = html_report(await session_of(sqlite_url))
    data, _ = figure(page, "usage")
    cost = next(trace for trace in data if trace["name"] == "cost")
    assert cost["text"] == ["no price"] * len(LLM_AGENTS) and cost["x"] == [0.0] * 4
    tokens = next(trace for trace in data if trace["name"] == "input tokens")
    assert tokens["x"] == [1200, 4100, 900, 1500]
    assert 'id="unpriced"' in page and "gemini-2.5-flash-scripted" in page


async def test_an_empty_session_is_a_page_that_says_so(sqlite_url, tmp_path, capsys):
    from adk_fluent.run.stores import close_session_stores, session_service_for

    service = session_service_for(sqlite_url)
    await service.create_session(app_name="adk_fluent_app", user_id="user", session_id="empty")
    await close_session_stores()
    out = tmp_path / "empty.html"
    code = await asyncio.to_thread(
        main, ["report", "--store", sqlite_url, "--session", "empty", "--html", str(out)]
    )
    assert code == 0
    page = out.read_text(encoding="utf-8")
    for said in ('id="timeline-none"', 'id="usage-none"', "no events", "0 event(s)"):
        assert said in page
    assert "Plotly.newPlot" not in page
    assert html_report([]).count("no model calls recorded") == 1


async def test_a_turn_run_with_lifecycle_events_gives_exact_starts_and_ends():
    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend
    from tests.support.report_runs import scripts

    config = ExecutionConfig(middleware=[cost_attribution()])
    events = await support_flow().run(
        "Where is A7?", backend=mock_backend(scripts()), config=config, lifecycle=True
    )
    (bars,), _ = figure(html_report(events), "timeline")
    # audit passed without a word: only its start and end show it ran
    assert f"{ROOT}/audit" in bars["y"]
    # the pipeline started first, and everything else started while it ran
    root = bars["y"].index(ROOT)
    assert bars["base"][root] == 0.0
    assert max(bars["base"]) < bars["base"][root] + bars["x"][root]
    (plain,), _ = figure(html_report([e for e in events if not e.agent_state]), "timeline")
    assert f"{ROOT}/audit" not in plain["y"]


# -- a recording --------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
async def test_the_page_of_a_recording(tmp_path, suffix):
    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend
    from tests.support.report_runs import scripts

    flow = support_flow()
    recorder = Recorder(tree=flow)
    backend = mock_backend(scripts())
    for prompt in ("Where is A7?", "Where is B9?"):
        await flow.run(prompt, backend=backend, config=ExecutionConfig(middleware=[recorder]))
    path = recorder.save(tmp_path / f"run{suffix}")
    out = tmp_path / "run.html"
    code = await asyncio.to_thread(
        main, ["report", "--recording", str(path), "--html", str(out), "--all"]
    )
    assert code == 0
    page = out.read_text(encoding="utf-8")
    (bars,), layout = figure(page, "timeline")
    assert layout["xaxis"]["title"]["text"] == "record number"  # a recording keeps no clock
    # agents that called no model (a state step, the failing step) are placed by the header's tree
    for name in (*LLM_AGENTS, "set_seen"):
        assert sum(path.endswith(f"/{name}") for path in bars["y"]) == 2, name
    assert bars["y"].count(f"{ROOT}/audit") == 1  # it says something only when it fails
    data, _ = figure(page, "usage")
    cost = next(trace for trace in data if trace["name"] == "cost")
    assert cost["y"] == USAGE_ROWS
    # priced from the tokens the replies reported, with the default table
    assert cost["x"][0] == pytest.approx(2 * (1200 * 0.3 + 30 * 2.5) / 1e6)
    (error,) = [cells for classes, cells in rows(page) if "error" in classes]
    assert error[2] == "audit" and "STATE_STEP_RAISED" in error[5]
    assert PAYLOAD not in page


async def test_the_text_and_json_reports_read_a_recording_too(tmp_path):
    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend
    from tests.support.report_runs import scripts

    flow = support_flow()
    recorder = Recorder()
    await flow.run(
        "Where is A7?",
        backend=mock_backend(scripts()),
        config=ExecutionConfig(middleware=[recorder]),
    )
    path = str(recorder.save(tmp_path / "run.json"))

    def printed(*extra: str) -> str:
        import contextlib
        import io

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["report", "--recording", path, *extra]) == 0
        return out.getvalue()

    text = await asyncio.to_thread(printed)
    assert text.startswith(f"recording {path}: last run of 1")
    [row] = [line for line in text.splitlines() if line.startswith("intake")]
    assert row.split()[1:4] == ["1", "1200", "30"]
    body = json.loads(await asyncio.to_thread(printed, "--json"))
    assert (body["recording"], body["calls"], body["input_tokens"]) == (path, 5, 7700)


# -- misuse -------------------------------------------------------------------------------------
def _not_a_recording(tmp_path: Path) -> str:
    path = tmp_path / "notes.json"
    path.write_text('{"hello": 1}', encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (lambda d: ["--recording", str(d / "missing.json"), "--html", str(d / "o.html")],
         "no recording at"),
        (lambda d: ["--recording", _not_a_recording(d), "--html", str(d / "o.html")],
         "is not an adk-fluent recording"),
        (lambda d: ["--recording", str(d / "run.txt"), "--html", str(d / "o.html")],
         "a recording is a .json or .jsonl file"),
        (lambda d: ["--store", "{url}", "--html", str(d / "no" / "such" / "o.html")],
         "no folder"),
        (lambda d: ["--store", "{url}", "--html", str(d)], "that is a folder"),
        (lambda d: ["--store", "{url}", "--html", str(d / "o.html"), "--json"],
         "argument --json: not allowed with argument --html"),
        (lambda d: ["--store", "{url}", "--recording", "r.json"],
         "argument --recording: not allowed with argument --store"),
        (lambda d: ["--recording", "r.json", "--session", "s1"], "--session names a stored session"),
        (lambda d: ["--html", str(d / "o.html")], "one of the arguments --store --recording"),
    ],
)  # fmt: skip
def test_misuse_is_one_line_and_exit_code_2(sqlite_url, tmp_path, capsys, argv, said):
    stored_support_session(sqlite_url, turns=1)
    args = [a.replace("{url}", sqlite_url) for a in argv(tmp_path)]
    code, out, err = report(args, capsys)
    assert code == 2 and out == ""
    assert said in err and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert not (tmp_path / "o.html").exists()


def test_without_the_report_extra_html_names_the_extra(sqlite_url, tmp_path, capsys, monkeypatch):
    stored_support_session(sqlite_url, turns=1)
    monkeypatch.setitem(sys.modules, "plotly", None)  # `import plotly` fails as if not installed
    code, out, err = report(["--store", sqlite_url, "--html", str(tmp_path / "o.html")], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert re.search(r"plotly, which is not installed: pip install -e '.*\[report\]'", err), err
    from adk_fluent.errors import BuildError

    with pytest.raises(BuildError, match=r"\[report\]"):
        html_report([])
