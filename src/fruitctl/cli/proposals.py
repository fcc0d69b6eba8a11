"""``fruitctl proposals …`` and ``fruitctl config …``: a person decides what agents proposed."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text

from fruitctl.approvals import batch
from fruitctl.approvals.allowance import Allowance
from fruitctl.approvals.views import STATUSES, listing_limit
from fruitctl.cli.app import JsonOption, client
from fruitctl.cli.output import PARTIAL_FAILURE, err, out, report_failures, run, shown
from fruitctl.cli.proposals_render import (
    failed_items,
    show_list,
    show_one,
    status_text,
    summary,
    when,
)
from fruitctl.domain.errors import InvalidParams

proposals_app = typer.Typer(
    help="Review, approve, reject and undo the writes agents proposed.", no_args_is_help=True
)
config_app = typer.Typer(help="The allowlists agents' writes keep to.", no_args_is_help=True)
Id = Annotated[str, typer.Argument(help="Proposal ID.")]


STATUS_WORDS = (*(s.lower() for s in STATUSES), "all")


@proposals_app.command("list")
def list_command(
    status: Annotated[
        str,
        typer.Option(
            help="Only these: pending (the default: what waits for you), approved (being "
            "executed), executed, rejected, expired, failed; or all.",
            metavar="STATUS",
        ),
    ] = "pending",
    limit: Annotated[int, typer.Option(help="At most this many.")] = 50,
    as_json: JsonOption = False,
) -> None:
    """Proposals waiting for you, newest first; with --status all, every one - pending first."""
    run(as_json, lambda: _listed(client(as_json), _status_word(status), limit), show_list)


@proposals_app.command("show")
def show_command(proposal_id: Id, as_json: JsonOption = False) -> None:
    """One proposal with its before -> after diff."""
    run(as_json, lambda: client(as_json).proposal(proposal_id), show_one)


@proposals_app.command("approve")
def approve_command(
    proposal_id: Annotated[str | None, typer.Argument(help="Proposal ID (or --all).")] = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Every pending proposal (of --agent, of --tool), oldest first: each judged "
            "again; one that fails is named and the others go on.",
        ),
    ] = False,
    agent: Annotated[
        str | None,
        typer.Option(help="With --all: only this agent's (the name it shows, or its identity)."),
    ] = None,
    tool: Annotated[str | None, typer.Option(help="With --all: only this tool's.")] = None,
    allow_for: Annotated[
        str | None,
        typer.Option(
            "--allow-for",
            help="Also allow the agent this tool, where the proposal reaches, for this long "
            "(30m, 2h; at most 24h): its writes there then run without asking.",
            metavar="DURATION",
        ),
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(
            help="With --allow-for: list (the proposal's lists, calendars or projects; the "
            "default) or tool (anywhere the tool reaches).",
            metavar="SCOPE",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Approve and execute a proposal (exactly once), if the policy still allows it now.

    Exit 0 when every item was written; 1 when some items failed (listed) or the write was
    sent but not seen to land (Things) - with --all, when some proposals failed (named); 12
    when nothing was changed; 11 when it expired; 5 when the mode or an allowlist refuses it
    now (it stays pending)."""
    if every or proposal_id is None:
        _approve_all(as_json, proposal_id, every, agent, tool, (allow_for, scope))
        return

    def approve() -> dict[str, Any]:
        allow = Allowance.of({"allowFor": allow_for, "scope": scope})
        _only_with_all(agent, tool)
        return client(as_json).decide(proposal_id, "approve", None, allow)

    decided = run(as_json, approve, _show_approved)
    report_failures(failed_items(decided), as_json)
    result = decided.get("result") if isinstance(decided, dict) else None
    if isinstance(result, dict) and result.get("confirmed") is False:
        if not as_json:
            err.print(shown(str(result.get("message", "Sent, not confirmed."))))
        raise typer.Exit(1)


def _approve_all(
    as_json: bool,
    proposal_id: str | None,
    every: bool,
    agent: str | None,
    tool: str | None,
    grant: tuple[str | None, str | None],
) -> None:
    """``approve --all``: each chosen pending proposal approved on its own; exit 1 when any
    failed (each named, the others approved all the same)."""

    def approve_all() -> dict[str, Any]:
        if proposal_id is not None or not every:
            raise InvalidParams.approve_which()
        allow = Allowance.of({"allowFor": grant[0], "scope": grant[1]})
        source = client(as_json)
        ids = batch.chosen(source.proposals("pending", batch.BATCH_MAX), agent, tool)
        return batch.each(ids, lambda one: source.decide(one, "approve", None, allow))

    done = run(as_json, approve_all, _show_batch)
    if done["failed"]:
        raise typer.Exit(PARTIAL_FAILURE)


def _only_with_all(agent: str | None, tool: str | None) -> None:
    if agent is not None or tool is not None:
        raise InvalidParams.approve_which()


def _show_approved(p: dict[str, Any]) -> None:
    show_one(p)
    grant = p.get("grant")
    if grant:
        out.print(Text(f"Granted {grant['id']}: ") + _granted(grant))


def _granted(grant: dict[str, Any]) -> Text:
    """``create_reminders for agent:claude on list:Work until …`` - names shown safely."""
    where = ", ".join(grant["scope"]) if grant["scope"] else "anywhere it reaches"
    said = f"{grant['tool']} for {grant['agent']} on {where}"
    return shown(said) + Text(f" until {when(grant['expiresAt'])}")


def _show_batch(done: dict[str, Any]) -> None:
    for p in done["decided"]:
        out.print(
            Text.assemble((p["id"], "bold"), "  ", status_text(p["status"]), "  ") + summary(p)
        )
    for failed in done["failed"]:
        message = shown(str(failed["error"]["message"]))
        err.print(Text(f"failed: {failed['id']}: ", "bold red") + message)
    if not done["decided"] and not done["failed"]:
        out.print("[dim]Nothing is waiting for you.[/]")


@proposals_app.command("reject")
def reject_command(
    proposal_id: Id,
    reason: Annotated[str | None, typer.Option(help="Why (the agent can read it).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Reject a proposal; nothing is changed."""

    def decide() -> dict[str, Any]:
        return client(as_json).decide(proposal_id, "reject", reason)

    run(as_json, decide, show_one)


@proposals_app.command("undo")
def undo_command(proposal_id: Id, as_json: JsonOption = False) -> None:
    """File a proposal that restores what an executed one changed (approve it to apply)."""

    def show(pending: dict[str, Any]) -> None:
        out.print(Text(f"Filed {pending['proposalId']}: ") + shown(str(pending["summary"])))
        out.print(f"Approve it with: {pending['approve']}")

    run(as_json, lambda: client(as_json).decide(proposal_id, "undo"), show)


@config_app.command("get")
def config_get(
    key: Annotated[str | None, typer.Argument(help="A key; all keys when omitted.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Show a config value (or all of them)."""

    def read() -> Any:
        values = client(as_json).config()
        if key is None:
            return values
        if key not in values:
            raise InvalidParams.config_key(key, values)
        return {key: values[key]}

    run(as_json, read, _show_config)


@config_app.command("set")
def config_set(
    key: Annotated[str, typer.Argument(help="e.g. allowlist.reminders.lists")],
    value: Annotated[
        str, typer.Argument(help='Inbox,Errands or a JSON list; "" (or none) clears it.')
    ],
    as_json: JsonOption = False,
) -> None:
    """Set a config value (audited)."""
    from fruitctl.approvals.allowlists import parse_value

    def write() -> Any:
        return {key: client(as_json).set_config(key, parse_value(value))}

    run(as_json, write, _show_config)


@config_app.command("unset")
def config_unset(
    key: Annotated[str, typer.Argument(help="e.g. allowlist.reminders.lists")],
    as_json: JsonOption = False,
) -> None:
    """Clear a config value (audited): the allowlist no longer restricts anything."""

    def clear() -> Any:
        return {key: client(as_json).set_config(key, None)}

    run(as_json, clear, _show_config)


def _show_config(values: dict[str, Any]) -> None:
    # List and calendar names come from the apps (an agent may have named one): never markup,
    # hidden characters shown.
    for key, value in values.items():
        said = "(not set)" if value is None else ", ".join(value)
        out.print(Text(f"{key} = ") + shown(said))


def _status_word(given: str) -> str | None:
    """The status to list (None: all); one no proposal has is refused, naming those that are."""
    word = given.strip().lower()
    if word not in STATUS_WORDS:
        raise InvalidParams(
            f"'--status' must be one of {', '.join(STATUS_WORDS)}; not '{given}'.", field="status"
        )
    return None if word == "all" else word


def _listed(source: Any, status: str | None, limit: int) -> list[dict[str, Any]]:
    """Of one status, newest first; all of them: what waits for a person first, then the rest
    newest first (each read on its own, so an old pending one is not cut off by the limit)."""
    listing_limit(limit, "--limit")
    if status is not None:
        found: list[dict[str, Any]] = source.proposals(status, limit)
        return found
    waiting = source.proposals("pending", limit)
    rest = [p for p in source.proposals(None, limit) if p["status"] != "PENDING"]
    return [*waiting, *rest][:limit]
