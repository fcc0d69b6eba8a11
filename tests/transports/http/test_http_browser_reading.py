"""The approval page read in a real browser (Debian's chromium, driven by Playwright) at a
desktop width: no status, id, time or actor is broken mid-word in a table, Approve is the primary
action (filled, reached first from the keyboard; Reject the quieter one), the footer says what
the policy in force really lets an agent do, and dates carry their weekday.

Skips or fails as ``test_http_browser`` does when chromium is missing (``tests/needs.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect, sync_playwright
from test_http_browser import ARTIFACTS, chromium

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.transports.http.notify import Notifier
from fruitctl.transports.http.server import HttpServer
from fruitctl.transports.http.tokens import TokenStore, secrets_dir

pytestmark = pytest.mark.slow  # most of its tests take two seconds or more

DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PERSON = Actor("human", "alice")
AGENTS = [Actor("agent", "claude-desktop-assistant"), Actor("agent", "codex-command-line")]
# A long summary in every row: the table must give the other columns their whole words anyway.
LONG = "Buy oat milk, bread, coffee beans and the other things on the weekly shopping list"

# The words of the cells under ``selector`` that the browser laid out over more than one line,
# broken between two letters or digits (a line may end after the hyphen of "claude-desktop").
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.textContent.matchAll(/[\\p{L}\\p{N}_]+/gu)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""

WEEKDAY = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} ")


def filed(app: bootstrap.App) -> dict[str, str]:
    """Proposals of every status a person decides, by agents with long names."""
    ids = {}
    for n, status in enumerate(("pending", "executed", "rejected", "failed")):
        args = {"reminders": [{"title": f"{LONG} {n}", "dueDate": "2026-03-06T17:00:00+01:00"}]}
        made = app.gateway.invoke("create_reminders", args, AGENTS[n % 2])
        assert made.success, made.error
        ids[status] = made.output["proposalId"]
    app.gateway.decide(ids["executed"], "approve", PERSON)
    app.gateway.decide(ids["rejected"], "reject", PERSON, "not this week")
    gone = app.call("query_reminders", {"list": {"all": True}})[0]["id"]
    app.call("delete_reminders", {"ids": [gone]})
    ids["failed"] = _a_failed_update(app)
    return ids


def _a_failed_update(app: bootstrap.App) -> str:
    made = app.call("create_reminders", {"reminders": [{"title": "moves meanwhile"}]})
    rid = made[0]["id"]
    proposed = app.gateway.invoke(
        "update_reminders", {"reminders": [{"id": rid, "priority": "high"}]}, AGENTS[0]
    )
    app.call("update_reminders", {"reminders": [{"id": rid, "title": "changed by hand"}]})
    pid = str(proposed.output["proposalId"])
    try:
        app.gateway.decide(pid, "approve", PERSON)
    except Exception as exc:  # the conflict: recorded as FAILED
        assert "changed" in str(exc)
    return pid


@pytest.mark.process
def test_tables_keep_words_whole_and_approve_leads(home: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    app = bootstrap.build()
    try:
        admin = TokenStore(secrets_dir(app)).issue("admin", 3600, "alice")[0]
        ids = filed(app)
        with _page(app, admin) as (page, url):
            for where, cells in (
                ("/ui/history", "td.word, td.actor"),
                ("/ui/audit", "td.word, td.actor"),
                (f"/ui/proposals/{ids['pending']}", "td.word, .facts dd"),
            ):
                page.goto(url + where)
                assert page.locator(cells).count() > 0, where
                assert page.evaluate(BROKEN_WORDS, cells) == [], where
                assert page.evaluate(BROKEN_WORDS, "td, th") == [], where  # at 1280 no word at all
            page.goto(f"{url}/ui/history")
            # The row was filed just now: whatever day that is, it is shown as its weekday.
            expect(page.locator("td.word").first).to_contain_text(WEEKDAY)
            page.screenshot(path=str(ARTIFACTS / "ui-history.png"), full_page=True)
            _approve_is_the_primary_action(page, url, ids["pending"])
            expect(page.locator("#policy-note")).to_contain_text(
                "write_file runs without asking you"
            )
    finally:
        app.close()


def _approve_is_the_primary_action(page: Page, url: str, pending: str) -> None:
    page.goto(f"{url}/ui/proposals/{pending}")
    expect(page.locator("table.diff")).to_contain_text("Fri 2026-03-06 17:00")
    colour = "e => getComputedStyle(e).backgroundColor"
    filled, quiet = (
        page.locator("#approve").evaluate(colour),
        page.locator("#reject").evaluate(colour),
    )
    assert (filled, quiet) == ("rgb(26, 127, 55)", "rgb(255, 255, 255)")  # --ok, --card
    page.focus("main a[href='/ui/proposals']")  # the link above the proposal, then Tab
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "approve"
    page.screenshot(path=str(ARTIFACTS / "ui-proposal-desktop.png"), full_page=True)


def test_the_footer_says_what_the_policy_in_force_lets_agents_do(home: Path) -> None:
    (home / "governance.yaml").parent.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(
        "tools:\n  write_file:\n    allowed_in_modes: []\n"
        "    requires_approval_in_modes: [NORMAL, ALERT, DEGRADED, RECOVERY]\n"
    )
    app = bootstrap.build()
    try:
        admin = TokenStore(secrets_dir(app)).issue("admin", 3600, "alice")[0]
        with _page(app, admin) as (page, _):
            note = page.locator("#policy-note")
            expect(note).to_have_text(
                "NORMAL mode: an agent's write changes nothing until you approve it"
            )
            (home / "governance.yaml").unlink()  # back to the default: write_file runs directly
    finally:
        app.close()
    app = bootstrap.build()
    try:
        with _page(app, admin) as (page, _):
            expect(page.locator("#policy-note")).to_contain_text("write_file runs without asking")
            expect(page.locator("footer")).not_to_contain_text("only when you approve")
    finally:
        app.close()


@contextmanager
def _page(app: bootstrap.App, admin: str) -> Iterator[tuple[Page, str]]:
    """A signed-in page in chromium at desktop width, on a server over ``app``."""
    server = HttpServer(app, "127.0.0.1", 0, notifier=Notifier(which=lambda name: None))
    with server.running() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport=DESKTOP)
        page.goto(f"{url}/ui/signin")
        page.fill("#token", admin)
        page.click("button[type=submit]")
        expect(page).to_have_url(f"{url}/ui/proposals")
        try:
            yield page, url
        finally:
            browser.close()
