"""The JMESPath bomb through the door an agent uses: one GET with an agent token is refused at
once with the reason, in the API's error object, and the gateway answers the next call."""

from __future__ import annotations

from conftest import Client

BOMB = "[0]" + ".{a:@,b:@}" * 22  # 223 characters: a 1.5 GB answer without the budget


def test_the_bomb_is_refused_with_the_reason(agent: Client, admin: Client) -> None:
    assert admin.post("/reminders", json={"title": "x" * 500}).status_code == 201
    response = agent.get("/reminders", params={"query": BOMB})
    assert response.status_code == 422, response.text[:300]
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and error["retryable"] is False
    assert "the query builds more than 64 MB of results" in error["message"]
    assert len(response.content) < 4096
    assert agent.get("/reminders", params={"query": "[*].title"}).json() == ["x" * 500]
