"""fruitctl's Things launcher, the default ``[things] open_command`` on a Mac: it takes the URL on
standard input only, refuses anything that is not one ``things:///`` URL, and off a Mac says it
cannot hand it over (its LaunchServices call is the only part that needs macOS)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from fruitctl.backends.things import launch
from fruitctl.backends.things.urls import Secret, things_url
from fruitctl.config import ThingsConfig

URL = things_url("update", {"id": "todo-1", "auth-token": Secret("tok"), "title": "a b\nc"})


def run(command: list[str], given: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(command, input=given, capture_output=True, timeout=120, check=False)


@pytest.mark.process
def test_a_mac_hands_the_url_to_the_launcher_on_standard_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    command = ThingsConfig().open_command
    assert command == [sys.executable, "-m", "fruitctl.backends.things.launch"]
    assert not any("things:" in part for part in command)
    # Run here, it reads the URL and stops where macOS would take over.
    done = run(command, URL.encode() + b"\n")
    assert done.returncode == launch.EXIT_UNAVAILABLE, done.stderr
    assert b"needs macOS" in done.stderr and b"tok" not in done.stderr


def test_elsewhere_there_is_no_default() -> None:
    if sys.platform != "darwin":
        assert ThingsConfig().open_command == []


@pytest.mark.parametrize(
    "given",
    [b"", b"https://example.org/", b"things:///add?title=a b", "things:///add?x=é".encode()],
    ids=["nothing", "another-scheme", "a-space", "not-ascii"],
)
@pytest.mark.process
def test_anything_but_one_things_url_is_refused(given: bytes) -> None:
    done = run([sys.executable, "-m", "fruitctl.backends.things.launch"], given)
    assert done.returncode == launch.EXIT_USAGE
    assert b"expected one things:/// URL" in done.stderr


def test_reading_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "URL_MAX_BYTES", 64)
    assert launch.read_url(io.BytesIO(b"things:///add?title=" + b"x" * 44)) is not None
    assert launch.read_url(io.BytesIO(b"things:///add?title=" + b"x" * 45)) is None
    assert launch.read_url(io.BytesIO(URL.encode()[:60] + b"\n")) == URL[:60]
