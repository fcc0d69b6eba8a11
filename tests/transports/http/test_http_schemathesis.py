"""Schemathesis against the app's own OpenAPI document, in-process: every operation, with valid
and with invalid inputs, must give no 5xx and answer as the document says (status codes,
content types, headers, response schemas), and data the document calls invalid must be refused.

Not checked: that every schema-valid request is accepted (``positive_data_acceptance``). The
tools validate what no schema can say - a JMESPath expression that parses, an IANA zone that
exists, a date range of at most 366 days, an RRULE - and refuse the rest with a 422, correctly.

How it is wired: schemathesis generates the cases from ``app.openapi()``; Starlette's
``TestClient`` (httpx over ASGI, raising any server exception) sends them; schemathesis
validates the responses. Its own transport is not used: it drives ``requests`` on urllib3, which
``urllib3-future`` (brought in by the CalDAV client) replaces with an incompatible pool. For the
same reason the checks that send extra requests of their own (``ignored_auth``,
``use_after_free``, ``ensure_resource_availability``, ``unsupported_method``) are left out; the
401 and 405 answers have tests of their own in ``test_http_auth`` / ``test_http_api``.

Bounded: a few examples per operation (a contract check in every ``make test``, not a fuzzing
campaign), derandomized, no deadline (the 2-core machine is shared). Each runs with an agent
token (writes become proposals) and an admin token (writes run; approval routes reachable).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi import checks
from starlette.testclient import TestClient
from things_fixture import build as build_things

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir

pytestmark = pytest.mark.slow  # most of its tests take two seconds or more

MAX_EXAMPLES = 8
RECORDER = Path(__file__).parents[2] / "things_recorder.py"
PERSON = Actor("human", "seed")
CHECKS = [
    not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
    checks.response_schema_conformance,
    checks.negative_data_rejection,
]


@pytest.mark.parametrize("scope", ["agent", "admin"])
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_the_api_keeps_its_own_contract(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scope: str, mode: GenerationMode
) -> None:
    # A Things database, and a Things that takes the URLs and does nothing (no confirmation
    # wait): the /things operations answer as on a Mac, quickly.
    things = build_things(tmp_path / "container")
    recorder = [sys.executable, str(RECORDER), str(things.path), str(tmp_path / "urls"), "ignore"]
    monkeypatch.setenv("FRUITCTL_THINGS__DATABASE", str(things.path))
    monkeypatch.setenv("FRUITCTL_THINGS__OPEN_COMMAND", json.dumps(recorder))
    monkeypatch.setenv("FRUITCTL_THINGS__CONFIRM_SECONDS", "0")
    app = bootstrap.build()
    try:
        tokens = TokenStore(secrets_dir(app))
        auth = {"Authorization": f"Bearer {tokens.issue(scope, 3600, 'fuzz')[0]}"}
        app.gateway.invoke("create_reminders", {"reminders": [{"title": "seed"}]}, PERSON)
        api = create_app(app, tokens=tokens)
        schema = schemathesis.openapi.from_dict(api.openapi())
        with TestClient(api, base_url="http://testserver") as client:
            failures = [
                failure
                for result in schema.get_all_operations()
                if (failure := _exercise(result.ok(), mode, client, auth)) is not None
            ]
    finally:
        app.close()
    assert not failures, "\n\n".join(failures)


def _exercise(
    operation: Any, mode: GenerationMode, client: TestClient, auth: dict[str, str]
) -> str | None:
    """Run one operation's examples; what failed, or None."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,
    )
    def check(case: Any) -> None:
        # The token is this test's to give: a case that "removes" it is not about the API.
        case.headers = {**(case.headers or {}), **auth}
        sent = case.as_transport_kwargs(base_url="http://testserver")
        response = client.request(
            sent["method"],
            sent["url"],
            headers=sent.get("headers"),
            params=sent.get("params"),
            **_body(sent),
        )
        case.validate_response(response, checks=CHECKS, transport_kwargs=sent)

    try:
        check()
    except Unsatisfiable:  # nothing to make invalid (GET /health takes no input)
        return None
    except Exception as exc:  # each operation's failure, reported with its label
        return f"{operation.label}: {exc}"
    return None


def _body(sent: dict[str, Any]) -> dict[str, Any]:
    if "json" in sent:
        return {"json": sent["json"]}
    if "data" in sent:
        data = sent["data"]
        return {"content": data} if isinstance(data, bytes | str) else {"data": data}
    return {}
