"""The service's infrastructure: configuration (``config``), the database (``db``) and
its tables (``models``), rate limits (``ratelimit``), CSV in and out (``csv_io``). It
imports nothing else of the service."""
