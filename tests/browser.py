"""Debian's chromium, headless, driven by Selenium through Debian's chromedriver: never a browser or driver downloaded."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
CHROMEDRIVER = shutil.which("chromedriver")
MISSING = "Debian's chromium and chromium-driver are not installed (make test installs them)"
needs_browser = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=MISSING)


def headless_chromium(profile: Path, width: int = 1400, height: int = 1000) -> Any:
    """A Selenium driver of Debian's Chromium, headless, its profile in ``profile``, its window ``width`` x ``height``, nothing fetched in the background."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_window_size(width, height)
    return driver
