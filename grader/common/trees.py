"""Nested dict trees addressed by dotted paths (``grads.w``): one walker for all."""
from __future__ import annotations

from typing import Any, Callable

Path_ = tuple[str, ...]
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()  # a default marking absence
_RAISE: Any = object()


def flatten_spec(tree: dict, is_leaf: Callable[[dict], bool], prefix: Path_ = ()) -> list[tuple[Path_, dict]]:
    """Walk a TOML table tree; a sub-table for which ``is_leaf`` holds is a leaf spec."""
    out: list[tuple[Path_, dict]] = []
    for key, value in tree.items():
        path = prefix + (key,)
        if not isinstance(value, dict):
            raise ValueError(f"'{'.'.join(path)}' must be a table")
        if is_leaf(value):
            out.append((path, value))
        else:
            if not value:
                raise ValueError(f"'{'.'.join(path)}' is an empty table")
            out.extend(flatten_spec(value, is_leaf, path))
    return out


def get_path(tree: Any, path: Path_, default: Any = _RAISE) -> Any:
    """The node at ``path``. Where a key is absent or a node on the way is not a dict,
    ``default`` if one was given, else KeyError naming the path."""
    for key in path:
        if not isinstance(tree, dict) or key not in tree:
            if default is _RAISE:
                raise KeyError(dotted(path))
            return default
        tree = tree[key]
    return tree


def set_path(tree: dict, path: Path_, value: Any) -> None:
    for key in path[:-1]:
        tree = tree.setdefault(key, {})
    tree[path[-1]] = value


def dotted(path: Path_) -> str:
    return ".".join(path) if path else "<root>"
