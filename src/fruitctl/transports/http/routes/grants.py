"""``/proposals/approve``, ``/proposals/reject`` and ``/grants``: many proposals decided at once
(each on its own, through ``Gateway.decide``: judged again, one that fails named while the
others go on), and the standing grants a person gave - a person's (admin token) alone.
"""

# No `from __future__ import annotations`: FastAPI must see the local Annotated aliases.
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from starlette.responses import Response

from fruitctl.approvals.allowance import Allowance
from fruitctl.approvals.batch import BATCH_MAX, decide_batch
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import InvalidParams
from fruitctl.gateway import Action
from fruitctl.transports.http import schemas
from fruitctl.transports.http.door import Door, Json, model_body, model_schema
from fruitctl.transports.http.tokens import Claims


def router(door: Door, admin: Callable[..., Any]) -> APIRouter:
    api = APIRouter(tags=["proposals"])
    Person = Annotated[Claims, Depends(admin)]
    Many = Annotated[schemas.Batch, Depends(model_body(schemas.Batch))]

    def decide_many(action: Action, body: schemas.Batch, actor: Actor) -> dict[str, Any]:
        allow = Allowance.of(body.model_dump())
        if allow is not None and action != "approve":
            raise InvalidParams.grant_needs_approval()

        def one(proposal_id: str) -> dict[str, Any]:
            return door.app.gateway.decide(proposal_id, action, actor, body.reason, allow)

        def pending() -> list[dict[str, Any]]:
            return door.app.approvals.recent("pending", BATCH_MAX)

        return decide_batch(pending, one, body.ids, body.agent, body.tool)

    @api.post(
        "/proposals/approve",
        summary="Approve many: these ids, or every pending one (of an agent, of a tool)",
        responses={200: {"model": schemas.Decided}, **schemas.errors(403)},
        openapi_extra=model_schema(schemas.Batch),
    )
    async def approve_many(claims: Person, body: Many) -> Response:
        return Json(await door.run(decide_many, "approve", body, claims.actor))

    @api.post(
        "/proposals/reject",
        summary="Reject many: these ids, or every pending one (of an agent, of a tool)",
        responses={200: {"model": schemas.Decided}, **schemas.errors(403)},
        openapi_extra=model_schema(schemas.Batch),
    )
    async def reject_many(claims: Person, body: Many) -> Response:
        return Json(await door.run(decide_many, "reject", body, claims.actor))

    @api.get(
        "/grants",
        summary="The standing grants, newest first: live ones, or all",
        tags=["grants"],
        responses={200: {"model": list[schemas.Grant]}, **schemas.errors(403)},
    )
    async def list_grants(
        claims: Person,
        every: Annotated[bool, Query(alias="all", description="Also those that ended")] = False,
    ) -> Response:
        return Json(await door.run(door.app.approvals.grants_listed, every))

    @api.post(
        "/grants/{grant_id}/revoke",
        summary="End a standing grant now",
        tags=["grants"],
        responses={200: {"model": schemas.Grant}, **schemas.errors(403, 404, 409)},
    )
    async def revoke_grant(grant_id: str, claims: Person) -> Response:
        return Json(await door.run(door.app.approvals.revoke, grant_id, claims.actor))

    return api
