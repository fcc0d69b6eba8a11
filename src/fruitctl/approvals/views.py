"""Proposals as callers see them: the pending answer a write gets (how to approve it, where
its page is) and the whole proposal with its diff, result, error and whether it can be undone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from fruitctl.domain.dates import format_epoch
from fruitctl.domain.text import holds_hidden
from fruitctl.tools.model import Change
from fruitctl.tools.outputs import Pending, Proposal, Status

if TYPE_CHECKING:
    from fruitctl.approvals import store

STATUSES: tuple[Status, ...] = get_args(Status)
"""Every status a proposal has (``APPROVED``: being executed)."""

# The parts of a proposal an agent or another app wrote (or that quote what they wrote).
WRITTEN = ("summary", "actor", "args", "diff", "reason", "error", "result", "resolvedBy")
# What a person is told when a proposal holds text they cannot see, at every door.
HIDDEN_WARNING = (
    "This proposal holds invisible or direction-changing characters, shown as [U+…]. "
    "Read it carefully."
)


def moment(epoch: float | None) -> str | None:
    return None if epoch is None else format_epoch(epoch)


def pending(filed: store.Proposal, url: str | None) -> dict[str, Any]:
    """What a write filed as a proposal answers: a ``Pending``, built (and so checked) as the
    one type every door's schema declares, then sent as plain data."""
    return Pending(
        status="pending",
        proposalId=filed.id,
        summary=filed.summary,
        expiresAt=format_epoch(filed.expires_at),
        approve=f"fruitctl proposals approve {filed.id}",
        url=url,
    ).model_dump(exclude_unset=True)  # ``failed`` only where the gateway leaves items out


def proposal(found: store.Proposal, change: Change) -> dict[str, Any]:
    """The whole proposal as ``Proposal`` declares it, its arguments shown as ``change``
    describes them."""
    return Proposal(
        id=found.id,
        tool=found.tool,
        status=found.status,
        summary=found.summary,
        actor=found.actor,
        createdAt=format_epoch(found.created_at),
        expiresAt=format_epoch(found.expires_at),
        resolvedAt=moment(found.resolved_at),
        resolvedBy=found.resolved_by,
        reason=found.reason,
        args=found.args,
        diff=change.diff(found.args, found.before),
        result=found.result,
        error=found.error,
        canUndo=found.status == "EXECUTED" and bool(found.inverse),
        undoOf=found.undo_of,
        idempotencyKey=found.idempotency_key,
    ).model_dump(exclude_unset=True)  # ``grant`` only on the approval that gave one


def hides_text(shown: dict[str, Any]) -> bool:
    """Whether a proposal (as ``proposal`` shows it, or a row of a list of them) holds a
    character a person cannot see, anywhere an agent or another app wrote - the warning both
    the CLI and the page give. Line breaks and tabs are layout, not hidden."""
    return any(holds_hidden(shown.get(part), keep="\t\n\r") for part in WRITTEN)
