"""What goes to Things at once: a batch is split so no URL passes ``URL_MAX`` (a quarter of
macOS's ARG_MAX, so any ``open_command`` takes it), one to-do too long for any URL is refused
before anything is sent, and adds are paced to Things' 250 per 10 s - on a fake clock, so the
test waits for nothing. The recorder plays Things on a real Things-schema database."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from things_fixture import ThingsFixture, build

from fruitctl.backends.things import ThingsDatabase
from fruitctl.backends.things.batches import (
    ADDS_PER_WINDOW,
    URL_MAX,
    WINDOW_SECONDS,
    Pace,
)
from fruitctl.backends.things.writer import ThingsWriter
from fruitctl.domain.errors import InvalidParams
from fruitctl.ports import NewToDo

RECORDER = str(Path(__file__).parents[2] / "things_recorder.py")
LONG_NOTES = "é" * 10_000  # Things' most, each character 6 once percent-encoded


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.slept = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds


@pytest.fixture
def fixture(tmp_path: Path) -> ThingsFixture:
    return build(tmp_path / "container")


def command(fixture: ThingsFixture, log: Path, mode: str) -> list[str]:
    return [sys.executable, RECORDER, str(fixture.path), str(log), mode]


def test_the_limits_are_named_and_under_arg_max() -> None:
    assert URL_MAX <= 1024 * 1024 // 4  # macOS ARG_MAX is 1 MiB, arguments and environment
    assert (ADDS_PER_WINDOW, WINDOW_SECONDS) == (250, 10.0)


@pytest.mark.slow
def test_a_batch_of_long_todos_is_split_so_no_url_passes_the_limit(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    log = tmp_path / "urls.log"
    items = [NewToDo(title=f"Box {i:02}", notes=LONG_NOTES) for i in range(50)]
    writer = ThingsWriter(ThingsDatabase(fixture.path), command(fixture, log, "apply"), 10)
    sent = writer.create_many(items)
    urls = log.read_text().splitlines()
    assert len(urls) > 1
    assert all(len(url) <= URL_MAX for url in urls)
    assert [s.confirmed for s in sent] == [True] * 50
    assert [s.todo.title if s.todo else None for s in sent] == [n.title for n in items]


def test_a_todo_too_long_for_any_url_is_refused_before_anything_is_sent(
    fixture: ThingsFixture, tmp_path: Path
) -> None:
    log = tmp_path / "urls.log"
    huge = NewToDo(title="Huge", checklist=tuple(f"{i:03}" + "é" * 3_996 for i in range(100)))
    writer = ThingsWriter(ThingsDatabase(fixture.path), command(fixture, log, "apply"), 1)
    with pytest.raises(InvalidParams) as batch:
        writer.create_many([NewToDo(title="Fine"), huge])
    assert batch.value.details == {"field": "todos[1]"}
    assert "too long to hand to Things in one URL" in batch.value.message
    with pytest.raises(InvalidParams) as one:
        writer.create(huge)
    assert one.value.details == {"field": "checklist"}
    assert not log.exists()  # nothing was handed to Things


@pytest.mark.process
def test_adds_are_paced_to_things_limit(fixture: ThingsFixture, tmp_path: Path) -> None:
    log = tmp_path / "urls.log"
    clock = FakeClock()
    writer = ThingsWriter(
        ThingsDatabase(fixture.path),
        command(fixture, log, "ignore"),
        0,  # no confirmation: only the launches are looked at
        clock=clock,
        sleep=clock.sleep,
    )
    for batch in range(ADDS_PER_WINDOW // 50):
        writer.create_many([NewToDo(title=f"{batch}-{i}") for i in range(50)])
    assert clock.slept == 0  # 250 in the window: Things takes them
    writer.create(NewToDo(title="one more"))
    assert clock.slept >= WINDOW_SECONDS - 1  # held until the first batch left the window
    assert len(log.read_text().splitlines()) == ADDS_PER_WINDOW // 50 + 1


def test_the_pace_never_lets_a_window_hold_more_than_things_takes() -> None:
    clock = FakeClock()
    pace = Pace(clock, clock.sleep)
    taken: list[tuple[float, int]] = []
    for count in [50, 120, 80, 1, 249, 3, 250, 7, 100, 100, 100]:
        pace.take(count)
        taken.append((clock.now, count))
        clock.now += 0.5  # the launch itself
    for start, _ in taken:
        held = sum(n for at, n in taken if start <= at < start + WINDOW_SECONDS)
        assert held <= ADDS_PER_WINDOW
    assert clock.slept > 0
