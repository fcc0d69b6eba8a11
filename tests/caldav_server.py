"""A real Radicale on 127.0.0.1 for tests and benchmarks, and a fault-injecting proxy for it.

``running_radicale(folder)`` starts Radicale (from PyPI, the dev extras) as a subprocess on a
free port with htpasswd auth and its storage in ``folder``, waits until it answers, and stops it
by its pid (killed if it does not stop). Each test takes a fresh account (``add_account``), so
one server serves a whole session without tests seeing each other's data.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import httpx

from fruitctl.backends.caldav import CaldavReminders

# Radicale as ``python -m radicale``, but without an fsync per stored item: its private
# ``_filesystem_fsync`` cannot be set from a config file. A test server's data need not survive a
# power cut, and the first listing of a bulk-loaded calendar gets several times faster.
LAUNCH = """
import sys
from radicale import __main__, config
load = config.load
def unsynced(*args, **kwargs):
    configuration = load(*args, **kwargs)
    configuration.update({"storage": {"_filesystem_fsync": "False"}}, "tests", privileged=True)
    return configuration
config.load = unsynced
sys.argv = ["radicale", "--config", sys.argv[1]]
__main__.run()
"""
START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 5.0
CONFIG = """\
[server]
hosts = 127.0.0.1:{port}
max_connections = 20
[auth]
type = htpasswd
htpasswd_filename = {users}
htpasswd_encryption = plain
delay = 0
[rights]
type = owner_only
[storage]
filesystem_folder = {storage}
[web]
type = none
[logging]
level = warning
"""
VTODO = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//another client//EN\r
BEGIN:VTODO\r
UID:{uid}\r
DTSTAMP:20260101T090000Z\r
{body}\r
END:VTODO\r
END:VCALENDAR\r
"""
MKCALENDAR = """<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop>
    <D:displayname>{name}</D:displayname>
    <C:supported-calendar-component-set>{components}</C:supported-calendar-component-set>
  </D:prop></D:set>
</C:mkcalendar>"""


@dataclass(frozen=True)
class Account:
    """One user of the server, with a calendar home of their own."""

    server: Radicale
    username: str
    password: str
    made: list[str] = field(default_factory=list, compare=False)
    """URLs of the calendars made with ``make_calendar``, in order."""

    @property
    def home(self) -> str:
        return f"{self.server.url}{self.username}/"

    @property
    def auth(self) -> tuple[str, str]:
        return (self.username, self.password)

    def http(self) -> httpx.Client:
        """A plain HTTP client as this user: the 'second client' of the tests."""
        return httpx.Client(auth=self.auth, timeout=10)

    def make_calendar(self, name: str, components: Sequence[str] = ("VTODO",)) -> str:
        """Create a calendar collection over the wire; return its URL."""
        url = f"{self.home}{secrets.token_hex(6)}/"
        comps = "".join(f'<C:comp name="{c}"/>' for c in components)
        body = MKCALENDAR.format(name=escape(name), components=comps)
        with self.http() as client:
            answer = client.request("MKCALENDAR", url, content=body)
        answer.raise_for_status()
        self.made.append(url)
        return url

    def put(self, url: str, text: str, **headers: str) -> int:
        """PUT as a second client would (plain HTTP, no fruitctl); the status code."""
        with self.http() as client:
            answer = client.put(
                url, content=text, headers={"Content-Type": "text/calendar", **headers}
            )
        return answer.status_code

    def get(self, url: str) -> tuple[str, str]:
        """The text and ETag of one object."""
        with self.http() as client:
            answer = client.get(url)
        answer.raise_for_status()
        return answer.text, answer.headers["ETag"]

    def delete(self, url: str) -> int:
        with self.http() as client:
            return client.delete(url).status_code

    def members(self, calendar_url: str) -> list[str]:
        """The URLs of every object in a calendar, as the server lists them."""
        body = '<propfind xmlns="DAV:"><prop><getetag/></prop></propfind>'
        with self.http() as client:
            answer = client.request("PROPFIND", calendar_url, headers={"Depth": "1"}, content=body)
        hrefs = re.findall(r"<href>([^<]+)</href>", answer.text)
        return sorted(self.server.url + h.lstrip("/") for h in hrefs if h.endswith(".ics"))

    def folder(self, calendar_url: str) -> Path:
        """The storage folder of one calendar: .ics files written here are its items."""
        path = calendar_url.removeprefix(self.server.url).strip("/")
        return self.server.storage / "collection-root" / path

    def write_items(self, calendar_url: str, items: dict[str, str]) -> None:
        """Put items straight into the storage folder (name -> iCalendar text): a bulk load
        Radicale picks up on its next request, where PUTs one by one would cost O(n) each."""
        folder = self.folder(calendar_url)
        for name, text in items.items():
            (folder / name).write_text(text, encoding="utf-8", newline="")


@dataclass
class Radicale:
    storage: Path
    port: int
    users: Path
    log: Path
    process: subprocess.Popen[bytes] | None = None
    _accounts: int = field(default=0)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def add_account(self, name: str = "user") -> Account:
        self._accounts += 1
        account = Account(self, f"{name}{self._accounts}", secrets.token_urlsafe(12))
        with self.users.open("a") as handle:
            handle.write(f"{account.username}:{account.password}\n")
        return account

    def start(self) -> None:
        self.storage.mkdir(parents=True, exist_ok=True)
        config = self.storage.parent / "radicale.conf"
        config.write_text(CONFIG.format(port=self.port, users=self.users, storage=self.storage))
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", LAUNCH, str(config)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self._wait_until_answering()

    def stop(self) -> None:
        """Stop by pid: terminate, then kill if it does not go in time."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT_S)

    def kill(self) -> None:
        """Die at once, as a crashed server would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(STOP_TIMEOUT_S)
            self.process = None

    def _wait_until_answering(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"Radicale exited at start:\n{self.log.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url, timeout=1).status_code < 500:
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(
            f"Radicale did not answer in {START_TIMEOUT_S}s:\n{self.log.read_text()}"
        )


def vtodo(uid: str, *lines: str) -> str:
    """A VTODO as another client writes it; ``lines`` are its properties besides UID/DTSTAMP."""
    return VTODO.format(uid=uid, body="\r\n".join(lines or ("SUMMARY:from elsewhere",)))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_radicale(folder: Path) -> Iterator[Radicale]:
    folder.mkdir(parents=True, exist_ok=True)
    users = folder / "users"
    users.touch()
    server = Radicale(folder / "storage", free_port(), users, folder / "radicale.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()


# -- a proxy in front of the server that can misbehave ------------------------------------------

OpenBackend = Callable[..., CaldavReminders]
"""``open_backend(account=None, url=None, **settings)`` (fixture in tests/backends/caldav)."""

Fault = Callable[["ProxyHandler"], bool]
"""Called for each request; True means the fault answered (or dropped) it."""


class FaultProxy(ThreadingHTTPServer):
    """Forwards every request to ``target`` unless a queued fault takes it."""

    daemon_threads = True

    def __init__(self, target: str) -> None:
        super().__init__(("127.0.0.1", 0), ProxyHandler)
        self.target = target.rstrip("/")
        self.faults: list[tuple[str | None, Fault]] = []
        self.seen: list[str] = []
        self.statuses: list[int] = []
        """What the server answered to each forwarded request, in order."""
        self.released = threading.Event()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def inject(self, fault: Fault, method: str | None = None) -> None:
        """The next request (of ``method``, if given) meets ``fault``."""
        with self._lock:
            self.faults.append((method, fault))

    def always(self, fault: Fault) -> None:
        """Every request from now on meets ``fault`` (until ``heal``)."""
        with self._lock:
            self.faults = [(None, fault)] * 10_000

    def heal(self) -> None:
        with self._lock:
            self.faults.clear()

    def take(self, method: str) -> Fault | None:
        with self._lock:
            for i, (wanted, fault) in enumerate(self.faults):
                if wanted in (None, method):
                    del self.faults[i]
                    return fault
        return None

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Dropped connections are what this proxy is for."""


class ProxyHandler(BaseHTTPRequestHandler):
    server: FaultProxy
    protocol_version = "HTTP/1.1"

    def _any(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length) if length else b""
        self.server.seen.append(self.command)
        fault = self.server.take(self.command)
        if fault is not None and fault(self):
            return
        self.forward()

    do_GET = do_PUT = do_DELETE = do_PROPFIND = do_REPORT = do_MOVE = _any
    do_MKCALENDAR = do_OPTIONS = do_PROPPATCH = do_MKCOL = do_POST = do_HEAD = _any

    def forward(self) -> httpx.Response:
        skip = {"host", "content-length", "connection", "accept-encoding"}
        headers = {k: v for k, v in self.headers.items() if k.lower() not in skip}
        answer = httpx.request(
            self.command,
            self.server.target + self.path,
            headers=headers,
            content=self.body,
            timeout=30,
        )
        self.server.statuses.append(answer.status_code)
        self.reply(answer.status_code, answer.content, dict(answer.headers))
        return answer

    def reply(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        skip = {"content-length", "transfer-encoding", "connection", "content-encoding"}
        for name, value in (headers or {}).items():
            if name.lower() not in skip:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def _server_does(handler: ProxyHandler) -> None:
    """The request goes to the server, which does it; its answer goes nowhere."""
    skip = {"host", "content-length", "connection", "accept-encoding"}
    headers = {k: v for k, v in handler.headers.items() if k.lower() not in skip}
    httpx.request(
        handler.command,
        handler.server.target + handler.path,
        headers=headers,
        content=handler.body,
        timeout=30,
    )


def lose_the_answer(handler: ProxyHandler) -> bool:
    """The server does the request, but its answer never reaches the client."""
    _server_does(handler)
    handler.close_connection = True
    handler.connection.shutdown(socket.SHUT_RDWR)
    return True


def land_then_stall(handler: ProxyHandler) -> bool:
    """The server does the request, and its answer is held until the test ends (or 10 s): a
    write that landed, heard of only after the client's deadline."""
    _server_does(handler)
    return answer_slowly(handler)


def hang_up(handler: ProxyHandler) -> bool:
    """The request never reaches the server; the connection just closes."""
    handler.close_connection = True
    handler.connection.shutdown(socket.SHUT_RDWR)
    return True


def answer_slowly(handler: ProxyHandler) -> bool:
    """Hold the request until the test ends (or 10 s): a server that stopped answering."""
    handler.server.released.wait(10)
    handler.close_connection = True
    return True


def answer_garbage(handler: ProxyHandler) -> bool:
    """A 207 whose body is not XML at all."""
    handler.reply(207, b"<html><body>Welcome to the captive portal</body>", {})
    return True


def answer_error(status: int) -> Fault:
    def fault(handler: ProxyHandler) -> bool:
        handler.reply(status, json.dumps({"error": status}).encode(), {})
        return True

    return fault


@contextlib.contextmanager
def running_proxy(target: str) -> Iterator[FaultProxy]:
    proxy = FaultProxy(target)
    thread = threading.Thread(target=proxy.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.released.set()
        proxy.shutdown()
        proxy.server_close()
        thread.join(5)


def demand_digest(username: str, password: str) -> Fault:
    """A server that speaks only HTTP Digest (RFC 7616, MD5, qop=auth), as Baikal does by
    default: it challenges anything else, checks a Digest answer itself and hands the request
    on to Radicale with Basic credentials."""
    realm, nonce = "fruitctl-test", "5ec0e0b7d1c0ffee"

    def fault(handler: ProxyHandler) -> bool:
        given = handler.headers.get("Authorization", "")
        if not given.startswith("Digest ") or not _digest_ok(handler, given, password):
            challenge = f'Digest realm="{realm}", nonce="{nonce}", qop="auth", algorithm=MD5'
            handler.reply(401, b"", {"WWW-Authenticate": challenge})
            return True
        token = base64.b64encode(f"{username}:{password}".encode()).decode()
        handler.headers.replace_header("Authorization", f"Basic {token}")
        handler.forward()
        return True

    return fault


def _digest_ok(handler: ProxyHandler, given: str, password: str) -> bool:
    fields = dict(re.findall(r'(\w+)="?([^",]*)"?', given[len("Digest ") :]))

    def md5(text: str) -> str:
        return hashlib.md5(text.encode()).hexdigest()  # MD5 is what this Digest uses

    first = md5(f"{fields.get('username')}:{fields.get('realm')}:{password}")
    second = md5(f"{handler.command}:{fields.get('uri')}")
    parts = (first, fields.get("nonce"), fields.get("nc"), fields.get("cnonce"), "auth", second)
    return fields.get("response") == md5(":".join(str(p) for p in parts))
