"""JSON-RPC 2.0, one message per line: envelopes, batches, notifications and error objects.

``Dispatcher.handle(line, session)`` answers a line with the bytes to send back, ``None``
(notifications), or an awaitable of either when a method must run on a worker thread. Methods that
answer from memory (``system.ping``) are answered inline, so the fast path pays for no task and no
thread hop.

Errors carry seed 000's string codes (``invalid_params``, ``permission_denied`` …) with the
JSON-RPC integer in ``data.jsonrpcCode`` for strict clients, both from the one table of codes
(``domain.error_table``). A message never contains a stack
trace: anything unexpected becomes ``internal_error`` with a fixed message, and only the exception's
type reaches the log.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

import orjson

from fruitctl.domain import error_table
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import (
    FruitctlError,
    InternalError,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    ParseError,
    PermissionDenied,
)
from fruitctl.telemetry import EventLog
from fruitctl.transports import strict_json
from fruitctl.transports.rpc.budget import AnswerBudget, AnswerLimits

MAX_BATCH = 1_000  # a 1 MiB batch of tiny requests must not turn into a 100 MiB answer
ECHO_MAX = 100  # how much of a caller's method name an error message repeats

Reply = bytes | None | Awaitable[bytes | None]
Outcome = dict[str, Any] | None | Awaitable[dict[str, Any] | None]


AGENTS_ONLY = "This is the agents' socket: whoever connects here is an agent, never the person."


class Session:
    """One connection: who is calling (an agent named by ``default`` until it identifies
    itself) and the dialect it spoke last, for answering a line that is not JSON. A session of
    the agents' socket (``agents_only``) can never become the person."""

    def __init__(self, default: Callable[[], Actor], *, agents_only: bool = False) -> None:
        self._default = default
        self._actor: Actor | None = None
        self.agents_only = agents_only
        self.dialect: str | None = None

    @property
    def actor(self) -> Actor:
        if self._actor is None:  # resolved on first use: a ping never pays for the lookup
            self._actor = self._default()
        return self._actor

    def become(self, actor: Actor) -> None:
        if self.agents_only and actor.kind != "agent":
            raise PermissionDenied(AGENTS_ONLY)
        self._actor = actor


@dataclass(frozen=True)
class Method:
    run: Callable[[dict[str, Any], Session], Any]
    """The answer, or an awaitable of it (a tool call: ``Gateway.ainvoke`` picks where it runs
    and keeps its deadline)."""
    blocking: bool = False
    """True: runs on a worker thread under the request timeout (``system.info``)."""


RunBlocking = Callable[[Callable[[], Any]], Awaitable[Any]]


class Envelopes(Protocol):
    """Another dialect sharing the socket (seed 004's AAI envelopes)."""

    def recognises(self, message: Any) -> bool:
        """Whether ``message`` is in this dialect (then it answers it, not JSON-RPC)."""
        ...

    def recognises_unparsed(self, line: bytes, session: Session) -> bool:
        """Whether a line that is not JSON is answered in this dialect."""
        ...

    def malformed(self, error: FruitctlError) -> dict[str, Any]: ...

    def refused(self, answer: dict[str, Any], error: FruitctlError) -> dict[str, Any]:
        """The error that replaces ``answer`` (one that may not go out: too large)."""
        ...

    def answer(
        self, message: dict[str, Any], session: Session
    ) -> dict[str, Any] | Awaitable[dict[str, Any]]: ...


class Dispatcher:
    def __init__(
        self,
        methods: Mapping[str, Method],
        run_blocking: RunBlocking,
        log: EventLog,
        envelopes: Envelopes | None = None,
        limits: AnswerLimits | None = None,
    ) -> None:
        self._methods = dict(methods)
        self._run_blocking = run_blocking
        self._log = log
        self._envelopes = envelopes
        self.budget = AnswerBudget(limits or AnswerLimits())
        """Every answer's bytes, counted here while encoded and by the server until written."""

    def handle(self, line: bytes, session: Session) -> Reply:
        try:
            message = decode(line)
        except ParseError as exc:
            other = self._envelopes
            if other is not None and other.recognises_unparsed(line, session):
                session.dialect = "aai"
                return encode(other.malformed(exc))
            return encode(error_response(None, exc))
        if isinstance(message, list):
            return self._batch(message, session)
        if self._envelopes is not None and self._envelopes.recognises(message):
            session.dialect = "aai"
            return self._finish(self._envelopes.answer(message, session))
        session.dialect = "jsonrpc"
        return self._finish(self._one(message, session))

    # -- answers, counted (``budget``) ----------------------------------------------------------

    def _finish(self, outcome: Outcome) -> Reply:
        if outcome is None:
            return None
        if inspect.isawaitable(outcome):
            return self._finish_later(outcome)
        data = self._counted(outcome, None)
        self.budget.give(len(data))  # the connection counts it from here, until written out
        return data + b"\n"

    async def _finish_later(self, pending: Awaitable[dict[str, Any] | None]) -> bytes | None:
        reply = self._finish(await pending)
        assert not inspect.isawaitable(reply)
        return reply

    def _counted(self, outcome: dict[str, Any], tally: list[int] | None) -> bytes:
        """The answer's JSON, counted in the budget (and in its batch's ``tally``); an error
        in its place when it may not go out."""
        data = encode(outcome, newline=False)
        refused = self.budget.refusal(len(data), None if tally is None else tally[0])
        if refused is not None:
            data = encode(self._refused(outcome, refused), newline=False)
            self.budget.force(len(data))
        if tally is not None:
            tally[0] += len(data)
        return data

    def _refused(self, outcome: dict[str, Any], error: FruitctlError) -> dict[str, Any]:
        if "jsonrpc" not in outcome and self._envelopes is not None:
            return self._envelopes.refused(outcome, error)
        return error_response(outcome.get("id"), error)

    def _batch(self, items: list[Any], session: Session) -> Reply:
        """Each answer encoded as soon as it is ready (its result dropped), its bytes counted
        against the batch's limit and the budget; then the array, or nothing for notifications."""
        if not items:
            return encode(error_response(None, InvalidRequest("An empty batch is not a request.")))
        if len(items) > MAX_BATCH:
            refused = InvalidRequest(f"A batch holds at most {MAX_BATCH}.")
            return encode(error_response(None, refused))
        tally = [0]
        parts = [self._part(self._one(item, session), tally) for item in items]
        if any(inspect.isawaitable(p) for p in parts):
            return self._join_later(parts, tally)
        return self._join(cast(list[bytes | None], parts), tally)

    def _part(self, outcome: Outcome, tally: list[int]) -> bytes | Awaitable[bytes | None] | None:
        if outcome is None:
            return None
        if inspect.isawaitable(outcome):
            return self._part_later(outcome, tally)
        return self._counted(outcome, tally)

    async def _part_later(
        self, pending: Awaitable[dict[str, Any] | None], tally: list[int]
    ) -> bytes | None:
        outcome = await pending
        return None if outcome is None else self._counted(outcome, tally)

    def _join(self, parts: list[bytes | None], tally: list[int]) -> bytes | None:
        answers = [p for p in parts if p is not None]
        self.budget.give(tally[0])  # the connection counts the array from here
        return b"[" + b",".join(answers) + b"]\n" if answers else None

    async def _join_later(
        self, parts: list[bytes | Awaitable[bytes | None] | None], tally: list[int]
    ) -> bytes | None:
        # Concurrently: a batch of slow calls takes as long as its slowest, not their sum.
        try:
            done = iter(await asyncio.gather(*(p for p in parts if inspect.isawaitable(p))))
        except BaseException:
            self.budget.give(tally[0])
            raise
        return self._join([next(done) if inspect.isawaitable(p) else p for p in parts], tally)

    def _one(self, message: Any, session: Session) -> Outcome:
        try:
            request_id, name, params, notify = envelope(message)
        except InvalidRequest as exc:
            return error_response(_id_of(message), exc)
        method = self._methods.get(name)
        if method is None:
            shown = name if len(name) <= ECHO_MAX else name[:ECHO_MAX] + "…"
            return _unless(
                notify, error_response(request_id, MethodNotFound(f"No method '{shown}'."))
            )
        if isinstance(params, list):  # every method takes its parameters by name
            if params:
                refused = InvalidParams("Give the parameters by name, as a JSON object.")
                return _unless(notify, error_response(request_id, refused))
            params = {}
        try:
            if method.blocking:
                result = self._run_blocking(lambda: method.run(params, session))
            else:
                result = method.run(params, session)
        except Exception as exc:
            return _unless(notify, self._error(request_id, exc, name))
        if inspect.isawaitable(result):
            return self._later(name, result, (request_id, notify))
        return _unless(notify, {"jsonrpc": "2.0", "id": request_id, "result": result})

    async def _later(
        self, name: str, pending: Awaitable[Any], reply_to: tuple[Any, bool]
    ) -> dict[str, Any] | None:
        request_id, notify = reply_to
        try:
            result = await pending
        except Exception as exc:
            return _unless(notify, self._error(request_id, exc, name))
        return _unless(notify, {"jsonrpc": "2.0", "id": request_id, "result": result})

    def _error(self, request_id: Any, exc: Exception, where: str) -> dict[str, Any]:
        if not isinstance(exc, FruitctlError):  # a bug: its type goes to the log, nothing else
            self._log.error("rpc_method_crashed", method=where, exception=type(exc).__name__)
            exc = InternalError.hidden()
        return error_response(request_id, exc)


def envelope(message: Any) -> tuple[Any, str, dict[str, Any] | list[Any], bool]:
    """``(id, method, params, is_notification)`` of a request object, or ``InvalidRequest``."""
    if not isinstance(message, dict):
        raise InvalidRequest("A request must be a JSON object.")
    if message.get("jsonrpc") != "2.0":
        raise InvalidRequest('"jsonrpc" must be "2.0".')
    notify = "id" not in message
    if not notify and not _valid_id(message["id"]):
        raise InvalidRequest('"id" must be a string, a number or null.')
    name = message.get("method")
    if not isinstance(name, str):
        raise InvalidRequest('"method" must be a string.')
    params = message.get("params", {})
    if not isinstance(params, dict | list):
        raise InvalidRequest('"params" must be an object or an array.')
    return message.get("id"), name, params, notify


def decode(line: bytes) -> Any:
    """One line's JSON, read as strictly as every door reads a body (no NaN, at most 64 levels)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError("The message is not valid UTF-8.") from exc
    return strict_json.loads(text)


def encode(payload: Any, *, newline: bool = True) -> bytes:
    """One line of JSON. orjson writes a 40 KB answer in a tenth of the stdlib's time; what it
    refuses (a lone surrogate, a non-string key, a huge int) goes through the stdlib as ASCII."""
    try:
        return orjson.dumps(payload, option=orjson.OPT_APPEND_NEWLINE if newline else None)
    except TypeError:  # orjson.JSONEncodeError
        pass
    try:
        text = json.dumps(payload, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        request_id = payload.get("id") if isinstance(payload, dict) else None
        text = json.dumps(error_response(request_id, InternalError("Unrepresentable result.")))
    return text.encode() + (b"\n" if newline else b"")


def error_object(error: FruitctlError) -> dict[str, Any]:
    """The one mapping from a domain error to a JSON-RPC error object."""
    data = dict(error.details)
    data["jsonrpcCode"] = error_table.row_of(error.code).jsonrpc
    data["retryable"] = error.retryable
    return {"code": error.code, "message": error.message, "data": data}


def error_response(request_id: Any, error: FruitctlError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error_object(error)}


def _unless(notify: bool, response: dict[str, Any]) -> dict[str, Any] | None:
    return None if notify else response


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, str | int | float) and not isinstance(value, bool))


def _id_of(message: Any) -> Any:
    if isinstance(message, dict) and _valid_id(message.get("id")):
        return message.get("id")
    return None
