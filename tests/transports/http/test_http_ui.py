"""The approval page through ``httpx.ASGITransport``: sign-in, the cookie, CSRF, escaping and the
visible hidden characters, approve / reject / undo, history and audit."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import pytest
from conftest import Client
from fastapi import FastAPI

from fruitctl.domain.actors import Actor
from fruitctl.transports.http.tokens import TokenStore
from fruitctl.transports.http.ui.text import reveal, reveal_plain


class Browser:
    """Carries the session cookie between requests, as a browser would."""

    def __init__(self, api: FastAPI) -> None:
        self.client = Client(api)
        self.cookie = ""

    def get(self, url: str) -> Any:
        return self.client.get(url, headers={"Cookie": self.cookie})

    def post(self, url: str, data: dict[str, str], **headers: str) -> Any:
        return self.client.post(url, data=data, headers={"Cookie": self.cookie, **headers})

    def sign_in(self, token: str) -> Any:
        response = self.client.post("/ui/signin", data={"token": token})
        if response.status_code == 303:
            self.cookie = response.headers["set-cookie"].split(";", 1)[0]
        return response

    def csrf(self, url: str) -> str:
        match = re.search(r'name="csrf" value="([0-9a-f]+)"', self.get(url).text)
        assert match, "the page has no CSRF field"
        return match.group(1)


@pytest.fixture
def browser(api: FastAPI, admin_token: str) -> Browser:
    signed = Browser(api)
    assert signed.sign_in(admin_token).status_code == 303
    return signed


def propose(agent: Client, title: str, **fields: Any) -> str:
    response = agent.post("/reminders", json={"title": title, **fields})
    assert response.status_code == 202
    return str(response.json()["proposalId"])


def test_pages_need_a_session(api: FastAPI) -> None:
    stranger = Browser(api)
    for url in ("/ui/proposals", "/ui/history", "/ui/audit", "/ui/proposals/pabc"):
        response = stranger.get(url)
        assert (response.status_code, response.headers["location"]) == (303, "/ui/signin")
    assert stranger.get("/ui/fragments/pending").status_code == 401
    assert stranger.get("/ui/signin").status_code == 200


def test_only_an_admin_token_signs_in(api: FastAPI, agent_token: str, admin_token: str) -> None:
    person = Browser(api)
    refused = person.sign_in(agent_token)
    assert refused.status_code == 401
    assert "not an admin token" in refused.text
    assert agent_token not in refused.text
    assert person.sign_in("nonsense").status_code == 401
    accepted = person.sign_in(admin_token)
    cookie = accepted.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=strict" in cookie
    assert "path=/ui" in cookie
    assert admin_token not in accepted.headers["set-cookie"]  # a session token, not the admin one


def test_sign_in_from_another_site_is_refused(api: FastAPI, admin_token: str) -> None:
    response = Client(api).post(
        "/ui/signin", data={"token": admin_token}, headers={"Origin": "http://evil.test"}
    )
    assert response.status_code == 403
    assert "set-cookie" not in response.headers


def test_the_session_cookie_is_no_api_credential(browser: Browser) -> None:
    assert browser.client.get("/reminders", headers={"Cookie": browser.cookie}).status_code == 401


def test_pending_list_and_fragment(browser: Browser, agent: Client) -> None:
    propose(agent, "Buy milk")
    page = browser.get("/ui/proposals")
    assert page.status_code == 200
    assert "Buy milk" in page.text
    assert 'data-refresh="/ui/fragments/pending"' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    propose(agent, "Then eggs")
    fragment = browser.get("/ui/fragments/pending")
    assert "Then eggs" in fragment.text
    assert "<html" not in fragment.text


def test_titles_are_escaped_and_hidden_characters_shown(browser: Browser, agent: Client) -> None:
    # What a title may keep (emoji and scripts need joiners and variation selectors) is shown.
    proposal = propose(agent, "<script>alert(1)</script>Pay\u200b 100\u2060 \u2764\ufe0f")
    for url in ("/ui/proposals", f"/ui/proposals/{proposal}", "/ui/history"):
        text = browser.get(url).text
        assert "<script>alert(1)" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
        for char in ("\u200b", "\u2060", "\ufe0f"):
            assert char not in text
            assert f"[U+{ord(char):04X}]" in text
    assert "invisible or direction-changing" in browser.get(f"/ui/proposals/{proposal}").text
    assert "hidden characters" in browser.get("/ui/proposals").text


def test_text_another_app_wrote_is_revealed_too(
    browser: Browser, agent: Client, admin: Client, app: Any
) -> None:
    created = admin.post("/reminders", json={"title": "plain"}).json()
    spoof = "Pay \u202e001 yaP\u2028second line\x85\u2066"
    with sqlite3.connect(app.config.paths.local_db) as db:  # e.g. synced from a shared list
        db.execute("UPDATE reminders SET title = ? WHERE id = ?", (spoof, created["id"]))
    response = agent.patch(f"/reminders/{created['id']}", json={"title": "Pay 100"})
    assert response.status_code == 202
    page = browser.get(f"/ui/proposals/{response.json()['proposalId']}").text
    for char in ("\u202e", "\u2028", "\x85", "\u2066"):
        assert char not in page
        assert f"[U+{ord(char):04X}]" in page
    assert "invisible or direction-changing" in page


def test_an_actor_is_revealed_wherever_it_is_shown(browser: Browser, app: Any) -> None:
    actor = Actor("agent", "cl\u202eaude\u200b")  # a door that took a name as it came
    args = {"reminders": [{"title": "x"}]}
    proposal = app.gateway.invoke("create_reminders", args, actor).output["proposalId"]
    for url in ("/ui/proposals", f"/ui/proposals/{proposal}", "/ui/history", "/ui/audit"):
        text = browser.get(url).text
        assert "\u202e" not in text and "\u200b" not in text, url
        assert "cl[U+202E]aude[U+200B]" in re.sub(r"<[^>]+>", "", text), url
    assert "hidden characters" in browser.get("/ui/proposals").text
    assert "invisible or direction-changing" in browser.get(f"/ui/proposals/{proposal}").text


@pytest.mark.parametrize(
    ("title", "named"),
    [
        ("one\u2028two", "U+2028 (LINE SEPARATOR): it must be one line"),
        ("one\u2029two", "U+2029 (PARAGRAPH SEPARATOR)"),
        ("next\x85line", "control characters: it holds U+0085"),
        ("Pay \u202e001", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ("isolated \u2067x", "U+2067 (RIGHT-TO-LEFT ISOLATE)"),
        ("bell\x07", "control characters: it holds U+0007"),
    ],
    ids=["line-separator", "paragraph-separator", "c1-next-line", "override", "isolate", "c0"],
)
def test_an_agent_cannot_write_such_characters_into_a_title(
    agent: Client, admin: Client, title: str, named: str
) -> None:
    response = agent.post("/reminders", json={"title": title})
    assert response.status_code == 422, response.text
    body = response.json()["error"]
    assert body["code"] == "VALIDATION_ERROR"
    assert body["message"].startswith("'title' ") and named in body["message"]
    assert admin.get("/proposals?status=pending").json() == []


def test_the_detail_page_shows_the_diff_and_the_countdown(
    browser: Browser, agent: Client, admin: Client
) -> None:
    rid = admin.post("/reminders", json={"title": "Old title"}).json()["id"]
    changed = agent.patch(f"/reminders/{rid}", json={"title": "New title"}).json()["proposalId"]
    page = browser.get(f"/ui/proposals/{changed}").text
    before = re.search(r'class="before[^"]*">([^<]*)<', page)
    after = re.search(r'class="after[^"]*">([^<]*)<', page)
    assert before and before.group(1) == "Old title"
    assert after and after.group(1) == "New title"
    assert 'class="countdown"' in page
    assert 'id="approve"' in page and 'id="reject"' in page


def test_approve_needs_the_csrf_token(browser: Browser, agent: Client, admin: Client) -> None:
    proposal = propose(agent, "Guarded")
    for data in ({}, {"csrf": "0" * 64}):
        refused = browser.post(f"/ui/proposals/{proposal}/approve", data)
        assert refused.status_code == 403
    token = browser.csrf(f"/ui/proposals/{proposal}")
    foreign = browser.post(
        f"/ui/proposals/{proposal}/approve", {"csrf": token}, Origin="http://evil.test"
    )
    assert foreign.status_code == 403
    assert admin.get(f"/proposals/{proposal}").json()["status"] == "PENDING"

    done = browser.post(f"/ui/proposals/{proposal}/approve", {"csrf": token})
    assert (done.status_code, done.headers["location"]) == (
        303,
        f"/ui/proposals/{proposal}?done=approved",
    )
    assert admin.get(f"/proposals/{proposal}").json()["status"] == "EXECUTED"
    assert admin.get(f"/proposals/{proposal}").json()["resolvedBy"].startswith("human:alice.")
    assert "Approved and executed." in browser.get(done.headers["location"]).text


def test_reject_with_a_reason_then_undo_an_executed_change(
    browser: Browser, agent: Client, admin: Client
) -> None:
    no = propose(agent, "No thanks")
    token = browser.csrf(f"/ui/proposals/{no}")
    browser.post(f"/ui/proposals/{no}/reject", {"csrf": token, "reason": "not today"})
    shown = admin.get(f"/proposals/{no}").json()
    assert (shown["status"], shown["reason"]) == ("REJECTED", "not today")
    again = browser.post(f"/ui/proposals/{no}/approve", {"csrf": token})
    assert again.status_code == 409
    assert "already REJECTED" in again.text

    yes = propose(agent, "Keep me")
    browser.post(f"/ui/proposals/{yes}/approve", {"csrf": token})
    assert 'id="undo"' in browser.get(f"/ui/proposals/{yes}").text
    undone = browser.post(f"/ui/proposals/{yes}/undo", {"csrf": token})
    undo_id = undone.headers["location"].split("/")[-1].split("?")[0]
    browser.post(f"/ui/proposals/{undo_id}/approve", {"csrf": token})
    assert admin.get("/reminders").json() == []


def test_history_and_audit_pages(browser: Browser, agent: Client) -> None:
    proposal = propose(agent, "Logged")
    assert proposal in browser.get("/ui/history").text
    audit = browser.get("/ui/audit").text
    assert "proposal_created" in audit
    assert f'href="/ui/proposals/{proposal}"' in audit


def test_revoking_the_admin_token_ends_its_page_sessions(
    browser: Browser, tokens: TokenStore
) -> None:
    assert browser.get("/ui/proposals").status_code == 200
    [admin] = [t for t in tokens.tokens() if t["scope"] == "admin"]
    tokens.revoke(admin["id"])
    assert browser.get("/ui/proposals").status_code == 303


def test_unknown_proposals_and_actions(browser: Browser, agent: Client) -> None:
    assert browser.get("/ui/proposals/pnothing").status_code == 404
    proposal = propose(agent, "x")
    token = browser.csrf(f"/ui/proposals/{proposal}")
    assert browser.post(f"/ui/proposals/{proposal}/explode", {"csrf": token}).status_code == 404


def test_reveal_marks_every_invisible_kind() -> None:
    kinds = "\u202e\u2066\u200b\u200d\ufeff\U000e0041\x07\x85\u2028\u2029\ufe0f\U000e0100"
    for char in kinds + "\u00ad\u180e\u3164\u034f\u061c\u200e":
        assert f"[U+{ord(char):04X}]" in reveal(f"a{char}b")
        assert char not in reveal(f"a{char}b")
    assert str(reveal("plain\nline & <b>")) == "plain\nline &amp; &lt;b&gt;"
    assert reveal_plain("x\u202ey") == "x[U+202E]y"


def test_an_approval_refused_by_the_mode_leaves_the_proposal_pending(
    browser: Browser, agent: Client, admin: Client, app: Any
) -> None:
    proposal = propose(agent, "Not in lockdown")
    token = browser.csrf(f"/ui/proposals/{proposal}")
    app.modes.set("LOCKDOWN", "test")
    refused = browser.post(f"/ui/proposals/{proposal}/approve", {"csrf": token})
    assert refused.status_code == 403
    assert "create_reminders is not allowed in LOCKDOWN mode." in refused.text
    assert 'id="status">PENDING' in refused.text
    assert admin.get(f"/proposals/{proposal}").json()["status"] == "PENDING"
    assert admin.get("/reminders").json() == []


def test_the_page_shows_which_items_of_an_approved_batch_failed(browser: Browser, app: Any) -> None:
    app.call("get_lists", {})
    app.backend.create_list("Errands")
    items = [{"title": "fine"}, {"title": "lost", "list": {"name": "Errands"}}]
    # The API creates one reminder a request: a batch comes from an agent over MCP.
    filed = app.gateway.invoke("create_reminders", {"reminders": items}, Actor("agent", "claude"))
    proposal = filed.output["proposalId"]
    with sqlite3.connect(app.config.paths.local_db) as db:  # another app removes the list
        db.execute("DELETE FROM lists WHERE name = 'Errands'")
    token = browser.csrf(f"/ui/proposals/{proposal}")
    done = browser.post(f"/ui/proposals/{proposal}/approve", {"csrf": token})
    assert done.headers["location"].endswith("?done=partly")
    page = browser.get(done.headers["location"]).text
    assert "Approved and executed in part" in page
    assert re.search(r'id="failed-items">\s*<li>item 1: No list found with name:', page)


def test_the_page_says_when_an_approval_changed_nothing(browser: Browser, app: Any) -> None:
    app.call("get_lists", {})
    app.backend.create_list("Errands")
    items = [{"title": "lost", "list": {"name": "Errands"}}]
    filed = app.gateway.invoke("create_reminders", {"reminders": items}, Actor("agent", "claude"))
    proposal = filed.output["proposalId"]
    with sqlite3.connect(app.config.paths.local_db) as db:
        db.execute("DELETE FROM lists WHERE name = 'Errands'")
    token = browser.csrf(f"/ui/proposals/{proposal}")
    failed = browser.post(f"/ui/proposals/{proposal}/approve", {"csrf": token})
    assert failed.status_code == 502
    assert "Nothing was changed: No list found with name: &#39;Errands&#39;." in failed.text
    assert 'id="status">FAILED' in failed.text
    assert "Approved and executed" not in failed.text
