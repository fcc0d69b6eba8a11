"""With a daemon answering, a command that forwards one request loads no store, no backend and
no composition root, and the commonest shapes (``cli.fast``) not even Typer or pydantic: a
separate ``python -X importtime -m fruitctl …`` process is asked what it imported. The same
command with ``FRUITCTL_IN_PROCESS=1`` must import them - the check's own proof that it sees
them. In this process too those shapes leave Typer out, and print (and end) exactly as
Typer's CLI does."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from socket_daemon import FRUITCTL, Daemon, daemon_env, running, seed_demo, short_home

from fruitctl.capabilities.reminders.inputs import QueryReminders
from fruitctl.cli import fast, proposals
from fruitctl.domain.actors import Actor

pytestmark = [pytest.mark.process, pytest.mark.slow]

HEAVY = ("sqlalchemy", "fruitctl.bootstrap", "fruitctl.backend_factories", "fruitctl.backends")
PARSING = ("typer", "click", "pydantic", "pydantic_settings", "fruitctl.config")
NO_TEXT = ("rich",)  # an exact JSON answer draws nothing
# Loaded only when used: the platform's folders (FRUITCTL_HOME is set here), a TOML parser (no
# config.toml here), the table of error codes (no error), rich's table of emoji codes (never).
UNUSED = ("platformdirs", "tomllib", "fruitctl.domain.error_table", "rich._emoji_codes")
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "system.ping"})
SHORT = [
    ["reminders", "list"],
    ["reminders", "list", "--json"],
    ["lists", "--json"],
    ["proposals", "list"],
    ["proposals", "list", "--json"],
    ["rpc", PING],
]
FAST_SHAPES = [
    ["reminders", "list"],
    ["reminders", "list", "--json"],
    ["lists"],
    ["lists", "--json"],
    ["proposals", "list"],
    ["proposals", "list", "--json"],
]
# The full CLI, Typer's, without __main__'s short way in front of it.
TYPER_CLI = ["-c", "from fruitctl.cli.app import main; main()"]
# Shapes the short way leaves to Typer: still no store nor backend.
THROUGH_TYPER = [
    ["reminders", "list", "--limit", "5"],
    ["lists", "--json", "--json"],
    ["proposals", "list", "--status", "all"],  # proposals.list on the socket: no store here
]


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with short_home() as home:
        seed_demo(home)
        propose(home, Actor("agent", "codex"))
        propose(home, Actor("agent", "co\u202edex"))  # a mark in the table, a legend on stderr
        with running(home) as served:
            yield served


def propose(home: Path, agent: Actor) -> None:
    """A proposal ``agent`` filed, for ``proposals list`` to show (through the gateway, as the
    doors file them; written before the daemon starts)."""
    from fruitctl import bootstrap
    from fruitctl.config import Config, Settings
    from fruitctl.paths import Paths

    app = bootstrap.build(Config(Settings(), Paths.resolve({"FRUITCTL_HOME": str(home)})))
    try:
        filed = app.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, agent)
    finally:
        app.close()
    assert filed.output["status"] == "pending"


def imported(home: Path, args: list[str], **env: str) -> tuple[set[str], str]:
    """The modules ``fruitctl args`` imported, and what it printed."""
    names, printed, _ = ran(home, args, **env)
    return names, printed


def ran(
    home: Path, args: list[str], status: int = 0, *, cli: list[str] = FRUITCTL[1:], **env: str
) -> tuple[set[str], str, str]:
    """The modules ``fruitctl args`` imported, what it printed, and what it said on stderr
    (besides the import times); it must end with ``status``. ``cli``: how Python is told to
    run the CLI (``TYPER_CLI``: the full one, without the short way)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *cli, *args],
        env=daemon_env(home, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == status, done.stderr[-2000:]
    timed = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    names = {line.rsplit("|", 1)[1].strip() for line in timed if "|" in line}
    said = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    return names, done.stdout, "\n".join(said)


def heavy(names: set[str], of: tuple[str, ...] = HEAVY) -> set[str]:
    return {n for n in names if any(n == h or n.startswith(h + ".") for h in of)}


@pytest.mark.parametrize("args", SHORT, ids=" ".join)
def test_a_forwarded_command_loads_neither_store_nor_typer(daemon: Daemon, args: list[str]) -> None:
    names, printed = imported(daemon.home, args)
    assert printed.strip()
    assert heavy(names) == set()
    assert heavy(names, PARSING) == set()
    assert "fruitctl.cli.thin" in names  # it went the short way, not around it
    assert heavy(names, UNUSED) == set()
    if "--json" in args:
        assert heavy(names, NO_TEXT) == set()


@pytest.mark.parametrize("args", THROUGH_TYPER, ids=" ".join)
def test_other_shapes_go_through_typer_still_without_the_store(
    daemon: Daemon, args: list[str]
) -> None:
    names, printed = imported(daemon.home, args)
    assert printed.strip()
    assert "typer" in names
    assert heavy(names) == set()


def test_the_short_way_sends_the_models_defaults() -> None:
    fields = QueryReminders.model_fields
    assert {key: fields[key].default for key in fast.LIST_DEFAULTS} == fast.LIST_DEFAULTS


def test_the_short_way_lists_the_proposals_the_command_lists_by_default() -> None:
    options = inspect.signature(proposals.list_command).parameters
    assert (options["status"].default, options["limit"].default) == fast.PROPOSALS_DEFAULTS


@pytest.mark.parametrize("args", FAST_SHAPES, ids=" ".join)
def test_the_short_way_prints_what_the_long_one_does(daemon: Daemon, args: list[str]) -> None:
    _compare(daemon, args, 0, in_process=True)


def test_the_short_way_shows_a_proposal_as_the_long_one_does(daemon: Daemon) -> None:
    _, listed, _ = ran(daemon.home, ["proposals", "list", "--json"])
    found = [(p["id"], 0) for p in json.loads(listed)]  # the plain one, the marked one
    assert len(found) == 2
    for one, status in [*found, ("p-none", 3)]:  # not found: exit 3, the same message
        for shape in (["proposals", "show", one], ["proposals", "show", one, "--json"]):
            _compare(daemon, shape, status)


def _compare(daemon: Daemon, shape: list[str], status: int, *, in_process: bool = False) -> None:
    """The short way and the full CLI in-process end alike, printing the same bytes; with
    ``in_process``, the short way without the daemon too (the gateway built in its process,
    still without Typer)."""
    names, *short = ran(daemon.home, shape, status)
    assert "typer" not in names and heavy(names) == set()
    long_names, *long = ran(daemon.home, shape, status, cli=TYPER_CLI, FRUITCTL_IN_PROCESS="1")
    assert "typer" in long_names
    assert "".join(short).strip() and short == long
    if in_process:
        here_names, *here = ran(daemon.home, shape, status, FRUITCTL_IN_PROCESS="1")
        assert "fruitctl.cli.fast" in here_names and heavy(here_names, ("typer", "click")) == set()
        assert {"sqlalchemy", "fruitctl.bootstrap", "fruitctl.backend_factories"} <= heavy(
            here_names
        )  # the check's own proof that it sees what the short way leaves out
        assert here == long


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_in_process_a_configuration_error_is_told_as_typer_tells_it(as_json: bool) -> None:
    with short_home() as home:
        (home / "config.toml").write_text("[server]\nsocket_path = 7\n")
        args = ["reminders", "list", *(["--json"] if as_json else [])]
        _, *short = ran(home, args, 78)
        _, *long = ran(home, args, 78, cli=TYPER_CLI)
    assert "socket_path" in "".join(short)
    assert short == long
