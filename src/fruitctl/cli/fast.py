"""The commands an agent runs once per step, run without Typer: ``reminders list``, ``lists``,
``proposals list``, ``proposals show ID`` (each alone or with ``--json``) and ``rpc MESSAGE``.

Typer builds every option of a command (with pydantic, which it uses to check values) before
the command runs; for a command that forwards one request that costs several times the
request. These few exact shapes need no parsing: what they send is fixed (``reminders list``
sends its input model's defaults, ``LIST_DEFAULTS``, and ``proposals list`` its options'
defaults, ``PROPOSALS_DEFAULTS``, each held to its source by a test), and they print through
the same ``cli.output`` and renderers (``cli.render``, ``cli.proposals_render``) as the full
CLI. When this machine's daemon answers they go straight to it; when none does (or
``FRUITCTL_IN_PROCESS`` asks), they build the gateway as the full CLI does
(``cli.thin.gateway``) and ask it. Anything else - an option, ``--help``, a gateway elsewhere
(``FRUITCTL_URL``), a daemon older than the method asked - returns None, and the full CLI runs
the command.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

from fruitctl.cli import thin

if TYPE_CHECKING:
    from fruitctl.cli.client import LocalClient

JSON_FLAG = "--json"
LIST_DEFAULTS: dict[str, Any] = {"status": "incomplete", "sortBy": "newest", "limit": 50}
"""What ``fruitctl reminders list`` without options sends (``QueryReminders``' defaults)."""
PROPOSALS_DEFAULTS: tuple[str, int] = ("pending", 50)
"""What ``fruitctl proposals list`` without options lists (its ``--status`` and ``--limit``)."""
Ask = Callable[["LocalClient", tuple[str, ...]], Any]
CALLS: dict[tuple[str, ...], tuple[Ask, str, str]] = {
    # the words: (what the client is asked, given the words after them, the module under
    # fruitctl.cli that shows the answer, and its function)
    ("reminders", "list"): (
        lambda client, _: client.call("query_reminders", dict(LIST_DEFAULTS)),
        "render",
        "show_reminders",
    ),
    ("lists",): (lambda client, _: client.call("get_lists", {}), "render", "show_lists_or_hint"),
    ("proposals", "list"): (
        lambda client, _: client.proposals(*PROPOSALS_DEFAULTS),
        "proposals_render",
        "show_list",
    ),
}
WITH_ID: dict[tuple[str, ...], tuple[Ask, str, str]] = {
    # the same, for the words followed by one ID (never an option: that is Typer's to read)
    ("proposals", "show"): (
        lambda client, given: client.proposal(given[0]),
        "proposals_render",
        "show_one",
    ),
}


def run(argv: list[str]) -> int | None:
    """The exit status of the command ``argv`` when it ran here, or None: the full CLI runs it."""
    if len(argv) == 2 and argv[0] == "rpc" and (argv[1] == "-" or not argv[1].startswith("-")):
        return _rpc(argv[1])
    as_json = JSON_FLAG in argv
    words = tuple(arg for arg in argv if arg != JSON_FLAG)
    command = _command(words)
    if command is None or len(argv) - len(words) > 1 or not _local():
        return None
    (ask, module, shower), given = command
    from fruitctl.cli.client import LocalClient
    from fruitctl.cli.output import reporting
    from fruitctl.cli.output import run as answer
    from fruitctl.domain.errors import MethodNotFound

    def show(result: Any) -> None:
        # rich: only text answers need it, not --json
        getattr(import_module(f"fruitctl.cli.{module}"), shower)(result)

    here = thin.daemon()
    opened: list[Any] = []  # closed before the answer is drawn: the app writes its records
    if here is None:
        client = LocalClient(build=lambda: _opened(opened, thin.gateway()))
    else:
        daemon, socket = here
        opened.append(daemon)
        client = LocalClient(daemon=daemon, socket=socket)
    with reporting(as_json):
        try:
            found = ask(client, given)
        except MethodNotFound:  # a daemon older than this CLI: the full one reads the files
            return None
        finally:
            for each in opened:
                each.close()
    answer(as_json, lambda: found, show)
    return 0


def _opened(opened: list[Any], thing: Any) -> Any:
    opened.append(thing)
    return thing


def _command(words: tuple[str, ...]) -> tuple[tuple[Ask, str, str], tuple[str, ...]] | None:
    """What runs ``words`` here, and the words it is given (an ID); None: Typer's to read."""
    if words in CALLS:
        return CALLS[words], ()
    head, given = words[:-1], words[-1:]
    if head in WITH_ID and given and not given[0].startswith("-"):
        return WITH_ID[head], given
    return None


def _rpc(message: str) -> int | None:
    if not _local() or thin.socket_file() is None:
        return None
    return thin.send_raw(message, _no_socket)


def _no_socket() -> Any:  # pragma: no cover - run() asked socket_file() first
    raise AssertionError("the socket was found before")


def _local() -> bool:
    """Whether this CLI talks to this machine's gateway (no URL, no stored login); a reading
    that fails is the full CLI's to report."""
    from fruitctl.cli import remote
    from fruitctl.config_files import ConfigError

    try:
        return remote.configured(os.environ) is None
    except ConfigError:
        return False
