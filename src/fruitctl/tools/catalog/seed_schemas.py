"""Seed 002's input schemas for the five reminder tools, as MCP clients must see them.

They follow the seed property for property (closed objects, enums, bounds, defaults). The
departures are all additive: the GTD fields (``tags``, ``flagged``, ``url``, and
``completedDate`` on create, which undo needs); ``offset`` and ``search`` on query; and
``null`` admitted where the seed's own examples send it to clear a field
(``{"dueDate": null}``), which a client validating against a plain ``"type": "string"`` would
refuse. A test holds each schema to its pydantic model. The models also read a list given as a
bare string as its name (``inputs.ListReference``), for agents that send one; the schemas keep
the seed's object, as clients type what they send by it (an ``anyOf`` there makes the MCP
Inspector send ``{"all": true}`` as a string).
"""

from __future__ import annotations

from typing import Any

from fruitctl.services.inputs import SEARCH_HELP, SEARCH_MAX

PRIORITY = {"type": "string", "enum": ["none", "low", "medium", "high"]}
TARGET_LIST = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "id": {"type": "string"}},
    "additionalProperties": False,
}
# Said wherever a reminder's link is: Apple's Reminders app neither shows nor fills this field.
HIDDEN_URL = "on Apple Reminders: EventKit's URL field, which the Reminders app does not show"
TAGS = {"type": "array", "items": {"type": "string"}, "description": "Tags, e.g. ['@calls']"}

QUERY_REMINDERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "list": {
            "type": "object",
            "description": "Which list to search. Omit for default list only.",
            "properties": {
                "name": {"type": "string", "description": "List name (case-insensitive match)"},
                "id": {"type": "string", "description": "Exact list ID"},
                "all": {"type": "boolean", "description": "Set true to search all lists"},
            },
            "additionalProperties": False,
        },
        "status": {
            "type": "string",
            "enum": ["incomplete", "completed", "all"],
            "default": "incomplete",
            "description": "Filter by completion status",
        },
        "sortBy": {
            "type": "string",
            "enum": ["newest", "oldest", "priority", "dueDate"],
            "default": "newest",
            "description": "Sort order. Ignored if 'query' includes sorting.",
        },
        "query": {
            "type": "string",
            "description": "JMESPath expression for advanced filtering/projection. "
            "Applied after list and status filters.",
        },
        "search": {
            "type": "string",
            "minLength": 1,
            "maxLength": SEARCH_MAX,
            "description": SEARCH_HELP,
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 200,
            "default": 50,
            "description": "Maximum results to return",
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "maximum": 1_000_000,
            "default": 0,
            "description": "Results to skip before 'limit' counts: page past 200 with offset "
            "200, 400...",
        },
    },
    "additionalProperties": False,
}

GET_LISTS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

CREATE_REMINDERS: dict[str, Any] = {
    "type": "object",
    "required": ["reminders"],
    "properties": {
        "reminders": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["title"],
                "properties": {
                    "title": {"type": "string", "description": "Reminder title"},
                    "notes": {"type": "string", "description": "Reminder notes/body text"},
                    "list": {
                        **TARGET_LIST,
                        "description": "Target list. Uses default list if omitted.",
                    },
                    "dueDate": {"type": "string", "description": "Due date in ISO 8601 format"},
                    "priority": {**PRIORITY, "description": "Priority level"},
                    "tags": TAGS,
                    "flagged": {"type": "boolean", "description": "Flag the reminder"},
                    "url": {
                        "type": "string",
                        "description": f"A link kept with the reminder ({HIDDEN_URL})",
                    },
                    "completedDate": {
                        "type": "string",
                        "description": "Create it already completed at this ISO 8601 time",
                    },
                },
                "additionalProperties": False,
            },
        }
    },
    "additionalProperties": False,
}

UPDATE_REMINDERS: dict[str, Any] = {
    "type": "object",
    "required": ["reminders"],
    "properties": {
        "reminders": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["id"],
                "properties": {
                    "id": {"type": "string", "description": "Reminder ID to update"},
                    "title": {"type": "string", "description": "New title"},
                    "notes": {
                        "type": ["string", "null"],
                        "description": "New notes. Set to null to clear.",
                    },
                    "list": {**TARGET_LIST, "description": "Move to this list"},
                    "dueDate": {
                        "type": ["string", "null"],
                        "description": "New due date in ISO 8601 format. Set to null to clear.",
                    },
                    "priority": {**PRIORITY, "description": "New priority level"},
                    "completed": {
                        "type": "boolean",
                        "description": "Set true to complete, false to uncomplete",
                    },
                    "completedDate": {
                        "type": ["string", "null"],
                        "description": "Completion date in ISO 8601 format. Set to null to "
                        "uncomplete. Overrides 'completed' if both provided.",
                    },
                    "tags": {**TAGS, "description": "Replace the tags"},
                    "flagged": {"type": "boolean", "description": "Flag or unflag"},
                    "url": {
                        "type": ["string", "null"],
                        "description": f"New link ({HIDDEN_URL}). Set to null to clear.",
                    },
                },
                "additionalProperties": False,
            },
        }
    },
    "additionalProperties": False,
}

DELETE_REMINDERS: dict[str, Any] = {
    "type": "object",
    "required": ["ids"],
    "properties": {
        "ids": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string"},
            "description": "Array of reminder IDs to delete",
        }
    },
    "additionalProperties": False,
}
