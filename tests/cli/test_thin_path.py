"""With a daemon answering, a command that forwards one request loads no store, no backend and
no composition root, and the commonest shapes (``cli.fast``) not even Typer or pydantic: a
separate ``python -X importtime -m fruitctl …`` process is asked what it imported. The same
command with ``FRUITCTL_IN_PROCESS=1`` must import them - the check's own proof that it sees
them. In this process too those shapes leave Typer out, and print (and end) exactly as
Typer's CLI does."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from socket_daemon import FRUITCTL, Daemon, cli, daemon_env, running, seed_demo, short_home

from fruitctl.capabilities.reminders.inputs import QueryReminders
from fruitctl.cli import fast

pytestmark = [pytest.mark.process, pytest.mark.slow]

HEAVY = ("sqlalchemy", "fruitctl.bootstrap", "fruitctl.backend_factories", "fruitctl.backends")
PARSING = ("typer", "click", "pydantic", "pydantic_settings", "fruitctl.config")
NO_TEXT = ("rich",)  # an exact JSON answer draws nothing
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "system.ping"})
SHORT = [["reminders", "list"], ["reminders", "list", "--json"], ["lists", "--json"], ["rpc", PING]]
FAST_SHAPES = [
    ["reminders", "list"],
    ["reminders", "list", "--json"],
    ["lists"],
    ["lists", "--json"],
]
# The full CLI, Typer's, without __main__'s short way in front of it.
TYPER_CLI = [sys.executable, "-c", "from fruitctl.cli.app import main; main()"]
# Shapes the short way leaves to Typer: still no store nor backend.
THROUGH_TYPER = [["reminders", "list", "--limit", "5"], ["lists", "--json", "--json"]]


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with short_home() as home:
        seed_demo(home)
        with running(home) as served:
            yield served


def imported(home: Path, args: list[str], **env: str) -> tuple[set[str], str]:
    """The modules ``fruitctl args`` imported, and what it printed."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *FRUITCTL[1:], *args],
        env=daemon_env(home, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return names, done.stdout


def heavy(names: set[str], of: tuple[str, ...] = HEAVY) -> set[str]:
    return {n for n in names if any(n == h or n.startswith(h + ".") for h in of)}


@pytest.mark.parametrize("args", SHORT, ids=" ".join)
def test_a_forwarded_command_loads_neither_store_nor_typer(daemon: Daemon, args: list[str]) -> None:
    names, printed = imported(daemon.home, args)
    assert printed.strip()
    assert heavy(names) == set()
    assert heavy(names, PARSING) == set()
    assert "fruitctl.cli.thin" in names  # it went the short way, not around it
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


def test_the_same_command_in_process_loads_them(daemon: Daemon) -> None:
    names, _ = imported(daemon.home, ["reminders", "list", "--json"], FRUITCTL_IN_PROCESS="1")
    assert {"sqlalchemy", "fruitctl.bootstrap", "fruitctl.backend_factories"} <= heavy(names)


@pytest.mark.parametrize("args", [["reminders", "list"], ["lists"]], ids=" ".join)
def test_the_short_way_prints_what_the_long_one_does(daemon: Daemon, args: list[str]) -> None:
    for shape in ([*args], [*args, "--json"]):
        _, short = imported(daemon.home, shape)
        _, long = imported(daemon.home, shape, FRUITCTL_IN_PROCESS="1")
        assert short == long


def typer_cli(home: Path, args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TYPER_CLI, *args],
        env=daemon_env(home, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("args", FAST_SHAPES, ids=" ".join)
def test_in_process_the_short_way_prints_and_ends_as_typer_does(
    daemon: Daemon, args: list[str]
) -> None:
    short = cli(daemon.home, *args, FRUITCTL_IN_PROCESS="1")
    long = typer_cli(daemon.home, args, FRUITCTL_IN_PROCESS="1")
    assert short.returncode == long.returncode == 0, short.stderr + long.stderr
    assert short.stdout.strip() and (short.stdout, short.stderr) == (long.stdout, long.stderr)
    names, _ = imported(daemon.home, args, FRUITCTL_IN_PROCESS="1")
    assert "fruitctl.cli.fast" in names and heavy(names, ("typer", "click")) == set()


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_in_process_a_configuration_error_is_told_as_typer_tells_it(as_json: bool) -> None:
    with short_home() as home:
        (home / "config.toml").write_text("[server]\nsocket_path = 7\n")
        args = ["reminders", "list", *(["--json"] if as_json else [])]
        short = cli(home, *args)
        long = typer_cli(home, args)
    assert short.returncode == long.returncode == 78
    assert "socket_path" in short.stderr + short.stdout
    assert (short.stdout, short.stderr) == (long.stdout, long.stderr)
