"""``fruitctl``: the root command. Each command builds the app once and calls one service."""

from __future__ import annotations

import gc
import importlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
import typer.main
from typer import _click as click  # the click that Typer's own classes are built on
from typer.core import TyperArgument, TyperGroup, TyperOption

from fruitctl import __version__
from fruitctl.cli import remote as remote_module
from fruitctl.cli import thin
from fruitctl.cli.client import Client, LocalClient
from fruitctl.cli.output import EXIT_MEANINGS, fail, out, reporting
from fruitctl.domain.errors import Unsupported

if TYPE_CHECKING:
    from fruitctl import bootstrap
    from fruitctl.transports.rpc.client import DaemonClient

JsonOption = Annotated[bool, typer.Option("--json", help="Print the exact result as JSON.")]

SETTINGS: dict[str, Any] = {
    "pretty_exceptions_enable": False,
    "add_completion": False,
    "rich_markup_mode": None,
    # Every command below inherits its parent's help names: `-h` works everywhere.
    "context_settings": {"help_option_names": ["-h", "--help"]},
}
# Every other command, by name: its module is imported only when that command runs (or a help
# page lists it), so `fruitctl mcp` does not load the daemon's runner or rich tables.
# A "module:attribute" naming a Typer is a group of commands; naming a function, one command.
COMMANDS: dict[str, str] = {
    "reminders": "fruitctl.cli.reminders:reminders_app",
    "lists": "fruitctl.cli.lists:lists_app",
    "calendars": "fruitctl.cli.calendar:calendars_app",
    "calendar": "fruitctl.cli.calendar:calendar_app",
    "things": "fruitctl.cli.things:things_app",
    "proposals": "fruitctl.cli.proposals:proposals_app",
    "config": "fruitctl.cli.proposals:config_app",
    "grants": "fruitctl.cli.grants:grants_app",
    "audit": "fruitctl.cli.audit:audit_app",
    "auth": "fruitctl.cli.auth:auth_app",
    "tools": "fruitctl.cli.tools:tools_app",
    "mode": "fruitctl.cli.governance:mode_app",
    "stats": "fruitctl.cli.governance:stats_command",
    "mcp": "fruitctl.cli.mcp:mcp_command",
    "sync": "fruitctl.cli.sync:sync_command",
    "serve": "fruitctl.cli.serve:serve_command",
    "ping": "fruitctl.cli.system:ping_command",
    "info": "fruitctl.cli.system:info_command",
    "rpc": "fruitctl.cli.system:rpc_command",
    "server": "fruitctl.cli.server:server_app",
    "service": "fruitctl.cli.server:service_app",
    "aai": "fruitctl.cli.aai:aai_app",
    "doctor": "fruitctl.cli.doctor:doctor_command",
    "demo": "fruitctl.cli.demo:demo_command",
}


class LazyGroup(TyperGroup):
    """The root group: the commands above are built when first asked for by name. A usage
    mistake anywhere below it (an unknown option, a bad value, a missing argument) is printed
    like every other error: one JSON object when ``--json`` was asked for."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        wants_json = JSON_FLAG in args[: args.index("--") if "--" in args else len(args)]
        with _usage_errors(wants_json):
            ctx = super().make_context(info_name, args, parent, **extra)
        ctx.meta[JSON_FLAG] = wants_json
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        with _usage_errors(bool(ctx.meta.get(JSON_FLAG))):
            return super().invoke(ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.commands, *(name for name in COMMANDS if name not in self.commands)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            # A name not known here is a typo: build them all, so "did you mean" can name any.
            for name in [cmd_name] if cmd_name in COMMANDS else COMMANDS:
                if name not in self.commands:
                    self.commands[name] = _build(name)
        found = self.commands.get(cmd_name)
        return None if found is None else in_words(found)


JSON_FLAG = "--json"


@contextmanager
def _usage_errors(as_json: bool) -> Iterator[None]:
    """Click's usage errors as the CLI's own ``invalid_params`` in ``--json`` mode (exit 2, as
    Click's); otherwise Click prints them with the usage line, as it does - but for a bad
    value (out of its bounds, not one of its words): one line naming the option, as the
    tools' own refusals of a bad value read."""
    try:
        yield
    except click.exceptions.BadParameter as exc:
        if not as_json:
            fail("invalid_params", exc.format_message().rstrip(".") + ".", as_json=False)
        _refuse_as_json(exc)
    except click.exceptions.UsageError as exc:
        if not as_json:
            raise
        _refuse_as_json(exc)


def _refuse_as_json(exc: click.exceptions.UsageError) -> NoReturn:
    where = f" (`{exc.ctx.command_path} --help` shows the usage)" if exc.ctx else ""
    fail("invalid_params", exc.format_message().rstrip(".") + where + ".", as_json=True)


# The end of a help text's first sentence: a full stop before the next capitalised word.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])")


def in_words(command: click.Command) -> click.Command:
    """``command`` and every command under it as a person reads them: a short help that is the
    whole first sentence (Click would cut a long one at 45 characters with "...", mid-sentence;
    the help listing wraps it instead), and values named by words (``ID...``, ``--limit LIMIT``)
    where Typer would print Python's (``{ids}...``, ``<list[str]>``, ``<int>``)."""
    if command.short_help is None and command.help:
        paragraph = " ".join(command.help.split("\n\n")[0].split())
        command.short_help = SENTENCE_END.split(paragraph, maxsplit=1)[0]
    for param in command.params:
        _name_in_words(param)
    for sub in getattr(command, "commands", {}).values():
        in_words(sub)
    return command


def _name_in_words(param: click.Parameter) -> None:
    if param.name is None:
        return
    word = param.name.upper()
    if isinstance(param, TyperArgument):  # a metavar given by its command is kept, as a word
        if param.metavar is None:
            param.metavar = f"{word.removesuffix('S')}..." if param.nargs != 1 else word
        param.__class__ = WordArgument  # Typer builds its own class: no other hook for usage
    # A choice reads as its words already: <a|b|c>.
    elif param.metavar is not None:
        return
    elif isinstance(param, TyperOption) and not (param.is_flag or param.type_descriptor.is_choice):
        longest = max(param.opts, key=len)  # --list, not the function's list_name
        param.metavar = longest.lstrip("-").replace("-", "_").upper()


class WordArgument(TyperArgument):
    """An argument shown by its word alone: ``ID...`` in the usage line (``[KEY]`` when it may
    be left out), and no Python type beside it in the help."""

    def get_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [self.display_name_raw if self.required else f"[{self.display_name_raw}]"]

    def display_type_rich(self, ctx: click.Context) -> str | None:
        return None


def _build(name: str) -> click.Command:
    module, _, attribute = COMMANDS[name].partition(":")
    target = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer(**SETTINGS)  # the root's settings, so help renders alike
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
    else:
        holder.command(name)(target)
    return typer.main.get_group(holder).commands[name]


EPILOG = "Exit codes: " + "; ".join(f"{code} {text}" for code, text in EXIT_MEANINGS.items()) + "."

app = typer.Typer(
    name="fruitctl",
    help="A local capability gateway: governed access to reminders, calendars and Things for "
    "AI agents and people.",
    epilog=EPILOG,
    no_args_is_help=True,
    cls=LazyGroup,
    **{**SETTINGS, "add_completion": True},  # --install-completion / --show-completion
)


_open: list[bootstrap.App] = []
_remotes: list[remote_module.RemoteClient | DaemonClient] = []


def client(as_json: bool = False) -> Client:
    """The gateway this command talks to: one elsewhere over its HTTP API when this CLI is
    pointed at one (``FRUITCTL_URL`` or ``fruitctl auth login``), else this machine's
    (``services``). Closed when the command ends.

    When this machine's daemon answers (``cli.thin``), nothing is built until a command asks
    for more than a call or a decision: the short path a forwarded request takes."""
    with reporting(as_json):
        remote = remote_module.configured()
        if remote is None:
            here = thin.daemon()
            if here is None:
                return LocalClient(services(as_json))
            daemon, socket = here
            _remotes.append(daemon)
            return LocalClient(daemon=daemon, socket=socket, build=lambda: services(as_json))
        from fruitctl.transports.http.client import ApiClient

        found = remote_module.RemoteClient(ApiClient(remote.url, remote.token))
    _remotes.append(found)
    return found


def services(as_json: bool = False, *, daemon: bool = True) -> bootstrap.App:
    """The composition root's app for this command (config or store errors reported here);
    closed when the command ends (see ``root``), so its call records are written. Only for
    this machine's gateway: a CLI pointed at one elsewhere is told so (``client`` is what
    works in both places).

    The path a call takes is picked once for every command (``cli.thin.gateway``): through the
    daemon's socket when one answers, else in this process; ``daemon=False``: in this process."""
    with reporting(as_json):
        only_here()
        if daemon:
            built = thin.gateway()
        else:
            from fruitctl import bootstrap

            built = bootstrap.build()
    _open.append(built)
    return built


def _close_all() -> None:
    while _remotes:
        _remotes.pop().close()
    while _open:
        _open.pop().close()


def only_here() -> None:
    """Refuse a command that works on the gateway's own files when a URL is configured:
    running it here would quietly make and use a second, local gateway."""
    remote = remote_module.configured()
    if remote is None:
        return
    from typer._click.globals import get_current_context

    context = get_current_context(silent=True)
    command = context.command_path if context is not None else "this command"
    where = remote.source if remote.source == remote_module.URL_ENV else "fruitctl auth login"
    raise Unsupported(
        f"`{command}` works on the gateway's own machine, and this CLI is pointed at "
        f"{remote.url} ({where}). Run it there, or unset {remote_module.URL_ENV} / run "
        "`fruitctl auth logout` to use a gateway on this machine."
    )


def _version(value: bool) -> None:
    if value:
        out.print(f"fruitctl {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """fruitctl: reads answer at once, writes are yours to allow."""
    _collect_again()
    ctx.call_on_close(_close_all)


def _collect_again() -> None:
    """End ``fruitctl.__main__``'s pause of the cyclic collector (when it paused it: never
    for a test or a library caller). What loading made stays for good, so it is frozen out of
    every later collection; then collection resumes as usual."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def main() -> None:
    app()
