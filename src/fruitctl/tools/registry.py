"""The registry of tools: one place every front door lists and finds them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Protocol

from fruitctl.tools.model import Mode, Tool, ToolDefinition


class Declared(Protocol):
    """Tools declared but not loaded yet (``capabilities.Catalog``)."""

    def names(self) -> list[str]: ...

    def __contains__(self, name: object) -> bool: ...

    def with_its_capability(self, name: str) -> list[Tool]: ...


class ToolRegistry:
    """The tools a process serves. Given ``later``, a tool is loaded - with the others of its
    capability - when it is first asked for by name, and every one of them when they are
    listed; each is shaped as it arrives (``shape``: the governance in force)."""

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        later: Declared | None = None,
        shape: Callable[[Tool], Tool] = lambda tool: tool,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._later = later
        self._shape = shape
        self._lock = threading.Lock()
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
        self._tools = {**self._tools, item.name: item}  # a reader never sees it half added

    def reshape(self, shape: Callable[[Tool], Tool]) -> None:
        """Every tool as ``shape`` makes it (its definition under new rules), swapped in at
        once: a reader lists the tools as they were or as they are, never half of each. A tool
        loaded later is shaped so too."""
        with self._lock:
            self._shape = shape
            self._tools = {name: shape(item) for name, item in self._tools.items()}

    def get(self, name: str) -> Tool | None:
        found = self._tools.get(name)
        later = self._later  # once: a listing on another thread may load everything meanwhile
        if found is None and later is not None and name in later:
            self._load(later.with_its_capability(name))
            found = self._tools.get(name)
        return found

    def names(self) -> list[str]:
        later = self._later
        if later is None:
            return list(self._tools)
        declared = later.names()
        return [*declared, *(name for name in self._tools if name not in declared)]

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
        return [t for t in self._every().values() if t.definition.allowed_modes]

    def filter_by_category(self, category: str) -> list[ToolDefinition]:
        self.before_listing()
        return [t.definition for t in self._every().values() if t.definition.category == category]

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.before_listing()
        return iter(self._every().values())

    def __len__(self) -> int:
        return len(self.names())

    def _every(self) -> dict[str, Tool]:
        """Every tool, loaded if it was not yet, in the catalog's order."""
        later = self._later
        if later is not None:
            with self._lock:
                for name in later.names():
                    if name not in self._tools:
                        self._load(later.with_its_capability(name), locked=True)
                order = {name: at for at, name in enumerate(later.names())}
                listed = sorted(self._tools, key=lambda name: order.get(name, len(order)))
                self._tools = {name: self._tools[name] for name in listed}
                self._later = None
        return self._tools

    def _load(self, tools: Iterable[Tool], *, locked: bool = False) -> None:
        if not locked:
            with self._lock:
                return self._load(tools, locked=True)
        for tool in tools:
            if tool.name not in self._tools:
                self.register(self._shape(tool))
        return None
