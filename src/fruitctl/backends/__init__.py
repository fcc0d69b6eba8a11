"""Backends implement the ports in ``fruitctl.ports`` and translate foreign errors at the seam."""
