"""The five reminder tools publish seed 002's schemas; their models must agree with them:
same properties, same required keys, and the same verdict on valid and invalid arguments."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from fruitctl.capabilities.reminders.tools import TOOLS
from fruitctl.domain.errors import InvalidParams

BY_NAME = {t.name: t for t in TOOLS}
SEED_TOOLS = [
    "query_reminders",
    "get_lists",
    "create_reminders",
    "update_reminders",
    "delete_reminders",
]
CASES: list[tuple[str, Any, bool]] = [
    ("query_reminders", {}, True),
    ("query_reminders", {"list": {"name": "Work"}}, True),
    ("query_reminders", {"list": {"all": True}, "status": "completed"}, True),
    ("query_reminders", {"query": "[?priority == `1`]", "limit": 200, "sortBy": "dueDate"}, True),
    ("query_reminders", {"limit": 0}, False),
    ("query_reminders", {"limit": 201}, False),
    ("query_reminders", {"limit": "5"}, False),
    ("query_reminders", {"status": "done"}, False),
    ("query_reminders", {"sortBy": "title"}, False),
    ("query_reminders", {"list": {"name": "W", "colour": "red"}}, False),
    ("query_reminders", {"extra": 1}, False),
    ("query_reminders", {"list": 3}, False),
    ("query_reminders", {"search": "milk", "list": {"all": True}}, True),
    ("query_reminders", {"search": ""}, False),
    ("query_reminders", {"search": "x" * 201}, False),
    ("get_lists", {}, True),
    ("get_lists", {"x": 1}, False),
    ("create_reminders", {"reminders": [{"title": "Buy milk"}]}, True),
    (
        "create_reminders",
        {
            "reminders": [
                {
                    "title": "Call dentist",
                    "list": {"name": "Personal"},
                    "dueDate": "2024-01-20T09:00:00-05:00",
                    "priority": "high",
                    "tags": ["@calls"],
                    "flagged": True,
                }
            ]
        },
        True,
    ),
    ("create_reminders", {"reminders": []}, False),
    ("create_reminders", {"reminders": [{}]}, False),
    ("create_reminders", {"reminders": [{"title": "x", "priority": "urgent"}]}, False),
    ("create_reminders", {"reminders": [{"title": "x", "list": {"all": True}}]}, False),
    ("create_reminders", {}, False),
    ("update_reminders", {"reminders": [{"id": "a", "title": "Buy oat milk"}]}, True),
    ("update_reminders", {"reminders": [{"id": "a", "dueDate": None, "notes": None}]}, True),
    ("update_reminders", {"reminders": [{"id": "a", "completedDate": None}]}, True),
    ("update_reminders", {"reminders": [{"id": "a", "completed": True}]}, True),
    ("update_reminders", {"reminders": [{"id": "a", "list": {"id": "l1"}}]}, True),
    ("update_reminders", {"reminders": [{"title": "no id"}]}, False),
    ("update_reminders", {"reminders": [{"id": "a", "completed": "yes"}]}, False),
    ("update_reminders", {"reminders": [{"id": "a", "what": 1}]}, False),
    ("delete_reminders", {"ids": ["abc123", "def456"]}, True),
    ("delete_reminders", {"ids": []}, False),
    ("delete_reminders", {"ids": [1]}, False),
    ("delete_reminders", {}, False),
]


def _model_accepts(name: str, args: Any) -> bool:
    try:
        BY_NAME[name].parse(args)
    except InvalidParams:
        return False
    return True


@pytest.mark.parametrize(("name", "args", "valid"), CASES)
def test_schema_and_model_agree(name: str, args: Any, valid: bool) -> None:
    schema = BY_NAME[name].definition.input_schema
    schema_accepts = jsonschema.Draft202012Validator(schema).is_valid(args)
    assert schema_accepts is valid, "schema"
    assert _model_accepts(name, args) is valid, "model"


@pytest.mark.parametrize("name", SEED_TOOLS)
def test_same_properties_and_required_keys(name: str) -> None:
    tool = BY_NAME[name]
    schema = tool.definition.input_schema
    generated = tool.input_model.model_json_schema()
    assert set(schema["properties"]) == set(generated["properties"])
    assert set(schema.get("required", [])) == set(generated.get("required", []))
    assert schema["additionalProperties"] is False
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("query_reminders", {"list": "Work"}),
        ("create_reminders", {"reminders": [{"title": "x", "list": "Groceries"}]}),
        ("update_reminders", {"reminders": [{"id": "a", "list": "Groceries"}]}),
    ],
)
def test_a_bare_list_name_is_read_though_the_schema_asks_for_an_object(
    name: str, args: dict[str, Any]
) -> None:
    """The one place model and schema part: an agent that sends a bare string is understood,
    while the schema keeps the seed's object that clients type their arguments by."""
    assert not jsonschema.Draft202012Validator(BY_NAME[name].definition.input_schema).is_valid(args)
    assert _model_accepts(name, args)
