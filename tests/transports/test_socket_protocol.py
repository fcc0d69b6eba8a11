"""JSON-RPC 2.0 on the socket, edge by edge: parse errors that leave the connection usable,
invalid requests, ids echoed as sent, notifications, batches, the 1 MiB limit, half-closed
connections, pipelining - and a property: no byte sequence gets anything but valid answers (or a
closed connection), and none stops the daemon."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from socket_daemon import Daemon, Raw, answers, running, short_home

from fruitctl.domain import error_table

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

MIB = 1_048_576
PING = {"jsonrpc": "2.0", "id": "after", "method": "system.ping"}


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with short_home() as home, running(home) as served:
        yield served


@pytest.fixture
def rpc(daemon: Daemon) -> Iterator[Raw]:
    with Raw(daemon.socket) as client:
        yield client


def still_usable(rpc: Raw) -> None:
    assert rpc.call(PING)["result"]["ok"] is True


def error_of(answer: dict[str, Any], code: str, request_id: Any = None) -> None:
    assert answer["jsonrpc"] == "2.0" and answer["id"] == request_id
    assert answer["error"]["code"] == code
    assert answer["error"]["data"]["jsonrpcCode"] == error_table.row_of(code).jsonrpc


@pytest.mark.parametrize(
    "line",
    [
        b"garbage",
        b"{",
        b'{"jsonrpc": "2.0", "method": }',
        b"\xff\xfe{}",
        b"[NaN]",
        b"1" * 5000,
        b"[" * 65 + b"]" * 65,  # deeper than any input of ours
        b"[" * 100_000 + b"]" * 100_000,  # deeper than Python's recursion
    ],
)
def test_malformed_json_is_a_parse_error_and_the_connection_lives(rpc: Raw, line: bytes) -> None:
    rpc.send(line + b"\n")
    error_of(rpc.answer(), "parse_error")
    still_usable(rpc)


@pytest.mark.parametrize(
    ("message", "request_id"),
    [
        (1, None),
        ("system.ping", None),
        ({"id": 1, "method": "system.ping"}, 1),
        ({"jsonrpc": "1.0", "id": 2, "method": "system.ping"}, 2),
        ({"jsonrpc": "2.0", "id": 3, "method": 4}, 3),
        ({"jsonrpc": "2.0", "id": 4, "method": "system.ping", "params": "x"}, 4),
        ({"jsonrpc": "2.0", "id": {"no": "objects"}, "method": "system.ping"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "system.ping"}, None),
        ({"jsonrpc": "2.0", "method": 1, "params": "bar"}, None),  # not a notification
    ],
)
def test_invalid_requests(rpc: Raw, message: Any, request_id: Any) -> None:
    error_of(rpc.call(message), "invalid_request", request_id)
    still_usable(rpc)


@pytest.mark.parametrize("request_id", ["abc", "", 0, -7, 12345678901234, 1.5, None])
def test_ids_are_echoed_exactly(rpc: Raw, request_id: Any) -> None:
    answer = rpc.request("system.ping", request_id=request_id)
    assert answer["id"] == request_id and type(answer["id"]) is type(request_id)


def test_positional_parameters(rpc: Raw) -> None:
    assert rpc.request("system.ping", [])["result"]["ok"] is True
    error_of(rpc.request("reminders.open", [5], request_id=9), "invalid_params", 9)


def test_notifications_get_no_answer(rpc: Raw) -> None:
    rpc.send(b'{"jsonrpc": "2.0", "method": "system.ping"}\n')
    rpc.send(b'{"jsonrpc": "2.0", "method": "no.such.method"}\n')
    rpc.send(b'{"jsonrpc": "2.0", "method": "reminders.open", "params": {"limit": 0}}\n')
    rpc.send(b'{"jsonrpc": "2.0", "method": "reminders.open"}\n')  # runs, answers nobody
    assert rpc.call(PING)["id"] == "after"  # the first line back is the ping's


def test_batch(rpc: Raw) -> None:
    answers_ = rpc.call(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "system.ping"},
            {"jsonrpc": "2.0", "method": "system.ping"},
            {"jsonrpc": "2.0", "id": 2, "method": "reminders.open", "params": {"limit": 1}},
            {"jsonrpc": "2.0", "id": 3, "method": "nope"},
            {"foo": "boo"},
            {"jsonrpc": "2.0", "id": 4, "method": "reminders.open", "params": {"limit": -1}},
        ]
    )
    assert isinstance(answers_, list)
    assert [a["id"] for a in answers_] == [1, 2, 3, None, 4]
    assert answers_[0]["result"]["ok"] is True
    assert answers_[1]["result"]["count"] == 0  # an empty store
    assert [a["error"]["code"] for a in answers_[2:]] == [
        "method_not_found",
        "invalid_request",
        "invalid_params",
    ]


def test_batch_edges(rpc: Raw) -> None:
    error_of(rpc.call([]), "invalid_request")  # one error object, not a list
    invalid = rpc.call([1, 2])
    assert [a["error"]["code"] for a in invalid] == ["invalid_request"] * 2
    rpc.send(b'[{"jsonrpc": "2.0", "method": "system.ping"}]\n')  # only notifications
    assert rpc.call(PING)["id"] == "after"


def test_pipelined_requests_are_all_answered(rpc: Raw) -> None:
    lines = b"".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": method}).encode() + b"\n"
        for i, method in enumerate(["system.ping", "reminders.open", "system.info"] * 20)
    )
    rpc.send(lines)
    got = [rpc.answer() for _ in range(60)]
    assert sorted(a["id"] for a in got) == list(range(60))
    assert all("result" in a for a in got)


def test_a_message_over_the_limit_is_refused_and_the_connection_closed(daemon: Daemon) -> None:
    pad = "x" * (MIB + 10)
    with Raw(daemon.socket) as rpc:
        rpc.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": pad}).encode() + b"\n")
        error_of(rpc.answer(), "invalid_request")
        assert rpc.line() == b""  # closed
    assert answers(daemon.socket)


def test_an_endless_line_is_refused_before_it_ends(daemon: Daemon) -> None:
    with Raw(daemon.socket) as rpc:
        # Closed while we were still writing is refused all the same.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            rpc.send(b"[" * (MIB + 4096))  # no newline ever comes
        answer = rpc.line()
        assert answer == b"" or json.loads(answer)["error"]["code"] == "invalid_request"
        assert rpc.line() == b""
    assert answers(daemon.socket)


def test_a_message_just_under_the_limit_is_read(rpc: Raw) -> None:
    message = {"jsonrpc": "2.0", "id": 7, "method": "system.ping", "params": {"pad": ""}}
    message["params"]["pad"] = "x" * (MIB - len(json.dumps(message)))
    error_of(rpc.call(message), "invalid_params", 7)  # read and answered, not refused
    still_usable(rpc)


def test_half_close_after_a_line_without_newline(daemon: Daemon) -> None:
    with Raw(daemon.socket) as rpc:
        rpc.send(b'{"jsonrpc": "2.0", "id": 5, "method": "reminders.open"}')
        rpc.sock.shutdown(socket.SHUT_WR)
        answer = json.loads(rpc.rest())
        assert answer["id"] == 5 and "result" in answer


def test_blank_lines_and_crlf_are_tolerated(rpc: Raw) -> None:
    rpc.send(b"\n\r\n   \n")
    rpc.send(b'{"jsonrpc": "2.0", "id": 8, "method": "system.ping"}\r\n')
    assert rpc.answer()["id"] == 8


def test_errors_carry_no_traceback_or_source_path(rpc: Raw) -> None:
    for message in ([[[[]]]], {"jsonrpc": "2.0", "id": 1, "method": "tools.call"}):
        text = json.dumps(rpc.call(message))
        assert "Traceback" not in text and ".py" not in text and "/src/" not in text


# -- any bytes at all ------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
requestish = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": json_values,
        "method": st.sampled_from(["system.ping", "reminders.open", "tools.call", "x"])
        | json_values,
        "params": json_values,
        "tool": json_values,
        "request_id": json_values,
        "version": st.sampled_from(["1.0", "2"]),
    },
)
payloads = st.one_of(
    st.binary(max_size=512),
    json_values.map(lambda v: json.dumps(v).encode()),
    requestish.map(lambda v: json.dumps(v).encode()),
    st.lists(requestish, max_size=4).map(lambda v: json.dumps(v).encode()),
)


def valid_answer(line: bytes) -> None:
    answer = json.loads(line)  # every line the daemon sends is JSON
    for one in answer if isinstance(answer, list) else [answer]:
        if "jsonrpc" in one:
            assert set(one) in ({"jsonrpc", "id", "result"}, {"jsonrpc", "id", "error"})
            if "error" in one:
                assert isinstance(one["error"]["code"], str)
                assert isinstance(one["error"]["data"]["jsonrpcCode"], int)
        else:  # an AAI envelope's answer
            assert one["version"] == "1.0" and one["status"] in ("success", "error")
            if one["status"] == "error":
                assert one["error"]["code"].isupper()


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=payloads)
def test_any_bytes_get_valid_answers_and_never_stop_the_daemon(daemon: Daemon, data: bytes) -> None:
    with Raw(daemon.socket) as rpc:
        try:
            rpc.send(data + b"\n")
            rpc.sock.shutdown(socket.SHUT_WR)
            rest = rpc.rest()
        except ConnectionResetError:
            rest = b""  # a closed connection is an acceptable answer
    for line in rest.splitlines():
        valid_answer(line)
    assert daemon.proc.poll() is None
    assert answers(daemon.socket)
