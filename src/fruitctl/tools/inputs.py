"""What every tool's input model shares: the strict base (``Input``), text a person will read
(``Line``, ``Lines``: refused if it hides or reorders what it says), the marker of a field null
clears, and ``parse``, the one wording of invalid arguments for every door."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.text import text_problem


class Input(BaseModel):
    """Base of every tool's input model: JSON types as declared (strict: `true` is not a limit
    and "2" is not a number), unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _written(multiline: bool) -> AfterValidator:
    """Text that is written somewhere a person reads it: refused if it holds a character that
    hides or reorders what it says (``domain.text.text_problem``)."""

    def check(value: str) -> str:
        problem = text_problem(value, multiline=multiline)
        if problem is not None:
            raise PydanticCustomError("text_refused", "{problem}", {"problem": problem})
        return value

    return AfterValidator(check)


Line = Annotated[str, _written(multiline=False)]
"""One line of text to write: a title, a checklist item, a heading."""
Lines = Annotated[str, _written(multiline=True)]
"""Text to write that may have lines: notes."""


CLEARS = "x-cleared-by-null"
CLEARED_BY_NULL: dict[str, Any] = {CLEARS: True}
"""``json_schema_extra`` of a field that null clears (``{"dueDate": null}``): its published
schema admits null (``tools.catalog.seed_schemas``), where an optional field's does not."""


M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], args: object, action: str) -> M:
    """Validate ``args``; a failure is ``InvalidParams`` in the reminders contract's wording
    (``Action 'create' requires 'title' to be specified.``, ``action`` naming the action),
    naming the field. An instance of ``model`` (validated already, e.g. by the gateway)
    passes through."""
    if isinstance(args, model):
        return args
    if args is not None and not isinstance(args, Mapping):
        raise InvalidParams("Arguments must be a JSON object.")
    try:
        return model.model_validate(dict(args or {}))
    except ValidationError as exc:
        raise _explain(exc, action) from exc


def _explain(exc: ValidationError, action: str) -> InvalidParams:
    error = exc.errors()[0]
    loc = [str(part) for part in error["loc"]]
    where = _path(loc)
    field = loc[-1] if loc else ""
    kind = error["type"]
    if kind == "missing":
        message = f"Action '{action}' requires '{field}' to be specified."
    elif field == "priority" and kind == "literal_error":
        message = f"Invalid priority: '{error['input']}'. Must be one of: none, low, medium, high."
    elif kind == "extra_forbidden":
        message = f"Unknown parameter '{where}'."
    elif kind == "text_refused":
        message = f"'{where}' {error['msg']}."
    else:
        message = f"Invalid value for '{where}': {error['msg']}."
    return InvalidParams(message, field=where)


def _path(loc: list[str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if part.isdigit() else (f".{part}" if out else part)
    return out
