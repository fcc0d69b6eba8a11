"""The approval page's grant choice and select-all, in a real browser (Debian's chromium, driven by
Playwright), against ``fruitctl serve`` in its own process: a person approves one proposal and
allows the same for an hour, after which the agent's next such write runs without asking; then
selects every waiting proposal and approves them with one button."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect, sync_playwright
from test_http_browser import WAIT_MS, _sign_in, chromium, daemon, propose_over_socket

from fruitctl import bootstrap
from fruitctl.transports.http.notify import Notifier
from fruitctl.transports.http.server import HttpServer
from fruitctl.transports.http.tokens import TokenStore, secrets_dir
from fruitctl.transports.rpc.client import RpcClient

pytestmark = pytest.mark.slow
__all__ = ["daemon"]  # the fixture, shared with the first browser test


def call_over_socket(socket: Path, name: str, arguments: dict[str, Any]) -> Any:
    client = RpcClient.connect(socket)
    assert client is not None
    try:
        return client.request("tools.call", {"name": name, "arguments": arguments})
    finally:
        client.close()


def test_a_grant_chosen_on_the_page_and_select_all(home: Path, daemon: Path) -> None:
    app = bootstrap.build()
    admin = TokenStore(secrets_dir(app)).issue("admin", 3600, "alice")[0]
    first = propose_over_socket(daemon, "Buy oat milk")
    server = HttpServer(app, "127.0.0.1", 0, notifier=Notifier(which=lambda name: None))
    try:
        with server.running() as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            _sign_in(page, url, admin)
            _approves_allowing_an_hour(page, url, first)
            direct = call_over_socket(
                daemon, "create_reminders", {"reminders": [{"title": "Buy bread"}]}
            )
            assert isinstance(direct, list) and direct[0]["title"] == "Buy bread"
            _approves_every_one_selected(page, url, daemon)
            browser.close()
        assert problems == []
    finally:
        app.close()


def _approves_allowing_an_hour(page: Page, url: str, first: dict[str, Any]) -> None:
    page.goto(f"{url}/ui/proposals/{first['proposalId']}")
    page.select_option("#allow_for", "1h")
    page.select_option("#scope", "list")
    page.click("#approve")
    expect(page.locator(".notice")).to_contain_text("the agent may now do the same there")
    expect(page.locator("#status")).to_have_text("EXECUTED")


def _approves_every_one_selected(page: Page, url: str, socket: Path) -> None:
    for name in ("Garden", "Books"):  # another tool: outside the grant, so proposed
        filed = call_over_socket(socket, "create_reminder_list", {"name": name})
        assert filed["status"] == "pending"
    page.goto(f"{url}/ui/proposals")
    expect(page.locator(".card")).to_have_count(2, timeout=WAIT_MS)
    page.check("#select-all")
    expect(page.locator("input.pick:checked")).to_have_count(2)
    page.click("#approve-selected")
    expect(page.locator("#notice")).to_have_text("Approved 2; 0 failed.")
    expect(page.locator(".card")).to_have_count(0)
    expect(page.locator("#pending")).to_contain_text("Nothing is waiting")
