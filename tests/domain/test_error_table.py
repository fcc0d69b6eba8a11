"""The one table of error codes: a row for every canonical code, no name or number used twice
at a door (a client reads each back to one code), and no door writing its own."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from fruitctl.domain import error_table
from fruitctl.domain.errors import ERROR_CODES, FruitctlError, InternalError

SOURCE = Path(__file__).parents[2] / "src" / "fruitctl"
JSONRPC_NUMBER = re.compile(r"-32[0-7]\d\d\b")


def test_every_canonical_code_has_one_row() -> None:
    assert [row.code for row in error_table.TABLE] == list(error_table.BY_CODE)
    assert set(error_table.BY_CODE) == set(ERROR_CODES)


def test_names_and_numbers_read_back_to_one_code() -> None:
    for column in ("wire", "jsonrpc", "aai"):
        counts = Counter(getattr(row, column) for row in error_table.TABLE)
        assert max(counts.values()) == 1, (column, counts.most_common(3))
    for row in error_table.TABLE:
        assert error_table.from_wire(row.wire) == row.code
        assert error_table.from_aai(row.aai) == row.code
    assert error_table.from_wire("INVALID_PARAMS") is None  # the HTTP API says VALIDATION_ERROR
    assert error_table.row_of("invalid_params").wire == "VALIDATION_ERROR"


def test_the_http_servers_own_refusals_read_as_canonical_codes() -> None:
    canonical_wires = {row.wire for row in error_table.TABLE}
    for door in error_table.HTTP_ONLY:
        assert door.wire not in canonical_wires
        assert door.means in error_table.BY_CODE
        assert error_table.from_wire(door.wire) == door.means


def test_an_unknown_code_is_an_internal_error() -> None:
    assert error_table.row_of("no_such_code") == error_table.row_of("internal_error")
    assert isinstance(error_table.rebuilt("no_such_code", "m"), InternalError)


def test_details_named_like_arguments_survive_the_way_back() -> None:
    error = error_table.rebuilt("not_found", "gone", {"default": 1, "code": "x"})
    assert isinstance(error, FruitctlError) and error.code == "not_found"
    assert error.details == {"default": 1, "code": "x"} and error.message == "gone"


def test_no_other_module_numbers_json_rpc_errors() -> None:
    own = SOURCE / "domain" / "error_table.py"
    elsewhere = [
        f"{path.relative_to(SOURCE)}: {found}"
        for path in SOURCE.rglob("*.py")
        if path != own
        for found in JSONRPC_NUMBER.findall(path.read_text())
    ]
    assert elsewhere == []
