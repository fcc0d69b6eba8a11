"""The approval page in a real browser (Debian's chromium, driven by Playwright).

An agent proposes a reminder through the daemon's socket (``fruitctl serve`` in its own process);
the HTTP server runs on a free loopback port on the same data; a person signs in with an admin
token, sees the proposal arrive in the live list, reads its diff, approves it, and the reminder
exists. Screenshots of the list and detail pages go to ``tests/artifacts/``.

``make test`` installs chromium when it is missing on Debian as root (Playwright's own browser
download cannot work here). Without it this test fails where it is required (there, and with
FRUITCTL_TEST_STRICT=1 as on CI) and skips elsewhere (a Mac), saying how to get it (tests/needs.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from needs import missing
from playwright.sync_api import Page, expect, sync_playwright

from fruitctl import bootstrap
from fruitctl.transports.http.notify import Notifier
from fruitctl.transports.http.server import HttpServer
from fruitctl.transports.http.tokens import TokenStore, secrets_dir
from fruitctl.transports.rpc.client import RpcClient

pytestmark = pytest.mark.slow  # its one test takes two seconds or more

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
WAIT_MS = 15_000
PHONE = {"width": 390, "height": 844}


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        missing(
            "needs Debian's chromium: no `chromium` on PATH (on Debian `make test` as root "
            "installs it, or `sudo apt-get install -y chromium`)"
        )
    return found


@pytest.fixture
def daemon(home: Path) -> Iterator[Path]:
    """``fruitctl serve`` in its own process on this test's data; its socket path."""
    app = bootstrap.build()
    socket = app.config.paths.socket_file
    app.close()
    env = {**os.environ, "FRUITCTL_HOME": str(home)}
    process = subprocess.Popen(
        [sys.executable, "-m", "fruitctl", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while (probe := RpcClient.connect(socket)) is None:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "the daemon did not start"
            time.sleep(0.05)
        probe.close()
        yield socket
    finally:
        process.terminate()
        process.wait(10)
        if process.stderr:
            process.stderr.close()


def propose_over_socket(socket: Path, title: str) -> dict[str, Any]:
    client = RpcClient.connect(socket)
    assert client is not None
    try:
        arguments = {"reminders": [{"title": title, "notes": "for the weekend"}]}
        result: dict[str, Any] = client.request(
            "tools.call", {"name": "create_reminders", "arguments": arguments}
        )
    finally:
        client.close()
    assert result["status"] == "pending"
    return result


def test_a_person_approves_in_the_browser_what_an_agent_proposed(home: Path, daemon: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    app = bootstrap.build()
    admin = TokenStore(secrets_dir(app)).issue("admin", 3600, "alice")[0]
    first = propose_over_socket(daemon, "Buy oat milk")
    silent = Notifier(which=lambda name: None)  # finds no notifier program
    server = HttpServer(app, "127.0.0.1", 0, notifier=silent)
    try:
        with server.running() as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            _sign_in(page, url, admin)
            _sees_the_list_update(page, daemon, first)
            _reads_the_diff_and_approves(page, first)
            browser.close()
        assert problems == []  # no CSP violation, no script error
    finally:
        app.close()
    found = bootstrap.build()
    try:
        titles = [r["title"] for r in found.call("query_reminders", {"list": {"all": True}})]
    finally:
        found.close()
    assert "Buy oat milk" in titles


def _sign_in(page: Page, url: str, token: str) -> None:
    page.goto(f"{url}/ui/proposals")
    expect(page).to_have_url(f"{url}/ui/signin")
    page.fill("#token", token)
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{url}/ui/proposals")


def _sees_the_list_update(page: Page, socket: Path, first: dict[str, Any]) -> None:
    expect(page.locator(".card")).to_have_count(1)
    expect(page.locator(".card").first).to_contain_text("Buy oat milk")
    second = propose_over_socket(socket, "Call the plumber")
    # No reload: the page's script fetches the list again by itself.
    expect(page.locator(".card")).to_have_count(2, timeout=WAIT_MS)
    expect(page.locator("#pending")).to_contain_text("Call the plumber")
    expect(page.locator("time.countdown").first).to_contain_text("h")  # "23h 59m"
    page.screenshot(path=str(ARTIFACTS / "ui-pending.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / "ui-pending-phone.png"), full_page=True)
    assert second["proposalId"] != first["proposalId"]


def _reads_the_diff_and_approves(page: Page, first: dict[str, Any]) -> None:
    page.click(f"a[href='/ui/proposals/{first['proposalId']}']")
    expect(page.locator("h1")).to_contain_text("Buy oat milk")
    rows = page.locator("table.diff tbody tr")
    expect(rows.filter(has_text="title").locator("td.after")).to_have_text("Buy oat milk")
    expect(rows.filter(has_text="notes").locator("td.after")).to_have_text("for the weekend")
    expect(page.locator("#status")).to_have_text("PENDING")
    page.screenshot(path=str(ARTIFACTS / "ui-proposal-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1100, "height": 900})
    page.screenshot(path=str(ARTIFACTS / "ui-proposal.png"), full_page=True)
    page.click("#approve")
    expect(page.locator(".notice")).to_have_text("Approved and executed.")
    expect(page.locator("#status")).to_have_text("EXECUTED")
    expect(page.locator("#undo")).to_be_visible()
