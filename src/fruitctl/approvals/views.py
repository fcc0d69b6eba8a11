"""Proposals as callers see them: the pending answer a write gets (how to approve it, where
its page is) and the whole proposal with its diff, result, error and whether it can be undone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from fruitctl.domain.dates import format_epoch
from fruitctl.domain.errors import InvalidParams
from fruitctl.tools.model import Change
from fruitctl.tools.outputs import Pending, Proposal, Status

if TYPE_CHECKING:
    from fruitctl.approvals import store

STATUSES: tuple[Status, ...] = get_args(Status)
"""Every status a proposal has (``APPROVED``: being executed)."""

LISTED_MAX = 500
"""The most proposals one listing answers, at every door (the CLI's ``--limit``, the socket's and
the HTTP API's ``limit``): a bounded answer, and more than a person reads at once."""


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


def listing_limit(limit: Any, name: str = "limit") -> int:
    """``limit`` when it is a number of proposals to list (1 to ``LISTED_MAX``); else refused,
    naming ``name`` (the option or the parameter that gave it)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= LISTED_MAX:
        raise InvalidParams.listing_limit(name, LISTED_MAX)
    return limit
