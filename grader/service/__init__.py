"""The judge as a service: an HTTP API (``api``) over a durable queue that is the
``submissions`` table of a real database (``models``, ``jobs``), graded by workers
on warm sandboxes (``workers``). Nothing here imports the web framework or the
database driver at package import, so ``grader.cli`` stays fast and the Dask
workers that run ``remote`` need neither."""
