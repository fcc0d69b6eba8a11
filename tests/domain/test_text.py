"""Hidden characters are found by Unicode category (so a format character nobody listed is
still found), revealed as markers, and refused where they would reorder or split written text."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.text import check_text, has_hidden, is_hidden, reveal, text_problem

EVERY_CHAR = [chr(point) for point in range(sys.maxunicode + 1)]


def test_every_format_control_and_separator_character_is_hidden() -> None:
    for char in EVERY_CHAR:
        if unicodedata.category(char) in ("Cf", "Cc", "Zl", "Zp", "Cs"):
            assert is_hidden(char), f"U+{ord(char):04X}"


@pytest.mark.parametrize(
    "char",
    ["\ufe00", "\ufe0f", "\U000e0100", "\U000e01ef", "\u180b", "\u034f", "\u3164", "\uffa0"],
)
def test_variation_selectors_and_fillers_are_hidden(char: str) -> None:
    assert is_hidden(char)


def test_visible_text_is_not_hidden() -> None:
    visible = "Pay 100 € — ünïcödé 日本語 مرحبا 🍎 \u00a0\u3000"
    assert not has_hidden(visible)
    assert reveal(visible) == visible


def test_reveal_names_each_hidden_character_and_keeps_what_it_is_told() -> None:
    assert reveal("a\u202eb\u2028c\x85") == "a[U+202E]b[U+2028]c[U+0085]"
    assert reveal("one\ntwo\u200b", keep="\n") == "one\ntwo[U+200B]"
    assert reveal("x\u2066", mark=lambda c: "<?>") == "x<?>"


@pytest.mark.parametrize(
    ("value", "multiline", "named"),
    [
        ("a\u2028b", False, "U+2028 (LINE SEPARATOR): it must be one line"),
        ("a\u2029b", True, "U+2029 (PARAGRAPH SEPARATOR): use a newline"),
        ("a\nb", False, "control characters: it holds U+000A"),
        ("a\x85b", True, "control characters: it holds U+0085"),
        ("a\x9bb", True, "control characters: it holds U+009B"),
        ("\u202ayes", False, "U+202A (LEFT-TO-RIGHT EMBEDDING)"),
        ("\u2068x\u2069", True, "U+2068 (FIRST STRONG ISOLATE)"),
        ("x\udfff", False, "U+DFFF, half of a character"),
    ],
)
def test_what_would_split_or_reorder_text_is_refused(
    value: str, multiline: bool, named: str
) -> None:
    problem = text_problem(value, multiline=multiline)
    assert problem is not None and named in problem
    with pytest.raises(InvalidParams) as caught:
        check_text("title", value, limit=100, multiline=multiline)
    assert caught.value.message.startswith("'title' ") and named in caught.value.message
    assert caught.value.code == "invalid_params"


@pytest.mark.parametrize(
    "value",
    ["tab\tok", "zwj \U0001f468\u200d\U0001f469", "\u2764\ufe0f", "mark\u200f.", "\u200cnj"],
)
def test_what_real_text_needs_is_written_as_it_is(value: str) -> None:
    assert check_text("title", value, limit=100) == value


def test_a_note_keeps_its_lines() -> None:
    assert check_text("notes", "a\r\nb\n", limit=100, multiline=True) == "a\r\nb\n"
