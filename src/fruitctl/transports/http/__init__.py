"""The HTTP API and approval page (seed 003). Import ``app.create_app`` or ``server.HttpServer``;
this package init stays empty so that ``fruitctl auth`` loads only ``tokens``."""
