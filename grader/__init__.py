"""JAX Judge: a judge for JAX coding challenges."""

__version__ = "0.1.0"
