"""The registry of tools: one place every front door lists and finds them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fruitctl.tools.model import Mode, Tool, ToolDefinition


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self.before_listing: Callable[[], object] = lambda: None
        """Called before the tools are listed: brings their rules up to date (the process's
        ``LiveGovernance``), so a listing shows the rules the next call gets."""
        for item in tools:
            self.register(item)

    def register(self, item: Tool) -> None:
        if item.name in self._tools:
            raise ValueError(f"a tool named '{item.name}' is already registered")
        if item.writes and item.change is None:
            raise ValueError(
                f"tool '{item.name}' writes ({item.definition.category}) but declares no change: "
                "a proposal could not describe it, check it for conflicts or undo it"
            )
        self._tools[item.name] = item

    def reshape(self, shape: Callable[[Tool], Tool]) -> None:
        """Every tool as ``shape`` makes it (its definition under new rules), swapped in at
        once: a reader lists the tools as they were or as they are, never half of each."""
        self._tools = {name: shape(item) for name, item in self._tools.items()}

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def list_tools(self, mode: Mode | None = None) -> list[ToolDefinition]:
        """The tools some mode lets run (directly or after approval), or those ``mode`` does.
        A tool the governance refuses in every mode is turned off: it is never listed."""
        return [
            tool.definition
            for tool in self.offered()
            if mode is None or mode in tool.definition.allowed_modes
        ]

    def offered(self) -> list[Tool]:
        """Every tool some mode lets run: what a door lists (the rules brought up to date)."""
        self.before_listing()
        return [t for t in self._tools.values() if t.definition.allowed_modes]

    def filter_by_category(self, category: str) -> list[ToolDefinition]:
        self.before_listing()
        return [t.definition for t in self._tools.values() if t.definition.category == category]

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.before_listing()
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)
