"""The threads around the ``EKEventStore``: the one thread that owns it, and the completion
handlers EventKit answers on its own queue.

Why one owner thread and not a lock: Apple documents no thread-safety for ``EKEventStore`` or
the objects it hands out (mutable, backed by a private cache that ``reset`` invalidates), and the
daemon serves calls from a pool of threads and from async tasks. Confined to one long-lived
thread, no EventKit object is ever touched by two threads - not even one decoded after another
thread's failed write reset the store - and each call gets the autorelease pool PyObjC asks of
threads it was not imported on ("other threads will require explicit NSAutoreleasePool
management"): a pool-less worker thread drains only when it ends, which a daemon's never do.

A call runs in its caller's context (``contextvars``): a write's deadline gate
(``domain.writes``) goes with it, so a write still waiting for the thread when its caller gave
up stops at the gate, having changed nothing.

An Objective-C exception (PyObjC raises it as ``ValueError``, ``IndexError``, ``KeyError`` or
``objc.error``, with the exception's name and reason in ``_pyobjc_info_``) becomes a
``StoreError`` here, so it is translated like any refusal of EventKit's, never an internal error.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from fruitctl.backends.eventkit.kit import autorelease_pool
from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    OBJC_EXCEPTION,
    StoreError,
    StoreTimeout,
)

T = TypeVar("T")


class StoreThread:
    """Runs calls one at a time on a thread of its own, started on the first call (so an
    adapter is made without starting anything) and again in a forked child, where it is gone."""

    def __init__(self, name: str = "fruitctl-eventkit") -> None:
        self._name = name
        self._thread: threading.Thread | None = None
        self._jobs: queue.SimpleQueue[_Job[Any]] = queue.SimpleQueue()
        self._starting = threading.Lock()

    def run(self, call: Callable[[], T]) -> T:
        """``call()`` on the owner thread; its result, or its failure raised here."""
        if threading.current_thread() is self._thread:  # already there: no queue to wait on
            return _in_pool(call)
        job = _Job(call)
        self._started().put(job)
        return job.result()

    def _started(self) -> queue.SimpleQueue[_Job[Any]]:
        with self._starting:
            if self._thread is None or not self._thread.is_alive():
                self._jobs = queue.SimpleQueue()
                # A daemon thread: a call stuck in EventKit never keeps the process from ending.
                self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
                self._thread.start()
            return self._jobs

    def _serve(self) -> None:
        jobs = self._jobs
        while True:
            jobs.get().run()


class _Job(Generic[T]):
    def __init__(self, call: Callable[[], T]) -> None:
        self._call = call
        self._context = contextvars.copy_context()
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._value = self._context.run(_in_pool, self._call)
        except BaseException as exc:  # handed to the caller, whatever it is
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> T:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


def _in_pool(call: Callable[[], T]) -> T:
    with autorelease_pool():
        try:
            return call()
        except Exception as exc:
            failure = objc_failure(exc)
            if failure is None:
                raise
            raise failure from exc


def objc_failure(exc: BaseException) -> StoreError | None:
    """A ``StoreError`` for an Objective-C exception PyObjC raised; None for any other."""
    info = getattr(exc, "_pyobjc_info_", None)
    if not isinstance(info, dict):
        return None
    name = str(info.get("name") or "NSException")
    reason = str(info.get("reason") or name)
    return StoreError(ADAPTER_DOMAIN, OBJC_EXCEPTION, reason, exception=name)


class Completion:
    """A completion handler EventKit calls on its own queue, and the wait for its answer. It
    stays in ``pending`` (a strong reference) until it has run."""

    def __init__(self, pending: set[Completion], arity: int) -> None:
        self._pending = pending
        self._done = threading.Event()
        self._args: tuple[Any, ...] = ()
        self.handler = self._handler(arity)
        pending.add(self)

    def _handler(self, arity: int) -> Callable[..., None]:
        # PyObjC matches a callable's arity to the block's: one function per arity.
        def one(first: Any) -> None:
            self._finish(first)

        def two(first: Any, second: Any) -> None:
            self._finish(first, second)

        return one if arity == 1 else two

    def _finish(self, *args: Any) -> None:
        self._args = args
        self._pending.discard(self)
        self._done.set()

    def wait(self, timeout: float, what: str) -> tuple[Any, ...]:
        if not self._done.wait(timeout):
            raise StoreTimeout(f"EventKit did not answer {what} within {timeout:g} s")
        return self._args
