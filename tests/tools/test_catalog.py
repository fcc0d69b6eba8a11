"""The catalog knows every tool's name before it loads any (``capabilities.NAMES``, held here to
what each capability declares), and a gateway loads a capability when one of its tools is first
asked for: one call in a fresh process loads that call's capability alone, and a listing loads
them all, in the catalog's order, under the rules in force."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from socket_daemon import python

from fruitctl import bootstrap
from fruitctl.capabilities import NAMES, SUBJECTS, Catalog, all_tools, tools_of
from fruitctl.config import Config, Settings
from fruitctl.paths import Paths


def test_the_names_are_what_each_capability_declares() -> None:
    assert list(NAMES) == list(SUBJECTS)
    for subject in SUBJECTS:
        assert NAMES[subject] == tuple(tool.name for tool in tools_of(subject)), subject
    assert Catalog().names() == [tool.name for tool in all_tools()]


def _app(home: Path, governance: str | None = None) -> bootstrap.App:
    if governance is not None:
        (home / "governance.yaml").write_text(governance)
    return bootstrap.build(Config(Settings(), Paths.resolve({"FRUITCTL_HOME": str(home)})))


def test_a_lazy_registry_lists_what_an_eager_one_does(tmp_path: Path) -> None:
    app = _app(tmp_path, "tools:\n  write_file:\n    rate_limit_per_hour: 7\n")
    try:
        registry = app.gateway.registry
        assert registry.get("query_todos") is not None  # one capability first, out of order
        listed = registry.list_tools()
        assert [d.name for d in listed] == [t.name for t in all_tools()]
        by_name = {d.name: d for d in listed}
        assert by_name["write_file"].rate_limit_per_hour == 7  # the file's rules, applied
        assert registry.names() == [d.name for d in listed] and len(registry) == len(listed)
    finally:
        app.close()


def test_a_governance_file_naming_no_such_tool_is_refused_before_anything_loads(
    tmp_path: Path,
) -> None:
    from fruitctl.policy.governance import GovernanceError

    app = _app(tmp_path, "tools:\n  no_such_tool: {}\n")
    try:
        with pytest.raises(GovernanceError, match="no_such_tool: no such tool"):
            app.gateway  # noqa: B018 - building it reads the file
    finally:
        app.close()


SCRIPT = """
import json, sys
from fruitctl import bootstrap
app = bootstrap.build()
app.call("get_lists", {})
loaded = sorted(m.split(".")[2] for m in sys.modules if m.startswith("fruitctl.capabilities.")
                and m.endswith(".tools"))
app.gateway.registry.list_tools()
every = sorted(m.split(".")[2] for m in sys.modules if m.startswith("fruitctl.capabilities.")
               and m.endswith(".tools"))
app.close()
print(json.dumps([loaded, every]))
"""


@pytest.mark.process
def test_one_call_loads_its_capability_alone(tmp_path: Path) -> None:
    done = python(tmp_path, SCRIPT)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded, every = json.loads(done.stdout.splitlines()[-1])
    assert loaded == ["reminders"]
    assert every == sorted(SUBJECTS)


def test_threads_asking_and_listing_at_once_all_get_their_tools() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from fruitctl.tools.registry import ToolRegistry

    names = Catalog().names()
    for _ in range(20):  # each a fresh registry: loading races listing from the start
        registry = ToolRegistry(later=Catalog())

        def ask(at: int, registry: ToolRegistry = registry) -> list[str]:
            if at % 3 == 0:
                return [d.name for d in registry.list_tools()]
            found = registry.get(names[at % len(names)])
            return [] if found is None else [found.name]

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(ask, range(48)))
        assert all(a == names for at, a in enumerate(answers) if at % 3 == 0)
        assert all(a == [names[at % len(names)]] for at, a in enumerate(answers) if at % 3)
        assert registry.names() == names
