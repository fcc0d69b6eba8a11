"""The socket front door (seeds 000 and 004): newline-delimited JSON-RPC 2.0 and AAI envelopes
on a Unix socket, every call through ``Gateway.answer_now`` or ``ainvoke_off_loop``.

- ``jsonrpc``: one line in, one line (or nothing) out; envelopes, batches, notifications, and the
  one mapping from domain errors to JSON-RPC error objects.
- ``methods``: seed 000's methods, ``tools.list``/``tools.call`` and a dotted alias per tool.
- ``server``: the asyncio server - framing, size limit, peer credentials, timeouts, draining.
- ``peer``: who is on the other end of a connection (uid, pid), asked of the kernel.
- ``client``: a small blocking client, used by the CLI when a daemon runs.
"""
