"""The socket's methods: seed 000's four, the registry's tools, and how a caller identifies.

- ``system.ping``, ``system.info``: the daemon itself (answered without the gateway: a health
  check must not depend on the store).
- ``reminders.open`` → ``open_reminders``, ``calendar.upcoming`` → ``calendar_upcoming``: seed 000's
  reads, with the bounds of those tools' schemas (limit 1-1000 / days 1-30, limit 1-500).
- ``tools.list``; ``tools.describe {name?, category?}`` (each tool's verdict per mode and rules,
  as ``fruitctl tools list/show`` prints them, with ``governance`` and ``configuration``: whether
  the daemon runs what its files say now); ``tools.call {name, arguments, idempotencyKey?}``
  whose result is the tool's output itself; and one dotted alias per tool, named after its
  capability (``query_reminders`` → ``reminders.query``, ``read_file`` → ``files.read``).
- ``session.identify {kind, name, token?}``: a connection is the agent ``uid:<n>`` the kernel
  names (its program's name shown under it) until it says otherwise. On the agents' socket a name
  only adds a display name under that uid (``uid:1000/claude``): rate limits, which proposals it
  sees and the audit stay the uid's, however often it renames. On the person's socket (this user's
  own programs) the name is the agent's. Speaking for a person needs the daemon's token, a file only
  this user can read: the same power as running the CLI in-process, and nothing an agent that only
  reaches the socket (say, from a container) has. ``display`` (optional) is the name shown under
  the identity, as a front door in front of the socket (``fruitctl mcp``) got it from its client.
- ``proposals.list {status?, limit?}``: proposals newest first, each as ``fruitctl proposals
  list --json`` prints it - ``status`` one of pending (the default), approved, executed,
  rejected, expired, failed, or null for every status; ``limit`` 1-500, default 50.
  ``proposals.get {id}``: one, with its diff, as ``fruitctl proposals show --json``. The person
  (a session identified with the daemon's token) reads every proposal; any other session is an
  agent and reads its own only - another's does not exist for it - as ``get_proposal`` and the
  HTTP API answer it.
- ``proposals.decide {id, action, reason?, allowFor?, scope?}``: a person's decision (approve,
  reject, undo; an approval may also give a standing grant), run by the daemon's gateway like any
  approval - only a session that identified as a person.

Every call of a tool is ``Gateway.answer_now`` (on the loop) or ``ainvoke_off_loop``; a failed or
refused call raises its domain error, which the dispatcher renders as a JSON-RPC error.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from fruitctl import __version__
from fruitctl.approvals.allowance import Allowance
from fruitctl.approvals.views import STATUSES, listing_limit
from fruitctl.capabilities import subject_of
from fruitctl.domain.actors import Actor, display_name
from fruitctl.domain.errors import InvalidParams, PermissionDenied
from fruitctl.gateway import ACTIONS, Gateway
from fruitctl.tools.model import Tool, ToolResult
from fruitctl.transports.rpc.jsonrpc import AGENTS_ONLY, Method, Session
from fruitctl.transports.service_info import SERVICE

LISTED_STATUSES = tuple(status.lower() for status in STATUSES)
LISTED_BY_DEFAULT, LISTED_AT_MOST = "pending", 50
"""What ``proposals.list`` lists when not told: what ``fruitctl proposals list`` shows."""
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$")
"""A name a caller gives itself; never '/', which separates an identity from a display name."""


def ping_result() -> dict[str, Any]:
    return {"ok": True, "service": SERVICE, "version": __version__}


def build_methods(
    gateway: Gateway,
    info: Callable[[], dict[str, Any]],
    human_token: str,
    limit: float | None = None,
    write_test: Callable[[], dict[str, Any]] | None = None,
    drift: Callable[[], dict[str, Any]] = dict,
) -> dict[str, Method]:
    """Every method of the socket, built once: the set of tools does not change while serving
    (their rules may: governance.yaml is read again when it changes, so listings are made per
    call). ``limit``: the request timeout, a cap on every call besides the tool's own deadline.
    ``drift``: whether the daemon runs what its files say now (``App.drift``)."""
    pong = ping_result()
    methods: dict[str, Method] = {
        "system.ping": Method(lambda params, session: _no_params(params, lambda: pong)),
        "system.info": Method(lambda params, session: _no_params(params, info), True),
    }
    if write_test is not None:  # fruitctl doctor --write-test, run where the access is held
        methods["system.writeTest"] = Method(
            lambda params, session: _no_params(params, partial(_persons, session, write_test)),
            True,
        )
    builtin = {"tools.list", "tools.describe", "tools.call", "session.identify"}
    builtin |= {"proposals.list", "proposals.get", "proposals.decide"}
    aliases = _aliases(gateway, set(methods) | builtin)

    def listing() -> dict[str, Any]:
        listed = gateway.registry.offered()  # a tool turned off in every mode is never listed
        return {"tools": [_describe(tool, aliases.get(tool.name)) for tool in listed]}

    methods["tools.list"] = Method(lambda params, session: _no_params(params, listing))
    methods["tools.describe"] = Method(
        lambda params, session: _rules_in_force(gateway, params, drift)
    )
    methods["tools.call"] = Method(
        lambda params, session: _tools_call(gateway, params, session, limit)
    )
    methods["session.identify"] = Method(
        lambda params, session: _identify(params, session, human_token)
    )
    methods["proposals.list"] = Method(
        lambda params, session: _proposals(gateway, params, session), True
    )
    methods["proposals.get"] = Method(
        lambda params, session: _proposal(gateway, params, session), True
    )
    methods["proposals.decide"] = Method(
        lambda params, session: _decide(gateway, params, session), True
    )
    for name, alias in aliases.items():
        methods[alias] = Method(partial(_alias_call, gateway, name, limit))
    return methods


def alias_of(tool: Tool) -> str:
    """``<capability>.<tool name without that word>``: ``query_reminders`` →
    ``reminders.query``, ``web_search`` → ``web.search``; or the name the tool declares."""
    if tool.alias is not None:
        return tool.alias
    space = subject_of(tool) or "tools"
    drop = {space, space.removesuffix("s"), space + "s"}
    rest = "_".join(word for word in tool.name.split("_") if word not in drop)
    return f"{space}.{rest or tool.name}"


def invoke(
    gateway: Gateway,
    name: str,
    args: Any,
    actor: Actor,
    key: str | None = None,
    limit: float | None = None,
) -> Any:
    """The tool's output when its store answers at once (``Gateway.answer_now``), else an
    awaitable of it from a thread; a failure raised as the domain error it is."""
    now = gateway.answer_now(name, args, actor, idempotency_key=key)
    if now is not None:
        return now.unwrapped()
    return _output_later(gateway, name, args, actor, key, limit)


async def _output_later(
    gateway: Gateway, name: str, args: Any, actor: Actor, key: str | None, limit: float | None
) -> Any:
    result = await gateway.ainvoke_off_loop(name, args, actor, idempotency_key=key, limit=limit)
    return result.unwrapped()


def output(result: ToolResult) -> Any:
    """A call's output, or its failure raised as the domain error it is."""
    return result.unwrapped()


def _aliases(gateway: Gateway, taken: set[str]) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for tool in gateway.registry:
        alias = alias_of(tool)
        if alias in taken:  # two tools would share a name: the later one keeps its full name
            alias = f"{alias.partition('.')[0]}.{tool.name}"
        if alias not in taken:
            aliases[tool.name] = alias
            taken.add(alias)
    return aliases


def _describe(tool: Tool, alias: str | None) -> dict[str, Any]:
    d = tool.definition
    return {
        "name": d.name,
        "method": alias,
        "title": d.title,
        "description": d.description,
        "category": d.category,
        "riskLevel": d.risk_level,
        "requiresApproval": d.requires_approval,
        "allowedModes": list(d.allowed_modes),
        "inputSchema": d.input_schema,
        "outputSchema": d.output_schema,
        "annotations": d.annotations.model_dump(),
    }


def _rules_in_force(
    gateway: Gateway, params: dict[str, Any], drift: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """``tools.describe {name?, category?}``: what ``fruitctl tools list/show`` prints - the
    verdicts and rules this daemon enforces now - with whether its files say the same
    (``drift``), so a person never reads rules other than those in force."""
    _only(params, {"name", "category"})
    name, category = params.get("name"), params.get("category")
    for key, value in (("name", name), ("category", category)):
        if value is not None and not isinstance(value, str):
            raise InvalidParams(f"'{key}' must be a string.", field=key)
    if name is not None:
        return {"tool": gateway.describe_tool(name), **drift()}
    return {"tools": gateway.describe_tools(category), **drift()}


def _alias_call(
    gateway: Gateway, name: str, limit: float | None, params: dict[str, Any], session: Session
) -> Any:
    return invoke(gateway, name, params, session.actor, limit=limit)


def _tools_call(
    gateway: Gateway, params: dict[str, Any], session: Session, limit: float | None
) -> Any:
    _only(params, {"name", "arguments", "idempotencyKey"})
    name, arguments, key = (
        params.get("name"),
        params.get("arguments", {}),
        params.get("idempotencyKey"),
    )
    if not isinstance(name, str):
        raise InvalidParams(
            "'name' must be the tool's name, e.g. \"query_reminders\".", field="name"
        )
    if not isinstance(arguments, dict):
        raise InvalidParams("'arguments' must be a JSON object.", field="arguments")
    if key is not None and not isinstance(key, str):
        raise InvalidParams("'idempotencyKey' must be a string.", field="idempotencyKey")
    return invoke(gateway, name, arguments, session.actor, key, limit)


def _identify(params: dict[str, Any], session: Session, human_token: str) -> dict[str, Any]:
    _only(params, {"kind", "name", "token", "display"})
    kind, name, token = params.get("kind"), params.get("name"), params.get("token")
    shown = params.get("display")
    if shown is not None and not isinstance(shown, str):
        raise InvalidParams("'display' must be a string.", field="display")
    if kind not in ("agent", "human"):
        raise InvalidParams('\'kind\' must be "agent" or "human".', field="kind")
    if kind == "human" and session.agents_only:  # refused before any token is looked at
        raise PermissionDenied(AGENTS_ONLY)
    if not isinstance(name, str) or not NAME.match(name):
        raise InvalidParams("'name' must be 1-64 letters, digits or ._:@-", field="name")
    if kind == "human" and not (
        isinstance(token, str) and hmac.compare_digest(token.encode(), human_token.encode())
    ):
        raise PermissionDenied("Speaking for a person needs the daemon's token.")
    if session.agents_only:  # the kernel said who this is: a name is only shown under it
        session.become(session.actor.called(shown or name))
    else:  # the person's own uid, which holds the token anyway, names its agents
        session.become(Actor(kind, name, display_name(shown)))
    return {"actor": session.actor.shown}


def _proposals(gateway: Gateway, params: dict[str, Any], session: Session) -> list[dict[str, Any]]:
    """``proposals.list``: what ``fruitctl proposals list`` reads, for the session's actor - the
    approval engine gives an agent its own only (``Approvals.recent``)."""
    _only(params, {"status", "limit"})
    status = params.get("status", LISTED_BY_DEFAULT)
    if status is not None and status not in LISTED_STATUSES:
        raise InvalidParams.proposal_status(", ".join(LISTED_STATUSES))
    limit = listing_limit(params.get("limit", LISTED_AT_MOST))
    return gateway.approval_engine().recent(status, limit, session.actor)


def _proposal(gateway: Gateway, params: dict[str, Any], session: Session) -> dict[str, Any]:
    """``proposals.get``: one proposal, as ``fruitctl proposals show`` reads it; an agent's
    session finds its own only (``Approvals.get``)."""
    _only(params, {"id"})
    proposal_id = params.get("id")
    if not isinstance(proposal_id, str):
        raise InvalidParams.proposal_id()
    return gateway.approval_engine().get(proposal_id, session.actor)


def _decide(gateway: Gateway, params: dict[str, Any], session: Session) -> dict[str, Any]:
    """A person's decision, as ``fruitctl proposals approve`` takes it in-process: the gateway
    judges it again for that person. An agent's session is refused before anything is read."""
    _only(params, {"id", "action", "reason", "allowFor", "scope"})
    if session.actor.kind != "human":
        raise PermissionDenied("Only a person decides proposals: identify with the daemon's token.")
    proposal_id, action, reason = params.get("id"), params.get("action"), params.get("reason")
    if not isinstance(proposal_id, str):
        raise InvalidParams.proposal_id()
    if action not in ACTIONS:
        raise InvalidParams(f"'action' must be one of: {', '.join(ACTIONS)}.", field="action")
    if reason is not None and not isinstance(reason, str):
        raise InvalidParams("'reason' must be a string.", field="reason")
    return gateway.decide(proposal_id, action, session.actor, reason, Allowance.of(params))


def _persons(session: Session, answer: Callable[[], Any]) -> Any:
    """``answer``, for the person only (identified with the daemon's token): it writes."""
    if session.actor.kind != "human":
        raise PermissionDenied(
            "Only the person may run the write test (session.identify with the daemon's token)."
        )
    return answer()


def _no_params(params: dict[str, Any], answer: Callable[[], Any]) -> Any:
    if params:
        raise InvalidParams(f"This method takes no parameters (got '{sorted(params)[0][:64]}').")
    return answer()


def _only(params: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise InvalidParams(f"Unknown parameter '{unknown[0]}'.", field=unknown[0])
