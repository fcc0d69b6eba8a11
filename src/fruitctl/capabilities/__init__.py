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
NAMES: dict[str, tuple[str, ...]] = {
    "reminders": (
        "query_reminders",
        "get_lists",
        "get_reminder",
        "open_reminders",
        "create_reminders",
        "update_reminders",
        "delete_reminders",
    ),
    "calendar": (
        "list_calendars",
        "query_events",
        "get_event",
        "calendar_upcoming",
        "find_free_time",
        "check_conflicts",
        "create_event",
        "update_event",
        "delete_event",
    ),
    "containers": ("create_reminder_list", "create_calendar"),
    "things": (
        "query_todos",
        "get_todo",
        "list_projects",
        "list_headings",
        "list_areas",
        "list_tags",
        "create_todo",
        "create_todos",
        "update_todo",
        "complete_todo",
        "create_project",
        "update_project",
    ),
    "approvals": ("get_proposal",),
    "files": ("read_file", "list_directory", "write_file", "delete_file", "restore_file"),
    "system": ("system_metrics_snapshot", "check_process_health", "read_system_logs"),
    "web": ("web_search", "fetch_url"),
    "code": ("git_status", "run_linter", "run_tests"),
}
"""The names each capability's ``tools`` module declares, in its order: what a process knows of
its tools before it loads any (a test holds this to the declarations). A process that runs one
call - the CLI in-process - loads the capability of that call alone."""


def subject_of(tool: Tool) -> str | None:
    """The capability that declares ``tool`` (``reminders`` for ``query_reminders``), or None
    for a tool declared elsewhere (a test's, a plug-in's)."""
    module = tool.function.__module__
    inside = module.startswith(PACKAGE)
    return module.removeprefix(PACKAGE).partition(".")[0] if inside else None


def all_tools() -> list[Tool]:
    """Every tool of every capability, in a stable order."""
    found: list[Tool] = []
    for subject in SUBJECTS:
        found.extend(tools_of(subject))
    return found


def tools_of(subject: str) -> list[Tool]:
    """The tools one capability declares (its ``tools`` module loaded, the others not)."""
    from importlib import import_module

    declared: list[Tool] = import_module(f"{PACKAGE}{subject}.tools").TOOLS
    return declared


class Catalog:
    """Every tool, by name, each capability loaded when one of its tools is first asked for."""

    def __init__(self) -> None:
        self._subject = {name: subject for subject in SUBJECTS for name in NAMES[subject]}

    def names(self) -> list[str]:
        """Every tool's name, in the catalog's order; nothing loaded."""
        return list(self._subject)

    def __contains__(self, name: object) -> bool:
        return name in self._subject

    def with_its_capability(self, name: str) -> list[Tool]:
        """The tools of the capability that declares ``name`` (loaded now)."""
        return tools_of(self._subject[name])

    def tool(self, name: str) -> Tool:
        (found,) = [t for t in self.with_its_capability(name) if t.name == name]
        return found

    def category(self, name: str) -> str:
        return self.tool(name).definition.category

    def all(self) -> list[Tool]:
        return all_tools()
