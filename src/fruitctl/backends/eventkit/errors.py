"""EventKit's failures as fruitctl's errors: the one place an ``NSError`` or an Objective-C
exception (both ``StoreError``) or a handler that never answered (``StoreTimeout``) becomes a
domain error.

Codes are ``EKErrorCode`` values of ``EKErrorDomain`` (EventKit's ``EKError.h``; the same
numbers PyObjC's metadata gives). An Objective-C exception EventKit raises for an argument
(``NSInvalidArgumentException``, ``NSRangeException``: "If interval is 0, an exception is
raised") is the caller's value refused. Anything else - another domain, a code or exception not
listed - is the backend being unavailable, retryable, with EventKit's own words kept in the
message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fruitctl.backends.eventkit.values import (
    ADAPTER_DOMAIN,
    INVALID_VALUE,
    NOT_FOUND,
    OBJC_EXCEPTION,
    StoreError,
    StoreTimeout,
)
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
    8: "an alarm is further from the event than its repeat interval",  # ...AlarmGreaterThan...
    9: "the start is too far in the future",  # EKErrorStartDateTooFarInFuture
    10: "it would collide with another occurrence of the series",  # ...CollidesWithOther...
    13: "the span of the change is not valid",  # EKErrorInvalidSpan
    18: "a repeating reminder needs a due date",  # EKErrorRecurringReminderRequiresDueDate
    26: "the priority is not valid",  # EKErrorPriorityIsInvalid
}
READ_ONLY = {
    0: "the event cannot be changed",  # EKErrorEventNotMutable
    6: "the calendar is read-only",  # EKErrorCalendarReadOnly
    12: "an event with invitees cannot be moved to another calendar",  # ...InvitesCannotBeMoved
    15: "the account does not allow changing this calendar",  # ...SourceCannotBeModified
    16: "the calendar cannot be changed",  # EKErrorCalendarIsImmutable
    17: "the account does not allow adding or removing calendars",  # ...AllowCalendarAddDelete
    29: "this app is not authorized",  # EKErrorEventStoreNotAuthorized
}
UNSUPPORTED = {
    14: "the calendar belongs to no account",  # EKErrorCalendarHasNoSource
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
    if error.domain == ADAPTER_DOMAIN:
        found = _adapters(error, doing)
        if found is not None:
            return found
    if error.domain == EK_DOMAIN:
        if error.code in INVALID:
            return InvalidParams.could_not(doing, INVALID[error.code])
        if error.code in READ_ONLY:
            return PermissionDenied.could_not(doing, READ_ONLY[error.code])
        if error.code in UNSUPPORTED:
            return Unsupported.could_not(doing, UNSUPPORTED[error.code])
    return BackendUnavailable(said, domain=error.domain, code=error.code)


# Objective-C exceptions that say an argument was refused (PyObjC raises them as ValueError and
# IndexError); any other is EventKit failing, not the caller.
REFUSED_ARGUMENT = frozenset({"NSInvalidArgumentException", "NSRangeException"})


def _adapters(error: StoreError, doing: str) -> FruitctlError | None:
    """The domain error for what the adapter itself reports (``ADAPTER_DOMAIN``)."""
    if error.code == NOT_FOUND:
        return NotFound.could_not(doing, error.message)
    if error.code == INVALID_VALUE:
        return InvalidParams.could_not(doing, error.message)
    if error.code == OBJC_EXCEPTION and error.exception in REFUSED_ARGUMENT:
        return InvalidParams(
            f"Could not {doing}: Apple's EventKit refused one of its values; check the dates "
            "and the recurrence.",
            exception=error.exception,
            reason=error.message,
        )
    if error.code == OBJC_EXCEPTION:
        return BackendUnavailable(
            f"Could not {doing}: Apple's EventKit failed; try again.",
            exception=error.exception,
            reason=error.message,
        )
    return None


@contextmanager
def translated(doing: str) -> Iterator[None]:
    """Run EventKit calls, raising their failures as domain errors."""
    try:
        yield
    except (StoreError, StoreTimeout) as exc:
        raise translate(exc, doing) from exc
