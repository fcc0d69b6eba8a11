"""fruitctl: a local capability gateway for AI agents."""

__version__ = "0.1.0"
