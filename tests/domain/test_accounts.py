"""Naming a list or calendar when two accounts may share a name (``domain.accounts``): a name
that two answer to is refused with the choices, ``Account/Name`` or an id picks one, a name with
a "/" in it is still a name, and an allowlist entry two answer to allows neither."""

from __future__ import annotations

import pytest

from fruitctl.domain import accounts
from fruitctl.domain.calendar import Calendar
from fruitctl.domain.errors import Ambiguous

ICLOUD = Calendar(id="c1", name="Calendar", account="iCloud")
GOOGLE = Calendar(id="c2", name="Calendar", account="Google")
SLASHED = Calendar(id="c3", name="Work/Home", account="iCloud")
HOME = Calendar(id="c4", name="Home", account="Work")
TRAVEL = Calendar(id="c5", name="Travel", account="Google")
ALL = [ICLOUD, GOOGLE, SLASHED, TRAVEL]


def test_a_name_one_account_has_is_that_one() -> None:
    assert accounts.resolve(ALL, "travel", "calendar") == TRAVEL
    assert accounts.resolve(ALL, "Birthdays", "calendar") is None


def test_a_name_two_accounts_have_is_refused_with_each_choice() -> None:
    with pytest.raises(Ambiguous) as raised:
        accounts.resolve(ALL, "calendar", "calendar")
    assert raised.value.code == "ambiguous"
    assert raised.value.details["choices"] == ["iCloud/Calendar", "Google/Calendar"]
    assert "iCloud/Calendar, Google/Calendar" in raised.value.message


def test_account_slash_name_picks_one_in_any_case() -> None:
    assert accounts.resolve(ALL, "google/CALENDAR", "calendar") == GOOGLE
    assert accounts.resolve(ALL, "iCloud/Calendar", "calendar") == ICLOUD
    assert accounts.resolve(ALL, "Exchange/Calendar", "calendar") is None


def test_a_name_with_a_slash_is_still_a_name() -> None:
    assert accounts.resolve(ALL, "Work/Home", "calendar") == SLASHED
    assert accounts.resolve(ALL, "iCloud/Work/Home", "calendar") == SLASHED


def test_a_whole_name_does_not_beat_an_account_qualified_one() -> None:
    # "Work/Home" is a calendar's whole name and account Work's Home: nothing is guessed,
    # and the choices say how to name each.
    with pytest.raises(Ambiguous) as raised:
        accounts.resolve([*ALL, HOME], "Work/Home", "calendar")
    assert raised.value.details["choices"] == ["iCloud/Work/Home", "Work/Home"]
    assert accounts.resolve([*ALL, HOME], "iCloud/Work/Home", "calendar") == SLASHED


def test_choices_that_read_alike_carry_their_ids() -> None:
    twin = Calendar(id="c9", name="Calendar", account="iCloud")  # a server may hold two
    with pytest.raises(Ambiguous) as raised:
        accounts.resolve([ICLOUD, twin], "iCloud/Calendar", "calendar")
    assert raised.value.details["choices"] == ["iCloud/Calendar (id c1)", "iCloud/Calendar (id c9)"]


def test_an_allowlist_entry_allows_only_what_it_names_alone() -> None:
    key = "allowlist.calendars"
    assert accounts.allowed(["Travel"], TRAVEL, ALL, key)
    assert accounts.allowed(["icloud/calendar"], ICLOUD, ALL, key)
    assert not accounts.allowed(["icloud/calendar"], GOOGLE, ALL, key)
    assert not accounts.allowed(["Travel"], GOOGLE, ALL, key)
    with pytest.raises(Ambiguous) as raised:  # "Calendar" allows neither of the two
        accounts.allowed(["Calendar"], GOOGLE, ALL, key)
    assert raised.value.details == {
        "name": "Calendar",
        "key": key,
        "choices": ["iCloud/Calendar", "Google/Calendar"],
    }
    assert accounts.allowed(["Calendar", "Google/Calendar"], GOOGLE, ALL, key)


def test_a_message_names_an_item_by_account_only_when_it_must() -> None:
    assert accounts.shown(TRAVEL, ALL) == "Travel"
    assert accounts.shown(GOOGLE, ALL) == "Google/Calendar"
    assert accounts.qualified(Calendar(id="x", name="Inbox")) == "Inbox"  # no account said
