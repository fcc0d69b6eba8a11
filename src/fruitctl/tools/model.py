"""Seed 001's tool model: ``ToolParameter``, ``ToolDefinition``, ``ToolResult``, and ``Tool``
(a definition bound to its input model and its function).

A tool is a typed function ``fn(args: InputModel, ctx: ToolContext) -> JSON-ready data``. Its
docstring is its description, its input model is its schema; ``@tool`` builds the rest.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    TypeAdapter,
    computed_field,
    model_validator,
)

from fruitctl.domain.errors import FruitctlError
from fruitctl.tools import docs
from fruitctl.tools.inputs import parse

Category = Literal["read_only", "pim_write", "system_write", "network"]
WRITE_CATEGORIES: frozenset[str] = frozenset({"pim_write", "system_write"})
Risk = Literal["low", "medium", "high"]
Mode = Literal["NORMAL", "ALERT", "DEGRADED", "LOCKDOWN", "RECOVERY"]
MODES: tuple[Mode, ...] = ("NORMAL", "ALERT", "DEGRADED", "LOCKDOWN", "RECOVERY")
JsonType = Literal["string", "number", "boolean", "object", "array"]


class ToolParameter(BaseModel):
    name: str
    type: JsonType
    description: str
    required: bool = True
    default: Any | None = None


class Annotations(BaseModel):
    """MCP tool annotations (hints to clients, never trusted for security)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    title: str
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class ToolDefinition(BaseModel):
    """What a client and the policy know about a tool."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    description: str
    category: Category
    parameters: list[ToolParameter]
    input_schema: dict[str, Any]
    annotations: Annotations
    risk_level: Risk
    allowed_modes: list[Mode]
    requires_approval: bool = False
    requires_sandbox: bool = False
    open_world: bool = False
    timeout_seconds: float = 30
    rate_limit_per_hour: int | None = None
    _answers: Answers | None = PrivateAttr(default=None)

    @property
    def output_schema(self) -> dict[str, Any]:
        """What it answers (JSON Schema); a write's includes the pending-proposal shape."""
        return {} if self._answers is None else self._answers.schema


class Answers:
    """What a tool answers, its JSON Schema made when first asked (a tool list, a description)
    rather than when the tool is declared: it is half of what declaring every tool costs, and a
    process that runs one call (the CLI in-process) never asks. A definition shaped by the
    governance is a copy that shares this, so the schema is made once per tool."""

    def __init__(self, shape: Any, *, writes: bool) -> None:
        self.shape = shape
        self.writes = writes

    @cached_property
    def schema(self) -> dict[str, Any]:
        return output_schema_of(self.shape, writes=self.writes)


class ToolResult(BaseModel):
    """The outcome of one call. A failure is a result (``success=False``) carrying the error
    itself (``failure``), never an exception escaping to a front door; each door renders that
    error in its dialect. ``error``, ``error_code`` and ``error_details`` are the seed's plain
    reading of it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    tool_name: str
    success: bool
    output: Any = None
    failure: FruitctlError | None = Field(default=None, exclude=True)
    latency_ms: float = 0.0
    trace_id: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def error(self) -> str | None:
        return self.failure.message if self.failure is not None else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def error_code(self) -> str | None:
        return self.failure.code if self.failure is not None else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def error_details(self) -> dict[str, Any]:
        return self.failure.details if self.failure is not None else {}

    @model_validator(mode="after")
    def _failed_with_its_error(self) -> ToolResult:
        if self.success == (self.failure is not None):
            raise ValueError("a failed result carries its error, a successful one none")
        return self

    def unwrapped(self) -> Any:
        """The output, or the failure raised: for a door whose dialect is an exception."""
        if self.failure is not None:
            raise self.failure
        return self.output


ToolFunction = Callable[[Any, Any], Any]
Parser = Callable[[Mapping[str, Any] | None], BaseModel]
Args = dict[str, Any]
Snapshot = dict[str, Any]


@dataclass(frozen=True)
class Change:
    """What a write will change, declared with the write tool: how a proposal describes it to
    the person, binds it to its target, and how it is undone. Every function gets the call's
    arguments as plain JSON data (as stored in the proposal) and the ``ToolContext``."""

    summary: Callable[[Args, Any], str]
    """One line for the person: what the write does."""
    snapshot: Callable[[Args, Any], Snapshot]
    """What the write will touch, as it is now (the proposal's before-snapshot)."""
    current: Callable[[Snapshot, Any], Snapshot]
    """The same shape as ``snapshot``, read again: differences mean someone changed the target."""
    inverse: Callable[[Args, Snapshot, Any], dict[str, Any] | None]
    """The ``{tool, args}`` that undoes an executed write (given its output), or None."""
    diff: Callable[[Args, Snapshot], list[dict[str, Any]]]
    """Rows of ``{target, field, before, after}`` for the person to review."""
    resolve: Callable[[Args, Any], tuple[Args, list[dict[str, Any]]]] | None = None
    """Fail fast, before anything is proposed: the arguments trimmed to the items that can work,
    and the ones that cannot in the partial-failure shape (``{"index"|"id", "error"}``), found
    the way the direct call finds them. Raises the call's error when nothing can work. None:
    nothing to resolve beyond the policy's own checks."""


@dataclass(frozen=True)
class TargetRule:
    """A check of where a call reaches (paths, lists, calendars) against its tool's rules:
    ``check(args, rules, ctx)`` raises the canonical error (``PermissionDenied``,
    ``ListNotAllowed`` …) when the arguments go somewhere the rules do not allow."""

    check: Callable[[Any, Any, Any], None]
    binds: Literal["everyone", "agents"]
    """Whom the rule binds: ``agents`` for allowlists (an agent's write, also when a person
    approves it; a person's own call is not refused), ``everyone`` for path rules."""
    reaches: Callable[[Any, Any], Iterable[str]] | None = None
    """The containers a call reaches, named ``<kind>:<name>`` (``list:Inbox``,
    ``calendar:Work``): a standing grant's scope, and what a later call must stay inside for the
    grant to cover it. None: nothing it can name (a grant then covers the tool)."""


@dataclass(frozen=True)
class Tool:
    definition: ToolDefinition
    input_model: type[BaseModel]
    function: ToolFunction
    parse: Parser
    """Validates raw arguments into ``input_model``; raises InvalidParams naming the field."""
    child: str | None = None
    """For a sandboxed tool: ``module:function`` run in a child process with the arguments."""
    child_limits: Any = None
    """The child's resource limits (``fruitctl.sandbox.Limits``); None for the defaults."""
    child_payload: Callable[[BaseModel, Any], dict[str, Any]] | None = None
    """What the child is sent, given the parsed arguments and the tool context: for a child that
    needs more than its arguments (the governance rules it applies at each step). None: the
    arguments as JSON."""
    at_once: Callable[[BaseModel, Any], bool] | None = None
    """For a read: asks the store behind it, given the parsed arguments and the tool context,
    whether this call is a few bounded reads in this process (``AnswersAtOnce``) - then a front
    door may run it on its event loop (``Gateway.runs_on_loop``), cheaper than a thread hop and
    too short to hold anyone up. None: every call keeps a worker thread and its deadline."""
    change: Change | None = None
    """For a write: how it is described, checked for conflicts and undone (required)."""
    targets: tuple[TargetRule, ...] = ()
    """The checks of where its arguments reach, run by the policy on every call."""
    alias: str | None = None
    """The socket method naming this tool, when it is not the one derived from its name."""
    service: str | None = None
    """The person's data it reaches (``reminders``, ``calendar``): a backend's refusal of
    access during the call is answered with it as ``service``, whichever backend serves it."""

    @property
    def writes(self) -> bool:
        return self.definition.category in WRITE_CATEGORIES

    @property
    def name(self) -> str:
        return self.definition.name


def tool(
    *,
    category: Category,
    risk: Risk,
    title: str,
    name: str | None = None,
    read_only: bool | None = None,
    destructive: bool = False,
    idempotent: bool = False,
    open_world: bool = False,
    sandbox: bool = False,
    timeout: float = 30,
    rate_limit_per_hour: int | None = None,
    allowed_modes: tuple[Mode, ...] = MODES,
    parse: Callable[[type[BaseModel], Mapping[str, Any] | None, str], BaseModel] | None = None,
    child: str | None = None,
    child_limits: Any = None,
    child_payload: Callable[[BaseModel, Any], dict[str, Any]] | None = None,
    schema: dict[str, Any] | None = None,
    at_once: Callable[[BaseModel, Any], bool] | None = None,
    change: Change | None = None,
    targets: tuple[TargetRule, ...] = (),
    alias: str | None = None,
    returns: Any = None,
    service: str | None = None,
) -> Callable[[ToolFunction], Tool]:
    """Declare a tool from a typed function ``fn(args: SomeToolInput, ctx) -> data``.

    ``schema`` replaces the schema generated from the input model, for tools whose schema is a
    published contract: made from the same model in that contract's shape
    (``capabilities.reminders.schemas``), and held to the published one by a test. A write
    (``pim_write``, ``system_write``) must say how it changes things (``change``): without it
    there is nothing to show the person who approves it, and no undo. The docstring names the
    input model's bounds, defaults and choices as ``$(field)`` placeholders
    (``fruitctl.tools.docs``) rather than restating them. ``returns`` is the type of what it
    answers (a capability's ``outputs``); without it, the function's return annotation."""

    def declare(function: ToolFunction) -> Tool:
        input_model = _input_model(function)
        answers = returns
        if answers is None:
            answers = inspect.get_annotations(function, eval_str=True).get("return", Any)
        generated = schema_of(input_model)
        description = inspect.cleandoc(function.__doc__ or "").strip()
        if not description:
            raise ValueError(f"tool {function.__name__} needs a docstring: it is its description")
        description = docs.expand(description, generated, name or function.__name__)
        reads = category == "read_only" if read_only is None else read_only
        definition = ToolDefinition(
            name=name or function.__name__,
            title=title,
            description=description,
            category=category,
            parameters=parameters_in(generated),
            input_schema=schema or generated,
            annotations=Annotations(
                title=title,
                readOnlyHint=reads,
                destructiveHint=destructive,
                idempotentHint=idempotent or reads,
                openWorldHint=open_world,
            ),
            risk_level=risk,
            allowed_modes=list(allowed_modes),
            requires_sandbox=sandbox,
            open_world=open_world,
            timeout_seconds=timeout,
            rate_limit_per_hour=rate_limit_per_hour,
        )
        definition._answers = Answers(answers, writes=category in WRITE_CATEGORIES)
        parser = parse or default_parse
        return Tool(
            definition=definition,
            input_model=input_model,
            function=function,
            parse=lambda args: parser(input_model, args, definition.name),
            child=child,
            child_limits=child_limits,
            child_payload=child_payload,
            at_once=at_once,
            change=change,
            targets=targets,
            alias=alias,
            service=service,
        )

    return declare


def _input_model(function: ToolFunction) -> type[BaseModel]:
    hints = inspect.get_annotations(function, eval_str=True)
    first = next(iter(inspect.signature(function).parameters), None)
    model = hints.get(first) if first else None
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"tool {function.__name__}: first parameter must be a pydantic model")
    return model


def default_parse(model: type[BaseModel], args: Mapping[str, Any] | None, name: str) -> BaseModel:
    return parse(model, args, name)  # the one wording for invalid arguments


def output_schema_of(answers: Any, *, writes: bool) -> dict[str, Any]:
    """The JSON Schema of what a tool answers: as it is serialized (every field present). A
    write may instead answer the pending proposal a person has to approve first - or, when the
    person decided it right away in an MCP client's form, the proposal as decided."""
    from fruitctl.tools.outputs import Pending, Proposal

    shape = answers | Pending | Proposal if writes else answers
    schema: dict[str, Any] = TypeAdapter(shape).json_schema(mode="serialization")
    return schema


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema with ``additionalProperties: false`` everywhere objects appear."""
    schema = model.model_json_schema()
    _close_objects(schema)
    return schema


def _close_objects(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") == "object":
            node.setdefault("additionalProperties", False)
            node.setdefault("properties", {})
        for value in node.values():
            _close_objects(value)
    elif isinstance(node, list):
        for value in node:
            _close_objects(value)


_JSON_TYPES: dict[str, JsonType] = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
}


def parameters_in(schema: dict[str, Any]) -> list[ToolParameter]:
    """Seed 001's flat parameter list, read from the input model's JSON Schema."""
    required = set(schema.get("required", []))
    params = []
    for field_name, prop in schema.get("properties", {}).items():
        params.append(
            ToolParameter(
                name=field_name,
                type=_json_type(prop),
                description=prop.get("description", ""),
                required=field_name in required,
                default=prop.get("default"),
            )
        )
    return params


def _json_type(prop: dict[str, Any]) -> JsonType:
    kinds = [prop.get("type")] + [option.get("type") for option in prop.get("anyOf", [])]
    for kind in kinds:
        if kind in _JSON_TYPES:
            return _JSON_TYPES[kind]
    return "object"
