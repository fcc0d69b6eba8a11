"""``holds_hidden`` finds a hidden character anywhere in JSON data - a key, a nested string -
where dumping the data as JSON first would have written a control as ``\\u001b`` and missed it
(the check the CLI and the approval page share, through ``approvals.hidden.hides_text``)."""

from __future__ import annotations

import json

from fruitctl.domain.text import has_hidden, holds_hidden


def test_a_control_deep_in_data_is_found_where_its_json_hides_it() -> None:
    data = {"reminders": [{"title": "plain", "notes": "a\x1b[2Jb"}]}
    assert not has_hidden(json.dumps(data, ensure_ascii=False))  # what the page used to check
    assert holds_hidden(data)
    assert holds_hidden({"ti\u200btle": "x"})  # a key
    assert holds_hidden(("x", ["\u202e"]))


def test_layout_may_be_kept_and_plain_data_is_not_flagged() -> None:
    plain = {"notes": "two\nlines\tand a tab", "n": 3, "ok": True, "none": None}
    assert not holds_hidden(plain, keep="\t\n")
    assert holds_hidden({"notes": "two\nlines"}) and not holds_hidden({"notes": "a\nb"}, keep="\n")
