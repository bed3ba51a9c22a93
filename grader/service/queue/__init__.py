"""The durable queue and what works it: admission (what may be enqueued now), ``jobs``
(enqueue, claim, finish), the reaper, the views of the queue, rejudges, and the workers
that grade claimed rows on warm sandboxes (``workers``, ``warming``, ``grading``;
``remote`` on a Dask cluster; ``orphans`` for what a dead server left running)."""
