"""Seed 002's input schemas for the five reminder tools, as MCP clients must see them, generated
from the input models (``services.inputs``): a field's type, bound, default and description are
written there once.

The generated schema follows the seed property for property; a test holds it to the seed's own
published schemas (``tests/contract/seed002``). The departures are all additive: the GTD fields
(``tags``, ``flagged``, ``url``, and ``completedDate`` on create, which undo needs); ``offset``
and ``search`` on query; descriptions that say more than the seed's; and ``null`` admitted
where the seed's own examples send it to clear a field (``{"dueDate": null}``), which a client
validating against a plain ``"type": "string"`` would refuse - a field says so with
``inputs.CLEARED_BY_NULL``.

What the generator changes in pydantic's JSON Schema, and why:

- an optional field (``X | None = None``) publishes ``X``, as the seed does: omitting it is how
  a client leaves it out; its ``null`` is kept only for a field that null clears;
- nested models are written in place (no ``$defs``), as the seed writes them, and a model's
  docstring is not a field's description;
- every object is closed (``additionalProperties: false``), pydantic's titles are dropped;
- a list stays the seed's object: the models also read a bare string as its name
  (``inputs.ListReference``), for agents that send one, but clients type what they send by the
  schema (an ``anyOf`` there made the MCP Inspector send ``{"all": true}`` as a string).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from fruitctl.capabilities.reminders.inputs import (
    CreateReminders,
    DeleteReminders,
    GetLists,
    QueryReminders,
    UpdateReminders,
)
from fruitctl.tools.inputs import CLEARS

# The order the seed writes a property's keys in, so that the schema reads like the seed's.
KEY_ORDER = (
    "type",
    "required",
    "enum",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "default",
    "items",
    "description",
    "properties",
    "additionalProperties",
)


def published(model: type[BaseModel]) -> dict[str, Any]:
    """The input schema a client sees for ``model``: see the module's docstring."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})
    return _object(schema, definitions)


def _property(node: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    node = dict(node)
    clears = node.pop(CLEARS, False)
    node.pop("title", None)
    if node.get("default", ...) is None:
        del node["default"]
    options = node.pop("anyOf", None)
    if options is not None:
        node = {**_optional(options, clears), **node}
    if "$ref" in node:
        node = {**_referenced(node.pop("$ref"), definitions), **node}
    if "items" in node:
        node["items"] = _property(node["items"], definitions)
    if node.get("type") == "object":
        return _object(node, definitions)
    return _ordered(node)


def _optional(options: list[dict[str, Any]], clears: bool) -> dict[str, Any]:
    """``X | None``: ``X`` alone, or with ``null`` in its type for a field null clears."""
    given = [option for option in options if option != {"type": "null"}]
    if len(given) != 1:
        raise ValueError(f"a published schema takes one type or null, not {options}")
    (kept,) = given
    if clears:
        return {**kept, "type": [kept["type"], "null"]}
    return kept


def _referenced(ref: str, definitions: dict[str, Any]) -> dict[str, Any]:
    """A nested model, written in place; its docstring is not the field's description."""
    found = dict(definitions[ref.removeprefix("#/$defs/")])
    found.pop("description", None)
    return found


def _object(node: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    node = {key: value for key, value in node.items() if key != "title"}
    node["properties"] = {
        name: _property(field, definitions) for name, field in node.get("properties", {}).items()
    }
    node["additionalProperties"] = False
    return _ordered(node)


def _ordered(node: dict[str, Any]) -> dict[str, Any]:
    unknown = set(node) - set(KEY_ORDER)
    if unknown:  # a keyword the seed never uses: say so rather than publish it unread
        raise ValueError(f"a published schema has no place for {sorted(unknown)}")
    return {key: node[key] for key in KEY_ORDER if key in node}


QUERY_REMINDERS = published(QueryReminders)
GET_LISTS = published(GetLists)
CREATE_REMINDERS = published(CreateReminders)
UPDATE_REMINDERS = published(UpdateReminders)
DELETE_REMINDERS = published(DeleteReminders)
