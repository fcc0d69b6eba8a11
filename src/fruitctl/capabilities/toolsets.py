"""Which tools a client is offered: a tool set, written as tool sets and tool names.

Every tool is listed on every turn of an agent's conversation, so a client that needs only
reminders pays for 35 tool descriptions it never uses (and some clients drop tools past 40). A
tool set names what it needs: a capability (``calendar``: every calendar tool) or a tool by name
(``get_reminder``). Set for MCP in ``[mcp] tools`` or ``fruitctl mcp --tools``, and for a token
with ``fruitctl auth token --tools``; a client's set is what every one of those allows it.

``reminders`` is narrower than its capability: the five tools of the Reminders MCP contract, with
its schemas, so a client written for that contract sees exactly what it expects
(``get_reminder`` and ``open_reminders`` are offered by name).
"""

from __future__ import annotations

from collections.abc import Iterable

from fruitctl.capabilities import SUBJECTS, all_tools, subject_of
from fruitctl.domain.errors import InvalidParams
from fruitctl.tools.model import Tool

ToolSet = frozenset[str] | None
"""The names of the tools a client is offered; None: every tool."""

CONTRACT_TOOLS = (
    "query_reminders",
    "get_lists",
    "create_reminders",
    "update_reminders",
    "delete_reminders",
)
"""The Reminders MCP contract's tools, in its order: what the ``reminders`` set offers."""
NARROWER = {"reminders": CONTRACT_TOOLS}
"""Sets that offer less than their capability's every tool."""


def named_sets(tools: Iterable[Tool]) -> dict[str, tuple[str, ...]]:
    """Each set a name may stand for: every capability's tools (``NARROWER`` where it says)."""
    by_subject: dict[str, list[str]] = {subject: [] for subject in SUBJECTS}
    for tool in tools:
        subject = subject_of(tool)
        if subject in by_subject:
            by_subject[subject].append(tool.name)
    return {s: NARROWER.get(s, tuple(names)) for s, names in by_subject.items()}


def resolve(entries: Iterable[str], tools: Iterable[Tool] | None = None) -> frozenset[str]:
    """The tools ``entries`` name, each a set's name or a tool's (among ``tools``, by default
    every capability's); ``InvalidParams`` naming an entry that is neither, and the choices."""
    catalog = list(all_tools() if tools is None else tools)
    sets = named_sets(catalog)
    names = [tool.name for tool in catalog]
    chosen: set[str] = set()
    for entry in entries:
        if entry in sets:
            chosen.update(sets[entry])
        elif entry in names:
            chosen.add(entry)
        else:
            raise InvalidParams.tool_set_entry(entry, sets, names)
    if not chosen:
        raise InvalidParams.empty_tool_set()
    return frozenset(chosen)


def parse(text: str, tools: Iterable[Tool] | None = None) -> frozenset[str]:
    """``reminders,calendar`` as a command line writes it: entries split at commas."""
    return resolve([part.strip() for part in text.split(",") if part.strip()], tools)


def narrow(first: ToolSet, second: ToolSet) -> ToolSet:
    """What both sets offer (None offers everything)."""
    if first is None:
        return second
    return first if second is None else first & second


def offers(tool_set: ToolSet, name: str) -> bool:
    return tool_set is None or name in tool_set
