"""`adk-fluent report --html` run as a process on a real run stored in SQLite (and on a recording
of it), and the page it writes opened in headless chromium from a file:// URL: the charts
render (one timeline bar per agent run, nested rows, the failed ones red; a cost bar and token
bars per agent), the error row is highlighted, the state rows are there, nothing is fetched
from the network, and the script in the agents' replies shows as text and never runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import browser
from tests.support.report_runs import LLM_AGENTS, PAYLOAD, stored_support_session

chromium = browser.chromium

REPO = Path(__file__).resolve().parents[3]
# each turn: support, intake, set_seen, route_kind, desk, helper, writer; the second also audit
BARS = 7 + 8
ERROR_RGB = "rgb(214, 39, 40)"  # report_html.ERROR_COLOUR
ERROR_ROW_RGB = "rgb(253, 236, 234)"


def report(*args: str) -> subprocess.CompletedProcess[str]:
    """`adk-fluent report ARGS` as a process (the module form: it runs the checkout's code)."""
    return subprocess.run(
        [sys.executable, "-m", "adk_fluent.cli", "report", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )


def opened(driver: Any, page: Path) -> Any:
    """Load the page and wait until plotly has drawn the timeline."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page.as_uri())
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script(
            "return document.querySelectorAll('#timeline .barlayer .point path').length"
        )
    )
    return driver


def js(driver: Any, script: str) -> Any:
    return driver.execute_script(script)


@pytest.fixture(scope="module")
def session_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    url = f"sqlite:///{folder / 'sessions.db'}"
    stored_support_session(url)
    out = folder / "run.html"
    done = report("--store", url, "--html", str(out), "--all")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {out}") and done.stderr == ""
    return out


def test_the_charts_render_one_bar_per_agent_run(chromium, session_page):
    driver = opened(chromium, session_page)
    bars = js(
        driver,
        "return [...document.querySelectorAll('#timeline .barlayer .point path')]"
        ".map(p => [p.getBBox().width, getComputedStyle(p).fill])",
    )
    assert len(bars) == BARS
    assert all(width > 0 for width, _ in bars)
    assert [fill for _, fill in bars].count(ERROR_RGB) == 2  # the failing step, its pipeline
    # the rows: each agent under its parent, indented (plotly draws the labels as SVG text)
    labels = js(
        driver,
        "return [...document.querySelectorAll('#timeline .yaxislayer-above .ytick text')]"
        ".map(t => t.textContent)",
    )
    names = [label.strip("\u00a0") for label in labels]
    for name in ("support", "route_kind", *LLM_AGENTS, "set_seen", "audit"):
        assert name in names, (name, labels)
    assert "\u00a0" * 9 + "helper" in labels
    # cost (one bar per LLM agent) and tokens (input and output per agent)
    assert js(driver, "return document.querySelectorAll('#usage .barlayer .point').length") == (
        3 * len(LLM_AGENTS)
    )
    titles = js(
        driver,
        "return [...document.querySelectorAll('#usage .annotation-text')].map(t => t.textContent)",
    )
    assert titles == ["cost (USD)", "tokens"]


def test_the_error_row_is_highlighted_and_the_state_rows_are_there(chromium, session_page):
    driver = opened(chromium, session_page)
    errors = js(
        driver,
        "return [...document.querySelectorAll('#steps tr.error')]"
        ".map(r => [r.innerText, getComputedStyle(r.cells[0]).backgroundColor])",
    )
    assert len(errors) == 1
    text, background = errors[0]
    assert "audit" in text and "STATE_STEP_RAISED" in text and background == ERROR_ROW_RGB
    assert js(driver, "return getComputedStyle(document.getElementById('errors')).display") != (
        "none"
    )
    changes = js(
        driver,
        "return [...document.querySelectorAll('#steps tr.state .changes li')]"
        ".map(li => li.innerText)",
    )
    for change in ("kind = order", "seen = true", "order_status = shipped", "order_status = lost"):
        assert change in changes, changes


def test_no_script_from_the_session_runs_and_nothing_is_fetched(chromium, session_page):
    driver = opened(chromium, session_page)
    assert js(driver, "return typeof window.__pwned") == "undefined"
    said = js(driver, "return [...document.querySelectorAll('#steps .said')].map(d => d.innerText)")
    assert any(PAYLOAD in text for text in said)
    assert js(driver, "return document.querySelectorAll('#steps img').length") == 0
    # one page, no other resource: plotly.js is inside it
    assert js(driver, "return performance.getEntriesByType('resource').length") == 0


def test_the_page_of_a_recording_renders(chromium, tmp_path):
    import asyncio

    from adk_fluent import ExecutionConfig
    from adk_fluent.replay import Recorder
    from adk_fluent.testing import mock_backend
    from tests.support.report_runs import scripts, support_flow

    async def record() -> Path:
        flow = support_flow()
        recorder = Recorder(tree=flow)
        backend = mock_backend(scripts())
        for prompt in ("Where is A7?", "Where is B9?"):
            await flow.run(prompt, backend=backend, config=ExecutionConfig(middleware=[recorder]))
        return recorder.save(tmp_path / "run.jsonl")

    path = asyncio.run(record())
    out = tmp_path / "recording.html"
    done = report("--recording", str(path), "--html", str(out), "--all")
    assert done.returncode == 0, done.stderr
    driver = opened(chromium, out)
    assert js(
        driver, "return document.querySelectorAll('#timeline .barlayer .point path').length"
    ) == (BARS)
    axis = js(driver, "return document.querySelector('#timeline .xtitle').textContent")
    assert axis == "record number"
    assert js(driver, "return document.querySelectorAll('#steps tr.error').length") == 1
    assert js(driver, "return typeof window.__pwned") == "undefined"
