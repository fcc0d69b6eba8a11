"""The generator of the reminder tools' published schemas (``seed_schemas.published``): what it
makes of an optional field, a field null clears, a nested model - and what it refuses."""

from __future__ import annotations

import pytest
from pydantic import Field

from fruitctl.capabilities.reminders.schemas import published
from fruitctl.tools.inputs import CLEARED_BY_NULL, Input


class Inner(Input):
    """A docstring that is no field's description."""

    name: str | None = None


class Sample(Input):
    kept: str = Field(description="Required, as written")
    optional: str | None = Field(None, description="Left out by omitting it")
    cleared: str | None = Field(None, description="Null clears", json_schema_extra=CLEARED_BY_NULL)
    inner: Inner | None = Field(None, description="The field's own words")
    count: int = Field(3, ge=1, le=9)


def test_optional_cleared_nested_and_bounded_fields_read_as_the_seed_writes_them() -> None:
    assert published(Sample) == {
        "type": "object",
        "required": ["kept"],
        "properties": {
            "kept": {"type": "string", "description": "Required, as written"},
            "optional": {"type": "string", "description": "Left out by omitting it"},
            "cleared": {"type": ["string", "null"], "description": "Null clears"},
            "inner": {
                "type": "object",
                "description": "The field's own words",
                "properties": {"name": {"type": "string"}},
                "additionalProperties": False,
            },
            "count": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
        },
        "additionalProperties": False,
    }


class Patterned(Input):
    code: str = Field(pattern="^[A-Z]+$")


class Either(Input):
    value: int | str | None = None


def test_a_keyword_the_seed_never_uses_is_refused_not_published_unread() -> None:
    with pytest.raises(ValueError, match="pattern"):
        published(Patterned)


def test_a_union_of_two_types_is_refused() -> None:
    with pytest.raises(ValueError, match="one type or null"):
        published(Either)
