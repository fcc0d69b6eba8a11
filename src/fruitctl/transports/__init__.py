"""Front doors other than the CLI: each parses its wire format and calls ``Gateway.invoke``."""
