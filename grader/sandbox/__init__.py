"""The trust boundary. The judge talks to the sandbox through ``host`` (one warm
zygote per ``Sandbox``, several in a ``Pool``) with ``request`` data over the
pickle-free ``wire``. The zygote (``zygote``) imports JAX and forks; only the
forked child (``child/``) runs submission code. ``allowlist`` and ``language``
are the policy on source text, shared by the judge's static checks and the child.

Nothing is imported here, so that the zygote and its children load only what they use.
"""
