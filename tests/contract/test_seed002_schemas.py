"""The reminder tools' input schemas, generated from their models, equal seed 002's published
ones (``seed002/*.json``, copied from the seed's "Input Schema" blocks) but for the additive
departures listed here: a property's type, enum, bound, default or requiredness may not drift."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from fruitctl.capabilities.reminders.schemas import published
from fruitctl.capabilities.reminders.tools import TOOLS

SEED = Path(__file__).parent / "seed002"
BY_NAME = {t.name: t for t in TOOLS}
ITEM = ("reminders", "items")  # the properties of one reminder in a batch
REPEATS = ("recurrence", "alarms", "startDate")

# New optional properties: the GTD fields, paging and search (and completedDate on create,
# which undo needs to recreate a completed reminder); a repeat rule, alarms and a start date.
ADDED: dict[str, list[tuple[str, ...]]] = {
    "query_reminders": [("search",), ("offset",)],
    "get_lists": [],
    "create_reminders": [
        (*ITEM, name) for name in ("tags", "flagged", "url", "completedDate", *REPEATS)
    ],
    "update_reminders": [(*ITEM, name) for name in ("tags", "flagged", "url", *REPEATS)],
    "delete_reminders": [],
}
# null admitted where the seed's own examples and descriptions clear a field with it.
NULL_ADMITTED: dict[str, list[tuple[str, ...]]] = {
    "update_reminders": [(*ITEM, name) for name in ("notes", "dueDate", "completedDate")],
}
# Descriptions that go on from the seed's words to say more.
LONGER: dict[str, list[tuple[str, ...]]] = {
    "create_reminders": [(*ITEM, "dueDate")],
    "query_reminders": [("list", "name")],  # how to name one of two accounts' lists
}


def seed(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SEED / f"{name}.json").read_text())
    return loaded


def properties(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """The object holding the properties at ``path`` (through an array's ``items``)."""
    node = schema
    for step in path:
        node = node[step] if step == "items" else node["properties"][step]
    return node


def as_seed(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with this tool's listed departures taken back out."""
    schema = copy.deepcopy(schema)
    for *where, added in ADDED[name]:
        holder = properties(schema, tuple(where))
        assert added not in holder.get("required", []), f"{added} is added, so optional"
        del holder["properties"][added]
    for path in NULL_ADMITTED.get(name, []):
        field = properties(schema, path)
        kind, null = field["type"]
        assert null == "null"
        field["type"] = kind
    for path in LONGER.get(name, []):
        field = properties(schema, path)
        said = properties(seed(name), path)["description"]
        assert field["description"].startswith(said)
        field["description"] = said
    return schema


@pytest.mark.parametrize("name", sorted(ADDED))
def test_the_generated_schema_is_the_seeds_but_for_the_listed_departures(name: str) -> None:
    schema = BY_NAME[name].definition.input_schema
    assert as_seed(name, schema) == seed(name)


@pytest.mark.parametrize("name", sorted(ADDED))
def test_each_listed_departure_is_one(name: str) -> None:
    """The lists say no more than the schema does: each departure is really there."""
    schema = BY_NAME[name].definition.input_schema
    for path in ADDED[name]:
        with pytest.raises(KeyError):
            properties(seed(name), path)
        assert properties(schema, path)
    for path in NULL_ADMITTED.get(name, []) + LONGER.get(name, []):
        assert properties(schema, path) != properties(seed(name), path)


@pytest.mark.parametrize(
    ("drift", "path"),
    [
        ({"maximum": 500}, ("limit",)),
        ({"default": "all"}, ("status",)),
        ({"enum": ["newest", "oldest"]}, ("sortBy",)),
        ({"type": "number"}, ("limit",)),
    ],
)
def test_a_drift_from_the_seed_is_caught(drift: dict[str, Any], path: tuple[str, ...]) -> None:
    schema = copy.deepcopy(BY_NAME["query_reminders"].definition.input_schema)
    properties(schema, path).update(drift)
    assert as_seed("query_reminders", schema) != seed("query_reminders")


def test_a_field_made_required_is_caught() -> None:
    schema = copy.deepcopy(BY_NAME["create_reminders"].definition.input_schema)
    properties(schema, ITEM)["required"] = ["title", "notes"]
    assert as_seed("create_reminders", schema) != seed("create_reminders")


def test_the_tools_publish_what_the_generator_makes_of_their_models() -> None:
    for name in ADDED:
        tool = BY_NAME[name]
        assert tool.definition.input_schema == published(tool.input_model)
