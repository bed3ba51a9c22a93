"""JAX Judge: a judge for JAX coding challenges.

The Python API for platforms that embed the judge lives in [`grader.api`][grader.api];
its names are re-exported here and imported on first use, so that ``import grader``
stays cheap (it imports neither JAX nor the judge):

```python
from grader import Judge, grade_file, grade_source
```
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("jaxjudge")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.1.0"

# The names of grader.api, imported lazily (PEP 562): the judge's own modules import
# this package for __version__ and must not pull the API (the top layer) in with it.
_API = ("Judge", "grade_file", "grade_source")
__all__ = ["Judge", "__version__", "grade_file", "grade_source"]


def __getattr__(name: str):
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'grader' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
