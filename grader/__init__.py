"""JAX Judge: a judge for JAX coding challenges."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("jaxjudge")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.1.0"
