"""A gateway over extra test tools beside the real catalog, for tests of how front doors and
the gateway treat tools the catalog does not have (slow ones, crashing ones)."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from fruitctl import bootstrap, telemetry
from fruitctl.config import load
from fruitctl.gateway import Gateway
from fruitctl.policy import governance
from fruitctl.policy.engine import Policy
from fruitctl.policy.modes import ModeStore
from fruitctl.store import open_database
from fruitctl.tools.model import Tool
from fruitctl.tools.registry import ToolRegistry


@contextmanager
def gateway_with(extra: Sequence[Tool], log_stream: io.StringIO) -> Iterator[Gateway]:
    """``extra`` plus every catalog tool, on the home's real stores, logging into a string."""
    config = load()
    app = bootstrap.build(config)
    catalog = [*extra, *app.gateway.registry]
    rules = governance.load(config.paths, [t.definition for t in catalog])
    engine = open_database(config.paths.state_db, "state")
    recorder = telemetry.CallRecorder(engine)
    modes = ModeStore(engine)
    gateway = Gateway(
        ToolRegistry(catalog),
        Policy(rules, modes, recorder),
        app.gateway.context,
        telemetry.configure_logging(None, stream=log_stream),
        recorder,
        lambda *_: None,  # no sandboxed test tools
    )
    try:
        yield gateway
    finally:
        gateway.close()
        modes.close()
        app.close()
        engine.dispose()
