"""The one error tree of fruitctl.

A message said in more than one place is written once, as a named constructor on its class
(``NotFound.reminder(reminder_id)``): messages are a contract the seed specification fixes word
for word, and one spelling cannot drift (tests/domain/test_error_messages.py keeps it so).

Every error a caller can see is a ``FruitctlError`` carrying a canonical ``code``; each front door
renders that code in its own dialect (socket: ``list_not_allowed``; HTTP/AAI: ``LIST_NOT_ALLOWED``;
MCP: ``isError`` with the message; CLI: an exit status and one line), every name and number of it
read from the one table in ``domain.error_table``.

    FruitctlError
    ├── InvalidParams            invalid_params        the caller sent something malformed
    │   └── InvalidQuery         invalid_params        a JMESPath expression that cannot run
    ├── NotFound                 not_found             a list, reminder or event that does not exist
    ├── Ambiguous                ambiguous             a name two lists or calendars answer to
    ├── ListNotAllowed           list_not_allowed
    ├── CalendarNotAllowed       calendar_not_allowed
    ├── PermissionDenied         permission_denied     the OS refused access (carries instructions)
    ├── ApprovalRequired         approval_required
    ├── ProposalNotFound         proposal_not_found
    ├── ProposalExpired          proposal_expired
    ├── Conflict                 conflict              the target changed under us
    ├── RateLimited              rate_limited          retryable
    ├── ModeForbidden            mode_forbidden
    ├── Timeout                  timeout               retryable
    ├── BackendUnavailable       backend_unavailable   retryable
    │   └── StoreBusy            backend_unavailable   another process holds a store's write lock
    ├── StorageFault             storage_fault         a database file cannot be used: full disk,
    │                                                  read-only, cannot open, damaged, I/O error
    ├── OutcomeUnknown           outcome_unknown       a write past its deadline that may still land
    │                                                  (never retryable: its proposal settles it)
    ├── Unsupported              unsupported           the backend cannot do this
    ├── MethodNotFound           method_not_found
    ├── ParseError               parse_error
    ├── InvalidRequest           invalid_request
    ├── ExecutionFailed          execution_failed
    └── InternalError            internal_error
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Self


class FruitctlError(Exception):
    """Base of every error fruitctl reports to a caller."""

    code: ClassVar[str] = "internal_error"
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        """The error as plain data: code, message, retryable and any details."""
        body: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
        }
        if self.details:
            body["details"] = self.details
        return body

    @classmethod
    def could_not(cls, doing: str, reason: str, **details: Any) -> Self:
        """``doing`` (``"save the reminder"``) failed for ``reason``."""
        return cls(f"Could not {doing}: {reason}.", **details)


class InvalidParams(FruitctlError):
    code = "invalid_params"

    @classmethod
    def empty_name(cls, **details: Any) -> Self:
        return cls("'name' must not be empty.", **details)

    @classmethod
    def name_taken(cls, what: str, name: str, **details: Any) -> Self:
        """A new ``what`` (``"list"``, ``"calendar"``) named like one that exists."""
        return cls(f"A {what} named '{name}' already exists.", **details)

    @classmethod
    def null(cls, name: str) -> Self:
        return cls(f"'{name}' cannot be null.", field=name)

    @classmethod
    def nothing_to_change(cls) -> Self:
        return cls("Nothing to change: give at least one field besides 'id'.")

    @classmethod
    def no_option_given(cls) -> Self:
        """The CLI's ``update`` with no option to change."""
        return cls("Nothing to change: give at least one option (see --help).")

    @classmethod
    def heading_without_project(cls, title: str) -> Self:
        """A Things to-do moved under a heading while it is in no project."""
        return cls(
            f"To-do '{title}' is in no project, so it has no headings to go under: give "
            "'project' too (list_headings shows a project's headings).",
            field="heading",
        )

    @classmethod
    def checklist_too_long(cls, held: int, added: int, most: int) -> Self:
        """Things keeps at most ``most`` checklist items of a to-do and drops the rest."""
        return cls(
            f"The checklist would hold {held + added} items ({held} now, {added} added); Things "
            f"keeps at most {most}: add fewer.",
            field="appendChecklist",
        )

    @classmethod
    def end_before_start(cls) -> Self:
        return cls("'endAt' must be after 'startAt'.", field="endAt")

    @classmethod
    def mixed_all_day(cls) -> Self:
        return cls(
            "'startAt' and 'endAt' must both be dates (all-day) or both date-times.",
            field="endAt",
        )

    @classmethod
    def series_all_day_switch(cls) -> Self:
        return cls(
            "To switch a series between all-day and timed, change it through its series id.",
            field="startAt",
        )

    @classmethod
    def occurrence_cannot_move(cls) -> Self:
        return cls(
            "An occurrence cannot move to another calendar alone; use scope 'series'.",
            field="calendarId",
        )

    @classmethod
    def recurring_delete(cls, event_id: str) -> Self:
        return cls(
            f"Event '{event_id}' is a recurring series: give an occurrence id to delete one "
            "occurrence, or scope 'series' to delete them all.",
            field="scope",
        )

    @classmethod
    def grant_duration(cls, given: object, most: str) -> Self:
        """A standing grant's length that is not a positive duration, or is past the longest."""
        return cls(
            f"A grant lasts a positive duration of at most {most} (like 30m, 2h or 24h), "
            f"not '{given}'.",
            field="allowFor",
        )

    @classmethod
    def grant_for_person(cls, proposal_id: str) -> Self:
        """A grant asked for on a proposal a person filed (an undo): grants are for agents."""
        return cls(
            f"Proposal {proposal_id} was filed by a person, not an agent: there is no one to "
            "grant anything to. Approve it without a grant.",
            field="allowFor",
        )

    @classmethod
    def grant_needs_approval(cls) -> Self:
        return cls(
            "A grant goes with an approval: only 'approve' takes 'allowFor'.", field="allowFor"
        )

    @classmethod
    def listing_limit(cls, name: str, most: int) -> Self:
        """How many proposals to list, out of bounds (``name``: the option or parameter)."""
        return cls(f"'{name}' must be a whole number from 1 to {most}.", field="limit")

    @classmethod
    def proposal_status(cls, words: str) -> Self:
        """The socket's ``proposals.list`` given a status no proposal has."""
        return cls(f"'status' must be one of {words}, or null for all.", field="status")

    @classmethod
    def proposal_id(cls) -> Self:
        return cls("'id' must be the proposal's id.", field="id")

    @classmethod
    def approve_which(cls) -> Self:
        """``proposals approve`` given neither one proposal nor ``--all``, or both."""
        return cls("Give one proposal ID, or --all (narrowed with --agent and --tool).")

    @classmethod
    def grant_scope_alone(cls) -> Self:
        return cls(
            "A grant's scope goes with how long it lasts: give allowFor too (--allow-for 2h).",
            field="scope",
        )

    @classmethod
    def grant_scope(cls, given: object) -> Self:
        return cls(f"A grant's scope is 'list' or 'tool', not '{given}'.", field="scope")

    @classmethod
    def recurrence(cls, text: str, reason: object, field: str = "recurrence") -> Self:
        return cls(f"Invalid recurrence '{text}': {reason}.", field=field)

    @classmethod
    def working_hours(cls, text: str, field: str = "hours") -> Self:
        return cls(
            f"Invalid working hours '{text}': give HH:MM-HH:MM with the end after the start "
            "(e.g. '09:00-17:00'; '24:00' ends at midnight).",
            field=field,
        )

    @classmethod
    def relative_alarm_without_due(cls, field: str) -> Self:
        return cls(
            f"'{field}': an alarm in minutes before the due needs a due date; give 'dueDate' "
            "or an alarm 'at' a date-time.",
            field=field,
        )

    @classmethod
    def start_and_due_kinds(cls) -> Self:
        return cls(
            "'startDate' and 'dueDate' must both be dates or both date-times.", field="startDate"
        )

    @classmethod
    def repeat_without_due(cls) -> Self:
        return cls(
            "'recurrence': a repeating reminder needs a due date to repeat from; give 'dueDate'.",
            field="recurrence",
        )

    @classmethod
    def config_key(cls, key: str, keys: Iterable[str]) -> Self:
        return cls(f"Unknown config key '{key}'. Keys: {', '.join(keys)}.")

    @classmethod
    def path_too_long(cls, shown: str) -> Self:
        return cls(f"The path '{shown}' is too long.")

    @classmethod
    def tool_set_entry(cls, entry: str, sets: Iterable[str], tools: Iterable[str]) -> Self:
        """``entry`` of a tool set (``[mcp] tools``, ``--tools``) names neither a set nor a tool."""
        return cls(
            f"'{entry}' is neither a tool set nor a tool. Tool sets: {', '.join(sets)}. "
            f"Tools: {', '.join(tools)}.",
            field="tools",
        )

    @classmethod
    def empty_tool_set(cls) -> Self:
        return cls(
            "A tool set must name at least one tool set or tool; leave it out to offer every tool.",
            field="tools",
        )


class InvalidQuery(InvalidParams):
    """A JMESPath expression that does not parse or fails while it runs."""


class NotFound(FruitctlError):
    code = "not_found"

    @classmethod
    def reminder(cls, reminder_id: str) -> Self:
        return cls(f"No reminder found with ID: '{reminder_id}'.")

    @classmethod
    def reminder_list(cls, list_id: str) -> Self:
        return cls(f"No list found with ID: '{list_id}'.")

    @classmethod
    def event(cls, event_id: str) -> Self:
        return cls(f"No event found with ID: '{event_id}'.")

    @classmethod
    def calendar(cls, calendar_id: str) -> Self:
        return cls(f"No calendar found with ID: '{calendar_id}'.")

    @classmethod
    def grant(cls, grant_id: str) -> Self:
        return cls(f"No grant found with ID: '{grant_id}' (see: fruitctl grants list).")

    @classmethod
    def occurrence(cls, key: str, event_id: object) -> Self:
        """``event_id``: the UID as read, a string or the iCalendar library's text of one."""
        return cls(f"No occurrence '{key}' in event '{event_id}'.")

    @classmethod
    def on_server(cls, href: str) -> Self:
        """Nothing at ``href`` on the CalDAV server (it answered 404)."""
        return cls(f"Nothing at {href} on the CalDAV server.")

    @classmethod
    def path(cls, shown: str) -> Self:
        return cls(f"'{shown}' does not exist.", path=shown)


class Ambiguous(FruitctlError):
    """A name that more than one list or calendar answers to (the same name in two accounts):
    nothing is guessed, the caller is told the ``Account/Name`` of each to choose from."""

    code = "ambiguous"

    @classmethod
    def named(cls, what: str, name: str, choices: list[str]) -> Self:
        """``what`` (``"list"``) ``name`` matches each of ``choices`` (``Account/Name``)."""
        return cls(
            f"More than one {what} is called '{name}': {', '.join(choices)}. Name one as "
            f"Account/Name (e.g. '{choices[0]}') or by its id.",
            name=name,
            choices=choices,
        )

    @classmethod
    def allowlist_entry(cls, key: str, entry: str, choices: list[str]) -> Self:
        """The allowlist ``key`` holds ``entry``, which more than one list or calendar has."""
        return cls(
            f"The allowlist {key} names '{entry}', which more than one account has: "
            f"{', '.join(choices)}. Nothing is written there until it names one as "
            f"Account/Name: fruitctl config set {key} ...",
            name=entry,
            key=key,
            choices=choices,
        )


class ListNotAllowed(FruitctlError):
    code = "list_not_allowed"

    @classmethod
    def things_tag(cls, tag: str) -> Self:
        return cls(f"Things tag '{tag}' is not permitted.", tag=tag)


class CalendarNotAllowed(FruitctlError):
    code = "calendar_not_allowed"


class PermissionDenied(FruitctlError):
    code = "permission_denied"

    @classmethod
    def cannot_use(cls, path: str, why: str) -> Self:
        """A path the file rules (or the file itself) refuse, and why."""
        return cls(f"Cannot use '{path}': {why}.", path=path)

    @classmethod
    def read_only_calendar(cls, name: str) -> Self:
        return cls(f"Calendar '{name}' is read-only.")

    @classmethod
    def grant_by_agent(cls, action: str) -> Self:
        """``action``: grant or revoke - a person's alone, like deciding a proposal."""
        return cls(f"Only a person can {action} a standing grant; agents can only be given one.")


class ApprovalRequired(FruitctlError):
    code = "approval_required"


class ProposalNotFound(FruitctlError):
    code = "proposal_not_found"

    @classmethod
    def of(cls, proposal_id: str) -> Self:
        return cls(f"No proposal found with ID: '{proposal_id}'.")


class ProposalExpired(FruitctlError):
    code = "proposal_expired"

    @classmethod
    def at(cls, proposal_id: str, when: str) -> Self:
        """``when``: the expiry as the caller reads it (``format_epoch``)."""
        return cls(f"Proposal {proposal_id} expired at {when}.")


class Conflict(FruitctlError):
    code = "conflict"

    @classmethod
    def changed_while_deleted(cls, shown: str) -> Self:
        return cls(f"'{shown}' changed while being deleted; nothing was deleted.", path=shown)


class RateLimited(FruitctlError):
    code = "rate_limited"
    retryable = True


class ModeForbidden(FruitctlError):
    code = "mode_forbidden"


class Timeout(FruitctlError):
    code = "timeout"
    retryable = True

    @classmethod
    def no_answer(cls, where: str, seconds: float) -> Self:
        """A server (``where``) that did not answer within ``seconds``."""
        return cls(f"{where} did not answer within {seconds:g} s.")

    @classmethod
    def after(cls, what: str, seconds: float) -> Self:
        """``what`` (a tool's name) still running after its deadline of ``seconds``."""
        return cls(f"{what} did not finish within {seconds:g} s.")


class BackendUnavailable(FruitctlError):
    code = "backend_unavailable"
    retryable = True


class StoreBusy(BackendUnavailable):
    """Another process holds the write lock of one of fruitctl's databases past the wait
    (SQLite's "database is locked"): nothing was changed, and trying again shortly works."""


class StorageFault(FruitctlError):
    """One of fruitctl's database files cannot be used as it is - the disk is full, the file or
    its folder is read-only, it cannot be opened, it is not a database, the disk failed. The
    message names the file and what to do; trying again as it is does not help."""

    code = "storage_fault"


class OutcomeUnknown(FruitctlError):
    """A write still running at its deadline, past the point where it may change things: it
    may yet land. Not retryable - a retry could do it twice; its proposal records how it ended
    (``get_proposal``), and a process that dies meanwhile finishes it on its next start."""

    code = "outcome_unknown"


class Unsupported(FruitctlError):
    code = "unsupported"

    @classmethod
    def no_approvals(cls) -> Self:
        return cls("Approvals are not available in this gateway.")

    @classmethod
    def not_installed(cls, program: str, looked_in: str) -> Self:
        return cls(f"'{program}' is not installed (looked in {looked_in}).", program=program)

    @classmethod
    def not_executable(cls, program: str) -> Self:
        return cls(f"'{program}' cannot be executed.", program=program)

    @classmethod
    def location_alarm(cls, store: str) -> Self:
        return cls(
            f"A location alarm is not supported by the {store} backend; give an alarm 'at' a "
            "date-time or in 'minutesBefore' the due instead.",
            backend=store,
        )


class MethodNotFound(FruitctlError):
    code = "method_not_found"

    @classmethod
    def tool(cls, name: str) -> Self:
        return cls(f"Unknown tool '{name}'.")

    @classmethod
    def not_offered(cls, name: str, offered: Iterable[str]) -> Self:
        """A tool this client's tool set leaves out (``[mcp] tools``, ``--tools``, its token's)."""
        return cls(
            f"Tool '{name}' is not among this client's tools ({', '.join(sorted(offered))}). "
            "A person can offer it: [mcp] tools in config.toml, fruitctl mcp --tools, or a "
            "token made with fruitctl auth token --tools.",
            tool=name,
        )


class ParseError(FruitctlError):
    code = "parse_error"

    @classmethod
    def too_deep(cls, levels: int) -> Self:
        return cls(f"The JSON nests deeper than {levels} levels.")


class InvalidRequest(FruitctlError):
    code = "invalid_request"


class ExecutionFailed(FruitctlError):
    code = "execution_failed"


class InternalError(FruitctlError):
    code = "internal_error"

    @classmethod
    def hidden(cls) -> Self:
        """What a caller is told of a fault whose details stay in the log."""
        return cls("Internal error.")


def _family(cls: type[FruitctlError]) -> list[type[FruitctlError]]:
    return [cls, *(member for sub in cls.__subclasses__() for member in _family(sub))]


ERROR_CODES: tuple[str, ...] = tuple(sorted({cls.code for cls in _family(FruitctlError)}))


def from_code(
    code: str | None,
    message: str,
    *,
    default: type[FruitctlError] | None = None,
    **details: Any,
) -> FruitctlError:
    """The error of a canonical code (for results that crossed a boundary as data); a code
    nobody knows becomes ``default`` (InternalError unless told otherwise)."""
    for cls in _family(FruitctlError)[1:]:  # parents first: InvalidParams before InvalidQuery
        if cls.code == code:
            return cls(message, **details)
    return (default or InternalError)(message, **details)
