"""What the browser session stands on: a `modelstore studio` process (its URL read from
its stdout), a headless Chromium driven by Selenium, and waits on conditions (never
sleeps). Used by test_*.py here; run through run.py."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

BINARY = os.environ.get("MODELSTORE_BIN", ".build/debug/modelstore")
ARTIFACTS = Path(os.environ.get("STUDIO_ARTIFACTS", ".build/browser-artifacts"))
WAIT_SECONDS = float(os.environ.get("STUDIO_WAIT_SECONDS", "30"))
URL = re.compile(r"^http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_\-]+$")


class Studio:
    """`modelstore studio ARGS` on a random port; `url` is the URL it prints, with its token."""

    def __init__(self, *args: str):
        self.process = subprocess.Popen([BINARY, "studio", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.stderr: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()
        line = self.process.stdout.readline().strip()
        if not URL.match(line):
            self.process.kill()
            self.process.wait(timeout=10)
            raise RuntimeError(f"modelstore studio printed {line!r}, not its URL; stderr: {''.join(self.stderr)}")
        self.url = line

    def _drain(self) -> None:
        for line in self.process.stderr:
            self.stderr.append(line)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def chromium() -> webdriver.Chrome:
    """Headless Chromium with a 1400×860 viewport (the README's screenshots)."""
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("STUDIO_CHROMIUM", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--force-device-scale-factor=1",
                "--window-size=1400,860", "--lang=en-US", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(os.environ.get("STUDIO_CHROMEDRIVER", "/usr/bin/chromedriver")))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 860, "deviceScaleFactor": 1, "mobile": False})
    return driver


class Page:
    """The driver with the waits and lookups the session uses."""

    def __init__(self, driver: webdriver.Chrome):
        self.d = driver

    def wait(self, condition, what: str):
        """Waits until `condition(driver)` is truthy (exceptions from stale elements count as not yet)."""
        def check(d):
            try:
                return condition(d)
            except StaleElementReferenceException:
                return False
        try:
            return WebDriverWait(self.d, WAIT_SECONDS, poll_frequency=0.05).until(check)
        except TimeoutException:
            raise AssertionError(f"timed out waiting for {what}; page errors: {self.console_errors()}") from None

    def one(self, css: str) -> WebElement:
        return self.wait(lambda d: d.find_element(By.CSS_SELECTOR, css), f"element {css}")

    def click(self, css: str) -> None:
        """Clicks the element `css` names now: when the page redraws it between the lookup and
        the click (a stale element: the click did not happen), it is looked up again."""
        self.wait(lambda d: d.find_element(By.CSS_SELECTOR, css).click() is None, f"a click on {css}")

    def type(self, css: str, *keys: str) -> None:
        """Replaces the text of the field `css` names now with `keys` (looked up again when the
        page redraws it meanwhile, and typed again from empty)."""
        def typed(d):
            field = d.find_element(By.CSS_SELECTOR, css)
            field.clear()
            field.send_keys(*keys)
            return True
        self.wait(typed, f"typing into {css}")

    def all(self, css: str) -> list[WebElement]:
        return self.d.find_elements(By.CSS_SELECTOR, css)

    def texts(self, css: str) -> list[str]:
        return [e.text for e in self.all(css)]

    def go(self, hash_: str) -> None:
        """Goes to a route of the page (#/...) as a user following a link would."""
        self.d.execute_script("location.hash = arguments[0]", hash_)

    def table_ids(self) -> list[str]:
        return [e.get_attribute("data-id") for e in self.all("table.grid tbody tr[data-id]")]

    def wait_table(self, entity: str) -> None:
        """Waits until the table of `entity` shows its rows (or its empty row) for the current route."""
        self.wait(lambda d: d.execute_script(
            "const t = document.querySelector('table.grid[data-entity=\"' + arguments[0] + '\"]');"
            "return t && !t.classList.contains('busy') && t.tBodies[0].rows.length > 0;", entity), f"the {entity} table")

    def screenshot(self, name: str, show: str | None = None) -> Path:
        """Saves the viewport as ARTIFACTS/NAME.png, scrolled to the element `show` (CSS) if given,
        without the toasts earlier steps left (they fade by themselves a few seconds later)."""
        self.d.execute_script("document.querySelectorAll('.toast').forEach((t) => t.remove())")
        if show:
            self.d.execute_script("arguments[0].scrollIntoView({block: 'start'})", self.one(show))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.d.save_screenshot(str(path))
        return path

    def console_errors(self) -> list[str]:
        try:
            return [e["message"] for e in self.d.get_log("browser") if e["level"] == "SEVERE"]
        except Exception:  # the log is best effort, for failure messages only
            return []


def query(store: Path, entity: str, predicate: str | None = None, *extra: str) -> list[dict]:
    """The objects `modelstore query` reads from the store file (another process, read-only)."""
    args = [BINARY, "query", str(store), entity] + ([predicate] if predicate else []) + ["--format", "json", *extra]
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(f"modelstore query failed: {p.stderr}")
    return json.loads(p.stdout)
