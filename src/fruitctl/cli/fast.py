"""The commands an agent runs once per step, run without Typer: ``reminders list``, ``lists``
(each alone or with ``--json``) and ``rpc MESSAGE``.

Typer builds every option of a command (with pydantic, which it uses to check values) before
the command runs; for a command that forwards one request that costs several times the
request. These few exact shapes need no parsing: what they send is fixed (``reminders list``
sends its input model's defaults, ``LIST_DEFAULTS``, held to the model by a test), and they
print through the same ``cli.output`` and ``cli.render`` as the full CLI. When this machine's
daemon answers they go straight to it; when none does (or ``FRUITCTL_IN_PROCESS`` asks), they
build the gateway as the full CLI does (``cli.thin.gateway``) and call it. Anything else - an
option, ``--help``, a gateway elsewhere (``FRUITCTL_URL``) - returns None, and the full CLI
runs the command.
"""

from __future__ import annotations

import os
from typing import Any

from fruitctl.cli import thin

JSON_FLAG = "--json"
LIST_DEFAULTS: dict[str, Any] = {"status": "incomplete", "sortBy": "newest", "limit": 50}
"""What ``fruitctl reminders list`` without options sends (``QueryReminders``' defaults)."""
CALLS: dict[tuple[str, ...], tuple[str, dict[str, Any], str]] = {
    # the words: (tool, arguments, how cli.render shows the answer)
    ("reminders", "list"): ("query_reminders", LIST_DEFAULTS, "show_reminders"),
    ("lists",): ("get_lists", {}, "show_lists_or_hint"),
}


def run(argv: list[str]) -> int | None:
    """The exit status of the command ``argv`` when it ran here, or None: the full CLI runs it."""
    if len(argv) == 2 and argv[0] == "rpc" and (argv[1] == "-" or not argv[1].startswith("-")):
        return _rpc(argv[1])
    as_json = JSON_FLAG in argv
    words = tuple(arg for arg in argv if arg != JSON_FLAG)
    if words not in CALLS or len(argv) - len(words) > 1 or not _local():
        return None
    tool, args, shower = CALLS[words]
    from fruitctl.cli.client import LocalClient
    from fruitctl.cli.output import run as answer

    def show(result: Any) -> None:
        from fruitctl.cli import render  # rich: only text answers need it, not --json

        getattr(render, shower)(result)

    here = thin.daemon()
    opened: list[Any] = []
    if here is None:
        client = LocalClient(build=lambda: _opened(opened, thin.gateway()))
    else:
        daemon, socket = here
        opened.append(daemon)
        client = LocalClient(daemon=daemon, socket=socket)
    try:
        answer(as_json, lambda: client.call(tool, dict(args)), show)
    finally:
        for each in opened:
            each.close()
    return 0


def _opened(opened: list[Any], thing: Any) -> Any:
    opened.append(thing)
    return thing


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
