"""A tool's docstring names its input model's facts instead of restating them.

``$(limit)`` in a docstring becomes ``1-200, default 50`` - the bounds and default the input
model declares - and ``$(status)`` becomes ``"incomplete" (default), "completed" or "all"``;
``$(limit.default)``, ``$(notes.maxLength)`` (any of ``FACTS``) name one fact, a count of a
thousand or more in groups as prose writes it (``10,000``). The facts are read from the input
model's JSON Schema (never a published schema that replaces it: the model wins), so a bound
changed in ``inputs.py`` changes the words an agent reads. ``$(`` appears in no JSON or JMESPath
example, so the syntax cannot collide with them; a placeholder naming no field, or a fact the
field does not have, fails at import."""

from __future__ import annotations

import json
import re
from typing import Any

PLACEHOLDER = re.compile(r"\$\(([^)]*)\)")
FACTS = ("default", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems")


def expand(doc: str, schema: dict[str, Any], tool: str) -> str:
    """``doc`` with each ``$(field)`` or ``$(field.fact)`` replaced by the schema's words."""
    return PLACEHOLDER.sub(lambda match: _words(match.group(1), schema, tool), doc)


def _words(name: str, schema: dict[str, Any], tool: str) -> str:
    field, _, fact = name.partition(".")
    prop = schema.get("properties", {}).get(field)
    if prop is None or (fact and fact not in FACTS):
        raise ValueError(f"tool {tool}: docstring placeholder $({name}) names no field fact")
    facts = _facts(prop, schema)
    if fact:
        if fact not in facts:
            raise ValueError(f"tool {tool}: field {field} has no {fact} for $({name})")
        return _prose(facts[fact])
    if "enum" in facts:
        return _choices(facts["enum"], facts.get("default"))
    return _range(facts, tool, field)


def _facts(prop: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The field's bounds, default and choices, looked for in ``anyOf`` members and ``$ref``s."""
    facts: dict[str, Any] = {}
    for part in [prop, *prop.get("anyOf", [])]:
        if "$ref" in part:
            part = schema.get("$defs", {}).get(part["$ref"].rsplit("/", 1)[-1], {})
        for key in (*FACTS, "enum"):
            if key in part and key not in facts:
                facts[key] = part[key]
    if facts.get("default", 0) is None:
        del facts["default"]  # "omit it" is no fact an agent needs spelled out
    return facts


def _choices(values: list[Any], default: Any) -> str:
    words = [_literal(v) + (" (default)" if v == default else "") for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _range(facts: dict[str, Any], tool: str, field: str) -> str:
    parts = []
    if "minimum" in facts and "maximum" in facts:
        parts.append(f"{_literal(facts['minimum'])}-{_literal(facts['maximum'])}")
    if "default" in facts:
        parts.append(f"default {_literal(facts['default'])}")
    if not parts:
        raise ValueError(f"tool {tool}: field {field} declares no bounds or default to name")
    return ", ".join(parts)


def _literal(value: Any) -> str:
    return json.dumps(value)


def _prose(value: Any) -> str:
    """One fact as a sentence says it: a count of a thousand or more in groups (10,000)."""
    big = isinstance(value, int) and not isinstance(value, bool) and value >= 1000
    return f"{value:,}" if big else _literal(value)
