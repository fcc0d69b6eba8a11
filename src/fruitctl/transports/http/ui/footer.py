"""What the page's footer says about when things change: read from the policy in force, never
assumed. A person who reads "changes happen only when you approve them" and trusts it must not
find that the governance lets an agent write files (or anything else) directly.
"""

from __future__ import annotations

from fruitctl.gateway import Gateway


def direct_writes(gateway: Gateway) -> list[str]:
    """The write tools an agent's call runs without a person, in the mode in force now."""
    policy = gateway.policy
    mode = policy.modes.get()
    return sorted(
        tool.name
        for tool in gateway.registry
        if tool.writes and policy.governance.of(tool.name).verdict(mode) == "allow"
    )


def when_things_change(gateway: Gateway) -> str:
    """One sentence for the footer: whether an agent's writes wait for approval, in this mode."""
    modes = gateway.policy.modes
    mode = modes.get()
    held = modes.automatic()
    why = "" if held is None else f" (set by fruitctl itself: {held['cause']})"
    direct = direct_writes(gateway)
    if not direct:
        return f"{mode} mode{why}: an agent's write changes nothing until you approve it"
    verb = "runs" if len(direct) == 1 else "run"
    return (
        f"{mode} mode{why}: {', '.join(direct)} {verb} without asking you (governance.yaml); "
        "an agent's other writes wait for your approval"
    )
