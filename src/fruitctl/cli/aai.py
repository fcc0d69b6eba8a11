"""``fruitctl aai install|call``: seed 004's descriptor and envelopes."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from fruitctl.bootstrap import App
from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import emit_json, out, reporting
from fruitctl.domain import error_table
from fruitctl.domain.actors import CLI_ACTOR
from fruitctl.transports import aai

aai_app = typer.Typer(
    help="AAI, the agent-app interface: the aai.json descriptor and envelopes.",
    no_args_is_help=True,
)


@aai_app.command("install")
def install_command(
    app_id: Annotated[str, typer.Option("--app-id", help="The app id (reverse DNS).")] = (
        aai.DEFAULT_APP_ID
    ),
    as_json: JsonOption = False,
) -> None:
    """Write aai.json (~/.aai/<app_id>/, or $FRUITCTL_HOME/aai/<app_id>/ when that is set)."""
    app = services(as_json, daemon=False)
    with reporting(as_json):
        tools = app.gateway.registry.offered()  # a tool off in every mode is not described
        document = aai.descriptor(tools, app_id, app.config.paths.socket_file)
        path = aai.install(document, app.config.paths.aai_dir, app_id)
    if as_json:
        emit_json({"path": str(path), "tools": len(tools)})
    else:
        out.print(f"Wrote {path} ({len(tools)} tools).", markup=False)


@aai_app.command("call")
def call_command(
    envelope: Annotated[
        str,
        typer.Argument(
            help='An AAI request, e.g. \'{"version": "1.0", "tool": '
            '"get_lists", "params": {}, "request_id": "r1"}\'.'
        ),
    ],
) -> None:
    """Send one AAI envelope (to the daemon when one runs) and print the answer."""
    app = services(False)
    with reporting(False):
        # No envelope is answered here, in AAI, as the daemon words it: sent on, it would be
        # read in the JSON-RPC this CLI spoke to identify itself.
        answer = aai.refusal(envelope) or _answered(app, envelope)
    emit_json(answer)
    if answer.get("status") != "success":
        name = str((answer.get("error") or {}).get("code", ""))
        raise typer.Exit(error_table.exit_status(error_table.from_aai(name)))


def _answered(app: App, envelope: str) -> dict[str, Any]:
    if app.remote is None:
        return aai.answer_text(app.gateway, envelope, CLI_ACTOR)
    app.remote.identify(CLI_ACTOR)
    answer: dict[str, Any] = json.loads(app.remote.rpc.exchange(envelope.replace("\n", " ")))
    return answer
