"""Reading one received record of the sandbox protocol field by field, with exact types.

Used on both sides of the trust boundary, by every ``decode`` of ``messages`` and
``job``; what the judge reads this way comes from beside hostile code. Each field is
taken once: ``end`` refuses whatever is left, so an unknown field is never carried
along unseen. Text is cut to its cap (a submission's prints and messages may be long);
counts over their cap are refused (the child bounds its own). A refusal names our
field, never the peer's text, since its message may reach a report.
"""
from __future__ import annotations

import math
from typing import Any, TypeVar

from .wire import WireError

_Choice = TypeVar("_Choice", bound=str)  # a protocol value: choice() gives back the options' own type

# JSON numbers are unbounded; these are the ranges a field of the protocol may hold.
INT64 = 1 << 63
INT32 = 1 << 31


class Fields:
    """The fields of one record (a frame's header or an object inside it)."""

    def __init__(self, record: Any, what: str) -> None:
        if type(record) is not dict:
            raise WireError(f"{what} is not an object")
        self.left: dict[str, Any] = dict(record)
        self.what = what

    @classmethod
    def frame(cls, header: Any, kind: str) -> "Fields":
        """A frame's header: its ``type`` names the kind being decoded."""
        f = cls(header, kind)
        if f.left.pop("type", None) != kind:
            raise WireError(f"a frame decoded as {kind} is not one")
        return f

    def _refuse(self, key: str, why: str) -> WireError:
        return WireError(f"{self.what}: {key} {why}")

    def _take(self, key: str) -> Any:
        if self.left.get(key) is None:
            raise self._refuse(key, "is missing")
        return self.left.pop(key)

    def present(self, key: str) -> bool:
        """Whether an optional field holds a value; an absent field and a null are alike."""
        if key in self.left and self.left[key] is None:
            del self.left[key]
        return key in self.left

    def text(self, key: str, cap: int | None = None) -> str:
        value = self._take(key)
        if type(value) is not str:
            raise self._refuse(key, "is not text")
        return value if cap is None else value[:cap]

    def choice(self, key: str, options: tuple[_Choice, ...]) -> _Choice:
        value = self._take(key)
        if type(value) is not str or value not in options:
            raise self._refuse(key, "is not one of the protocol's values")
        return value

    def whole(self, key: str, low: int = 0, high: int = INT64) -> int:
        value = self._take(key)
        if type(value) is not int or not low <= value < high:
            raise self._refuse(key, "is not a whole number in range")
        return value

    def number(self, key: str) -> float:
        value = self._take(key)
        if type(value) not in (int, float) or not math.isfinite(value):
            raise self._refuse(key, "is not a finite number")
        return float(value)

    def flag(self, key: str) -> bool:
        value = self._take(key)
        if type(value) is not bool:
            raise self._refuse(key, "is not true or false")
        return value

    def record(self, key: str) -> "Fields":
        return Fields(self._take(key), f"{self.what}.{key}")

    def items(self, key: str, cap: int) -> list[Any]:
        """A list of at most ``cap`` items (an empty list may be sent, so it is no null)."""
        value = self.left.pop(key, None)
        if type(value) is not list or len(value) > cap:
            raise self._refuse(key, f"is not a list of at most {cap} items")
        return value

    def mapping(self, key: str, cap: int, key_cap: int) -> dict[str, Any]:
        """An object of at most ``cap`` entries whose keys are at most ``key_cap`` long."""
        value = self.left.pop(key, None)
        if type(value) is not dict or len(value) > cap or any(len(k) > key_cap for k in value):
            raise self._refuse(key, f"is not an object of at most {cap} entries")
        return value

    def end(self) -> None:
        if self.left:
            raise WireError(f"{self.what} has a field the protocol does not define")


def texts(values: list[Any], what: str, cap: int) -> tuple[str, ...]:
    """A list of names, each text of at most ``cap`` characters."""
    if not all(type(v) is str and len(v) <= cap for v in values):
        raise WireError(f"{what} holds something other than names")
    return tuple(values)


def no_blob(blob: bytes, what: str) -> None:
    if blob:
        raise WireError(f"{what} carries data it does not describe")
