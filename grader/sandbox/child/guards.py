"""Run-time guards the RestrictedPython-compiled code calls (child side): attribute
reads through the allow- and deny-lists, writes only to plain containers and the
submission's own objects, modules only as ``SafeModule`` views, and ``print``
into a capped sink. Text a submission makes is made printable before the judge
sees it.
"""
from __future__ import annotations

import operator
import types
from typing import Any

from ..allowlist import DENIED_ATTRS, refused_message
from ..language import SUBMISSION_MODULE


class PolicyError(Exception):
    """A submission reached for something the policy does not allow."""


class SafeModule:
    """A module as a submission sees it: only the allow-listed attributes exist."""

    __slots__ = ("_jj_name", "_jj_attrs")

    def __init__(self, name: str, attrs: dict[str, Any]):
        object.__setattr__(self, "_jj_name", name)
        object.__setattr__(self, "_jj_attrs", attrs)

    def __getattr__(self, item: str) -> Any:
        attrs = object.__getattribute__(self, "_jj_attrs")
        if item in attrs:
            return attrs[item]
        raise AttributeError(refused_message(object.__getattribute__(self, "_jj_name"), item))

    def __setattr__(self, key: str, value: Any) -> None:
        raise PolicyError(f"modules cannot be modified ({object.__getattribute__(self, '_jj_name')}.{key})")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<module '{object.__getattribute__(self, '_jj_name')}'>"



def guarded_getattr(obj: Any, name: str, *default: Any) -> Any:
    if type(name) is not str or name.startswith("_"):
        raise AttributeError(f"attribute {name!r} is not available to submissions")
    if type(obj) is SafeModule:
        return getattr(obj, name, *default)
    if isinstance(obj, types.ModuleType):
        raise AttributeError("raw modules are not available to submissions")
    if name in DENIED_ATTRS:
        raise AttributeError(f"'.{name}' is not available to submissions")
    return getattr(obj, name, *default)


def guarded_hasattr(obj: Any, name: str) -> bool:
    try:
        guarded_getattr(obj, name)
    except Exception:
        return False
    return True


def writable(obj: Any) -> Any:
    t = type(obj)
    if t is dict or t is list or t.__module__ == SUBMISSION_MODULE:
        return obj
    raise PolicyError(f"objects of type {t.__name__} cannot be modified by submissions")


def guarded_setattr(obj: Any, name: str, value: Any) -> None:
    if type(name) is not str or name.startswith("_"):
        raise PolicyError(f"attribute {name!r} cannot be set")
    setattr(writable(obj), name, value)


_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
            "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
            "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
            ">>=": operator.irshift}


def inplacevar(op: str, x: Any, y: Any) -> Any:
    return _INPLACE[op](x, y)


def printable(text: str) -> str:
    """``text`` without lone surrogates (``chr(0xD800)``), which no UTF-8 stream accepts:
    the text report crashed on a submission that printed or raised one."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def clean_exception(exc: BaseException) -> None:
    """Make the message the judge will render from ``exc`` printable (see ``printable``)."""
    try:
        args = tuple(exc.args)
        clean = tuple(printable(str.__str__(a)) if isinstance(a, str) else a for a in args)
        if any(c is not a for c, a in zip(clean, args)):
            exc.args = clean
    except Exception:  # an exception type with read-only args: leave it
        pass


class PrintSink:
    """Collects ``print`` output, capped so that a flood costs nothing."""

    cap = 8192

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def take(self) -> str:
        text = "".join(self.parts) + ("\n[output truncated]" if self.truncated else "")
        self.parts, self.size, self.truncated = [], 0, False
        return text

    def write(self, text: str) -> None:
        if self.size >= self.cap:
            self.truncated = True
            return
        text = printable(text[: self.cap - self.size])
        self.parts.append(text)
        self.size += len(text)


def make_print_factory(sink: PrintSink):
    class _Collector:
        def __init__(self, _getattr=None):
            pass

        def _call_print(self, *objects, **kwargs):
            kwargs.pop("file", None)
            sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
            sink.write(str(sep).join(str(o) for o in objects) + str(end))

        def __call__(self):
            return ""

    return _Collector
