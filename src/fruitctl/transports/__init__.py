"""Front doors other than the CLI: each parses its wire format and calls the gateway
(``Gateway.ainvoke`` on an event loop, ``invoke`` elsewhere)."""
