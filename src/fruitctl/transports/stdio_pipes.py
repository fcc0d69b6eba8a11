"""MCP's stdio transport on event-loop pipes: what ``fruitctl mcp`` serves on.

It does what the SDK's ``mcp.server.stdio.stdio_server`` does - newline-delimited JSON-RPC on
stdin and stdout, parsed by the SDK's own message adapter and handed to the SDK's ``Server`` on
the same two memory streams - with two costs taken out of every call:

- the SDK reads and writes through ``anyio.wrap_file``: each line read, each write and each
  flush is a hop to a worker thread and back. Here stdin and stdout are asyncio pipe
  transports on the event loop, with no thread at all;
- a response is written by orjson from the result dict the SDK has already shaped and checked
  for the protocol version, instead of being walked once more by pydantic. Anything else (and
  anything orjson refuses) is written by the SDK's own ``model_dump_json``.

While serving, fd 0 reads the null device and fd 1 writes to stderr, so a library or a child
process that prints cannot corrupt the protocol; both are put back on exit, in the blocking mode
they had. Only pipes and sockets are served this way; for anything else (a terminal, stdin
redirected from a regular file) the SDK's own ``stdio_server`` serves instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anyio
import mcp_types as types
import orjson
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

LINE_LIMIT = 16 * 1024 * 1024
"""The longest line read whole. A longer one is reported as unparseable and skipped."""

CLOSE_TIMEOUT_S = 5.0
"""How long the last answers may take to drain into a slow reader at exit."""

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


@contextlib.asynccontextmanager
async def stdio_streams() -> AsyncIterator[Any]:
    """The read and write streams for ``Server.run``, served on stdin and stdout."""
    if not (_streamable(0) and _streamable(1)):
        from mcp.server.stdio import stdio_server

        async with stdio_server() as streams:
            yield streams
        return
    loop = asyncio.get_running_loop()
    with _claimed(0, _null_input) as wire_in, _claimed(1, _stderr_copy) as wire_out:
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", closefd=False)
        )
        write_transport, protocol = await loop.connect_write_pipe(
            _FlowControl, os.fdopen(wire_out, "wb", closefd=False)
        )
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        try:
            async with _serving(reader, writer) as streams:
                yield streams
        finally:
            read_transport.close()
            write_transport.close()  # after writing what is still buffered
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(protocol.closed), CLOSE_TIMEOUT_S)


@contextlib.asynccontextmanager
async def _serving(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> AsyncIterator[Streams]:
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_lines() -> None:
        async with incoming_send:
            while line := await _next_line(reader):
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except Exception as exc:  # the SDK answers what it can and logs the rest
                    await incoming_send.send(exc)
                    continue
                await incoming_send.send(SessionMessage(message))

    async def write_lines() -> None:
        reader_gone = False
        async with outgoing_receive:
            async for session_message in outgoing_receive:
                if reader_gone:  # nobody reads stdout: answers are dropped until stdin ends
                    continue
                try:
                    writer.write(encode(session_message.message))
                    await writer.drain()
                except ConnectionError:
                    reader_gone = True

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_lines)
        tasks.start_soon(write_lines)
        yield incoming, outgoing


async def _next_line(reader: asyncio.StreamReader) -> bytes:
    """The next line, ``b""`` at the end of input; an over-long line comes back as ``b"\\n"``
    (unparseable, so reported) after asyncio has dropped it."""
    try:
        return await reader.readline()
    except ValueError:
        return b"\n"


def encode(message: Any) -> bytes:
    """One line of JSON-RPC, as the SDK writes it (``model_dump_json(by_alias, exclude_unset)``).

    A response's ``result`` is already the JSON-ready dict the SDK built and checked against
    the protocol version, so orjson writes it as it is."""
    if type(message) is types.JSONRPCResponse:
        envelope = {"jsonrpc": message.jsonrpc, "id": message.id, "result": message.result}
        try:
            return orjson.dumps(envelope, option=orjson.OPT_APPEND_NEWLINE)
        except TypeError:  # orjson.JSONEncodeError: a huge int, a non-string key
            pass
    text: str = message.model_dump_json(by_alias=True, exclude_unset=True)
    return text.encode() + b"\n"


class _FlowControl(asyncio.streams.FlowControlMixin, asyncio.Protocol):
    """What ``StreamWriter.drain`` needs from a write-only pipe's protocol, and a future that
    is done once the pipe is closed (everything written, or the reader gone)."""

    def __init__(self) -> None:
        super().__init__()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self.closed.done():
            self.closed.set_result(None)


def _streamable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    # Pipes and sockets, what MCP clients spawn servers with. Not a terminal: a non-blocking
    # terminal would outlive a killed server in the person's shell.
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _null_input() -> int:
    return os.open(os.devnull, os.O_RDONLY)


def _stderr_copy() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


@contextlib.contextmanager
def _claimed(fd: int, stand_in: Callable[[], int]) -> Iterator[int]:
    """A private descriptor for ``fd``'s wire while ``fd`` itself points at ``stand_in()``; on
    exit ``fd`` is the wire again, with the flags it had (asyncio makes its pipes non-blocking)."""
    wire = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    flags = fcntl.fcntl(wire, fcntl.F_GETFL)
    diversion = stand_in()
    try:
        os.dup2(diversion, fd)
    finally:
        os.close(diversion)
    try:
        yield wire
    finally:
        fcntl.fcntl(wire, fcntl.F_SETFL, flags)
        os.dup2(wire, fd)
        os.close(wire)
