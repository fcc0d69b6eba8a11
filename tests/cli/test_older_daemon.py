"""A daemon older than ``proposals.list`` and ``proposals.get`` (updated, not restarted): the CLI
still lists and shows proposals, reading the files itself as it did before - the short way leaves
the command to the full CLI, whose client does. The older daemon here is this program's own
socket server, serving its methods but those two, on a real Unix socket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from socket_daemon import cli, short_home

from fruitctl import bootstrap
from fruitctl.config import Config, Settings
from fruitctl.daemon.lifecycle import RuntimeFiles, bind_socket, private_dir
from fruitctl.domain.actors import Actor
from fruitctl.paths import Paths
from fruitctl.transports.rpc.jsonrpc import Dispatcher
from fruitctl.transports.rpc.methods import build_methods
from fruitctl.transports.rpc.server import RpcServer

pytestmark = [pytest.mark.process, pytest.mark.slow]

NEWER = ("proposals.list", "proposals.get")


@contextlib.contextmanager
def older_daemon(app: bootstrap.App) -> Iterator[None]:
    """``app``'s gateway on its socket, without the methods ``NEWER`` names."""
    files = RuntimeFiles(app.config.paths.socket_file)
    private_dir(files.socket.parent)
    token = secrets.token_hex(16)
    files.token.write_text(token)
    files.token.chmod(0o600)
    methods = build_methods(app.gateway, dict, token)
    for name in NEWER:
        del methods[name]
    log = app.gateway.events
    server = RpcServer(Dispatcher(methods, asyncio.to_thread, log), log, max_bytes=1 << 20)
    loop = asyncio.new_event_loop()
    serving = threading.Thread(target=loop.run_forever, daemon=True)
    serving.start()
    sock, _ = bind_socket(files.socket)
    try:
        asyncio.run_coroutine_threadsafe(server.start(sock), loop).result(30)
        yield
    finally:
        asyncio.run_coroutine_threadsafe(server.drain(grace=5), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        serving.join(30)
        loop.close()
        sock.close()
        files.socket.unlink(missing_ok=True)


@pytest.fixture
def home() -> Iterator[Path]:
    with short_home() as made:
        yield made


def test_the_cli_lists_and_shows_proposals_itself_when_the_daemon_cannot(home: Path) -> None:
    app = bootstrap.build(Config(Settings(), Paths.resolve({"FRUITCTL_HOME": str(home)})))
    try:
        create = {"reminders": [{"title": "asked"}]}
        filed = app.gateway.invoke("create_reminders", create, Actor("agent", "codex"))
        proposal_id = filed.output["proposalId"]
        with older_daemon(app):
            assert app_answers(home, "ping")["ok"] is True  # the daemon answers: it is used
            listed = app_answers(home, "proposals", "list")
            shown = app_answers(home, "proposals", "show", proposal_id)
        assert listed == app.approvals.recent("pending", 50)
        assert [p["id"] for p in listed] == [proposal_id]
        assert shown == app.approvals.get(proposal_id)
    finally:
        app.close()


def app_answers(home: Path, *args: str) -> Any:
    done = cli(home, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
