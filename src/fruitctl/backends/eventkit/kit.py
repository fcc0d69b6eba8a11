"""PyObjC's frameworks, imported on first use: ``import EventKit`` alone costs hundreds of
milliseconds, and none of them exists off a Mac (where fruitctl never calls these)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any


def eventkit() -> Any:
    import EventKit  # type: ignore[import-not-found,unused-ignore]

    return EventKit


def foundation() -> Any:
    import Foundation  # type: ignore[import-not-found,unused-ignore]

    return Foundation


def appkit() -> Any:
    import AppKit  # type: ignore[import-not-found,unused-ignore]

    return AppKit


def autorelease_pool() -> AbstractContextManager[Any]:
    """A fresh ``NSAutoreleasePool`` for the block (PyObjC's ``objc.autorelease_pool``): a
    thread other than the one PyObjC was imported on drains none of its own otherwise."""
    import objc  # type: ignore[import-not-found,unused-ignore]

    pool: AbstractContextManager[Any] = objc.autorelease_pool()
    return pool
