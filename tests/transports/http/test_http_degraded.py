"""A mode fruitctl set by itself is shown with its cause on /info and on the approval page."""

from __future__ import annotations

import html

from conftest import Client
from fastapi import FastAPI
from test_http_ui import Browser

from fruitctl import bootstrap

CAUSE = "free disk space for fruitctl's data is 12 MB, under 200 MB"


def test_info_and_the_page_say_why_the_gateway_degraded_itself(
    app: bootstrap.App, api: FastAPI, admin: Client, admin_token: str
) -> None:
    before = admin.get("/info").json()
    assert before["mode"] == "NORMAL" and "degraded" not in before
    app.modes.set_automatic("DEGRADED", CAUSE, "NORMAL")
    info = admin.get("/info").json()
    assert info["mode"] == "DEGRADED"
    assert info["degraded"] == {"cause": CAUSE, "previous": "NORMAL"}
    browser = Browser(api)
    assert browser.sign_in(admin_token).status_code == 303
    page = browser.get("/ui/proposals").text
    assert f"DEGRADED mode (set by fruitctl itself: {CAUSE})" in html.unescape(page)
    app.modes.set("NORMAL", "alice")  # a person's choice ends it everywhere
    assert "degraded" not in admin.get("/info").json()
    assert "set by fruitctl itself" not in browser.get("/ui/proposals").text
