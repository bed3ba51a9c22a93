"""The HTTP API (``/api/v1``), built by ``app.create_app``."""
