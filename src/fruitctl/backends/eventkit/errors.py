"""EventKit's failures as fruitctl's errors: the one place an ``NSError`` (``StoreError``) or a
handler that never answered (``StoreTimeout``) becomes a domain error.

Codes are ``EKErrorCode`` values of ``EKErrorDomain`` (EventKit's ``EKError.h``; the same
numbers PyObjC's metadata gives). Anything else - another domain, a code not listed - is the
backend being unavailable, retryable, with EventKit's own description kept in the message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fruitctl.backends.eventkit.values import ADAPTER_DOMAIN, NOT_FOUND, StoreError, StoreTimeout
from fruitctl.domain.errors import (
    BackendUnavailable,
    FruitctlError,
    InvalidParams,
    NotFound,
    PermissionDenied,
    Timeout,
    Unsupported,
)

EK_DOMAIN = "EKErrorDomain"

# EKErrorCode -> the domain error it is, by what the caller can do about it.
INVALID = {
    1: "no calendar was given",  # EKErrorNoCalendar
    2: "no start date was given",  # EKErrorNoStartDate
    3: "no end date was given",  # EKErrorNoEndDate
    4: "the end is before the start",  # EKErrorDatesInverted
    7: "the event lasts longer than its repeat interval",  # EKErrorDurationGreaterThanRecurrence
    9: "the start is too far in the future",  # EKErrorStartDateTooFarInFuture
    10: "it would collide with another occurrence of the series",  # ...CollidesWithOther...
    13: "the span of the change is not valid",  # EKErrorInvalidSpan
    18: "a repeating reminder needs a due date",  # EKErrorRecurringReminderRequiresDueDate
    26: "the priority is not valid",  # EKErrorPriorityIsInvalid
}
READ_ONLY = {
    0: "the event cannot be changed",  # EKErrorEventNotMutable
    6: "the calendar is read-only",  # EKErrorCalendarReadOnly
    15: "the account does not allow changing this calendar",  # ...SourceCannotBeModified
    16: "the calendar cannot be changed",  # EKErrorCalendarIsImmutable
    17: "the account does not allow adding or removing calendars",  # ...AllowCalendarAddDelete
    29: "this app is not authorized",  # EKErrorEventStoreNotAuthorized
}
UNSUPPORTED = {
    22: "the calendar does not hold events",  # EKErrorCalendarDoesNotAllowEvents
    23: "the list does not hold reminders",  # EKErrorCalendarDoesNotAllowReminders
    24: "the account does not hold reminders",  # EKErrorSourceDoesNotAllowReminders
    25: "the account does not hold events",  # EKErrorSourceDoesNotAllowEvents
    30: "this version of macOS cannot do it",  # EKErrorOSNotSupported
}


def translate(error: StoreError | StoreTimeout, doing: str) -> FruitctlError:
    """The domain error for a failure met while ``doing`` (``"save the reminder"`` …)."""
    if isinstance(error, StoreTimeout):
        return Timeout(f"Apple's store did not answer in time while trying to {doing}.")
    said = f"Could not {doing}: {error.message}"
    if error.domain == ADAPTER_DOMAIN and error.code == NOT_FOUND:
        return NotFound(f"Could not {doing}: {error.message}.")
    if error.domain == EK_DOMAIN:
        if error.code in INVALID:
            return InvalidParams(f"Could not {doing}: {INVALID[error.code]}.")
        if error.code in READ_ONLY:
            return PermissionDenied(f"Could not {doing}: {READ_ONLY[error.code]}.")
        if error.code in UNSUPPORTED:
            return Unsupported(f"Could not {doing}: {UNSUPPORTED[error.code]}.")
    return BackendUnavailable(said, domain=error.domain, code=error.code)


@contextmanager
def translated(doing: str) -> Iterator[None]:
    """Run EventKit calls, raising their failures as domain errors."""
    try:
        yield
    except (StoreError, StoreTimeout) as exc:
        raise translate(exc, doing) from exc
