"""``/proposals``, ``/audit`` and ``/config``: what agents proposed, and what a person decides.

An agent token reads its own proposals only; approving, rejecting, undoing, the audit log and
the config take an admin token (a person), and the approval engine refuses agents once more.
Decisions go through ``Gateway.decide``, so an approval is judged by the policy again.
"""

# No `from __future__ import annotations`: FastAPI must see the local Annotated aliases.
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from starlette.responses import Response

from fruitctl.approvals.allowance import Allowance
from fruitctl.approvals.views import LISTED_MAX
from fruitctl.transports.http import schemas
from fruitctl.transports.http.door import Door, Json, model_body, model_schema
from fruitctl.transports.http.tokens import Claims

Status = Literal["pending", "approved", "executed", "rejected", "expired", "failed"]
ProposalId = Annotated[str, Path(description="The proposalId a write answered with")]


def router(door: Door, user: Callable[..., Any], admin: Callable[..., Any]) -> APIRouter:
    api = APIRouter(tags=["proposals"])
    Caller = Annotated[Claims, Depends(user)]
    Person = Annotated[Claims, Depends(admin)]
    decided = schemas.errors(403, 404, 409, 410, 422, 502)
    rejection = model_body(schemas.Rejection, required=False)
    approval = model_body(schemas.Approval, required=False)
    ConfigValue = Annotated[schemas.ConfigValue, Depends(model_body(schemas.ConfigValue))]

    @api.get(
        "/proposals",
        summary="Proposals, newest first (an agent sees its own)",
        responses={200: {"model": list[schemas.Proposal]}, **schemas.errors(422)},
    )
    async def list_proposals(
        claims: Caller,
        status: Status | None = None,
        limit: Annotated[int, Query(ge=1, le=LISTED_MAX)] = 50,
    ) -> Response:
        found = await door.run(door.app.approvals.recent, status, limit, claims.actor)
        return Json(found)

    @api.get(
        "/proposals/{proposal_id}",
        summary="One proposal with its before -> after diff",
        responses={200: {"model": schemas.Proposal}, **schemas.errors(404)},
    )
    async def get_proposal(proposal_id: ProposalId, claims: Caller) -> Response:
        return Json(await door.run(door.app.approvals.get, proposal_id, claims.actor))

    @api.post(
        "/proposals/{proposal_id}/approve",
        summary="Approve and execute (exactly once); with allowFor, also give a standing grant",
        responses={200: {"model": schemas.Proposal}, **decided},
        openapi_extra=model_schema(schemas.Approval, required=False),
    )
    async def approve(
        proposal_id: ProposalId,
        claims: Person,
        body: Annotated[schemas.Approval | None, Depends(approval)],
    ) -> Response:
        allow = Allowance.of(body.model_dump()) if body else None
        decide = door.app.gateway.decide
        return Json(await door.run(decide, proposal_id, "approve", claims.actor, None, allow))

    @api.post(
        "/proposals/{proposal_id}/reject",
        summary="Reject; nothing changes",
        responses={200: {"model": schemas.Proposal}, **decided},
        openapi_extra=model_schema(schemas.Rejection, required=False),
    )
    async def reject(
        proposal_id: ProposalId,
        claims: Person,
        body: Annotated[schemas.Rejection | None, Depends(rejection)],
    ) -> Response:
        reason = body.reason if body else None
        decide = door.app.gateway.decide
        return Json(await door.run(decide, proposal_id, "reject", claims.actor, reason))

    @api.post(
        "/proposals/{proposal_id}/undo",
        summary="Propose the change that restores what an executed proposal changed",
        status_code=202,
        responses={**schemas.accepted(), **decided},
    )
    async def undo(proposal_id: ProposalId, claims: Person) -> Response:
        filed = await door.run(door.app.gateway.decide, proposal_id, "undo", claims.actor)
        return Json(filed, 202, headers={"Location": f"/proposals/{filed['proposalId']}"})

    @api.get(
        "/audit",
        summary="The audit log, newest first",
        tags=["audit"],
        responses={200: {"model": list[schemas.AuditEntry]}, **schemas.errors(403, 422)},
    )
    async def audit(
        claims: Person,
        since: Annotated[float | None, Query(ge=0, description="Seconds back from now")] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 200,
        proposal: Annotated[str | None, Query(description="Only this proposal's rows")] = None,
    ) -> Response:
        start = None if since is None else time.time() - since

        def entries() -> list[dict[str, Any]]:
            return door.app.audit.entries(since=start, limit=limit, proposal_id=proposal)

        return Json(await door.run(entries))

    @api.get(
        "/config",
        summary="The allowlists",
        tags=["config"],
        responses={200: {"description": "key -> list of names, or null"}, **schemas.errors(403)},
    )
    async def get_config(claims: Person) -> Response:
        return Json(await door.run(door.app.allowlists.items))

    @api.put(
        "/config/{key}",
        summary="Set or clear an allowlist (audited)",
        tags=["config"],
        responses={200: {"model": schemas.ConfigValue}, **schemas.errors(403, 422)},
        openapi_extra=model_schema(schemas.ConfigValue),
    )
    async def set_config(key: str, claims: Person, body: ConfigValue) -> Response:
        value = await door.run(door.app.allowlists.set, key, body.value, claims.actor.label)
        return Json({"value": value})

    return api
