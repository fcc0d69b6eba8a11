"""``python -m fruitctl.sandbox``: the sandbox child (``fruitctl.sandbox.child``)."""

import sys

from fruitctl.sandbox.child import main

sys.exit(main())
