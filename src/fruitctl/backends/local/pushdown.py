"""Run as much of a JMESPath query as SQL can express, the rest in memory, with identical results.

The query's spine (pipes, ``[?filter]``, ``sort_by(@, &field)``, ``reverse``, ``[a:b]``) is folded
into one ``Plan`` - WHERE terms, ORDER BY terms, OFFSET/LIMIT. The first node SQL cannot express
becomes the *remainder*, evaluated by the jmespath library over the rows the plan produced.

Faithfulness to jmespath's semantics is the whole game (a property test checks it):
- every SQL condition is two-valued (never NULL), like jmespath truthiness;
- ``sort_by`` is stable, so a new sort key goes in front of the existing terms, and the base order
  (newest first, then id) is the final tie-break; ``reverse`` flips every term;
- where jmespath would raise (``contains(notes, 'x')`` on a null note; ``title < `1```), the query
  either stays in memory or a *guard* query detects the failing row and the whole query falls back
  to memory, so the caller sees the very same error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from sqlalchemy import (
    ColumnElement,
    Connection,
    and_,
    exists,
    false,
    func,
    literal,
    not_,
    or_,
    select,
    true,
)

from fruitctl.backends.local import rows
from fruitctl.backends.local.tables import lists, reminder_tags, reminders
from fruitctl.domain.query import Node, Query, evaluate

Kind = Literal["str", "str?", "num", "bool", "tags"]
Term = tuple[ColumnElement[Any], bool]  # (column, descending)
Cond = tuple[ColumnElement[bool], ColumnElement[bool] | None]  # (truth, raises; None = never)

FIELDS: dict[str, tuple[ColumnElement[Any], Kind]] = {
    "id": (reminders.c.id, "str"),
    "title": (reminders.c.title, "str"),
    "notes": (reminders.c.notes, "str?"),
    "listId": (reminders.c.list_id, "str"),
    "listName": (lists.c.name, "str"),
    "isCompleted": (reminders.c.is_completed, "bool"),
    "priority": (reminders.c.priority, "num"),
    "dueDate": (reminders.c.due, "str?"),
    "completionDate": (reminders.c.completion, "str?"),
    "creationDate": (reminders.c.created, "str"),
    "modificationDate": (reminders.c.modified, "str"),
    "isFlagged": (reminders.c.is_flagged, "bool"),
    "url": (reminders.c.url, "str?"),
    "parentId": (reminders.c.parent_id, "str?"),
    "recurrence": (reminders.c.recurrence, "str?"),
    "startDate": (reminders.c.start, "str?"),
    "tags": (reminders.c.id, "tags"),
}
BASE_ORDER: tuple[Term, ...] = ((reminders.c.created_sort, True), (reminders.c.id, True))
CURRENT: Node = {"type": "current", "children": []}
_ORDERING = {"lt": "__lt__", "lte": "__le__", "gt": "__gt__", "gte": "__ge__"}
# Functions whose first argument is the list they work on, so that argument can be folded.
_LIST_FUNCTIONS = frozenset({"sort_by", "reverse"})


@dataclass(frozen=True)
class Plan:
    where: tuple[ColumnElement[bool], ...] = ()
    order: tuple[Term, ...] = BASE_ORDER
    offset: int = 0
    limit: int | None = None
    guards: tuple[ColumnElement[bool], ...] = ()

    @property
    def sliced(self) -> bool:
        return self.offset > 0 or self.limit is not None


def search(
    conn: Connection, scope: list[ColumnElement[bool]], query: Query, limit: int, offset: int = 0
) -> Any:
    """The result of ``query`` over the scoped reminders, a list result cut to
    ``[offset:offset + limit]``."""
    plan, remainder = fold(query.ast, Plan(where=tuple(scope)))
    if plan.guards and _raises(conn, plan):
        plan, remainder = Plan(where=tuple(scope)), query.ast  # let jmespath raise its own error
    if remainder is None:
        plan = _window(plan, offset, limit)
    data = _fetch(conn, plan)
    if remainder is None:
        return data
    result = evaluate(remainder, data, query.text)
    return result[offset : offset + limit] if isinstance(result, list) else result


def _window(plan: Plan, offset: int, limit: int) -> Plan:
    """The plan's own rows, then ``[offset:offset + limit]`` of them."""
    left = None if plan.limit is None else max(plan.limit - offset, 0)
    return replace(
        plan, offset=plan.offset + offset, limit=limit if left is None else min(left, limit)
    )


def fold(node: Node, plan: Plan) -> tuple[Plan, Node | None]:
    """Fold ``node`` (applied to the plan's rows) into the plan; return what is left to evaluate."""
    kind = node["type"]
    if kind in ("current", "identity"):
        return plan, None
    if kind == "pipe":
        left, right = node["children"]
        plan, rest = fold(left, plan)
        return (plan, _rebuild(node, rest)) if rest is not None else fold(right, plan)
    step = _STEPS.get(kind)
    if step is None or (kind == "function_expression" and node["value"] not in _LIST_FUNCTIONS):
        return plan, node
    plan, rest = fold(node["children"][0], plan)
    if rest is not None:
        return plan, _rebuild(node, rest)
    folded = step(node, plan)
    return folded if folded is not None else (plan, _rebuild(node, CURRENT))


def _rebuild(node: Node, first: Node) -> Node:
    """``node`` with its input (first child) replaced - what remains to run in memory."""
    return {**node, "children": [first, *node["children"][1:]]}


# Spine steps: each takes the node and the plan of its (already folded) input, and returns the
# new plan with what is left, or None when SQL cannot take this node.


def _projection(node: Node, plan: Plan) -> tuple[Plan, Node | None]:
    right = node["children"][1]
    if right["type"] == "identity":  # rows are never null, so `[*]` keeps them all
        return plan, None
    return plan, {"type": "projection", "children": [{"type": "identity", "children": []}, right]}


def _filter(node: Node, plan: Plan) -> tuple[Plan, Node | None] | None:
    _, right, condition = node["children"]
    cond = None if plan.sliced else _condition(condition)
    if cond is None:
        return None
    truth, raises = cond
    guards = plan.guards if raises is None else (*plan.guards, and_(*plan.where, raises))
    plan = replace(plan, where=(*plan.where, truth), guards=guards)
    return _projection({"type": "projection", "children": [CURRENT, right]}, plan)


def _function(node: Node, plan: Plan) -> tuple[Plan, Node | None] | None:
    name, args = node["value"], node["children"]
    if plan.sliced:
        return None
    if name == "reverse" and len(args) == 1:
        return replace(plan, order=tuple((col, not desc) for col, desc in plan.order)), None
    if name == "sort_by" and len(args) == 2 and args[1]["type"] == "expref":
        field = _field(args[1]["children"][0])
        if field is not None and field[1] in ("str", "num"):
            return replace(plan, order=((_binary(field), False), *plan.order)), None
    return None


def _index(node: Node, plan: Plan) -> tuple[Plan, Node | None] | None:
    target = node["children"][1]
    if target["type"] != "slice":
        return None
    start, stop, step = target["children"]
    if step not in (None, 1) or any(v is not None and v < 0 for v in (start, stop)):
        return None
    start = start or 0
    limit = plan.limit
    if limit is not None:
        limit = max(limit - start, 0)
    if stop is not None:
        limit = max(stop - start, 0) if limit is None else min(limit, max(stop - start, 0))
    return replace(plan, offset=plan.offset + start, limit=limit), None


_STEPS: dict[str, Any] = {
    "projection": _projection,
    "filter_projection": _filter,
    "function_expression": _function,
    "index_expression": _index,
}


# Conditions: each compiles to (truth, raises), both plain two-valued SQL booleans.


def _condition(node: Node) -> Cond | None:
    kind = node["type"]
    if kind in ("and_expression", "or_expression"):
        left, right = (_condition(child) for child in node["children"])
        if left is None or right is None:
            return None
        # The right side only runs when the left did not decide, so it can only raise then.
        if kind == "and_expression":
            return and_(left[0], right[0]), _any(left[1], _when(left[0], right[1]))
        return or_(left[0], right[0]), _any(left[1], _when(_not(left[0]), right[1]))
    if kind == "not_expression":
        inner = _condition(node["children"][0])
        return None if inner is None else (_not(inner[0]), inner[1])
    if kind == "comparator":
        compared = _comparison(node["value"], *node["children"])
        return None if compared is None else (compared, None)
    if kind == "function_expression" and node["value"] == "contains":
        return _contains(node["children"])
    field = _field(node)
    if field is not None:
        return _truthy(field), None
    if kind == "literal":
        return (true() if _jmes_true(node["value"]) else false()), None
    return None


def _not(condition: ColumnElement[bool]) -> ColumnElement[bool]:
    # Always NOT (...): SQLAlchemy 2.1 drops the negation of `x IS 'literal'` otherwise.
    return not_(condition.self_group())


def _any(a: ColumnElement[bool] | None, b: ColumnElement[bool] | None) -> Any:
    if a is None or b is None:
        return a if b is None else b
    return or_(a, b)


def _when(condition: ColumnElement[bool], raises: ColumnElement[bool] | None) -> Any:
    return None if raises is None else and_(condition, raises)


def _truthy(field: tuple[ColumnElement[Any], Kind]) -> ColumnElement[bool]:
    column, kind = field
    if kind == "num":
        return true()  # every number, 0 included, is true in JMESPath
    if kind == "bool":
        return column == true()
    if kind == "tags":
        return _has_tag(None)
    text = _binary(field)
    return and_(column.is_not(None), text != "") if kind == "str?" else text != ""


def _comparison(op: str, left_node: Node, right_node: Node) -> ColumnElement[bool] | None:
    left, right = _field(left_node), _field(right_node)
    if left is None and right is not None:  # put the field on the left
        op = {"lt": "gt", "gt": "lt", "lte": "gte", "gte": "lte"}.get(op, op)
        left, left_node, right_node = right, right_node, left_node
    if left is None or left[1] == "tags" or right_node["type"] != "literal":
        return None
    value = right_node["value"]
    if not _plain(value):
        return None
    if op in ("eq", "ne"):
        equal = _equals(left, value)
        return equal if op == "eq" else _not(equal)
    ordered: ColumnElement[bool] | None = _ordering(op, left, value)
    return ordered


def _equals(field: tuple[ColumnElement[Any], Kind], value: Any) -> ColumnElement[bool]:
    column, kind = field
    if value is None:
        return column.is_(None) if kind == "str?" else false()
    if isinstance(value, bool):
        return column == value if kind == "bool" else false()
    if isinstance(value, int | float):
        return column == value if kind == "num" else false()
    return _binary(field).is_(literal(value)) if kind in ("str", "str?") else false()


def _ordering(op: str, field: tuple[ColumnElement[Any], Kind], value: Any) -> Any:
    column, kind = field
    if value is None or isinstance(value, bool) or kind == "bool":
        return false()  # not comparable: jmespath yields null, a false filter
    if isinstance(value, str) and kind in ("str", "str?"):
        test = getattr(_binary(field), _ORDERING[op])(value)
        return and_(column.is_not(None), test) if kind == "str?" else test
    if isinstance(value, int | float) and kind == "num":
        return getattr(column, _ORDERING[op])(value)
    return None  # a string against a number makes jmespath raise: leave it to jmespath


def _contains(args: Sequence[Node]) -> Cond | None:
    if len(args) != 2:
        return None
    field, needle = _field(args[0]), args[1]
    if field is None or needle["type"] != "literal" or not _plain(needle["value"]):
        return None
    column, kind = field
    value = needle["value"]
    if kind == "tags":
        return (_has_tag(value) if isinstance(value, str) else false()), None
    if kind in ("num", "bool") or not isinstance(value, str):
        return None  # jmespath raises a type error here
    found = func.instr(_binary(field), value) > 0
    if kind == "str":
        return found, None
    return and_(column.is_not(None), found), column.is_(None)


def _has_tag(tag: str | None) -> ColumnElement[bool]:
    test = select(reminder_tags.c.tag).where(reminder_tags.c.reminder_id == reminders.c.id)
    if tag is not None:
        test = test.where(reminder_tags.c.tag == tag)
    return exists(test)


def _field(node: Node) -> tuple[ColumnElement[Any], Kind] | None:
    if node["type"] == "field":
        return FIELDS.get(node["value"])
    return None


def _binary(field: tuple[ColumnElement[Any], Kind]) -> ColumnElement[Any]:
    # jmespath compares strings by code point; list names are stored NOCASE, so force BINARY.
    column, kind = field
    return column.collate("BINARY") if kind in ("str", "str?") else column


def _plain(value: Any) -> bool:
    """A literal SQL can bind faithfully: null, bool, finite 53-bit number, NUL-free string."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int):
        return abs(value) < 2**53
    if isinstance(value, float):
        return math.isfinite(value) and abs(value) < 2**53
    return isinstance(value, str) and "\x00" not in value


def _jmes_true(value: Any) -> bool:
    return not (value in ("", [], {}) or value is None or value is False)


def _raises(conn: Connection, plan: Plan) -> bool:
    """Would jmespath raise on some row a pushed filter looks at?"""
    test = (
        select(literal(1))
        .select_from(reminders.join(lists, reminders.c.list_id == lists.c.id))
        .where(or_(*plan.guards))
        .limit(1)
    )
    return conn.execute(test).first() is not None


def _fetch(conn: Connection, plan: Plan) -> list[dict[str, Any]]:
    statement = (
        rows.base_select()
        .where(*plan.where)
        .order_by(*(col.desc() if desc else col.asc() for col, desc in plan.order))
        .offset(plan.offset or None)
    )
    if plan.limit is not None:
        statement = statement.limit(plan.limit)
    return rows.to_wire(conn, conn.execute(statement).all())
