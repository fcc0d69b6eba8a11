"""Each error message is written once, on its class: a message two sites spell (the f-string or
string handed to a ``FruitctlError`` class, directly or through a variable) is a message that
drifts - the fix is a named constructor in ``domain/errors.py`` (``NotFound.reminder(id)``)."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from fruitctl.domain.errors import FruitctlError, InvalidParams, NotFound, Timeout

SOURCE = Path(__file__).parents[2] / "src" / "fruitctl"
Sites = dict[str, list[str]]


def _family(cls: type[FruitctlError]) -> set[str]:
    return {cls.__name__, *(name for sub in cls.__subclasses__() for name in _family(sub))}


# ``cls`` is how a constructor on the class itself builds its message
ERROR_NAMES = _family(FruitctlError) | {"cls"}


def _shape(node: ast.expr | None) -> str | None:
    """A message literal with each ``{…}`` of an f-string as ``{}``; None when not a literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = (v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        return "".join(str(part) for part in parts)
    return None


def _called(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _message(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "message"), None)


def _literals(scope: ast.AST) -> dict[str, ast.expr]:
    """Names bound to a string literal in ``scope`` (a message built in two steps)."""
    found: dict[str, ast.expr] = {}
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and _shape(node.value) is not None:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value
    return found


def _messages(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Each message literal handed to an error class, with its line; the module as a whole is
    read for literals only, each function also for the names it binds."""
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for scope in [tree, *functions]:
        named = _literals(scope) if scope is not tree else {}
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call) or _called(node) not in ERROR_NAMES:
                continue
            argument = _message(node)
            if isinstance(argument, ast.Name):
                argument = named.get(argument.id)
            shape = _shape(argument)
            if shape is not None and any(c.isalpha() for c in shape.replace("{}", "")):
                yield shape, node.lineno  # a shape of no word ("'{}' {}.") says nothing itself


def scan(root: Path) -> Sites:
    """Every error message literal under ``root`` with the sites (``path:line``) writing it."""
    sites: defaultdict[str, set[str]] = defaultdict(set)
    for path in sorted(root.rglob("*.py")):
        for shape, line in _messages(ast.parse(path.read_text(encoding="utf-8"))):
            sites[shape].add(f"{path.relative_to(root)}:{line}")
    return {shape: sorted(where) for shape, where in sites.items()}


def test_no_error_message_is_written_at_two_sites() -> None:
    twice = {shape: where for shape, where in scan(SOURCE).items() if len(where) > 1}
    assert not twice, "write these once, as a constructor on the class:\n" + "\n".join(
        f"  {shape!r}: {', '.join(where)}" for shape, where in sorted(twice.items())
    )


def test_the_scan_finds_a_message_written_twice_directly_or_in_two_steps(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "def one(x):\n    raise NotFound(f\"No pear '{x}'.\")\n"
        "def two(y):\n    said = f\"No pear '{y}'.\"\n    return InvalidParams(said, field='y')\n"
        "def three():\n    raise Timeout(message='Late.')\n"
        "def five(f, p):\n    raise InvalidParams(f\"'{f}' {p}.\")\n"
        "    raise NotFound(f\"'{p}' {f}.\")\n"
    )
    (tmp_path / "b.py").write_text("def four():\n    raise cls('Late.')\n")
    assert scan(tmp_path) == {
        "No pear '{}'.": ["a.py:2", "a.py:5"],
        "Late.": ["a.py:7", "b.py:2"],
    }


def test_the_constructors_say_the_messages_the_seed_fixes() -> None:
    assert NotFound.reminder("r1").message == "No reminder found with ID: 'r1'."
    assert NotFound.reminder_list("l1").message == "No list found with ID: 'l1'."
    assert Timeout.after("reminders.list", 2.5).message == (
        "reminders.list did not finish within 2.5 s."
    )
    taken = InvalidParams.name_taken("calendar", "Work", field="name")
    assert (taken.message, taken.details) == (
        "A calendar named 'Work' already exists.",
        {"field": "name"},
    )
