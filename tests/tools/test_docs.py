"""A tool's docstring names its input model's facts (``$(limit)``) instead of restating them:
the words come from the model, so a bound changed there changes what an agent reads."""

# no ``from __future__ import annotations``: the tools below are declared on models made in
# the test, which ``@tool`` must see as objects, not names

import re
from typing import Any, Literal

import pytest
from pydantic import Field

from fruitctl.capabilities import all_tools
from fruitctl.capabilities.reminders import inputs as reminder_inputs
from fruitctl.tools.context import ToolContext
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import Tool, schema_of, tool

NUMERIC_FACTS = ("minimum", "maximum", "default")


def declared(model: type[Input], doc: str) -> Tool:
    def query(args: model, ctx: ToolContext) -> dict[str, Any]:  # type: ignore[valid-type]
        return {}

    query.__doc__ = doc
    return tool(category="read_only", risk="low", title="Query")(query)


def paged(most: int) -> type[Input]:
    class Paged(Input):
        limit: int = Field(default=50, ge=1, le=most)
        status: Literal["open", "done", "all"] = "open"
        offset: int = Field(default=0, ge=0)

    return Paged


def test_the_description_says_what_the_model_declares() -> None:
    doc = "Find. limit: $(limit). status: $(status). offset: default $(offset.default)."
    assert declared(paged(200), doc).definition.description == (
        'Find. limit: 1-200, default 50. status: "open" (default), "done" or "all". '
        "offset: default 0."
    )


def test_a_bound_changed_in_the_model_changes_the_description() -> None:
    doc = "limit: $(limit); at most $(limit.maximum)."
    assert (
        declared(paged(200), doc).definition.description == "limit: 1-200, default 50; at most 200."
    )
    assert declared(paged(20000), doc).definition.description == (
        "limit: 1-20000, default 50; at most 20,000."
    )


@pytest.mark.parametrize(
    ("placeholder", "names"),
    [
        ("$(lmit)", r"\$\(lmit\)"),
        ("$(limit.color)", r"limit\.color"),
        ("$(status.maximum)", "maximum"),
    ],
)
def test_a_placeholder_naming_no_fact_fails_at_declaration(placeholder: str, names: str) -> None:
    with pytest.raises(ValueError, match=names):
        declared(paged(200), f"limit: {placeholder}")


def test_json_and_jmespath_examples_are_left_as_written() -> None:
    doc = 'Examples: {"query": "reverse(sort_by(@, &creationDate))[:10]"} · [?priority != `0`] $x'
    assert declared(paged(200), doc).definition.description == doc


def restated(doc: str, schema: dict[str, Any]) -> list[str]:
    """The numbers a docstring's ``field: ...`` sentence writes by hand that are a bound or
    default of that field: each should be a ``$(field)`` placeholder instead."""
    found = []
    for field, prop in schema.get("properties", {}).items():
        facts = {
            value
            for part in [prop, *prop.get("anyOf", [])]
            for key in NUMERIC_FACTS
            if isinstance(value := part.get(key), int) and not isinstance(value, bool)
        }
        for sentence in re.findall(rf"(?<![\w.]){re.escape(field)}: (.*?)(?:\.\s|\.$)", doc, re.S):
            numbers = {int(n) for n in re.findall(r"(?<![\w.])\d+(?![\w.]\d)", sentence)}
            found += [f"{field}: {n}" for n in sorted(numbers & facts)]
    return found


def test_the_scan_finds_a_number_written_by_hand() -> None:
    before = (
        "limit: 1-200, default 50, applied last. offset: how many results to skip first "
        '(default 0),\nto page through more than 200: {"limit": 200, "offset": 200} is the '
        "second page."
    )
    schema = schema_of(reminder_inputs.QueryReminders)
    assert restated(before, schema) == ["limit: 1", "limit: 50", "limit: 200", "offset: 0"]


@pytest.mark.parametrize("declared_tool", all_tools(), ids=lambda t: t.name)
def test_no_tool_docstring_restates_a_bound_or_default_of_its_model(declared_tool: Tool) -> None:
    schema = schema_of(declared_tool.input_model)
    assert restated(declared_tool.function.__doc__ or "", schema) == []
