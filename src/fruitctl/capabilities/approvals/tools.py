"""get_proposal: how an agent learns what became of a write it proposed."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from fruitctl.capabilities.context import Context
from fruitctl.domain.errors import InvalidParams
from fruitctl.tools import outputs
from fruitctl.tools.context import current_actor
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import tool


class GetProposal(Input):
    """The proposal by the name the write's answer gave it (``proposalId``), or as ``id``."""

    proposalId: str | None = Field(
        None, description="The proposalId returned when the write was proposed."
    )
    id: str | None = Field(None, description="The same, by its other name: give one of the two.")

    @model_validator(mode="after")
    def _one_name(self) -> GetProposal:
        if (self.proposalId is None) == (self.id is None):
            raise InvalidParams(
                "Give the proposal's id once, as 'proposalId' (the name a pending write's "
                "answer gives it) or as 'id'.",
                field="proposalId",
            )
        return self

    @property
    def proposal(self) -> str:
        return self.proposalId or self.id or ""


@tool(
    returns=outputs.Proposal,
    category="read_only",
    risk="low",
    title="Check a proposal",
)
def get_proposal(args: GetProposal, ctx: Context) -> Any:
    """The state of a write you proposed: PENDING (waiting for a person), APPROVED, EXECUTED
    (with its result), REJECTED (with the reason), EXPIRED or FAILED (with the error). You only
    see your own proposals. Poll it after a write answered {"status": "pending"}, with the
    proposalId it gave. Example: {"proposalId": "p3f2a..."} ({"id": "p3f2a..."} works too)"""
    return ctx.approvals.get(args.proposal, current_actor.get())


TOOLS = [get_proposal]
