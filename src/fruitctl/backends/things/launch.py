"""``python -m fruitctl.backends.things.launch``: hand Things the ``things:///`` URL read from
standard input, in the background (as ``open -g`` would).

Why not ``open -g URL``: an ``update`` URL carries Things' auth token, and a program's arguments
are there for every local user to read (``ps``) for as long as it runs. Standard input is not:
the writer pipes the URL in, and this asks macOS's LaunchServices for it directly, so the URL is
never any process's argument. This is the default ``[things] open_command`` on a Mac; any other
command given there must likewise read the URL from its standard input.

Exit status: 0 handed over, 1 macOS refused it, 2 the input is no ``things:///`` URL, 69 no
LaunchServices here (not a Mac, or PyObjC's AppKit is missing).
"""

from __future__ import annotations

import sys
import threading
from typing import Any, BinaryIO

SCHEME = "things:///"
# A batch of 50 to-dos with full notes, percent-encoded, is under 20 MB; nothing bigger is a URL.
URL_MAX_BYTES = 32 * 1024 * 1024
HANDOVER_SECONDS = 10.0  # LaunchServices answers in well under a second; the writer allows 15
EXIT_REFUSED, EXIT_USAGE, EXIT_UNAVAILABLE = 1, 2, 69


def read_url(stream: BinaryIO) -> str | None:
    """The one URL on ``stream`` (a trailing newline allowed); ``None`` if it is not one."""
    raw = stream.read(URL_MAX_BYTES + 1)
    if len(raw) > URL_MAX_BYTES:
        return None
    try:
        url = raw.decode("ascii").removesuffix("\n")  # every value in it is percent-encoded
    except UnicodeDecodeError:
        return None
    if not url.startswith(SCHEME) or any(c.isspace() for c in url):
        return None
    return url


def hand_over(url: str) -> str | None:
    """Ask LaunchServices to open ``url`` without bringing Things forward; why not, or ``None``."""
    try:
        import AppKit  # type: ignore[import-not-found,unused-ignore]
        import Foundation  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    target = Foundation.NSURL.URLWithString_(url)
    if target is None:  # characters NSURL does not take: nothing to hand over
        return "not a URL macOS accepts"
    configuration = AppKit.NSWorkspaceOpenConfiguration.configuration()
    configuration.setActivates_(False)
    done = threading.Event()
    failures: list[str] = []

    def finished(_app: Any, error: Any) -> None:  # called on a queue of AppKit's own
        if error is not None:  # its description may quote the URL, token and all: not kept
            failures.append(f"error {error.code()} of {error.domain()}")
        done.set()

    AppKit.NSWorkspace.sharedWorkspace().openURL_configuration_completionHandler_(
        target, configuration, finished
    )
    if not done.wait(HANDOVER_SECONDS):
        return "macOS did not answer in time"
    return failures[0] if failures else ""


def main() -> int:
    url = read_url(sys.stdin.buffer)
    if url is None:
        print("things launch: expected one things:/// URL on standard input", file=sys.stderr)
        return EXIT_USAGE
    refused = hand_over(url)
    if refused is None:
        print("things launch: needs macOS (LaunchServices through PyObjC)", file=sys.stderr)
        return EXIT_UNAVAILABLE
    if refused:
        print(f"things launch: macOS refused the URL: {refused}", file=sys.stderr)
        return EXIT_REFUSED
    return 0


if __name__ == "__main__":
    sys.exit(main())
