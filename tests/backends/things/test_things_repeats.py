"""A repeating to-do's rule in words, from the property list Things keeps on the template: the
unit (NSCalendarUnit) and how many, on a fixed schedule; anything not understood gives no words
rather than wrong ones."""

from __future__ import annotations

import plistlib
from typing import Any

import pytest

from fruitctl.backends.things.repeats import rule_in_words


def rule(fmt: plistlib.PlistFormat = plistlib.FMT_BINARY, **keys: Any) -> bytes:
    return plistlib.dumps({"rrv": 4, "ts": 0, **keys}, fmt=fmt)


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ({"fu": 16, "fa": 1, "tp": 0}, "every day"),
        ({"fu": 256, "fa": 2, "tp": 0, "of": [{"wd": 4}]}, "every 2 weeks"),
        ({"fu": 8, "fa": 1, "tp": 0, "of": [{"dy": 15}]}, "every month"),
        ({"fu": 4, "fa": 3, "tp": 0}, "every 3 years"),
    ],
)
def test_a_rule_in_words(keys: dict[str, Any], words: str) -> None:
    assert rule_in_words(rule(**keys)) == words
    assert rule_in_words(rule(plistlib.FMT_XML, **keys)) == words  # either form of plist


@pytest.mark.parametrize(
    "blob",
    [
        rule(fu=512, fa=1, tp=0),  # a unit fruitctl does not know
        rule(fu=16, fa=0, tp=0),
        rule(fu=16, fa=1),  # no schedule kind: not said
        rule(fu=16, tp=0),
        rule(fu=16, fa=True, tp=0),
        rule(fu=16, fa=1, tp=2),
        rule(fu=256, fa=1, tp=1, of=[{"wd": 0}]),  # things.py's test database: not said
        rule(fu=16, fa=1, tp=False),
        rule(fu=[16], fa=1, tp=0),
        plistlib.dumps([1, 2]),
        b"not a property list",
        None,
        "text",
    ],
)
def test_a_rule_not_understood_gives_no_words(blob: Any) -> None:
    assert rule_in_words(blob) is None
