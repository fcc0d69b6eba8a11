"""The API's routes are built once per process and shared by every API made from it; each
request is still served by its own API's fruitctl app, token store and page sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Client

from fruitctl import bootstrap
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir


@pytest.fixture
def two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path
) -> Iterator[list[tuple[Client, Client]]]:
    """Two homes, each its own app and API: (agent, admin) clients of each."""
    made = []
    for name in ("one", "two"):
        monkeypatch.setenv("FRUITCTL_HOME", str(tmp_path / name))
        app = bootstrap.build()
        tokens = TokenStore(secrets_dir(app))
        api = create_app(app, tokens=tokens)
        agent = Client(api, tokens.issue("agent", 3600, f"agent-{name}")[0])
        admin = Client(api, tokens.issue("admin", 3600, f"person-{name}")[0])
        made.append((app, agent, admin))
    yield [(agent, admin) for _, agent, admin in made]
    for app, _, _ in made:
        app.close()


def test_two_apis_share_their_routes(two: list[tuple[Client, Client]]) -> None:
    (one, _), (other, _) = two
    assert one.api is not other.api
    own = ("/openapi.json", "/ui/static")  # FastAPI's and the static files': each app's
    routes = [route for route in one.api.routes if getattr(route, "path", None) not in own]
    assert len(routes) >= 8  # a router each: system, reminders, ..., the page
    assert all(route in other.api.routes for route in routes)


def test_each_request_is_served_by_its_own_app(two: list[tuple[Client, Client]]) -> None:
    (_, admin_one), (agent_two, admin_two) = two
    made = admin_one.post("/reminders", json={"title": "Only in the first home"})
    assert made.status_code == 201, made.text
    assert [r["title"] for r in admin_one.get("/reminders").json()] == ["Only in the first home"]
    assert admin_two.get("/reminders").json() == []
    # A proposal filed in one home is pending there, and unknown in the other.
    filed = agent_two.post("/reminders", json={"title": "Asked of the second"})
    assert filed.status_code == 202, filed.text
    proposal = filed.json()["proposalId"]
    assert admin_one.get(f"/proposals/{proposal}").status_code == 404
    assert admin_two.get(f"/proposals/{proposal}").json()["status"] == "PENDING"


def test_a_token_opens_only_the_api_whose_store_made_it(
    two: list[tuple[Client, Client]],
) -> None:
    (agent_one, admin_one), (_, admin_two) = two
    assert agent_one.get("/reminders/lists").status_code == 200
    stranger = admin_two.as_(agent_one.token)
    assert stranger.get("/reminders/lists").status_code == 401
    # The page's sign-in checks the token against its own API's store too.
    page = admin_two.as_(None).post(
        "/ui/signin", data={"token": admin_one.token}, follow_redirects=False
    )
    assert page.status_code == 401 and "does not work" in page.text
    signed = admin_one.as_(None).post(
        "/ui/signin", data={"token": admin_one.token}, follow_redirects=False
    )
    assert signed.status_code == 303 and "fruitctl_session" in signed.headers["set-cookie"]
