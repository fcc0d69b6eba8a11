"""Deciding many proposals at once (``proposals approve --all``, the page's select-all): each is
decided on its own through ``Gateway.decide`` - judged again by the policy as a single approval
is - and one that fails is named while the others go on."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fruitctl.domain.actors import DISPLAY_SEPARATOR
from fruitctl.domain.errors import FruitctlError

BATCH_MAX = 500
"""The most proposals one batch decides: as many as one page of the proposals list shows, so
what a person selected is what is decided (a longer queue takes another batch)."""


def chosen(pending: Iterable[dict[str, Any]], agent: str | None, tool: str | None) -> list[str]:
    """The ids of the ``pending`` proposals (their views, newest first as listed) of ``agent`` -
    its identity (``agent:uid:1000``), the name in it (``uid:1000``; a token's name), or the
    name it shows (``claude``) - and of ``tool``, oldest first (the order they were asked for)."""
    found = [
        p
        for p in pending
        if (agent is None or _by(p["actor"], agent)) and tool in (None, p["tool"])
    ]
    return [p["id"] for p in reversed(found)]


def each(ids: Iterable[str], decide: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """``decide`` every id: ``{"decided": [views], "failed": [{"id", "error"}]}``."""
    decided: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for proposal_id in ids:
        try:
            decided.append(decide(proposal_id))
        except FruitctlError as exc:
            failed.append({"id": proposal_id, "error": exc.to_dict()})
    return {"decided": decided, "failed": failed}


def decide_batch(
    pending: Callable[[], list[dict[str, Any]]],
    decide: Callable[[str], dict[str, Any]],
    ids: list[str] | None,
    agent: str | None = None,
    tool: str | None = None,
) -> dict[str, Any]:
    """A door's batch: ``ids`` as given (a person's selection: one decided or expired since
    is named among the failed), else every ``pending()`` one of ``agent`` and ``tool``."""
    return each(ids if ids is not None else chosen(pending(), agent, tool), decide)


def _by(shown: str, agent: str) -> bool:
    identity, _, display = shown.partition(DISPLAY_SEPARATOR)
    name = identity.partition(":")[2]
    # An HTTP token's identity is its name and id (``claude.3f2a…``): its name alone names it.
    names = {identity, name, name.partition(".")[0], display}
    return agent.casefold() in {name.casefold() for name in names if name}
