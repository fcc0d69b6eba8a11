"""Every capability fruitctl offers, one package each (``capabilities/<subject>/``): its inputs
(the only place a field, bound, default or description is written), its service (the rules,
against the ports), its tools (typed functions), what each write changes and how it is undone
(``changes``), where its calls may reach (``targets``) and what it answers (``outputs``)."""

from __future__ import annotations

from fruitctl.tools.model import Tool

SUBJECTS = (
    "reminders",
    "calendar",
    "containers",
    "things",
    "approvals",
    "files",
    "system",
    "web",
    "code",
)
"""Every capability, in the catalog's stable order (reminders first)."""
PACKAGE = "fruitctl.capabilities."


def subject_of(tool: Tool) -> str | None:
    """The capability that declares ``tool`` (``reminders`` for ``query_reminders``), or None
    for a tool declared elsewhere (a test's, a plug-in's)."""
    module = tool.function.__module__
    inside = module.startswith(PACKAGE)
    return module.removeprefix(PACKAGE).partition(".")[0] if inside else None


def all_tools() -> list[Tool]:
    """Every tool of every capability, in a stable order."""
    from importlib import import_module

    found: list[Tool] = []
    for subject in SUBJECTS:
        found.extend(import_module(f"fruitctl.capabilities.{subject}.tools").TOOLS)
    return found
