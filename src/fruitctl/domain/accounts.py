"""Lists and calendars of several accounts: the same name ("Calendar") in iCloud and in Google.

A list or calendar is named by its id, by its name, or by ``Account/Name``. The rule, the one
every place that turns a name into a list or calendar follows (the services, the allowlists):

- a name matches each item whose whole name is it, and each whose ``Account/Name`` is it, in
  any case;
- one match is the answer; several are ``Ambiguous``, listing the ``Account/Name`` of each, and
  nothing is guessed - not even that a whole name beats an account-qualified one. A list
  really called "Work/Home" is found by that name; only when an account "Work" also holds a
  "Home" does the name stop being enough, and the error says how to name each.

Writes go where the caller meant or nowhere: the first match winning is how a write lands in
the wrong account.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

from fruitctl.domain.errors import Ambiguous


class Named(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def account(self) -> str | None: ...


N = TypeVar("N", bound=Named)


def qualified(item: Named) -> str:
    """``Account/Name`` (the bare name when the store does not say its account)."""
    return item.name if item.account is None else f"{item.account}/{item.name}"


def matching(items: Sequence[N], wanted: str) -> list[N]:
    """Every item ``wanted`` names, by whole name or by ``Account/Name``, in their order."""
    key = wanted.casefold()
    return [
        item for item in items if item.name.casefold() == key or qualified(item).casefold() == key
    ]


def choices(items: Sequence[Named]) -> list[str]:
    """How to name each of ``items``: ``Account/Name``, with the id where two would read alike
    (a CalDAV server may hold two calendars of one name)."""
    names = [qualified(item) for item in items]
    return [
        f"{name} (id {item.id})" if names.count(name) > 1 else name
        for name, item in zip(names, items, strict=True)
    ]


def resolve(items: Sequence[N], wanted: str, what: str) -> N | None:
    """The one item ``wanted`` names, None when none does, ``Ambiguous`` when several do."""
    found = matching(items, wanted)
    if len(found) > 1:
        raise Ambiguous.named(what, wanted, choices(found))
    return found[0] if found else None


def allowed(entries: Sequence[str], item: N, items: Sequence[N], key: str) -> bool:
    """Whether an allowlist (``key``: where it is set, for the message) lets a write reach
    ``item`` of ``items``: one of its ``entries`` names it and nothing else. An entry that names
    it and another item too (a name two accounts share) allows neither: ``Ambiguous``, until
    it is written as ``Account/Name``."""
    unclear: tuple[str, list[N]] | None = None
    for entry in entries:
        found = matching(items, entry)
        if not any(other.id == item.id for other in found):
            continue
        if len(found) == 1:
            return True
        unclear = unclear or (entry, found)
    if unclear is not None:
        raise Ambiguous.allowlist_entry(key, unclear[0], choices(unclear[1]))
    return False


def refuse_unallowed(
    entries: Sequence[str],
    touched: Iterable[N | str],
    items: Sequence[N],
    key: str,
    refused: Callable[[str], Exception],
) -> None:
    """Raise ``refused(name)`` for the first of ``touched`` the allowlist ``entries`` (set at
    ``key``) does not allow. A name no item answers to (a str) must be an entry as it is: the
    service reports it unknown, but only when it is allowed to look."""
    for item in touched:
        if isinstance(item, str):
            if item.casefold() not in {entry.casefold() for entry in entries}:
                raise refused(item)
        elif not allowed(entries, item, items, key):
            raise refused(shown(item, items))


def shown(item: N, items: Sequence[N]) -> str:
    """How a message names ``item``: its name, or ``Account/Name`` when another has that name."""
    return qualified(item) if len(matching(items, item.name)) > 1 else item.name


def label(item: N | str, items: Sequence[N]) -> str:
    """How a standing grant's scope names ``item`` (a name no item answers to stays as given):
    as ``shown`` does, with its id when another item reads the same even as ``Account/Name``."""
    if isinstance(item, str):
        return item
    alike = [other for other in items if qualified(other) == qualified(item)]
    name = shown(item, items)
    return f"{name} (id {item.id})" if len(alike) > 1 else name
