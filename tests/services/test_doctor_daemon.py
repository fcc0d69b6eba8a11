"""``fruitctl doctor`` beside a running daemon, on a Mac's words: the terminal's grant is not the
daemon's, and the difference is said with both apps named."""

from __future__ import annotations

from fruitctl.services.doctor import against_daemon

TERMINAL = "Terminal (/System/Applications/Utilities/Terminal.app)"
HOLDER = "fruitctl (/Users/ada/Applications/fruitctl.app)"


def here(permission: str) -> dict[str, object]:
    service = {"backend": "auto -> eventkit", "permission": permission, "accessHolder": TERMINAL}
    return {"reminders": service, "calendar": service}


def daemon(reminders: str, calendar: str = "authorized") -> dict[str, object]:
    return {
        "backends": {"reminders": "eventkit", "calendar": "eventkit"},
        "permissions": {"reminders": reminders, "calendar": calendar},
        "accessHolders": {"reminders": HOLDER, "calendar": HOLDER},
    }


def test_the_terminal_has_access_and_the_daemon_does_not() -> None:
    (said,) = against_daemon(here("authorized"), daemon("not_determined"))
    assert said.startswith(f"{TERMINAL} has access to Reminders but the daemon ({HOLDER})")
    assert "(not determined)" in said and "Run `fruitctl lists`" in said


def test_the_daemon_without_access_is_said_whatever_this_process_has() -> None:
    assert against_daemon(here("denied"), daemon("denied", "denied")) == [
        f"The daemon ({HOLDER}) has no access to Reminders (denied).",
        f"The daemon ({HOLDER}) has no access to Calendar (denied).",
    ]


def test_a_daemon_with_access_needs_no_words() -> None:
    assert against_daemon(here("not_determined"), daemon("authorized")) == []
    assert against_daemon(here("authorized"), {}) == []  # an older daemon that says nothing
