"""PyObjC's frameworks, imported on first use: ``import EventKit`` alone costs hundreds of
milliseconds, and none of them exists off a Mac (where fruitctl never calls these)."""

from __future__ import annotations

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
