"""The CLI's options are made from the input models (``cli.fields``): each option's default and
bounds are its field's, its help states the field's description, and a value out of bounds is
refused by the CLI naming the option. Every option of the capability commands is either made
from a field or one of the CLI's own, listed here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.core import TyperOption
from typer.main import get_command
from typer.testing import CliRunner

from fruitctl.cli import fields
from fruitctl.cli.app import app
from fruitctl.cli.calendar import calendar_app
from fruitctl.cli.reminders import reminders_app
from fruitctl.cli.things import things_app

runner = CliRunner()
GROUPS = {"reminders": reminders_app, "calendar": calendar_app, "things": things_app}

# The CLI's own options: no field of an input model says them (a flag that clears, a switch
# between commands' shapes, the output format).
CLI_ONLY = {
    "--json",
    "--help",
    "--clear-due",
    "--clear-notes",
    "--clear-tags",
    "--clear-url",
    "--clear-location",
    "--no-repeat",
    "--clear-start",
    "--clear-alerts",
    "--no-include-no-due-date",
    "--series",
}


def _options() -> Iterator[tuple[str, TyperOption]]:
    for group, typer_app in GROUPS.items():
        built: Any = get_command(typer_app)
        for name, command in built.commands.items():
            for param in command.params:
                if isinstance(param, TyperOption):
                    yield f"{group} {name} {param.opts[0]}", param


def _source(param: TyperOption) -> Any:
    return fields.source_of(param.type_descriptor.parameter_info)


MAPPED = [(where, param, _source(param)) for where, param in _options() if _source(param)]


def test_every_option_is_made_from_a_field_or_is_the_clis_own() -> None:
    unmapped = {where for where, param in _options() if _source(param) is None}
    assert {where.split()[-1] for where in unmapped} <= CLI_ONLY, unmapped
    assert len(MAPPED) >= 40  # reminders, calendar and things options, not a few


@pytest.mark.parametrize(("where", "param", "source"), MAPPED, ids=[m[0] for m in MAPPED])
def test_an_options_default_and_bounds_are_its_fields(
    where: str, param: TyperOption, source: tuple[Any, str]
) -> None:
    model, name = source
    field = model.model_fields[name]
    low, high = fields.bounds(field)
    assert (param.min, param.max) == (low, high)
    if field.is_required():
        assert param.required
    elif field.default_factory is not None:
        assert param.default is None  # left out, the model makes its default
    elif isinstance(field.default, bool) and not param.is_flag:
        assert param.default == str(field.default).lower()  # --flag true|false
    else:
        assert param.default == field.default


@pytest.mark.parametrize(("where", "param", "source"), MAPPED, ids=[m[0] for m in MAPPED])
def test_help_states_the_fields_description(
    where: str, param: TyperOption, source: tuple[Any, str]
) -> None:
    model, name = source
    group, command, option = where.split()
    shown = " ".join(runner.invoke(app, [group, command, "--help"]).output.split())
    first = (model.model_fields[name].description or "").split(";")[0].split(". ")[0]
    assert first.rstrip(".") in shown, (option, first)


def test_help_shows_bounds_default_and_choices() -> None:
    shown = " ".join(runner.invoke(app, ["reminders", "list", "--help"]).output.split())
    assert "[default: 50; 1<=x<=200]" in shown
    assert "--status <incomplete|completed|all>" in shown
    assert "1-200 characters" in shown  # --search's length, which Typer cannot check


def test_a_null_clause_is_left_out_and_the_flag_that_clears_is_there() -> None:
    shown = " ".join(runner.invoke(app, ["reminders", "update", "--help"]).output.split())
    assert "null" not in shown
    assert "--clear-url" in shown and "--clear-due" in shown


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["reminders", "list", "--limit", "201"], "--limit"),
        (["reminders", "list", "--offset", "-1"], "--offset"),
        (["reminders", "open", "--limit", "0"], "--limit"),
        (["calendar", "upcoming", "--days", "31"], "--days"),
        (["calendar", "list", "--limit", "1001"], "--limit"),
        (["things", "list", "--limit", "0"], "--limit"),
    ],
)
def test_a_value_out_of_bounds_is_refused_naming_the_option(args: list[str], option: str) -> None:
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2
    assert f"Invalid value for '{option}'" in refused.stderr
    as_json = runner.invoke(app, [*args, "--json"])
    error = json.loads(as_json.stdout)["error"]
    assert as_json.exit_code == 2 and error["code"] == "invalid_params"
    assert f"'{option}'" in error["message"]


def test_a_value_in_bounds_reaches_the_tool(home: Any) -> None:
    listed = runner.invoke(app, ["reminders", "list", "--limit", "200", "--json"])
    assert listed.exit_code == 0, listed.output


def test_help_of_drops_a_null_clause_and_keeps_the_rest() -> None:
    from fruitctl.capabilities.calendar.inputs import UpdateEvent

    said = fields.help_of(UpdateEvent.model_fields["recurrence"], "Also.")
    assert said.startswith("New RRULE for the series. It repeats at most hourly")
    assert said.endswith("Also.") and "null" not in said


def test_a_typer_option_made_elsewhere_has_no_source() -> None:
    assert fields.source_of(typer.Option(None)) is None
