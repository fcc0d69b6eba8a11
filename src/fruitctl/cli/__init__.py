"""The command-line front door: parse arguments, call a service, render text or JSON."""
