"""The submission's namespace (child side): module views built from the
allow-lists with the instrumented callables swapped in, safe builtins, the guards
RestrictedPython's compiled code calls, and a guarded import."""
from __future__ import annotations

import builtins
import functools
import operator
from typing import Any, Callable

from RestrictedPython import safe_builtins
from RestrictedPython.Guards import (
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
)

from ..allowlist import ALLOWED, DENIED_KEYWORDS, KEYWORDS, module_message
from ..language import SUBMISSION_MODULE
from .guards import (
    PolicyError,
    PrintSink,
    SafeModule,
    guarded_getattr,
    guarded_hasattr,
    guarded_setattr,
    inplacevar,
    make_print_factory,
    writable,
)
from .windows import guard_entry, live, window

_TAKES_DENIED: dict[str, bool] = {}  # filled in the zygote, inherited by every child


def _takes_denied_keyword(name: str, fn: Any) -> bool:
    if name not in _TAKES_DENIED:
        import inspect

        try:
            params = inspect.signature(fn).parameters.values()
            _TAKES_DENIED[name] = any(p.kind is p.VAR_KEYWORD or p.name in DENIED_KEYWORDS for p in params)
        except (TypeError, ValueError):  # no signature to read: guard it to be safe
            _TAKES_DENIED[name] = True
    return _TAKES_DENIED[name]


def _keyword_guard(name: str, fn: Any, real: Any) -> Any:
    """``fn`` with its keyword arguments checked: an allow-list for the calls that
    configure compilation, and no device, backend or compiler keyword for any other."""
    allowed = KEYWORDS.get(name)
    if not callable(fn) or isinstance(fn, type) or (allowed is None and not _takes_denied_keyword(name, real)):
        return fn
    if allowed is None and hasattr(fn, "__mro_entries__"):
        # A base class in disguise (typing.NamedTuple is a function): ``class S(NamedTuple)``
        # needs the object itself, and its keywords are field names, not settings.
        return fn

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        for key in kwargs:
            if (key not in allowed) if allowed is not None else (key in DENIED_KEYWORDS):
                raise PolicyError(f"{name}(..., {key}=...) is refused by the judge: " + (
                    f"{name} takes only {', '.join(sorted(allowed))} from submissions" if allowed is not None
                    else "it chooses devices, backends, shardings or compiler settings"))
        return fn(*args, **kwargs)

    return guarded


class ModuleTable:
    """Builds the SafeModules once per run; ``overrides`` swap in instrumented callables."""

    def __init__(self, overrides: dict[str, Callable] | None = None):
        import importlib

        self._import = importlib.import_module
        self.overrides = overrides or {}
        self.cache: dict[str, SafeModule] = {}

    def get(self, name: str) -> SafeModule:
        if name in self.cache:
            return self.cache[name]
        real = self._import(name)
        attrs: dict[str, Any] = {}
        for attr in ALLOWED[name]:
            full = f"{name}.{attr}"
            if full in ALLOWED:
                attrs[attr] = self.get(full)
            elif full in self.overrides:
                attrs[attr] = _keyword_guard(full, self.overrides[full], getattr(real, attr, None))
            elif hasattr(real, attr):
                attrs[attr] = _keyword_guard(full, getattr(real, attr), getattr(real, attr))
        module = self.cache[name] = SafeModule(name, attrs)
        return module


def make_import(table: ModuleTable) -> Callable:
    import sys

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            raise ImportError("relative imports are not available to submissions")
        if name in ALLOWED:
            top = name if fromlist else name.split(".")[0]
            return table.get(top)
        if name in sys.modules:
            # Internal lazy imports by numpy/JAX C code land here (the caller ignores
            # the result); a submission gets an empty module it can do nothing with.
            return SafeModule(name, {})
        raise ImportError(module_message(name))

    return guarded_import


_BUILTIN_NAMES = """abs all any bool callable chr dict divmod enumerate filter float frozenset int isinstance
    issubclass iter len list map max min next ord pow range repr reversed round set slice sorted str sum tuple zip
    ArithmeticError AssertionError AttributeError Exception FloatingPointError IndexError KeyError LookupError
    NotImplementedError OverflowError RuntimeError StopIteration SystemExit TypeError ValueError ZeroDivisionError
    True False None""".split()


class SubmissionGlobals(dict):
    """The submission's module namespace. The child finds the entry with ``get`` after
    loading the module; from then on the name holds the guarded entry, so the child's
    later ``globals[entry]`` lookups (jit, eager, probes) call it inside a window."""

    def __missing__(self, key: Any) -> Any:
        # A dict subclass as globals sends every global lookup through the mapping
        # protocol; answering builtins here spares each builtin name a KeyError.
        return dict.__getitem__(dict.__getitem__(self, "__builtins__"), key)

    def get(self, key: Any, default: Any = None) -> Any:
        value = dict.get(self, key, default)
        if key in self and callable(value) and not getattr(value, "__guarded_entry__", False):
            value = guard_entry(value, self, key)
            dict.__setitem__(self, key, value)
        return value


def make_globals(table: ModuleTable, sink: PrintSink) -> dict[str, Any]:
    safe = {name: getattr(builtins, name) for name in _BUILTIN_NAMES}
    safe.update(
        __build_class__=safe_builtins["__build_class__"],
        __import__=make_import(table),
        getattr=guarded_getattr,
        hasattr=guarded_hasattr,
        setattr=guarded_setattr,
        staticmethod=staticmethod,
        classmethod=classmethod,
        property=property,
    )
    return SubmissionGlobals({
        "__builtins__": safe,
        "__name__": SUBMISSION_MODULE,
        "_window_": window,
        "_live_": live,
        "__metaclass__": type,
        "_getattr_": guarded_getattr,
        "_getitem_": operator.getitem,
        "_getiter_": iter,
        "_write_": writable,
        "_inplacevar_": inplacevar,
        "_print_": make_print_factory(sink),
        "_apply_": lambda f, *a, **k: f(*a, **k),
        "_unpack_sequence_": guarded_unpack_sequence,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
    })
