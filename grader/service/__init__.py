"""The judge as a service: ``grader serve``. Its layout is its layers, each importing only
the ones below it (an import-linter contract in ``pyproject.toml`` holds it):

- ``commands`` (the CLI) and ``server`` (start, stop) on top;
- ``api`` (JSON routes, one module per feature) and ``web`` (the pages, one module per
  feature), which ``api.app`` mounts;
- ``queue``: the durable queue and what works it (admit, enqueue, claim, finish, reap,
  rejudge; the workers, warming and the grade itself, local or on Dask);
- ``domain``: what a class is (accounts, courses, assignments, the gradebook, the
  course trust model, similar code, LTI's bindings and score passback);
- ``lti``: the LTI 1.3 protocol (pylti1p3 behind the tool's own types), which knows
  nothing of the service;
- ``core``: configuration, the database and its tables (``core.models``, one module per
  area), rate limits, CSV in and out; ``migrations`` (Alembic) beside it.

A feature is ``domain/X.py`` + ``api/X.py`` + ``web/X.py``: a contest mode, say, is
``domain/contests.py`` with its routes in ``api/contests.py`` and its pages in
``web/contests.py``, and its tables in ``core/models/contests.py`` with a migration.
Nothing here imports the web framework or the database driver at package import, so
``grader.cli`` stays fast and the Dask workers that run ``queue.remote`` need neither."""
