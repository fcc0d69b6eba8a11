"""``python -m fruitctl``: the same as the ``fruitctl`` command."""

from fruitctl.cli.app import main

main()
