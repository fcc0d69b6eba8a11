"""The approval page (``/ui``): server-rendered with Jinja2, one small vendored script, no build."""
