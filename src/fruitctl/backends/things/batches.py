"""How much goes to Things at once: no URL past a length every ``open_command`` can take, and no
more adds than Things takes in its window.

Things' ``json`` command adds many to-dos in one URL; a batch of them with long notes and
checklists, percent-encoded, is megabytes. fruitctl's own launcher reads the URL on its standard
input, but a person's ``open_command`` may hand it on as an argument (``open -g URL``), where
macOS refuses anything past ``ARG_MAX`` (E2BIG: "open did not run"). So a batch is split into
URLs of at most ``URL_MAX`` characters, and one to-do too long for any URL is refused before
anything is sent.

Things takes "250 items ... within a 10 second period" (Cultured Code, ``add`` command): past it
the rest is dropped, silently. ``Pace`` counts the to-dos launched in the last window and waits
before a launch that would pass it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from urllib.parse import quote

from fruitctl.domain.errors import InvalidParams

# macOS's ARG_MAX is 1 MiB for a program's arguments and environment together; a quarter of it
# leaves the rest to any environment, and is still a hundred to-dos of ordinary length.
URL_MAX = 256 * 1024
ADDS_PER_WINDOW = 250  # Things: "a limit of 250 items can be added within a 10 second period"
WINDOW_SECONDS = 10.0
LEAST_WAIT = 0.05  # a wait never rounds down to nothing (a clock's float steps)
JSON_PREFIX = len("things:///json?data=")
EMPTY_LIST = len(quote("[]", safe=""))
SEPARATOR = len(quote(", ", safe=""))  # json.dumps' own between items


def too_long(length: int, what: str, field: str) -> InvalidParams:
    return InvalidParams(
        f"{what} is too long to hand to Things in one URL ({length:,} characters encoded, at "
        f"most {URL_MAX:,}): shorten its notes or checklist, or send less at once.",
        field=field,
    )


def split(items: Sequence[str]) -> list[list[int]]:
    """The indexes of ``items`` (each a to-do's JSON text) in groups, in order, each group one
    ``json`` URL of at most ``URL_MAX`` characters and ``ADDS_PER_WINDOW`` to-dos."""
    groups: list[list[int]] = []
    length = 0
    for index, text in enumerate(items):
        size = len(quote(text, safe=""))
        if JSON_PREFIX + EMPTY_LIST + size > URL_MAX:
            raise too_long(JSON_PREFIX + EMPTY_LIST + size, f"To-do {index + 1}", f"todos[{index}]")
        fits = groups and len(groups[-1]) < ADDS_PER_WINDOW
        if fits and length + SEPARATOR + size <= URL_MAX:
            groups[-1].append(index)
            length += SEPARATOR + size
        else:
            groups.append([index])
            length = JSON_PREFIX + EMPTY_LIST + size
    return groups


class Pace:
    """Things' limit on adds, kept by waiting: the to-dos launched in the last
    ``WINDOW_SECONDS``, and a launch that would pass ``ADDS_PER_WINDOW`` held until enough of
    them are out of the window. One per writer, shared by its threads."""

    def __init__(self, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self._clock = clock
        self._sleep = sleep
        self._launched: deque[tuple[float, int]] = deque()
        self._lock = threading.Lock()  # held while waiting: the next launch waits its turn

    def take(self, count: int) -> None:
        """Wait until ``count`` more adds keep the window within Things' limit; count them."""
        if count == 0:
            return  # not an add: Things' limit is on what is added
        with self._lock:
            while True:
                now = self._clock()
                while self._launched and self._launched[0][0] <= now - WINDOW_SECONDS:
                    self._launched.popleft()
                held = sum(n for _, n in self._launched)
                if not self._launched or held + count <= ADDS_PER_WINDOW:
                    self._launched.append((now, count))
                    return
                self._sleep(max(self._launched[0][0] + WINDOW_SECONDS - now, LEAST_WAIT))
