"""Tools: every capability as a typed function with a schema, registered once, invoked through
the gateway so governance, timeouts and telemetry apply the same way to every front door."""
