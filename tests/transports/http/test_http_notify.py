"""Desktop notifications for proposals: the notifier commands, and - with real notifier programs
(tiny scripts that append their argv to a file, standing in for notify-send and xdg-open) - one
notifier process at a time, coalesced, every proposal announced exactly once, even when 300
arrive at once over HTTP."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.transports.http import announce, notify
from fruitctl.transports.http.announce import ProposalWatcher
from fruitctl.transports.http.notify import Notifier
from fruitctl.transports.http.server import WATCH_SECONDS, HttpServer
from fruitctl.transports.http.tokens import TokenStore, secrets_dir

AGENT = Actor("agent", "mcp-client")
DEADLINE_S = 60.0  # the test's own: generous on a loaded machine
# Each test here starts another process.
pytestmark = pytest.mark.process
FLOOD = 300
LINK = "http://127.0.0.1:8765/ui/proposals/p1"
SCRIPT = """#!{python}
import json, os, sys, time

with open({record!r}, "a") as record:
    record.write(json.dumps([os.getpid(), os.path.basename(sys.argv[0]), *sys.argv[1:]]) + "\\n")
if "--help" in sys.argv:
    print({help!r})
elif {waits!r} and "--wait" in sys.argv or {lingers!r}:
    {on_wait}
"""
WITH_ACTIONS = "  -A, --action=[NAME=]Text...  Specifies the actions to display"


@dataclass
class Programs:
    """Notifier programs that record each run: ``runs()`` is one row per process."""

    folder: Path
    record: Path

    def which(self, name: str) -> str | None:
        found = self.folder / name
        return str(found) if found.exists() else None

    def runs(self, name: str = "notify-send") -> list[list[Any]]:
        if not self.record.exists():
            return []
        rows = [json.loads(line) for line in self.record.read_text().splitlines()]
        return [row for row in rows if row[1] == name and "--help" not in row]

    def alive(self) -> list[int]:
        return [row[0] for row in self.runs() if _running(row[0])]


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def programs(
    tmp_path: Path,
    *,
    actions: bool = True,
    on_wait: str = "time.sleep(600)",
    lingers: bool = False,
) -> Programs:
    """notify-send (with ``--action`` or without; waiting for a click runs ``on_wait``;
    ``lingers``: even a plain one takes its time) and xdg-open."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    record = tmp_path / "runs.jsonl"
    help_text = WITH_ACTIONS if actions else "Usage: notify-send SUMMARY"
    for name, waits in (("notify-send", True), ("xdg-open", False)):
        script = SCRIPT.format(
            python=sys.executable,
            record=str(record),
            help=help_text,
            waits=waits,
            lingers=lingers and name == "notify-send",
            on_wait=on_wait,
        )
        path = folder / name
        path.write_text(script)
        path.chmod(0o755)
    return Programs(folder, record)


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def until(condition: Any) -> bool:
    deadline = time.monotonic() + DEADLINE_S
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return bool(condition())


def announced(body: str) -> int:
    """How many proposals a notification's text announces."""
    first = body.splitlines()[0]
    return int(first.split()[0]) if first.endswith(" new proposals") else 1


def file(app: bootstrap.App, count: int) -> list[str]:
    ids = []
    for n in range(count):
        filed = app.gateway.invoke("create_reminders", {"reminders": [{"title": f"r{n}"}]}, AGENT)
        ids.append(filed.output["proposalId"])
    return ids


def page(proposal_id: str | None) -> str:
    return f"http://gw/ui/proposals/{proposal_id}" if proposal_id else "http://gw/ui/proposals"


# -- the commands ----------------------------------------------------------------------------


def test_the_notifier_commands() -> None:
    def which(found: set[str]) -> Any:
        return lambda name: f"/usr/bin/{name}" if name in found else None

    linux = notify.command("T", "a <b> & c", "linux", which({"notify-send"}))
    assert linux == [
        "/usr/bin/notify-send",
        "--app-name=fruitctl",
        "--urgency=normal",
        "T",
        "a &lt;b&gt; &amp; c",
    ]
    mac = notify.command("T", '"; do shell script "x', "darwin", which({"osascript"}))
    assert mac is not None
    assert mac[-2:] == ["T", '"; do shell script "x']  # data in argv, never in the script
    assert notify.command("T", "b", "linux", which(set())) is None
    assert notify.command("T", "b", "darwin", which({"notify-send"})) is None


def test_on_a_mac_terminal_notifier_opens_the_page_when_clicked() -> None:
    def which(found: set[str]) -> Any:
        return lambda name: f"/opt/homebrew/bin/{name}" if name in found else None

    link = "http://100.64.0.1:8765/ui/proposals/p1"
    both = which({"terminal-notifier", "osascript"})
    assert notify.command("T", "-body", "darwin", both, link) == [
        "/opt/homebrew/bin/terminal-notifier",
        "-title",
        "T",
        "-message",
        "-body",
        "-group",
        "fruitctl",
        "-open",
        link,
    ]
    fallback = notify.command("T", f"b\n{link}", "darwin", which({"osascript"}), link)
    assert fallback is not None and fallback[0].endswith("osascript")
    assert fallback[-1] == f"b\n{link}"  # the link shown in the text


def test_a_crafted_summary_or_name_is_shown_plainly() -> None:
    proposal = {"summary": "Pay \u202e001\u200b" + "x" * 500, "actor": "agent:a\u202eb"}
    body = announce.message(proposal, None)
    assert "\u202e" not in body and "[U+202E]" in body and "[U+200B]" in body
    assert len(body.splitlines()[0]) == announce.BODY_MAX
    assert body.splitlines()[1] == "by agent:a[U+202E]b"


# -- the notifier process -------------------------------------------------------------------


def test_an_open_button_opens_the_page_without_a_thread(tmp_path: Path) -> None:
    found = programs(tmp_path, on_wait="print('open')")  # clicked at once
    notifier = Notifier(platform="linux", which=found.which)
    threads = threading.active_count()
    assert notifier.send("T", "body", LINK)
    assert threading.active_count() == threads
    assert until(lambda: (notifier.tend(), found.runs("xdg-open"))[1])
    [shown] = found.runs()
    assert shown[2:] == [
        "--action=open=Open",
        "--wait",
        "--app-name=fruitctl",
        "--urgency=normal",
        "T",
        "body",
    ]
    assert [run[2:] for run in found.runs("xdg-open")] == [[LINK]]


def test_without_actions_the_link_is_in_the_text_and_help_is_asked_once(tmp_path: Path) -> None:
    found = programs(tmp_path, actions=False)
    notifier = Notifier(platform="linux", which=found.which)
    assert notifier.send("T", "body", LINK)
    assert until(lambda: not notifier.busy())
    assert notifier.send("T", "again", LINK)
    assert until(lambda: len(found.runs()) == 2)
    notifier.close()
    rows = [json.loads(line) for line in found.record.read_text().splitlines()]
    assert [row[2:] for row in rows if "--help" in row] == [["--help"]]  # asked once
    assert [run[-1] for run in found.runs()] == ["body", "again"]


def test_one_notifier_at_a_time_a_newer_one_replaces_one_waiting_for_a_click(
    tmp_path: Path,
) -> None:
    found = programs(tmp_path)  # nobody clicks
    notifier = Notifier(platform="linux", which=found.which, handover_seconds=0.1)
    for n in range(3):
        assert notifier.send("T", f"n{n}", LINK)
        assert until(lambda n=n: len(found.runs()) == n + 1)
        assert until(lambda: len(found.alive()) == 1)
        assert until(lambda: not notifier.busy())  # only waiting for a click: not in the way
    notifier.close()
    assert until(lambda: found.alive() == [])


def test_the_notifier_is_silent_when_it_cannot_notify(tmp_path: Path) -> None:
    assert not Notifier(platform="linux", which=lambda name: None).send("t", "b")
    missing = str(tmp_path / "no-such-notify-send")
    assert not Notifier(platform="linux", which=lambda name: missing).send("t", "b")


# -- the watcher ----------------------------------------------------------------------------


def test_a_flood_is_one_notification_and_none_is_missed_or_repeated(
    app: bootstrap.App, tmp_path: Path
) -> None:
    found = programs(tmp_path)
    notifier = Notifier(platform="linux", which=found.which, handover_seconds=0.1)
    file(app, 3)  # waiting before the watcher starts: not news
    watcher = ProposalWatcher(app.approvals.arrivals, notifier, page)
    watcher.prime()
    file(app, FLOOD)
    assert watcher.poll() == FLOOD
    assert until(lambda: not notifier.busy())
    assert watcher.poll() == 0
    # The next notification replaces this one: let its program start (and record that it ran)
    # first, as a real notifier has long shown it by then; on a loaded machine a Python start
    # can outlast the 0.1 s handover this test gives it.
    assert until(lambda: len(found.runs()) == 1)
    [single] = file(app, 1)
    assert watcher.poll() == 1
    assert watcher.poll() == 0
    assert until(lambda: len(found.runs()) == 2)
    notifier.close()
    flood, one = (run[-1] for run in found.runs())
    assert flood.startswith(f"{FLOOD} new proposals\nlatest: ")
    assert f"'r{FLOOD - 1}'" in flood.splitlines()[1]  # the newest
    assert flood.endswith("http://gw/ui/proposals")
    assert "'r0'" in one and one.endswith(f"http://gw/ui/proposals/{single}")


def test_while_a_notification_is_handed_over_the_next_ones_wait_and_are_counted(
    app: bootstrap.App, tmp_path: Path
) -> None:
    found = programs(tmp_path, actions=False, lingers=True)  # a slow notification server
    notifier = Notifier(platform="linux", which=found.which, handover_seconds=600)
    watcher = ProposalWatcher(app.approvals.arrivals, notifier, page)
    watcher.prime()
    file(app, 2)
    assert watcher.poll() == 2
    assert until(lambda: len(found.runs()) == 1)  # started, and still running
    file(app, 5)
    assert watcher.poll() == 0  # the first is still being shown
    [rejected] = file(app, 1)
    app.gateway.decide(rejected, "reject", Actor("human", "me"))  # no longer news
    notifier.close()  # it ends (as it would at its deadline)
    assert watcher.poll() == 5
    assert until(lambda: len(found.runs()) == 2)
    notifier.close()
    assert [announced(run[-1]) for run in found.runs()] == [2, 5]


@pytest.mark.slow
def test_300_proposals_over_http_start_a_bounded_number_of_notifiers(
    app: bootstrap.App, tmp_path: Path
) -> None:
    found = programs(tmp_path)  # an "Open" button nobody clicks: each waits ten minutes
    tokens = TokenStore(secrets_dir(app))
    token = tokens.issue("agent", 600, "flooder")[0]
    server = HttpServer(
        app, "127.0.0.1", 0, tokens=tokens, notifier=Notifier(platform="linux", which=found.which)
    )
    with server.running() as url, httpx.Client(base_url=url, timeout=DEADLINE_S) as client:
        headers = {"Authorization": f"Bearer {token}"}

        def propose(n: int) -> int:
            body = {"title": f"flood {n}"}
            return client.post("/reminders", json=body, headers=headers).status_code

        started = time.monotonic()
        with ThreadPoolExecutor(4) as pool:
            statuses = list(pool.map(propose, range(FLOOD)))
        filing = time.monotonic() - started

        def total() -> int:
            return sum(announced(run[-1]) for run in found.runs())

        assert until(lambda: total() >= FLOOD), f"{total()} of {FLOOD} announced"
        at_most_one = len(found.alive()) <= 1
    assert statuses == [202] * FLOOD
    assert total() == FLOOD  # each exactly once
    # One notification a poll at most, so the polls while they were filed bound them.
    assert len(found.runs()) <= filing / WATCH_SECONDS + 2
    assert at_most_one
    assert until(lambda: found.alive() == [])  # the server's stop ends the last one
