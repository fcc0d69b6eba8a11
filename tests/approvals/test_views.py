"""One ``Pending`` and one ``Proposal`` type (``tools.outputs``): what ``approvals.views`` sends
at every stage of a proposal is that type, key for key and in its order, and the HTTP API's
OpenAPI and a write tool's MCP ``outputSchema`` declare that same shape. On a real home's stores,
through the gateway, the MCP SDK's own client and the FastAPI app's own OpenAPI document."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from pydantic import BaseModel

from fruitctl import bootstrap
from fruitctl.approvals import views
from fruitctl.approvals.changes import unknown_change
from fruitctl.approvals.store import ProposalStore
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import Conflict
from fruitctl.tools.outputs import Pending, Proposal
from fruitctl.transports.http import schemas
from fruitctl.transports.http.app import create_app
from fruitctl.transports.mcp import build_server
from fruitctl.transports.mcp_front import _is_pending

AGENT = Actor("agent", "claude")
PERSON = Actor("human", "me")
PAGE = "http://127.0.0.1:8765"


@pytest.fixture(params=[None, PAGE], ids=["no-page", "page"])
def app(home: Path, monkeypatch: pytest.MonkeyPatch, request: Any) -> Iterator[bootstrap.App]:
    if request.param:  # the approval page is served: the pending answer links to it
        monkeypatch.setenv("FRUITCTL_HTTP__PUBLIC_URL", request.param)
    built = bootstrap.build()
    yield built
    built.close()


def exactly(model: type[BaseModel], sent: dict[str, Any]) -> None:
    """``sent`` validates as ``model`` (no key more or less: the type forbids extras) and is
    what the model gives back - the same keys, in the same order, with the same values."""
    checked = model.model_validate(sent, strict=True)
    assert checked.model_dump(exclude_unset=True) == sent
    assert list(sent) == [name for name in model.model_fields if name in sent]


def propose(app: bootstrap.App, args: dict[str, Any], tool: str = "create_reminders") -> str:
    result = app.gateway.invoke(tool, args, AGENT)
    assert result.success, result.error
    exactly(Pending, result.output)
    return str(result.output["proposalId"])


def test_a_pending_answer_is_the_pending_type_with_or_without_its_page(
    app: bootstrap.App,
) -> None:
    pid = propose(app, {"reminders": [{"title": "Buy milk"}]})
    sent = app.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, AGENT).output
    page = app.config.settings.http.public_url
    assert sent["url"] == (f"{page}/ui/proposals/{sent['proposalId']}" if page else None)
    assert isinstance(sent["expiresAt"], str)  # a proposal always expires: never null
    exactly(Proposal, app.approvals.get(pid))


def test_a_batch_with_items_left_out_is_still_the_pending_type(app: bootstrap.App) -> None:
    items = [{"title": "fine"}, {"title": "lost", "list": {"name": "Nowhere"}}]
    partly = app.gateway.invoke("create_reminders", {"reminders": items}, AGENT)
    assert partly.metadata["pending"] is True
    assert [item["index"] for item in partly.output["failed"]] == [1]
    exactly(Pending, partly.output)
    plain = app.gateway.invoke("create_reminders", {"reminders": items[:1]}, AGENT).output
    assert "failed" not in plain  # nothing left out: the key is not sent
    written = app.call("create_reminders", {"reminders": items[:1]}, PERSON)  # done at once
    # The daemon's MCP door tells a pending answer from any other by the same type.
    assert [_is_pending(partly.output), _is_pending(plain), _is_pending(written)] == [
        True,
        True,
        False,
    ]


def test_every_stage_of_a_proposal_is_the_proposal_type(app: bootstrap.App) -> None:
    executed = app.gateway.decide(propose(app, {"reminders": [{"title": "a"}]}), "approve", PERSON)
    rejected = app.gateway.decide(
        propose(app, {"reminders": [{"title": "b"}]}), "reject", PERSON, "not now"
    )
    made = app.call("create_reminders", {"reminders": [{"title": "draft"}]}, PERSON)[0]
    stale = propose(app, {"reminders": [{"id": made["id"], "title": "final"}]}, "update_reminders")
    app.call("update_reminders", {"reminders": [{"id": made["id"], "notes": "edited"}]}, PERSON)
    with pytest.raises(Conflict):
        app.gateway.decide(stale, "approve", PERSON)
    failed = app.approvals.get(stale)
    undo = app.gateway.decide(executed["id"], "undo", PERSON)  # a write's answer: pending
    exactly(Pending, undo)
    assert [executed["status"], rejected["status"], failed["status"]] == [
        "EXECUTED",
        "REJECTED",
        "FAILED",
    ]
    assert executed["canUndo"] and executed["result"] and failed["error"]
    for shown in (executed, rejected, failed, *app.approvals.recent()):
        assert shown["diff"]  # each with its before -> after rows
        exactly(Proposal, shown)


def test_a_proposal_without_a_diff_is_the_proposal_type(app: bootstrap.App) -> None:
    pid = propose(app, {"reminders": [{"title": "gone"}]})
    found = ProposalStore(app.ledger, app.audit).get(pid)
    # How the engine shows a proposal whose tool is no longer registered: no rows to show.
    shown = views.proposal(found, unknown_change(found.tool))
    assert shown["diff"] == []
    exactly(Proposal, shown)


def test_a_view_that_strays_from_the_type_is_refused(app: bootstrap.App) -> None:
    pid = propose(app, {"reminders": [{"title": "x"}]})
    found = ProposalStore(app.ledger, app.audit).get(pid)
    strayed = replace(found, status="WAITING")  # not a status the type (nor the database) knows
    with pytest.raises(ValueError, match="status"):
        views.proposal(strayed, unknown_change(found.tool))


def test_the_openapi_and_the_mcp_output_schema_declare_the_same_types(
    app: bootstrap.App,
) -> None:
    assert (schemas.Pending, schemas.Proposal) == (Pending, Proposal)  # not redeclared
    document = create_app(app).openapi()
    components = document["components"]["schemas"]
    for model in (Pending, Proposal):
        for name, shape in _defs(model, "#/components/schemas/{model}").items():
            assert components[name] == shape, name
    paths = document["paths"]
    assert _ref(paths["/reminders"]["post"]["responses"]["202"]) == "#/components/schemas/Pending"
    one = paths["/proposals/{proposal_id}"]["get"]["responses"]["200"]
    assert _ref(one) == "#/components/schemas/Proposal"

    listed = anyio.run(_listed_tools, app)
    answers = listed["create_reminders"].output_schema
    assert answers is not None
    assert {"$ref": "#/$defs/Pending"} in answers["anyOf"]
    assert {"$ref": "#/$defs/Proposal"} in answers["anyOf"]  # decided in the client's form
    for model in (Pending, Proposal):
        for name, shape in _defs(model, "#/$defs/{model}", "serialization").items():
            assert answers["$defs"][name] == shape, name


def _defs(model: type[BaseModel], ref: str, mode: Any = "validation") -> dict[str, Any]:
    """``model``'s JSON Schema as definitions by name: the model's own and those it uses."""
    schema = model.model_json_schema(ref_template=ref, mode=mode)
    used = schema.pop("$defs", {})
    return {model.__name__: schema, **used}


def _ref(response: dict[str, Any]) -> str:
    return str(response["content"]["application/json"]["schema"]["$ref"])


async def _listed_tools(app: bootstrap.App) -> dict[str, Any]:
    async with Client(build_server(app.gateway)) as client:
        return {tool.name: tool for tool in (await client.list_tools()).tools}
