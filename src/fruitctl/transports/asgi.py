"""ASGI pieces shared by the HTTP front doors: a body read up to a limit, then handed on."""

from __future__ import annotations

from collections import deque

from starlette.types import Message, Receive


async def read_body(receive: Receive, limit: int) -> list[Message] | None:
    """The request's messages up to the end of its body, or None once the body passes ``limit``
    (counted as it arrives: a client may stream without declaring a length)."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages
        size += len(message.get("body", b""))
        if size > limit:
            return None
        if not message.get("more_body", False):
            return messages


def replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that hands out ``messages`` first, then whatever comes next."""
    pending = deque(messages)

    async def replayed() -> Message:
        return pending.popleft() if pending else await receive()

    return replayed
