"""Regenerate docs/images/run-report.png, the picture of an HTML run report in docs/report.md
(`make report-screenshot`; not run in CI): the support flow of tests/support/report_runs.py run
twice through the real ADK Runner with scripted models into a SQLite store, `adk-fluent report
--store ... --html ... --all` run as a process, and the page shot whole in headless chromium
(tests/support/browser.py; Debian's chromium and chromium-driver, and selenium).

    python -m tests.support.report_screenshot [OUT.png]
"""

from __future__ import annotations

import base64
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support import browser
from tests.support.report_runs import stored_support_session

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "docs" / "images" / "run-report.png"
WIDTH = 1200


def main(out: Path = DEFAULT_OUT) -> Path:
    """Write the screenshot to `out`; its path."""
    from selenium.webdriver.support.ui import WebDriverWait

    with tempfile.TemporaryDirectory(prefix="adk-fluent-report-shot-") as folder:
        where = Path(folder)
        url = f"sqlite:///{where / 'sessions.db'}"
        stored_support_session(url, payload=False)
        page = where / "run.html"
        subprocess.run(
            [sys.executable, "-m", "adk_fluent.cli", "report", "--store", url, "--html", str(page)]
            + ["--all"],
            cwd=ROOT,
            check=True,
        )
        driver = browser.start(where / "profile")
        try:
            driver.set_window_size(WIDTH, 900)
            driver.get(page.as_uri())
            WebDriverWait(driver, 60).until(
                lambda d: d.execute_script(
                    "return document.querySelectorAll('#usage .barlayer .point').length"
                )
            )
            # the whole page, not the window: chromium's own capture beyond the viewport
            size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
            shot = driver.execute_cdp_cmd(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": WIDTH, "height": size["height"], "scale": 1},
                },
            )
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(base64.b64decode(shot["data"]))
        finally:
            driver.quit()
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return out


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else DEFAULT_OUT)
