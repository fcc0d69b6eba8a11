"""get_proposal: how an agent learns what became of a write it proposed."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from fruitctl.services.inputs import Input
from fruitctl.tools import outputs
from fruitctl.tools.context import ToolContext, current_actor
from fruitctl.tools.model import tool


class GetProposal(Input):
    id: str = Field(description="The proposalId returned when the write was proposed.")


@tool(returns=outputs.Proposal, category="read_only", risk="low", title="Check a proposal")
def get_proposal(args: GetProposal, ctx: ToolContext) -> Any:
    """The state of a write you proposed: PENDING (waiting for a person), APPROVED, EXECUTED
    (with its result), REJECTED (with the reason), EXPIRED or FAILED (with the error). You only
    see your own proposals. Poll it after a write answered {"status": "pending"}.
    Example: {"id": "p3f2a..."}"""
    return ctx.approvals.get(args.id, current_actor.get())


TOOLS = [get_proposal]
