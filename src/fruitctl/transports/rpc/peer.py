"""Who is on the other end of a Unix socket, as the kernel recorded it at ``connect()``.

Linux: ``SO_PEERCRED`` (``struct ucred``: pid, uid, gid). macOS and the BSDs: ``LOCAL_PEERCRED``
(``struct xucred``: version, uid, groups), plus ``LOCAL_PEERPID`` on macOS. Elsewhere the uid is
unknown, and an unknown peer is refused: the check fails closed.
"""

from __future__ import annotations

import socket
import struct
import sys
from dataclasses import dataclass
from typing import Any

import psutil

SOL_LOCAL = 0  # <sys/un.h> on macOS and the BSDs
LOCAL_PEERCRED = 0x001
LOCAL_PEERPID = 0x002  # macOS only
XUCRED_SIZE = 76  # u_int version, uid_t uid, short ngroups (+2 padding), gid_t groups[16]


@dataclass(frozen=True)
class Peer:
    uid: int | None
    pid: int | None


def peer_of(sock: Any) -> Peer:
    """The credentials of a connected Unix socket (``socket.socket`` or asyncio's wrapper)."""
    try:
        if sys.platform.startswith("linux"):
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            pid, uid, _gid = struct.unpack("3i", raw)
            return Peer(uid, pid)
        raw = sock.getsockopt(SOL_LOCAL, LOCAL_PEERCRED, XUCRED_SIZE)
        _version, uid = struct.unpack_from("=Ii", raw)
        return Peer(uid, _peer_pid(sock))
    except (OSError, struct.error):
        return Peer(None, None)


def _peer_pid(sock: Any) -> int | None:
    try:
        raw = sock.getsockopt(SOL_LOCAL, LOCAL_PEERPID, struct.calcsize("i"))
        return int(struct.unpack("i", raw)[0])
    except (OSError, struct.error):
        return None


def process_name(pid: int | None) -> str:
    """The peer's program name, to tell agents apart in logs and records ("unknown" if gone)."""
    if pid is None:
        return "unknown"
    try:
        return psutil.Process(pid).name() or "unknown"
    except (psutil.Error, OSError):
        return "unknown"
