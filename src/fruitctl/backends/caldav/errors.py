"""Every failure of a CalDAV server or of the network as the domain error a caller can act
on: a server that is down is ``BackendUnavailable``, a slow one ``Timeout`` (both retryable),
one that answers something that is not CalDAV ``BackendUnavailable`` too, an answer over the
size cap ``AnswerTooLarge`` (not retryable: the same request gets the same answer), refused
credentials ``PermissionDenied`` with what to do about them, a change made elsewhere a
``Conflict``."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from caldav.lib import error as dav_error
from caldav.lib.http_sync import requests as http

from fruitctl.backends.caldav.transport import Overdue, TooLarge
from fruitctl.backends.caldav.wire import path_of
from fruitctl.domain.errors import (
    BackendUnavailable,
    Conflict,
    ExecutionFailed,
    FruitctlError,
    NotFound,
    PermissionDenied,
    Timeout,
)

if TYPE_CHECKING:
    from fruitctl.backends.caldav.account import Account

log = logging.getLogger("fruitctl.caldav")

# Raised inside the library when an answer is not the XML it expects: garbage from the server.
# (lxml's XMLSyntaxError is a SyntaxError.)
_MALFORMED = (SyntaxError, AttributeError, TypeError, ValueError, KeyError, IndexError)


class AnswerTooLarge(BackendUnavailable):
    """The server answered more than ``[caldav] max_response_bytes``; it was not read. A sync
    asks such a collection again in smaller pieces."""

    retryable = False


class SyncUnsupported(Exception):
    """The collection cannot do RFC 6578 sync: compare ETags instead."""


class TokenExpired(Exception):
    """The server no longer knows the sync-token asked with."""


class AlreadyExists(Exception):
    """A create found something at its href (``If-None-Match: *`` failed)."""


@contextlib.contextmanager
def translated(account: Account) -> Iterator[None]:
    """Every failure of the server or the network as the domain error a caller can act on."""
    where = urlsplit(account.url).netloc
    try:
        yield
    except FruitctlError:
        raise
    except Overdue as exc:
        raise Timeout(
            f"The CalDAV server at {where} did not finish answering within "
            f"{account.timeout:g} s, so the request was cut off. Retry later, or raise "
            "[caldav] timeout_seconds if the server is just slow.",
            server=where,
        ) from exc
    except TooLarge as exc:
        raise AnswerTooLarge(
            f"The CalDAV server at {where} sent an answer larger than "
            f"{_megabytes(account.max_bytes)}, so it was not read. If a calendar there really "
            "is that large, raise [caldav] max_response_bytes.",
            server=where,
            limit=account.max_bytes,
        ) from exc
    except http.exceptions.Timeout as exc:
        raise Timeout(
            f"The CalDAV server at {where} did not answer within {account.timeout:g} s.",
            server=where,
        ) from exc
    except http.exceptions.RequestException as exc:
        raise BackendUnavailable(
            f"The CalDAV server at {where} cannot be reached: {type(exc).__name__}.",
            server=where,
        ) from exc
    except dav_error.AuthorizationError as exc:
        raise refused(account) from exc
    except dav_error.NotFoundError as exc:
        raise NotFound(f"Not found on the CalDAV server at {where}: {exc}") from exc
    except (dav_error.DAVError, *_MALFORMED) as exc:
        log.debug("unreadable CalDAV answer", exc_info=True)
        raise BackendUnavailable(
            f"The CalDAV server at {where} answered something that is not CalDAV "
            f"({type(exc).__name__}).",
            server=where,
        ) from exc


def _megabytes(count: int) -> str:
    return f"{count / 1_048_576:g} MB" if count >= 1_048_576 else f"{count:,} bytes"


def refused(account: Account) -> PermissionDenied:
    """Refused credentials, with what to do about them (the server's 401)."""
    where = urlsplit(account.url).netloc
    return PermissionDenied(
        f"The CalDAV server at {where} refused the credentials of '{account.username}'.",
        status="denied",
        server=where,
        instructions=[
            "Check url and username under [caldav] in fruitctl's config.toml",
            "Check the password: [caldav] password_command, or FRUITCTL_CALDAV_PASSWORD "
            "(an app password where the account signs in with two factors: iCloud, Fastmail)",
            "Test them with: fruitctl doctor",
            "Retry the command",
        ],
    )


def check(answer: Any, doing: str) -> None:
    """An HTTP error status as the domain error it means for the caller."""
    status = answer.status
    if status < 400:
        return
    message = f"The CalDAV server answered {status} {answer.reason or ''}".rstrip()
    if status == 401:
        raise dav_error.AuthorizationError(message)  # translated names the credentials
    if status == 403:
        raise PermissionDenied(
            f"{message}: this account may not {doing} there.",
            status="restricted",
            instructions=[
                "The calendar may be read-only or shared without write access: "
                "ask its owner, or use another calendar",
            ],
        )
    if status in (404, 409, 410):  # 409: PUT into a collection that is gone (RFC 4918 9.7.1)
        raise NotFound(f"{message} while trying to {doing}: it is not there (any more).")
    failed = BackendUnavailable if status >= 500 else ExecutionFailed  # 5xx: try again later
    raise failed(f"{message} while trying to {doing}.", status=status)


def check_listing(answer: Any, href: str, doing: str) -> None:
    """A PROPFIND answer to trust: a multistatus that names the collection asked about. Anything
    else (a captive portal's page, an empty 207) must not read as "this is empty now", or a
    sync would empty the mirror."""
    check(answer, doing)
    named = {path_of(r.href).rstrip("/") for r in answer.results or []}
    if answer.status != 207 or href.rstrip("/") not in named:
        raise dav_error.ResponseError(
            f"an answer that does not list {href} while trying to {doing}"
        )


def check_precondition(answer: Any, href: str) -> None:
    if answer.status == 412:
        raise Conflict(
            f"The object at {href} was changed on the CalDAV server since it was last read; "
            "nothing was overwritten. Read it again and retry.",
            href=href,
        )
