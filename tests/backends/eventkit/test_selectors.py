"""The EventKit adapter, checked on Linux: every Objective-C message it sends is one EventKit
publishes (``eventkit-selectors.txt``) or one of a short list of Foundation/AppKit messages, so
a typo or an invented method fails here instead of on a person's Mac; and it imports and is
constructed without PyObjC, which it loads on first use only."""

from __future__ import annotations

import ast
import subprocess
import sys
import types
from contextlib import nullcontext
from importlib.util import find_spec
from pathlib import Path

import pytest

from fruitctl.backends.eventkit.adapter import EventKitAdapter
from fruitctl.backends.eventkit.values import FULL_ACCESS, EventKitPort

# Apple's list, kept beside this test so a clean checkout carries it; the team's reference copy
# (../shared/macos/) is compared with it where it exists.
SELECTORS = Path(__file__).with_name("eventkit-selectors.txt")
REFERENCE = Path(__file__).parents[3] / ".." / "shared" / "macos" / "eventkit-selectors.txt"
SPEC = find_spec("fruitctl.backends.eventkit.adapter")
assert SPEC is not None and SPEC.origin is not None
ADAPTER = Path(SPEC.origin)
FRAMEWORKS = {"eventkit", "foundation", "appkit"}  # kit's functions that hand out a framework


def _framework_users() -> list[Path]:
    """Every module of the package that takes a framework from ``kit``: each one that can send
    EventKit a message, so a new one is held to the list without being named here."""
    found = []
    for module in sorted(ADAPTER.parent.glob("*.py")):
        for node in ast.parse(module.read_text()).body:
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "fruitctl.backends.eventkit.kit"
                and FRAMEWORKS & {alias.name for alias in node.names}
            ):
                found.append(module)
    return found


PYOBJC_MODULES = _framework_users()
PYOBJC = ("objc", "EventKit", "Foundation", "AppKit")

# Messages the adapter sends that are not EventKit's: NSObject, NSDate, NSDateComponents,
# NSTimeZone, NSURL, NSError (Foundation) and NSColor, NSColorSpace (AppKit). Names EventKit
# also declares (init, name, timeZone, setTimeZone:) are not repeated here.
FOUNDATION = {
    "NSObject": {"alloc", "respondsToSelector:", "isKindOfClass:"},
    "NSDate": {"dateWithTimeIntervalSince1970:", "timeIntervalSince1970"},
    "NSDateComponents": {
        *("year", "month", "day", "hour", "minute", "second"),
        *("setYear:", "setMonth:", "setDay:", "setHour:", "setMinute:", "setSecond:"),
    },
    "NSTimeZone": {"timeZoneWithName:"},
    "NSURL": {"URLWithString:", "absoluteString"},
    "NSError": {"domain", "code", "localizedDescription"},
    "NSColor": {"colorUsingColorSpace:", "redComponent", "greenComponent", "blueComponent"},
    "NSColorSpace": {"sRGBColorSpace"},
}
FOUNDATION_SELECTORS = set().union(*FOUNDATION.values())
# Methods the adapter calls on its own Python objects (threading.Event, set, Mapping, datetime,
# its _Completion) through a receiver other than ``self``, a module or a literal.
PYTHON_METHODS = {"wait", "set", "add", "discard", "items", "timestamp", "run"}


def eventkit_selectors() -> set[str]:
    lines = SELECTORS.read_text().splitlines()
    entries = [line.split() for line in lines if line.strip() and not line.startswith("#")]
    return {selector.removeprefix("+") for _cls, selector in entries}


def _imported_names(tree: ast.Module) -> set[str]:
    """Names bound by the module's top-level imports (threading, datetime …): Python."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _is_python_receiver(receiver: ast.expr, python_names: set[str]) -> bool:
    if isinstance(receiver, ast.Constant):  # "".join(...)
        return True
    return isinstance(receiver, ast.Name) and (receiver.id == "self" or receiver.id in python_names)


def sent_selectors(source: str) -> set[str]:
    """Every Objective-C selector the code sends: attribute calls (``a.b_c_(…)`` is ``b:c:``)
    on anything but ``self``, a module-level import or a literal, less PYTHON_METHODS; and the
    selectors it asks ``respondsToSelector_`` about."""
    tree = ast.parse(source)
    python_names = _imported_names(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if _is_python_receiver(node.func.value, python_names):
            continue
        name = node.func.attr
        if name == "respondsToSelector_":
            found.update(str(arg.value) for arg in node.args if isinstance(arg, ast.Constant))
        if name not in PYTHON_METHODS:
            found.add(name.replace("_", ":"))
    return found


def unknown(selectors: set[str]) -> set[str]:
    return selectors - eventkit_selectors() - FOUNDATION_SELECTORS


# -- the selectors ---------------------------------------------------------------------------------


def sent_by_the_adapter() -> set[str]:
    return set().union(*(sent_selectors(module.read_text()) for module in PYOBJC_MODULES))


def test_every_module_that_sends_messages_is_checked() -> None:
    names = {module.name for module in PYOBJC_MODULES}
    assert {"adapter.py", "decode.py", "encode.py", "find.py"} <= names
    assert "owner.py" not in names  # it takes only the autorelease pool: no messages


def test_every_selector_the_adapter_sends_is_eventkits_or_foundations() -> None:
    sent = sent_by_the_adapter()
    assert "setDueDateComponents:" in sent and "colorUsingColorSpace:" in sent  # both halves
    assert "calendarItemWithIdentifier:" in sent and "reset" in sent
    assert "fetchRemindersMatchingPredicate:completion:" in sent  # the parse sees the calls
    assert "requestFullAccessToRemindersWithCompletion:" in sent
    assert unknown(sent) == set()


def test_a_misspelt_or_invented_selector_fails() -> None:
    snippet = """
def fetch(store, predicate, handler):
    store.fetchRemindersMatchingPredicat_completion_(predicate, handler)
    store.respondsToSelector_("requestFullAccessToReminders:")
    item = store.calendarItemWithIdentifier_("x")
    item.titel()
    item.setDueDate_(None)
    return item.title()
"""
    assert unknown(sent_selectors(snippet)) == {
        "fetchRemindersMatchingPredicat:completion:",
        "requestFullAccessToReminders:",
        "titel",
        "setDueDate:",
    }


def test_a_misspelling_in_a_copy_of_the_adapter_fails(tmp_path: Path) -> None:
    copy = tmp_path / "adapter.py"
    source = ADAPTER.read_text()
    assert "saveReminder_commit_error_(" in source
    copy.write_text(source.replace("saveReminder_commit_error_(", "saveReminders_commit_error_("))
    assert unknown(sent_selectors(copy.read_text())) == {"saveReminders:commit:error:"}


def test_the_allowlists_are_not_eventkit_and_all_used() -> None:
    sent = sent_by_the_adapter()
    assert FOUNDATION_SELECTORS & eventkit_selectors() == set()
    assert FOUNDATION_SELECTORS - sent == set(), "drop what the adapter no longer sends"
    assert {name.replace("_", ":") for name in PYTHON_METHODS} & eventkit_selectors() == set()


# -- imports and construction without PyObjC ---------------------------------------------------


@pytest.mark.process
def test_the_adapter_module_imports_and_constructs_without_pyobjc() -> None:
    blocked = ", ".join(f"{name!r}: None" for name in PYOBJC)  # None in sys.modules: no import
    code = (
        f"import sys; sys.modules.update({{{blocked}}})\n"
        "from fruitctl.backends.eventkit.adapter import EventKitAdapter\n"
        "import fruitctl.backends.eventkit.decode, fruitctl.backends.eventkit.encode\n"
        "EventKitAdapter()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_pyobjc_is_touched_on_first_use_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PYOBJC:
        monkeypatch.setitem(sys.modules, name, None)
    adapter = EventKitAdapter()  # would raise ImportError if it imported EventKit
    asked: list[int] = []

    def status(entity_type: int) -> int:
        asked.append(entity_type)
        return FULL_ACCESS

    store_class = types.SimpleNamespace(authorizationStatusForEntityType_=status)
    monkeypatch.setitem(sys.modules, "EventKit", types.SimpleNamespace(EKEventStore=store_class))
    monkeypatch.setitem(sys.modules, "objc", types.SimpleNamespace(autorelease_pool=nullcontext))
    assert adapter.authorization("reminder") == FULL_ACCESS
    assert asked == [1]  # EKEntityTypeReminder


def test_the_adapter_has_every_method_of_the_port() -> None:
    wanted = {name for name in vars(EventKitPort) if not name.startswith("_")}
    assert wanted
    assert wanted <= set(dir(EventKitAdapter))


def test_the_selector_list_is_the_reference_one() -> None:
    if not REFERENCE.is_file():
        pytest.skip("no reference copy of the list beside this checkout (../shared/macos/)")
    assert SELECTORS.read_text() == REFERENCE.read_text()
