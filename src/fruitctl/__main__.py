"""``python -m fruitctl`` and the ``fruitctl`` command."""

import gc
import sys


def main() -> None:
    """Run the CLI. Loading it (the MCP SDK's and fruitctl's pydantic models, SQLAlchemy, the
    tool catalog) makes a few hundred thousand objects that live as long as the process, and
    Python's cyclic collector would walk them again and again while they are being made -
    about a tenth of a second of every start. So it stays off while the command loads and is
    switched back on, with the loaded objects frozen out of its way, as the command begins
    (``fruitctl.cli.app.root``).

    First, the few commands that only forward a request to a running daemon try the short way
    (``fruitctl.cli.fast``), without Typer; when they cannot, the full CLI runs them. What the
    short way loaded is frozen out of the collector's way too before it ends: the collection
    Python makes at exit would otherwise walk all of it (rich's, typing's objects) once more -
    a tenth of a text answer's time."""
    gc.disable()
    from fruitctl.cli import fast

    code = fast.run(sys.argv[1:])
    if code is not None:
        gc.freeze()  # what it loaded stays to the end: not walked again as the process exits
        gc.enable()
        raise SystemExit(code)
    from fruitctl.cli.app import main as run_cli

    run_cli()


if __name__ == "__main__":
    main()
