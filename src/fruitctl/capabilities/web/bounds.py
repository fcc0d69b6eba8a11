"""The bounds of ``fetch_url``'s arguments: its input model declares them, and the fetcher keeps
to them. Apart from the fetcher, so that declaring the tool does not load the HTTP client it
runs with (only a call, in the sandbox child, needs it)."""

URL_MAX = 2_048
BYTES_DEFAULT = 1_000_000
BYTES_MAX = 5_000_000
SECONDS_DEFAULT = 15
SECONDS_MAX = 25
