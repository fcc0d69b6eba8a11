"""Running a JMESPath expression under a budget, so that a short query cannot make a huge answer.

A multi-select points at values rather than copying them: ``[0].{a:@,b:@}`` chained 22 times is
22 small objects in memory, yet 2**22 copies of a reminder once written out - 1.5 GB of JSON from
223 characters, and a daemon killed by the memory of writing it. So what a query *makes* is
measured at its written size (a part that appears twice counts twice, though it is measured
once), while it is being made, and a query that makes more than ``BUILD_MAX_BYTES`` stops.

What is made, and counted:
- each object or list a multi-select (``{a: x}``, ``[x, y]``) builds;
- each literal the query puts into its result (a literal only tested in a ``[?filter]`` makes
  nothing);
- the text ``to_string`` and ``join`` write, counted before they write it.

Selecting - fields, indexes, slices, filters, projections, flattening, sorting - only points at
values already there, so it costs nothing. That is also what keeps the cost of a query the same
whether SQL or memory does the selecting (``backends.local.pushdown`` folds only selections).
"""

from __future__ import annotations

from typing import Any

from jmespath import exceptions as jexc
from jmespath import functions
from jmespath.visitor import TreeInterpreter

# Far above any honest view of a large store (50,000 reminders cut to a few fields is ~10 MB of
# JSON), far below what hurts the daemon: an answer is held in memory, then written out again.
BUILD_MAX_BYTES = 64 * 1024 * 1024

# Functions whose result is text written from their arguments (the rest select or compute a scalar).
_WRITERS = frozenset({"to_string", "join"})
_CONTAINERS = (list, dict)


class BudgetExceeded(jexc.JMESPathError):
    """The query made more than its budget allows; the message is the reason a person reads."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the query builds more than {_amount(limit)} of results (each object "
            "or list it makes counts at its written size, a reminder it names twice counts "
            "twice): select fewer fields or fewer reminders"
        )


class BudgetedInterpreter(TreeInterpreter):
    """jmespath's own interpreter, charging what it makes against ``limit`` bytes."""

    def __init__(self, limit: int | None = None) -> None:
        super().__init__()
        self._calls = functions.Functions()
        self._limit = BUILD_MAX_BYTES if limit is None else limit
        self._left = self._limit
        self._sizes = WrittenSizes()
        self._testing = 0  # > 0 while a filter's condition runs: its values are only tested

    def charge(self, value: Any) -> None:
        self._left -= self._sizes.of(value)
        if self._left < 0:
            raise BudgetExceeded(self._limit)

    def visit_multi_select_dict(self, node: Any, value: Any) -> Any:
        made = super().visit_multi_select_dict(node, value)
        self.charge(made)
        return made

    def visit_multi_select_list(self, node: Any, value: Any) -> Any:
        made = super().visit_multi_select_list(node, value)
        self.charge(made)
        return made

    def visit_literal(self, node: Any, value: Any) -> Any:
        if not self._testing:
            self.charge(node["value"])
        return node["value"]

    def visit_function_expression(self, node: Any, value: Any) -> Any:
        args = [self.visit(child, value) for child in node["children"]]
        if node["value"] in _WRITERS:
            for arg in args:
                self.charge(arg)
        return self._calls.call_function(node["value"], args)

    def visit_filter_projection(self, node: Any, value: Any) -> Any:
        # jmespath's own, with the condition marked as tested only.
        base = self.visit(node["children"][0], value)
        if not isinstance(base, list):
            return None
        collected = []
        for element in base:
            self._testing += 1
            try:
                keep = _truthy(self.visit(node["children"][2], element))
            finally:
                self._testing -= 1
            if keep:
                current = self.visit(node["children"][1], element)
                if current is not None:
                    collected.append(current)
        return collected


class WrittenSizes:
    """The size of a value written as compact JSON (numbers count 8), each object or list
    measured once however often it appears - so measuring a bomb costs as little as making it.
    The values are kept while measured ones are, so an id is never reused for another value."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, int]] = {}

    def of(self, value: Any) -> int:
        if not isinstance(value, _CONTAINERS):
            return _scalar(value)
        stack: list[tuple[Any, bool]] = [(value, False)]
        while stack:  # post-order without recursion: a literal may nest a thousand deep
            item, children_done = stack.pop()
            if id(item) in self._known:
                continue
            if children_done:
                self._known[id(item)] = (item, self._sum(item))
                continue
            stack.append((item, True))
            stack.extend((child, False) for child in _children(item) if _is_new(child, self))
        return self._known[id(value)][1]

    def _sum(self, item: list[Any] | dict[str, Any]) -> int:
        total = 2 + max(len(item) - 1, 0)  # brackets and commas
        for child in _children(item):
            known = self._known.get(id(child)) if isinstance(child, _CONTAINERS) else None
            total += known[1] if known is not None else _scalar(child)
        if isinstance(item, dict):
            total += sum(len(key) + 3 for key in item)
        return total

    def knows(self, value: Any) -> bool:
        return id(value) in self._known


def _children(item: list[Any] | dict[str, Any]) -> Any:
    return item.values() if isinstance(item, dict) else item


def _is_new(child: Any, sizes: WrittenSizes) -> bool:
    return isinstance(child, _CONTAINERS) and not sizes.knows(child)


def _truthy(value: Any) -> bool:
    """JMESPath's truth: empty text, lists and objects, null and false are false (0 is true)."""
    return not (value is None or value is False or value in ("", [], {}))


def _amount(size: int) -> str:
    return f"{size // (1024 * 1024)} MB" if size >= 1024 * 1024 else f"{size} bytes"


def _scalar(value: Any) -> int:
    if isinstance(value, str):
        return len(value) + 2
    return 8
