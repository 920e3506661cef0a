"""A real headless browser for the tests: Debian's chromium driven by selenium through its
chromedriver (`.ci/install-chromium` installs both on CI; selenium is in the dev extra).

Use it from a test module by naming the fixture there:

    from tests.support import browser

    chromium = browser.chromium

then ask for `chromium` (a selenium WebDriver; `chromium.get(path.as_uri())`). Tests skip, with
the reason, only where no browser can be had; with ADK_FLUENT_REQUIRE_BROWSER=1 (set by .ci/run
when chromium is installed) they fail instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# set by .ci/run once .ci/install-chromium found or installed chromium: no skipping then
REQUIRE_ENV = "ADK_FLUENT_REQUIRE_BROWSER"
# the flags that work on a machine without a screen, a sandbox or a network (and as root)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1600",
)


class Unavailable(Exception):
    """No browser can be had here; the message says why (the skip reason)."""


def executables() -> tuple[str, str]:
    """(chromium, chromedriver) paths, or Unavailable naming what is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    for name, found, fallback in (
        ("chromium", browser, "/usr/bin/chromium"),
        ("chromedriver", driver, "/usr/bin/chromedriver"),
    ):
        if found is None and not Path(fallback).exists():
            raise Unavailable(
                f"no {name} here: install Debian's chromium and chromium-driver "
                "(.ci/install-chromium does, as root)"
            )
    return browser or "/usr/bin/chromium", driver or "/usr/bin/chromedriver"


def start(profile: Path) -> Any:
    """A headless chromium under selenium, with a fresh profile folder."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as error:
        raise Unavailable(f"selenium is not installed ({error}); it is in the dev extra") from None
    browser, driver = executables()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless chromium (a selenium WebDriver) shared by a module's tests."""
    profile = Path(tempfile.mkdtemp(prefix="adk-fluent-chromium-"))
    try:
        try:
            driver = start(profile)
        except Unavailable as missing:
            if os.environ.get(REQUIRE_ENV):
                pytest.fail(f"{REQUIRE_ENV} is set but {missing}")
            pytest.skip(str(missing))
        try:
            yield driver
        finally:
            driver.quit()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
