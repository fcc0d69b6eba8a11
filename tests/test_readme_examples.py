"""The README's reminders and calendar examples run as written on a machine in any zone: each
command of its tour and of its Calendars section, read from README.md itself, run as a
subprocess under ``TZ=UTC`` and ``TZ=Asia/Tokyo`` against a fresh home holding the demo data.

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
from pathlib import Path
from typing import Any

import pytest

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


def _run(home: Path, zone: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("FRUITCTL_") and key != "TZ"
    }
    env.update(FRUITCTL_HOME=str(home), FRUITCTL_IN_PROCESS="1", TZ=zone)
    return subprocess.run(
        [sys.executable, "-m", "fruitctl", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_DEADLINE_S,
        check=False,
    )


def _json(home: Path, zone: str, *args: str) -> Any:
    done = _run(home, zone, [*args, "--json"])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _placeholder_id(home: Path, zone: str, args: list[str]) -> str:
    """What ``ID`` stands for in a command: the example reminder, or the example series."""
    if args[0] == "reminders":
        found = _json(home, zone, "reminders", "list", "--all", "--status", "all")
        (reminder,) = [r for r in found if r["title"] == "Call the bank"]
        return str(reminder["id"])
    return str(_first_review(home, zone)["seriesId"])


def _first_review(home: Path, zone: str) -> Any:
    """The example series' first occurrence (Friday 6 March 2026: some day 5-7 in any zone)."""
    window = _json(home, zone, "calendar", "list", "--from", "2026-03-05", "--to", "2026-03-07")
    (first,) = [e for e in window["events"] if e["title"] == "Weekly review"]
    return first


def _filled(home: Path, zone: str, args: list[str]) -> list[str]:
    args = [word for word in args if word not in ("[ID", "...]")]
    if not any(word == "ID" or word.startswith("ID@") for word in args):
        return args
    known = _placeholder_id(home, zone, args)
    return [known + word[2:] if word == "ID" or word.startswith("ID@") else word for word in args]


def test_the_readme_has_examples_to_run() -> None:
    commands = readme_commands()
    assert commands[0] == ["demo"]
    verbs = {tuple(c[:2]) for c in commands}
    assert {("calendar", "create"), ("calendar", "get"), ("reminders", "add")} <= verbs
    assert any(word.startswith("ID@") for c in commands for word in c)


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo"])
def test_the_readme_examples_run_as_written(tmp_path: Path, zone: str) -> None:
    home = tmp_path / "home"
    for args in readme_commands():
        command = _filled(home, zone, args)
        done = _run(home, zone, command)
        assert done.returncode == 0, f"fruitctl {shlex.join(args)}: {done.stderr}"
    # The Rome series keeps 17:00 in Rome wherever the machine is (so its occurrence ids hold).
    first = _first_review(home, zone)
    assert (first["startAt"], first["timezone"]) == ("2026-03-06T17:00:00+01:00", "Europe/Rome")
