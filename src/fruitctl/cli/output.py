"""How the CLI speaks: results as aligned text or exact JSON, errors as one line and an exit code.

Exit codes are stable, for scripts: the one table of error codes (``domain.error_table``) gives
each code its exit status, and ``EXIT_MEANINGS`` says what each status means (``--help`` and the
README list them).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

from fruitctl.config_files import ConfigError
from fruitctl.domain.errors import FruitctlError
from fruitctl.domain.text import code_point, has_hidden, is_hidden
from fruitctl.startup import CANNOT_START, StartupError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    out: Console
    err: Console
    EXIT_CODES: dict[str, int]
    """Each error code's exit status, as the one table of codes gives it
    (``domain.error_table``)."""

PARTIAL_FAILURE = 1
CONFIG_ERROR = 78
EXIT_MEANINGS: dict[int, str] = {
    0: "done",
    PARTIAL_FAILURE: "some items of a batch failed (the others were done), a write was sent but "
    "not seen to land (Things), or fruitctl rpc got an error answer",
    2: "invalid input (arguments, a query, a date, JSON)",
    3: "not found (a list, reminder, event, proposal; server status: not running)",
    4: "conflict: changed meanwhile, or already running",
    5: "not allowed: permission, a list or calendar outside the allowlist, the mode",
    6: "approval required: the write waits for a person as a proposal (its id is printed)",
    7: "rate limited",
    8: "timed out",
    9: "a backend (CalDAV server, web search) or the daemon cannot be reached, or a database "
    "is busy with another process's write (try again)",
    10: "unsupported here (or a gateway-only command on a CLI pointed elsewhere)",
    11: "the proposal expired before anyone decided it",
    12: "it ran and failed (an approved write, a program, a file)",
    CANNOT_START: "the gateway could not start (a port in use, a daemon that died starting)",
    14: "a write ran past its deadline and may still land: its proposal tells how it ended "
    "(fruitctl proposals show); do not simply retry",
    70: "internal error",
    CONFIG_ERROR: "bad configuration, or a database file that cannot be used (disk full, "
    "read-only, damaged): the message names it",
}


def __getattr__(name: str) -> Any:
    """``out`` and ``err``, the consoles, made when first used: printing exact JSON needs no
    rich (a command's ``--json`` answer on the short way, ``cli.fast``, loads none). And
    ``EXIT_CODES``, read from the table of error codes when asked: an answer that is no error
    needs no table."""
    if name in ("out", "err"):
        return _console(name)
    if name == "EXIT_CODES":
        from fruitctl.domain import error_table

        return globals().setdefault(name, {row.code: row.exit for row in error_table.TABLE})
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _console(name: str) -> Console:
    made = globals()
    if name not in made:
        from rich.console import Console

        # Piped output is read by scripts and logs: do not wrap it at 80 columns. No emoji
        # codes: no message of fruitctl's is written with one, so none is ever rewritten (a name
        # like ":x:" prints as it is) and rich's table of them is never loaded.
        width = None if sys.stdout.isatty() else 200
        made.setdefault("out", Console(highlight=False, emoji=False, soft_wrap=False, width=width))
        made.setdefault("err", Console(stderr=True, highlight=False, emoji=False, soft_wrap=True))
    console: Console = made[name]
    return console


# A hidden character is printed as its code point, set apart so it cannot pass for text.
MARK_STYLE = "reverse"


def shown(value: str | Text, keep: str = "") -> Text:
    """What an agent or another app wrote, ready to print: never read as markup, and each
    character that hides or reorders text (``domain.text.is_hidden``: bidi controls, zero-width
    characters, an escape that would drive the terminal...) shown as ``[U+202E]`` - but those in
    ``keep`` (a note's newlines)."""
    from rich.text import Text

    if isinstance(value, str):  # marked before rich sees it: rich drops some controls silently
        result = Text()
        for char_run, hidden in _runs(value, keep):
            result.append(*((f"[{code_point(char_run)}]", MARK_STYLE) if hidden else (char_run,)))
        return result
    cuts = [i for i, char in enumerate(value.plain) if is_hidden(char) and char not in keep]
    if not cuts:
        return value
    result = Text(style=value.style)
    for piece in value.divide(sorted({*cuts, *(i + 1 for i in cuts)})):
        hidden = len(piece.plain) == 1 and is_hidden(piece.plain) and piece.plain not in keep
        result.append_text(Text(f"[{code_point(piece.plain)}]", MARK_STYLE) if hidden else piece)
    return result


def _runs(text: str, keep: str) -> Iterator[tuple[str, bool]]:
    """``text`` as runs of plain characters and single hidden ones."""
    if not has_hidden(text, keep):  # most cells: one run, found without a loop
        if text:
            yield text, False
        return
    start = 0
    for index, char in enumerate(text):
        if is_hidden(char) and char not in keep:
            if index > start:
                yield text[start:index], False
            yield char, True
            start = index + 1
    if start < len(text):
        yield text[start:], False


def show_table(
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    empty: str,
    right: Collection[str] = (),
) -> None:
    """An aligned table of ``rows`` under ``columns`` (those in ``right`` aligned right), or
    the dimmed line ``empty`` when there are no rows. Cells are plain strings or rich
    ``Text``; every one is printed as text (never markup), hidden characters shown (``shown``)."""
    rows = list(rows)
    if not rows:
        _console("out").print(f"[dim]{empty}[/]")
        return
    from rich.table import Table  # only commands that print a table pay for it
    from rich.text import Text

    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in columns:
        table.add_column(column, justify="right" if column in right else "left")
    for row in rows:
        table.add_row(*(shown(cell) if isinstance(cell, str | Text) else cell for cell in row))
    _console("out").print(table)


def leave(code: int, cause: BaseException | None = None) -> NoReturn:
    """End the command with exit status ``code``: as Typer's ``Exit`` when Typer runs it (it
    then closes what the command opened), else as ``SystemExit`` - the short way to a daemon
    (``cli.fast``) runs without Typer, and does not load it to say goodbye."""
    typer = sys.modules.get("typer")
    if typer is None:
        raise SystemExit(code) from cause
    raise typer.Exit(code) from cause


def _typer_endings() -> tuple[type[BaseException], ...]:
    """Typer's ways to end a command (``Exit``, ``Abort``): not failures; none without Typer."""
    typer = sys.modules.get("typer")
    return () if typer is None else (typer.Exit, typer.Abort)


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def fail(
    code: str, message: str, *, as_json: bool, details: dict[str, Any] | None = None
) -> NoReturn:
    if as_json:
        body: dict[str, Any] = {"code": code, "message": message}
        if details:
            body["details"] = details
        emit_json({"error": body})
    else:
        _console("err").print(f"[bold red]error:[/] {_escape(message)}")
    from fruitctl.domain import error_table

    leave(error_table.exit_status(code))


@contextmanager
def reporting(as_json: bool) -> Iterator[None]:
    """Turn every failure inside into one line (or one JSON object) and the right exit code."""
    try:
        yield
    except FruitctlError as exc:
        fail(exc.code, exc.message, as_json=as_json, details=exc.details or None)
    except ConfigError as exc:
        if as_json:
            emit_json({"error": {"code": "config_error", "message": str(exc)}})
        else:
            _console("err").print(f"[bold red]config error:[/] {_escape(str(exc))}")
        leave(CONFIG_ERROR, exc)
    except StartupError as exc:
        if as_json:
            emit_json({"error": {"code": "cannot_start", "message": str(exc)}})
        else:
            _console("err").print(f"[bold red]error:[/] {_escape(str(exc))}")
        leave(exc.exit_code, exc)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # a bug: one line, not a traceback (FRUITCTL_DEBUG=1 shows it)
        if isinstance(exc, _typer_endings()) or os.environ.get("FRUITCTL_DEBUG") == "1":
            raise
        reason = " ".join(str(exc).split())[:200]
        fail(
            "internal_error",
            f"fruitctl failed unexpectedly ({type(exc).__name__}: {reason}); this is a bug - "
            "FRUITCTL_DEBUG=1 shows where, to report it",
            as_json=as_json,
        )


def run(as_json: bool, call: Callable[[], Any], show: Callable[[Any], None]) -> Any:
    """Call the service and print its result, exact JSON with ``--json``, ``show`` otherwise;
    a write filed as a proposal then exits 6 (``exit_if_pending``)."""
    with reporting(as_json):
        result = call()
    if as_json:
        emit_json(result)
    else:
        show(result)
    exit_if_pending(result)
    return result


def answer_write(as_json: bool, result: Any, show: Callable[[Any], None]) -> None:
    """A write's answer: exact JSON with ``--json``; else what waits for a person, or ``show``
    of what was done. A write filed as a proposal exits 6 (``exit_if_pending``)."""
    if as_json:
        emit_json(result)
    elif is_pending(result):
        show_pending(result)
    else:
        show(result)
    exit_if_pending(result)


def exit_if_pending(result: Any) -> None:
    """A write that waits for a person's approval did not happen yet: a script must not read
    it as done, so the command exits with ``approval_required``'s status (6), its answer
    printed."""
    if is_pending(result):
        from fruitctl.domain import error_table

        leave(error_table.exit_status("approval_required"))


def is_pending(result: Any) -> bool:
    """Whether a write's answer is a proposal waiting for a person (an agent's write, or any
    write the governance holds for approval)."""
    return isinstance(result, dict) and result.get("status") == "pending"


def show_pending(result: dict[str, Any]) -> None:
    """What was proposed and how a person approves it."""
    from rich.text import Text

    _console("out").print(
        Text("Waiting for a person's approval: ")
        + shown(str(result.get("summary")))
        + Text(f" (proposal {result.get('proposalId')}, expires {result.get('expiresAt')}).")
    )
    page = f", or on {result['url']}" if result.get("url") else ""
    _console("out").print(
        f"A person approves it with `{result.get('approve')}` on the gateway's machine{page}.",
        markup=False,
    )


def report_failures(failed: list[dict[str, Any]], as_json: bool) -> None:
    """After a batch printed what worked: list what did not on stderr and exit 1."""
    if not failed:
        return
    if not as_json:
        for item in failed:
            where = item.get("id", f"item {item.get('index')}")
            line = f"[bold red]failed:[/] {_escape(str(where))}: {_escape(item['error'])}"
            _console("err").print(line)
    leave(PARTIAL_FAILURE)


def _escape(text: str) -> str:
    """A message for rich markup: its brackets literal, its hidden characters shown."""
    return shown(text).markup


def tags_state(tags: dict[str, Any]) -> str:
    """Whether the Reminders store's tags and flags can be read, and which stores were skipped."""
    if not tags.get("readable"):
        return f"unavailable: {tags.get('reason')}"
    skipped = tags.get("skipped") or []
    return f"readable (skipped: {'; '.join(skipped)})" if skipped else "readable"
