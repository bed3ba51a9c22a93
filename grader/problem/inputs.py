"""Case inputs: checked against the metadata's constraints, then typed for the child.

The validator is driven by the ``[inputs]`` and ``[dims]`` tables alone, so a
new problem gets input validation without code.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..common.dtypes import numpy_dtype
from ..common.trees import dotted, get_path, set_path
from .meta import InputLeaf, Meta


class InputError(Exception):
    """What breaks the constraints: ``faults``, each a field and what is wrong with it
    (the fields in the order the inputs are declared, then the unknown ones); ``field``
    names the first. The message names every fault, "; " between them, so that a
    learner fixes them all at once instead of meeting them one send at a time."""

    def __init__(self, field: str, message: str, *more: tuple[str, str]):
        self.faults = [(field, message), *more]
        self.field = field
        super().__init__("; ".join(f"input '{f}': {m}" for f, m in self.faults))


def _together(errors: list[InputError]) -> InputError:
    pairs = [pair for e in errors for pair in e.faults]
    return InputError(*pairs[0], *pairs[1:])


@dataclass(frozen=True)
class JaxInput:
    """An array the child must hand over as a JAX array."""

    array: np.ndarray


def _float32_ok(arr: np.ndarray) -> bool:
    return bool(np.all(np.abs(arr) <= np.finfo(np.float32).max))


def _leaf_value(leaf: InputLeaf, raw: Any, name: str) -> np.ndarray | float | int:
    """The leaf's value, or InputError when it is not a value of its kind at all (its range
    and shape are checked apart, so that a value both too large and of the wrong size says both)."""
    if leaf.kind == "int":
        if type(raw) is not int:
            raise InputError(name, f"must be an integer, got {type(raw).__name__}")
        value: Any = raw
    elif leaf.kind == "float":
        if type(raw) not in (int, float):
            raise InputError(name, f"must be a number, got {type(raw).__name__}")
        value = float(raw)
        if not math.isfinite(value):
            raise InputError(name, "must be finite")
    else:
        try:
            value = np.asarray(raw, dtype=np.float64 if leaf.dtype and "float" in leaf.dtype else None)
        except (ValueError, TypeError) as exc:
            raise InputError(name, f"is not a rectangular numeric array ({exc})") from None
        if value.dtype == object or value.dtype.kind not in "biuf":
            raise InputError(name, "is not a rectangular numeric array")
        if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            raise InputError(name, "holds NaN or infinite values")
        if leaf.dtype and "float" in leaf.dtype and not _float32_ok(value):
            raise InputError(name, f"holds values outside the {leaf.dtype} range")
        if leaf.dtype and leaf.dtype.startswith(("int", "uint")):
            if value.dtype.kind == "f" or (value.size and (value.min() < np.iinfo(leaf.dtype).min
                                                             or value.max() > np.iinfo(leaf.dtype).max)):
                raise InputError(name, f"must hold {leaf.dtype} integers")
    return value


def _range_faults(leaf: InputLeaf, value: np.ndarray | float | int, name: str) -> list[InputError]:
    lo, hi = leaf.min, leaf.max
    arr = np.asarray(value)
    faults = []
    if arr.size and lo is not None and arr.min() < lo:
        faults.append(InputError(name, f"has a value {arr.min():g} below the minimum {lo:g}"))
    if arr.size and hi is not None and arr.max() > hi:
        faults.append(InputError(name, f"has a value {arr.max():g} above the maximum {hi:g}"))
    return faults


def _bind(leaf: InputLeaf, shape: tuple[int, ...], dims: dict[str, int], meta: Meta, name: str) -> None:
    if len(shape) != len(leaf.shape):
        want = "(" + ", ".join(str(d) for d in leaf.shape) + ")"
        raise InputError(name, f"has shape {shape}, expected {want}")
    for size, dim in zip(shape, leaf.shape):
        if isinstance(dim, int):
            if size != dim:
                raise InputError(name, f"has shape {shape}, expected size {dim} on one axis")
            continue
        lo, hi = meta.dims[dim]
        if dim in dims and dims[dim] != size:
            raise InputError(name, f"has {dim}={size}, but another input has {dim}={dims[dim]}")
        if not lo <= size <= hi:
            raise InputError(name, f"has {dim}={size}, outside the allowed {lo}..{hi}")
        dims[dim] = size


def check_input(meta: Meta, raw: Any) -> None:
    """Raise InputError naming every offending field of ``raw``."""
    input_dims(meta, raw)


def input_dims(meta: Meta, raw: Any) -> dict[str, int]:
    """The dims ``raw`` binds (``{"B": 4, "D": 3}``), once it is checked against the
    problem's constraints; InputError names every offending field."""
    if not isinstance(raw, dict):
        raise InputError("<root>", "the input must be a JSON object keyed by argument name")
    not_objects: dict[tuple[str, ...], InputError] = {}
    unknown = _no_extra(meta.input_tree, raw, (), not_objects)
    faults: list[InputError] = []
    dims: dict[str, int] = {}
    for leaf in meta.inputs:
        name = dotted(leaf.path)
        group = next((g for g in not_objects if leaf.path[:len(g)] == g), None)
        if group is not None:  # said once, for the group, not for each input in it
            if not_objects[group] not in faults:
                faults.append(not_objects[group])
            continue
        try:
            raw_leaf = get_path(raw, leaf.path)
        except (KeyError, TypeError):
            faults.append(InputError(name, "is missing"))
            continue
        try:
            value = _leaf_value(leaf, raw_leaf, name)
        except InputError as exc:
            faults.append(exc)
            continue
        faults += _range_faults(leaf, value, name)
        try:
            _bind(leaf, np.shape(value) if leaf.kind == "array" else (), dims, meta, name)
        except InputError as exc:
            faults.append(exc)
    if faults or unknown:
        raise _together(faults + unknown)
    return dims


def _no_extra(spec: dict, raw: Any, prefix: tuple[str, ...],
              not_objects: dict[tuple[str, ...], InputError]) -> list[InputError]:
    """The keys of ``raw`` that name no input; a group of inputs that is not an object
    goes into ``not_objects`` (by its path)."""
    if not isinstance(raw, dict):
        return []
    unknown = []
    for key, value in raw.items():
        path = prefix + (key,)
        if key not in spec:
            unknown.append(InputError(dotted(path), "is not an input of this problem"))
            continue
        sub = spec[key]
        if isinstance(sub, dict) and "kind" not in sub:
            if isinstance(value, dict):
                unknown += _no_extra(sub, value, path, not_objects)
            else:
                not_objects[path] = InputError(dotted(path), "must be an object")
    return unknown


def typed_input(meta: Meta, raw: Any) -> dict:
    """The input as the child receives it: arrays in their declared dtype as JaxInput."""
    out: dict = {}
    for leaf in meta.inputs:
        value = get_path(raw, leaf.path)
        if leaf.kind == "array":
            value = JaxInput(np.asarray(value, dtype=numpy_dtype(leaf.dtype or "float32")))
        elif leaf.kind == "float":
            value = float(value)
        set_path(out, leaf.path, value)
    return out


def canonical(meta: Meta, raw: Any) -> str:
    """A stable text form of an input in its declared dtypes, to spot duplicate cases."""
    import json

    def plain(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: plain(x) for k, x in sorted(v.items())}
        if isinstance(v, JaxInput):
            return [str(v.array.dtype), list(v.array.shape), v.array.ravel().tolist()]
        return v

    return json.dumps(plain(typed_input(meta, raw)), sort_keys=True)


def resized(meta: Meta, raw: Any, dim: str, size: int) -> dict:
    """``raw`` with every axis labelled ``dim`` cycled or cut to ``size`` (values stay valid)."""
    import copy

    out = copy.deepcopy(raw)
    for leaf in meta.inputs:
        if dim not in leaf.shape:
            continue
        arr = np.asarray(get_path(raw, leaf.path))
        for axis, name in enumerate(leaf.shape):
            if name == dim:
                arr = np.take(arr, np.arange(size) % arr.shape[axis], axis=axis)
        set_path(out, leaf.path, arr.tolist())
    return out
