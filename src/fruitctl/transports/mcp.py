"""The MCP front door (seed 002): every registry tool over MCP, through ``Gateway.ainvoke``.

The tool list is generated from the registry (names, titles, descriptions, input schemas,
annotations), so MCP, the CLI and later front doors never drift apart. A tool's output comes
back as JSON text plus ``structuredContent``; a failed call is ``isError`` with the seed's
human message, so the model can read it and correct itself (its canonical code in ``_meta``,
for programs). A write that needs approval comes back as the pending proposal - not an error -
with the command that approves it.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import mcp_types as types
import orjson
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError, NoBackChannelError

from fruitctl import __version__
from fruitctl.approvals.allowance import OFFERED, SCOPES, Allowance
from fruitctl.capabilities import toolsets
from fruitctl.capabilities.toolsets import ToolSet
from fruitctl.config_files import ConfigError
from fruitctl.domain import error_table
from fruitctl.domain.actors import Actor, display_name
from fruitctl.domain.errors import FruitctlError, MethodNotFound
from fruitctl.tools.model import ToolDefinition, ToolResult

if TYPE_CHECKING:
    from fruitctl.gateway import Action

INSTRUCTIONS = (
    "fruitctl gives you governed access to the person's reminders, calendars and, when Things 3 "
    "is set up, Things to-dos and projects, plus a few local tools (files, system health, web "
    "search). Reads answer at once. A write may come back as {'status': 'pending', "
    "'proposalId': ...}: a person must approve it; poll get_proposal to learn what became of "
    "it. Dates are ISO 8601 with an offset, all in the person's zone."
)
METHOD_NOT_FOUND = error_table.row_of("method_not_found").jsonrpc
ERROR_META = "dev.fruitctl/error"
"""Where a failed call's ``_meta`` carries the error's canonical code and whether a retry may
work: the model reads the message, a program the code - the same code as at every other door."""
ACTOR_KEY = "fruitctl.actor"
"""Where the HTTP guard leaves the agent the request's token names, in the request's ASGI scope."""
TOOLS_KEY = "fruitctl.tools"
"""Where the HTTP guard leaves the tools the request's token is offered, when its token names a
tool set (``toolsets``): the client is offered what both the server and its token offer."""
STDIO_ACTOR = Actor("agent", "mcp:stdio")
"""Who calls over stdio: the program that started this process, whatever name it gives."""


class McpTools(Protocol):
    """Whoever runs the tools an MCP server serves: this process's gateway (``InProcessTools``)
    or the daemon that holds the person's data (``mcp_front.DaemonTools``)."""

    async def listing(self) -> list[types.Tool]: ...

    def known(self, name: str) -> bool: ...

    async def call(self, name: str, args: dict[str, Any] | None, actor: Actor) -> ToolResult:
        """The call's result; ``metadata["pending"]`` when it was filed as a proposal."""
        ...

    async def proposal(self, proposal_id: str, actor: Actor) -> dict[str, Any]: ...

    async def decide(
        self,
        proposal_id: str,
        action: Action,
        who: Actor,
        reason: str | None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]: ...


class InProcessTools:
    """The tools run by the gateway in this process: ``gateway``, or the one ``build`` makes
    when the first request needs it (``fruitctl mcp`` answers ``initialize`` before it loads
    the catalog, opens the store or finishes half-done approvals)."""

    def __init__(self, gateway: Any = None, *, build: Callable[[], Any] | None = None) -> None:
        if (gateway is None) == (build is None):
            raise TypeError("InProcessTools takes a gateway or what builds one, not both.")
        self._built = gateway
        self._build = build
        self._building = threading.Lock()

    @property
    def _gateway(self) -> Any:
        """The gateway, built once (a failed build is tried again by the next request)."""
        if self._built is None:
            with self._building:
                if self._built is None:
                    assert self._build is not None
                    self._built = self._build()
        return self._built

    async def _ready(self) -> Any:
        """The gateway, built off the event loop the first time. What stops it being built (a
        governance.yaml that does not load, a store that cannot be opened) is the request's
        error, said on stderr too; each later request tries again."""
        if self._built is None:
            try:
                await anyio.to_thread.run_sync(lambda: self._gateway)
            except FruitctlError as exc:
                raise _unbuilt(error_table.row_of(exc.code).jsonrpc, exc.message) from None
            except ConfigError as exc:
                raise _unbuilt(UNBUILT, str(exc)) from None
        return self._built

    async def listing(self) -> list[types.Tool]:
        gateway = await self._ready()
        return [describe(d) for d in gateway.registry.list_tools()]

    def known(self, name: str) -> bool:
        return self._gateway.registry.get(name) is not None

    async def ready(self) -> None:
        """Built, when it was deferred; at once after that."""
        await self._ready()

    async def call(self, name: str, args: dict[str, Any] | None, actor: Actor) -> ToolResult:
        gateway = await self._ready()
        result: ToolResult = await gateway.ainvoke(name, args, actor)
        if gateway.approvals is None:  # nothing can be asked: never treated as pending
            return result.model_copy(update={"metadata": {}})
        return result

    async def proposal(self, proposal_id: str, actor: Actor) -> dict[str, Any]:
        approvals = (await self._ready()).approvals
        found: dict[str, Any] = await anyio.to_thread.run_sync(lambda: approvals.get(proposal_id))
        return found

    async def decide(
        self,
        proposal_id: str,
        action: Action,
        who: Actor,
        reason: str | None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]:
        gateway = await self._ready()
        decided: dict[str, Any] = await anyio.to_thread.run_sync(
            lambda: gateway.decide(proposal_id, action, who, reason, allow)
        )
        return decided


UNBUILT = error_table.row_of("internal_error").jsonrpc


def _unbuilt(code: int, message: str) -> MCPError:
    print(f"fruitctl mcp: the tools cannot run: {message}", file=sys.stderr, flush=True)
    return MCPError(code, f"fruitctl cannot run its tools: {message}")


def build_server(
    gateway: Any,
    *,
    elicit: bool = False,
    tools: McpTools | None = None,
    offered: ToolSet = None,
) -> Server[Any]:
    """An MCP server whose tools are the gateway's registry (or ``tools``, when another process
    runs them), those in ``offered`` only (``[mcp] tools``, ``--tools``; None: all). With
    ``elicit``, a write that needs approval is put to the person through the client's
    elicitation form."""
    runner: McpTools = tools if tools is not None else InProcessTools(gateway)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        allowed = _offered(ctx, offered)
        listed = [tool for tool in await runner.listing() if toolsets.offers(allowed, tool.name)]
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> dict[str, Any]:
        allowed = _offered(ctx, offered)
        if allowed is not None and params.name not in allowed:  # never run, as if unknown
            raise MCPError(
                METHOD_NOT_FOUND, MethodNotFound.not_offered(params.name, allowed).message
            )
        if isinstance(runner, InProcessTools):
            await runner.ready()  # a first request that is a call: built off the event loop
        if not runner.known(params.name):  # a protocol error, not a tool result
            raise MCPError(METHOD_NOT_FOUND, MethodNotFound.tool(params.name).message)
        actor = _actor(ctx)
        result = await runner.call(params.name, params.arguments, actor)
        if elicit and result.metadata.get("pending"):
            decided = await _ask_the_person(ctx, runner, result.output, actor)
            if decided is not None:
                result = result.model_copy(update={"output": decided})
        return render(result)

    server: Server[Any] = Server(
        "fruitctl",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
    )
    # Registered by method so the handler can answer in wire form (see ``render``).
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
    return server


def describe(definition: ToolDefinition) -> types.Tool:
    hints = definition.annotations
    return types.Tool(
        name=definition.name,
        title=definition.title,
        description=definition.description,
        input_schema=definition.input_schema,
        output_schema=output_schema(definition.output_schema),
        annotations=types.ToolAnnotations(
            title=hints.title,
            read_only_hint=hints.readOnlyHint,
            destructive_hint=hints.destructiveHint,
            idempotent_hint=hints.idempotentHint,
            open_world_hint=hints.openWorldHint,
        ),
    )


def output_schema(answers: dict[str, Any]) -> dict[str, Any]:
    """The tool's output schema as MCP wants it, an object: ``render`` sends an object answer
    as it is and anything else as ``{"result": ...}``, so each alternative is described that
    way."""
    defs = answers.get("$defs", {})
    body = {key: value for key, value in answers.items() if key != "$defs"}
    alternatives = (
        body["anyOf"] if set(body) <= {"anyOf", "description"} and "anyOf" in body else [body]
    )
    shaped = [_as_object(alternative, defs) for alternative in alternatives]
    schema: dict[str, Any] = {"type": "object"}
    if len(shaped) == 1:
        schema.update(shaped[0])
    elif all(s != {"type": "object"} for s in shaped):
        schema["anyOf"] = shaped
    if "description" in body:
        schema["description"] = body["description"]
    if defs:
        schema["$defs"] = defs
    return schema


def _as_object(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if not schema:  # anything: an object as it is, or anything else as {"result": ...}
        return {"type": "object"}
    target = schema
    ref = schema.get("$ref", "")
    if ref.startswith("#/$defs/"):
        target = defs.get(ref.removeprefix("#/$defs/"), {})
    if target.get("type") == "object":
        return schema
    return {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
        "additionalProperties": False,
    }


def render(result: ToolResult) -> dict[str, Any]:
    """A ``tools/call`` result in wire form: exactly what a ``CallToolResult`` dumps to, built
    without the model because the SDK validates every result against the protocol version
    anyway - answering with the model would walk a 40 KB answer once more on each call."""
    if result.failure is not None:
        error = result.failure
        failed = _failure(explained(error.message, error.details))
        failed["_meta"] = {ERROR_META: {"code": error.code, "retryable": error.retryable}}
        return failed
    structured = result.output if isinstance(result.output, dict) else {"result": result.output}
    return {
        "content": [{"type": "text", "text": _json_text(result.output)}],
        "structuredContent": structured,
        "isError": False,
        "resultType": "complete",
    }


def explained(message: str, details: dict[str, Any]) -> str:
    """The message, and the steps that fix it when the error carries them (a refused access
    says which app to allow and where): the model reads only the text."""
    steps = details.get("instructions")
    if not isinstance(steps, list) or not steps:
        return message
    return "\n".join([message, *(f"{n}. {step}" for n, step in enumerate(steps, 1))])


def _failure(message: str) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": message}],
        "isError": True,
        "resultType": "complete",
    }


def _json_text(output: Any) -> str:
    """Compact JSON; orjson writes a 20 KB answer in a tenth of the stdlib's time, and whatever
    it refuses (a non-string key, a huge int) goes through the stdlib."""
    try:
        return orjson.dumps(output).decode()
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(output, ensure_ascii=False, separators=(",", ":"))


NO_GRANT = "no"
APPROVAL_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve this change?", "default": False},
        # A standing grant, as the page offers it: enum strings are what elicitation forms
        # can ask (flat primitives only), so the lengths are the page's few.
        "allowFor": {
            "type": "string",
            "title": "And allow the same from this agent, without asking",
            "enum": [NO_GRANT, *(value for value, _ in OFFERED)],
            "enumNames": ["No: only this one", *(f"for {words}" for _, words in OFFERED)],
            "default": NO_GRANT,
        },
        "scope": {
            "type": "string",
            "title": "Where",
            "enum": list(SCOPES),
            "enumNames": ["Only where this one writes", "Anywhere this tool reaches"],
            "default": "list",
        },
    },
    "required": ["approve"],
}


async def _ask_the_person(
    ctx: ServerRequestContext[Any], runner: McpTools, pending: dict[str, Any], agent: Actor
) -> dict[str, Any] | None:
    """Show the summary and the before -> after diff; accept executes, decline rejects, no
    answer (or a client that cannot be asked) leaves the proposal pending."""
    wanted = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    if not ctx.session.check_client_capability(wanted):
        return None
    proposal_id = pending["proposalId"]
    try:
        shown = await runner.proposal(proposal_id, agent)
    except FruitctlError:  # not the agent's to show, or gone: nobody is asked
        return None
    try:
        answer = await ctx.session.elicit_form(_question(shown), APPROVAL_FORM)
    except (NoBackChannelError, MCPError):
        return None
    who = Actor("human", "mcp-elicitation").called(_client_name(ctx))
    allow = None
    if answer.action == "accept" and (answer.content or {}).get("approve") is True:
        action: Action = "approve"
        reason = None
        allow = _allowance(answer.content or {})
    elif answer.action in ("accept", "decline"):
        action, reason = "reject", "declined in the MCP client"
    else:
        return None
    try:  # through the gateway: the policy judges again, as for any approval
        return await runner.decide(proposal_id, action, who, reason, allow)
    except FruitctlError:  # refused (it stays PENDING with the reason), or FAILED
        return await runner.proposal(proposal_id, agent)


def _allowance(content: dict[str, Any]) -> Allowance | None:
    """The standing grant the person chose in the form, if any (anything but an offered length
    is no grant: a client that shows no such field answers without it)."""
    length = content.get("allowFor")
    if length not in {value for value, _ in OFFERED}:
        return None
    scope = content.get("scope")
    return Allowance.parse(length, scope if scope in SCOPES else "list")


def _question(proposal: dict[str, Any]) -> str:
    lines = [f"An agent asks to: {proposal['summary']}"]
    for row in proposal["diff"][:20]:
        lines.append(f"- {row['target']} · {row['field']}: {row['before']!r} -> {row['after']!r}")
    return "\n".join(lines)


def _actor(ctx: ServerRequestContext[Any]) -> Actor:
    """Who calls: over HTTP the agent the request's bearer token names (each API token its own
    actor; the server's own token ``mcp:http``), over stdio ``mcp:stdio``. The name the client
    gives itself (``clientInfo.name``, any string it likes) is only shown under that identity:
    rate limits, the proposals it sees and the audit never key on it."""
    request = ctx.request
    named = None if request is None else getattr(request, "scope", {}).get(ACTOR_KEY)
    bound = named if isinstance(named, Actor) else STDIO_ACTOR
    return bound.called(_client_name(ctx))


def _offered(ctx: ServerRequestContext[Any], configured: ToolSet) -> ToolSet:
    """What this request's client is offered: the server's set, narrowed by its token's."""
    request = ctx.request
    token_set = None if request is None else getattr(request, "scope", {}).get(TOOLS_KEY)
    return toolsets.narrow(configured, token_set if isinstance(token_set, frozenset) else None)


def _client_name(ctx: ServerRequestContext[Any]) -> str | None:
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    return display_name(info.name) if info is not None else None


async def serve_stdio(
    gateway: Any, elicit: bool = False, tools: McpTools | None = None, offered: ToolSet = None
) -> None:
    """Serve MCP on stdin/stdout; nothing but protocol messages ever reaches stdout."""
    from fruitctl.transports.stdio_pipes import stdio_streams

    server = build_server(gateway, elicit=elicit, tools=tools, offered=offered)
    async with stdio_streams() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
