"""JMESPath queries over reminders: compiling with the seed's error messages, and evaluating.

One leniency beyond the JMESPath spec: a bare number beside a comparison (``[?priority != 0]``,
as seed 002's checklist writes it) is read as the literal ``\\`0\\```. Standard JMESPath rejects
that form outright, so no valid expression changes meaning.

Any agent may send a query, so one is bounded before it runs - at most ``MAX_CHARS`` characters,
nested at most ``MAX_DEPTH`` deep - and while it runs, by what it makes (``query_budget``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

import jmespath
from jmespath import exceptions as jexc
from jmespath.lexer import Lexer

from fruitctl.domain.errors import InvalidQuery
from fruitctl.domain.query_budget import BudgetedInterpreter

Node = dict[str, Any]

_COMPARATORS = frozenset({"eq", "ne", "lt", "lte", "gt", "gte"})
_LONE_EQUALS = re.compile(r"(?<![=!<>])=(?!=)")

# Queries agents write are a line or two (seed 002's longest example is under 100 characters);
# this leaves room for a long filter and keeps every message that quotes the query short.
MAX_CHARS = 2_000
# jmespath parses and runs a query by recursion, one level per nesting (``!!!!a``, ``[[[a]]]``,
# a literal ``\`[[[…]]]\```); 50 is far deeper than any real query and far from Python's limit.
MAX_DEPTH = 50


@dataclass(frozen=True)
class Query:
    """A compiled JMESPath expression, ready to run over a list of wire dicts."""

    text: str
    ast: Node

    def evaluate(self, data: Any) -> Any:
        return evaluate(self.ast, data, self.text)


def compile_query(text: str) -> Query:
    """Compile ``text`` or raise ``InvalidQuery`` with the seed's actionable message."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidQuery("Invalid JMESPath expression: the expression is empty. Expression: ''.")
    if len(text) > MAX_CHARS:
        raise InvalidQuery(
            f"Invalid JMESPath expression: it is longer than {MAX_CHARS} characters "
            f"({len(text)}); filter in steps instead. Expression: '{text[:60]}…'."
        )
    return _compile_cached(text)


@lru_cache(maxsize=256)
def _compile_cached(text: str) -> Query:
    try:
        parsed = jmespath.compile(_quote_bare_numbers(text))
    except jexc.JMESPathError as exc:
        raise InvalidQuery(_message(_reason(exc), text)) from exc
    except RecursionError as exc:
        raise InvalidQuery(_message(_TOO_DEEP, text)) from exc
    ast = cast(Node, parsed.parsed)
    if depth(ast) > MAX_DEPTH:
        raise InvalidQuery(_message(_TOO_DEEP, text))
    return Query(text=text, ast=ast)


_TOO_DEEP = f"it nests more than {MAX_DEPTH} levels deep"


def depth(ast: Node) -> int:
    """How deep ``ast`` nests, literal values included (counted without recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(ast, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict) and "type" in item and "children" in item:
            inner = [c for c in item["children"] if isinstance(c, dict)]
            if item["type"] == "literal":
                inner.append(item["value"])
        else:
            inner = list(item.values() if isinstance(item, dict) else item)
        stack.extend((child, level + 1) for child in inner if isinstance(child, dict | list))
    return deepest


def evaluate(ast: Node, data: Any, text: str = "") -> Any:
    """Run a (sub-)expression under the budget; runtime failures, the budget's included, become
    ``InvalidQuery`` naming the expression."""
    try:
        return BudgetedInterpreter().visit(cast(Any, ast), data)
    except jexc.JMESPathError as exc:
        raise InvalidQuery(_message(_reason(exc), text)) from exc
    except (TypeError, ValueError) as exc:
        # jmespath lets Python's own errors escape for things like `title < \`1\``.
        raise InvalidQuery(_message(f"values of different types: {exc}", text)) from exc


def _message(reason: str, text: str) -> str:
    message = f"Invalid JMESPath expression: {reason}. Expression: '{text}'."
    if _LONE_EQUALS.search(text):
        message += " Hint: Use '==' for equality, not '='."
    return message


def _reason(exc: jexc.JMESPathError) -> str:
    if isinstance(exc, jexc.LexerError | jexc.ParseError):
        position = getattr(exc, "lex_position", None)
        detail = getattr(exc, "msg", None) or "syntax error"
        token = getattr(exc, "token_value", None)
        if isinstance(exc, jexc.LexerError):
            detail = getattr(exc, "message", detail)
        elif getattr(exc, "token_type", None) == "eof":
            detail = "Unexpected end of expression"
        elif token not in (None, ""):
            detail = f"Unexpected token '{token}'"
        return f"{detail} at position {position}" if position is not None else detail
    return str(exc).splitlines()[0].rstrip(".")


def _quote_bare_numbers(text: str) -> str:
    """Rewrite ``priority != 0`` to ``priority != `0``` (see the module docstring)."""
    try:
        tokens = list(Lexer().tokenize(text))
    except jexc.JMESPathError:
        return text
    pieces: list[str] = []
    cursor = 0
    for i, token in enumerate(tokens):
        if token["type"] != "number":
            continue
        before = tokens[i - 1]["type"] if i > 0 else ""
        after = tokens[i + 1]["type"] if i + 1 < len(tokens) else ""
        if before in _COMPARATORS or after in _COMPARATORS:
            pieces.append(text[cursor : token["start"]])
            pieces.append("`" + json.dumps(token["value"]) + "`")
            cursor = token["end"]
    if not pieces:
        return text
    return "".join(pieces) + text[cursor:]
