"""A home whose Things is the fixture database, with the URL recorder as Things' launcher."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from things_fixture import ThingsFixture, build

from fruitctl import bootstrap

RECORDER = str(Path(__file__).parent / "things_recorder.py")


@contextmanager
def app_on_things(
    folder: Path,
    log: Path,
    monkeypatch: pytest.MonkeyPatch,
    prepare: Callable[[ThingsFixture], object] = lambda _made: None,
) -> Iterator[bootstrap.App]:
    """The gateway over a Things database built in ``folder`` (``prepare`` adds to it), whose
    writes the recorder logs to ``log`` and applies as Things would."""
    things = build(folder / "container")
    prepare(things)
    command = [sys.executable, RECORDER, str(things.path), str(log), "apply"]
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(things.path))
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(command))
    built = bootstrap.build()
    try:
        yield built
    finally:
        built.close()
