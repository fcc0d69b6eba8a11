"""A CLI option made from the input model's field: its default, its bounds (Typer's min and
max, so a bad value is refused naming the option) and the facts of its help (the field's
description, its length bounds) come from the model, the one place they are written; the
CLI adds only its own words (how to repeat an option, which flag clears it)."""

from __future__ import annotations

import re
from typing import Any, Literal, cast, get_args, get_origin

import annotated_types
import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

SOURCE = "fruitctl_source"
"""The attribute of each ``OptionInfo`` made here (kept on the copy Typer builds a command
from) naming the model and field it was made from, so a test can hold the CLI to the model."""


def source_of(info: object) -> tuple[type[BaseModel], str] | None:
    """The model and field an option was made from; ``None`` for an option of the CLI's own."""
    found: tuple[type[BaseModel], str] | None = getattr(info, SOURCE, None)
    return found


# A clause that tells a caller to send null: no value a command line can type (the CLI's own
# --clear-... flag says how to clear), so the help leaves it out.
NULL_CLAUSE = re.compile(r"(?:;\s*[^.;]*\bnull\b[^.;]*|\s*[^.;]*\bnull\b[^.;]*\.)")


def option(
    model: type[BaseModel], name: str, *decls: str, also: str = "", words: bool = False
) -> Any:
    """``typer.Option`` for ``model``'s field ``name``; ``also`` is the CLI's own sentence
    after the model's facts. ``words``: a true/false field given as a word (``--flag true``)."""
    field = model.model_fields[name]
    default = default_of(field)
    if words and isinstance(default, bool):
        default = str(default).lower()
    low, high = bounds(field)
    info = typer.Option(
        default,
        *decls,
        min=low,
        max=high,
        help=help_of(field, also),
        metavar=_choices(field),
        show_default=default is not ... and default is not None,
    )
    setattr(info, SOURCE, (model, name))
    return info


def default_of(field: FieldInfo) -> Any:
    """What the option holds when it is not given: the model's default; ``...`` (required)
    when the model has none; ``None`` (left to the model) for a default made by a factory."""
    if field.is_required():
        return ...
    return None if field.default_factory is not None else field.default


def bounds(field: FieldInfo) -> tuple[int | None, int | None]:
    """A number's inclusive bounds, as the model declares them (``ge``/``le``, ``gt``/``lt``)."""
    low = high = None
    for mark in field.metadata:
        if isinstance(mark, annotated_types.Ge):
            low = cast(int, mark.ge)
        elif isinstance(mark, annotated_types.Gt):
            low = cast(int, mark.gt) + 1
        elif isinstance(mark, annotated_types.Le):
            high = cast(int, mark.le)
        elif isinstance(mark, annotated_types.Lt):
            high = cast(int, mark.lt) - 1
    return low, high


def help_of(field: FieldInfo, also: str = "") -> str:
    """The field's description as a sentence (less what only a JSON caller can do: send
    null), its length bounds, then the CLI's own words."""
    said = NULL_CLAUSE.sub("", field.description or "").strip()
    parts = [said if said.endswith(".") or not said else f"{said}."]
    lengths = _lengths(field)
    if lengths:
        parts.append(lengths)
    if also:
        parts.append(also)
    return " ".join(part for part in parts if part)


def _lengths(field: FieldInfo) -> str:
    low = next((m.min_length for m in field.metadata if isinstance(m, annotated_types.MinLen)), 0)
    high = next((m.max_length for m in field.metadata if isinstance(m, annotated_types.MaxLen)), 0)
    if not high or (field.annotation is not str and str not in get_args(field.annotation)):
        return ""
    return f"{low or 0}-{high} characters."


def _choices(field: FieldInfo) -> str | None:
    """``<a|b|c>`` for a field that takes one of some words (shown even where the CLI takes
    plain text and lets the service refuse others in its own words)."""
    found = _literal(field.annotation)
    return None if found is None else "<" + "|".join(map(str, get_args(found))) + ">"


def _literal(annotation: Any) -> Any:
    if get_origin(annotation) is Literal:
        return annotation
    return next((a for a in get_args(annotation) if get_origin(a) is Literal), None)
