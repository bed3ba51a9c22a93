"""Small helpers for nested dict trees addressed by dotted paths (``grads.w``)."""
from __future__ import annotations

from typing import Any, Callable

Path_ = tuple[str, ...]


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


def get_path(tree: Any, path: Path_) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def set_path(tree: dict, path: Path_, value: Any) -> None:
    for key in path[:-1]:
        tree = tree.setdefault(key, {})
    tree[path[-1]] = value


def dotted(path: Path_) -> str:
    return ".".join(path) if path else "<root>"
