"""Characters a person cannot see, found by what Unicode says they are, and the text that may
hold them.

An agent writes the titles, notes and names a person then reads - on the approval page, in the
CLI, in Reminders or Calendar. A bidi override makes "Pay 100" read "001 yaP", a zero-width or
tag character makes two different texts look equal or smuggles words past the reader, a line
separator turns one title into two lines. Two defences, both here so every door uses the same:

- ``reveal``: wherever such text is *shown*, each hidden character becomes a visible marker
  naming it (``[U+202E]``); ``has_hidden`` says whether to warn.
- ``text_problem`` / ``check_text``: what is *written* refuses the characters no real text needs
  and that change how the rest of it reads (see ``text_problem``). The others stay - joiners and
  variation selectors are part of emoji and of many scripts - and are revealed when shown.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from fruitctl.domain.errors import InvalidParams

# Format (Cf: bidi controls, zero-width characters, word joiner, tags...), controls (Cc, C0 and
# C1), line and paragraph separators (Zl, Zp), and halves of a character (Cs).
HIDDEN_CATEGORIES = frozenset({"Cf", "Cc", "Zl", "Zp", "Cs"})
# Invisible but of another category: variation selectors, the combining grapheme joiner, the
# Hangul and Khmer fillers that render as nothing, and the rest of the tags block.
_INVISIBLE_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0000, 0xE0FFF),
)
# Embeddings, overrides and isolates reorder everything after them up to the end of the
# paragraph; text in any script reads right without them (marks like U+200F stay: they move no
# letter).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
NEWLINES = "\n\r"


def is_hidden(char: str) -> bool:
    """Whether ``char`` is invisible or changes how the text around it is shown."""
    if unicodedata.category(char) in HIDDEN_CATEGORIES:
        return True
    point = ord(char)
    return any(low <= point <= high for low, high in _INVISIBLE_RANGES)


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def describe(char: str) -> str:
    """``U+202E (RIGHT-TO-LEFT OVERRIDE)``; a control, which has no name, says so."""
    return f"{code_point(char)} ({unicodedata.name(char, 'a control character')})"


def has_hidden(text: str, keep: str = "") -> bool:
    if text.isascii() and text.isprintable():  # most text: no character to look at one by one
        return False
    return any(is_hidden(char) and char not in keep for char in text)


def reveal(text: str, keep: str = "", mark: Callable[[str], str] | None = None) -> str:
    """``text`` with each hidden character (but those in ``keep``, e.g. a note's newlines)
    replaced by ``mark(char)``, by default ``[U+202E]``."""
    marker = mark or (lambda char: f"[{code_point(char)}]")
    if not has_hidden(text, keep):
        return text
    return "".join(marker(c) if is_hidden(c) and c not in keep else c for c in text)


def text_problem(value: str, *, multiline: bool = False) -> str | None:
    """Why ``value`` cannot be written into a field (``None``: it can). Refused: controls but
    tab (and newlines where the field has lines), line and paragraph separators (iCalendar and
    most apps do not treat them as lines; a newline does), bidi embeddings, overrides and
    isolates (they reverse what follows, unseen), and half a character. iCalendar has no escape
    for any of these, so they are refused rather than written raw or mangled."""
    allowed = "\t" + (NEWLINES if multiline else "")
    for char in value:
        if char in allowed or not is_hidden(char):
            continue
        kind = unicodedata.category(char)
        if kind == "Cc":
            return f"must not contain control characters: it holds {describe(char)}"
        if kind in ("Zl", "Zp"):
            where = "use a newline" if multiline else "it must be one line"
            return f"must not contain {describe(char)}: {where}"
        if kind == "Cs":
            return f"holds {code_point(char)}, half of a character: send the whole character"
        if char in BIDI_CONTROLS:
            return (
                f"must not contain {describe(char)}: it changes the order the text after it "
                "is shown in, without being seen"
            )
    return None


def check_text(field: str, value: str, *, limit: int, multiline: bool = False) -> str:
    """``value`` if it may be written into ``field``; else ``InvalidParams`` naming the field and
    the character (``text_problem``), or the length."""
    problem = text_problem(value, multiline=multiline)
    if problem is not None:
        raise InvalidParams(f"'{field}' {problem}.", field=field)
    if len(value) > limit:
        raise InvalidParams(f"'{field}' is longer than {limit} characters.", field=field)
    return value


def holds_hidden(value: object, keep: str = "") -> bool:
    """Whether any text in ``value`` - a string, or the keys and strings anywhere in JSON data -
    holds a hidden character. Walked, not dumped: JSON would write a control character as
    ``\\u001b``, which no longer looks hidden."""
    if isinstance(value, str):
        return has_hidden(value, keep)
    if isinstance(value, dict):
        return any(holds_hidden(k, keep) or holds_hidden(v, keep) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(holds_hidden(item, keep) for item in value)
    return False
