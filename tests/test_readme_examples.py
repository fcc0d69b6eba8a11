"""The README's reminders and calendar examples run as written on a machine in any zone: each
command of its tour and of its Calendars section, read from README.md itself, run as a
subprocess under ``TZ=UTC`` and ``TZ=Asia/Tokyo`` against a fresh home holding the demo data:
under UTC with the gateway in each command's process, under Tokyo through a daemon running in
that zone (as after ``make run``, which a newcomer reads the tour beside).

Only the placeholders are filled in: ``ID`` is the reminder or event the examples before it made
(the "Call the bank" reminder, the "Weekly review" series), ``[ID ...]`` means more of them and
is left out. An occurrence id written out (``ID@20260313T160000Z``) is kept as written: it must
name the occurrence in every zone."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from socket_daemon import running, short_home

pytestmark = pytest.mark.slow  # most of its tests take two seconds or more

README = Path(__file__).parents[1] / "README.md"
SECTIONS = ("## A short tour", "### Calendars")
COMMAND_DEADLINE_S = 120  # one command's start-up and work, on a loaded machine: far above it
BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)


def readme_commands() -> list[list[str]]:
    """The ``fruitctl`` commands of the README's sections, in order, as argument lists."""
    text = README.read_text()
    commands = []
    for heading in SECTIONS:
        start = text.index(heading + "\n")
        following = re.search(r"\n#{2,3} ", text[start + len(heading) :])
        end = start + len(heading) + (following.start() if following else len(text))
        for block in BLOCK.findall(text[start:end]):
            joined = block.replace("\\\n", " ")
            for line in joined.splitlines():
                words = shlex.split(line, comments=True)
                if words[:1] == ["fruitctl"]:
                    commands.append(words[1:])
    return commands


@dataclass(frozen=True)
class Machine:
    """Where the commands run: the home, the zone, and whether the gateway runs in each
    command's process (else a daemon serves the home)."""

    home: Path
    zone: str
    in_process: bool


def _run(at: Machine, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("FRUITCTL_") and key != "TZ"
    }
    env.update(FRUITCTL_HOME=str(at.home), TZ=at.zone)
    if at.in_process:
        env.update(FRUITCTL_IN_PROCESS="1")
    return subprocess.run(
        [sys.executable, "-m", "fruitctl", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_DEADLINE_S,
        check=False,
    )


def _json(at: Machine, *args: str) -> Any:
    done = _run(at, [*args, "--json"])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _placeholder_id(at: Machine, args: list[str]) -> str:
    """What ``ID`` stands for in a command: the example reminder, or the example series."""
    if args[0] == "reminders":
        found = _json(at, "reminders", "list", "--all", "--status", "all")
        (reminder,) = [r for r in found if r["title"] == "Call the bank"]
        return str(reminder["id"])
    return str(_first_review(at)["seriesId"])


def _first_review(at: Machine) -> Any:
    """The example series' first occurrence (Friday 6 March 2026: some day 5-7 in any zone)."""
    window = _json(at, "calendar", "list", "--from", "2026-03-05", "--to", "2026-03-07")
    (first,) = [e for e in window["events"] if e["title"] == "Weekly review"]
    return first


def _filled(at: Machine, args: list[str]) -> list[str]:
    args = [word for word in args if word not in ("[ID", "...]")]
    if not any(word == "ID" or word.startswith("ID@") for word in args):
        return args
    known = _placeholder_id(at, args)
    return [known + word[2:] if word == "ID" or word.startswith("ID@") else word for word in args]


def test_the_readme_has_examples_to_run() -> None:
    commands = readme_commands()
    assert commands[0] == ["demo"]
    verbs = {tuple(c[:2]) for c in commands}
    assert {("calendar", "create"), ("calendar", "get"), ("reminders", "add")} <= verbs
    assert any(word.startswith("ID@") for c in commands for word in c)


@pytest.mark.process
@pytest.mark.parametrize(
    ("zone", "in_process"), [("UTC", True), ("Asia/Tokyo", False)], ids=["UTC", "Tokyo-daemon"]
)
def test_the_readme_examples_run_as_written(zone: str, in_process: bool) -> None:
    with short_home() as home:  # a daemon's socket path must be short
        at = Machine(home, zone, in_process)
        if in_process:
            first = _run_all(at)
        else:
            with running(home, TZ=zone) as daemon:
                first = _run_all(at)
                assert daemon.proc.poll() is None  # it served them all, and is still up
    # The Rome series keeps 17:00 in Rome wherever the machine is (so its occurrence ids hold).
    assert (first["startAt"], first["timezone"]) == ("2026-03-06T17:00:00+01:00", "Europe/Rome")


def _run_all(at: Machine) -> Any:
    """Run every example in order; then the example series' first occurrence."""
    for args in readme_commands():
        command = _filled(at, args)
        done = _run(at, command)
        assert done.returncode == 0, f"fruitctl {shlex.join(args)}: {done.stderr}"
    return _first_review(at)
