"""Target rules: where a call would reach, against the rules of its tool; each capability
declares the ones its tools need (``capabilities/<subject>/targets.py``, ``tool(targets=...)``)
and the policy runs them on every call. Here: what they share (the path rules of a file tool).

Each check raises the canonical error (``PermissionDenied`` for a path, ``ListNotAllowed`` for
a reminder list, ``CalendarNotAllowed`` for a calendar) before anything runs, so a denial
carries a reason and nothing is touched. The file service checks paths again when it opens
them; this early check is for a clear refusal. Path rules bind everyone; the list and calendar
allowlists bind agents (an agent's write, also when a person approves it), never a person's
own call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fruitctl.domain.errors import InternalError
from fruitctl.domain.path_rules import PathRules
from fruitctl.policy.governance import ToolRules
from fruitctl.tools.context import ToolContext

ArgumentCheck = Callable[[Any, ToolRules, ToolContext], None]


def path_check(for_write: bool) -> ArgumentCheck:
    def check(args: Any, rules: ToolRules, ctx: ToolContext) -> None:
        path_rules(rules).check(args.path, for_write=for_write)

    return check


def path_rules(rules: ToolRules) -> PathRules:
    """A file tool's path rules: its allowed and forbidden paths, and the places every file tool
    refuses (``policy.protected``). The one place they are put together, for the policy's check
    and for the service's check at open time alike; a rule that cannot be used stops the call."""
    protected = rules.protected
    try:
        return PathRules.from_patterns(
            rules.allowed_paths,
            rules.forbidden_paths,
            guarded=protected.credentials,
            own=protected.own,
            own_exceptions=[protected.workspace] if protected.workspace else [],
        )
    except ValueError as exc:
        raise InternalError(f"The path rules of this tool cannot be used: {exc}.") from exc
