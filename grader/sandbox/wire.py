"""The pickle-free channel between the trusted judge and the sandboxed child.

A frame is ``MAGIC | u32 header length | u64 blob length | header JSON | blob``.
Trees of arrays travel as JSON nodes that point into the blob by offset and
length, with dtype and shape spelled out. The decoder trusts nothing: it caps
sizes, depth and node counts, and accepts only plain numeric dtypes, so the
worst a hostile child can send is a malformed frame (a clean ``WireError``).
"""
from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import IO, Any, Callable

import numpy as np

from ..common.dtypes import numpy_dtype
from ..common.jsonsafe import json_safe

MAGIC = b"JXJ1"
# The one definition of a frame's fixed head; the zygote parses its child's frames with it too.
HEAD = struct.Struct(">4sIQ")
MAX_DEPTH = 32
MAX_NODES = 20_000
MAX_NDIM = 8
MAX_KEY = 256
MAX_EXPANSION = 1 << 24  # elements plus the lists holding them, per array (see ``expansion``)
PLAIN_LIMIT = 1 << 16  # larger arrays are described, not spelled out, in reports

_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "bfloat16", "float32", "float64", "complex64", "complex128")
# Leaf classes a child may claim. The judge compares these, never the objects.
LEAF_CLASSES = ("jax", "numpy", "npscalar", "float", "int", "bool")


class WireError(Exception):
    """A frame or tree that breaks the protocol."""


class TooLarge(WireError):
    """A frame over the size cap: the child produced too much output."""


def dtype_of(name: str) -> np.dtype:
    if name not in _DTYPES:
        raise WireError(f"dtype {name!r} is not allowed on the wire")
    return numpy_dtype(name)


@dataclass(frozen=True)
class Leaf:
    """A numeric leaf as the child described it: its claimed class and the data."""

    cls: str
    array: np.ndarray

    @property
    def dtype(self) -> str:
        return str(self.array.dtype)


@dataclass(frozen=True)
class Opaque:
    """Anything that is not a plain container or number, known only by its type name."""

    type_name: str


# ------------------------------------------------------------------ frames

def write_frame(out: IO[bytes], header: dict, blob: bytes = b"") -> None:
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    out.write(HEAD.pack(MAGIC, len(head), len(blob)) + head + blob)
    out.flush()


def _read_exact(stream: IO[bytes], n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = stream.read(min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("stream closed mid-frame" if got else "stream closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(stream: IO[bytes], max_bytes: int,
               cap_of: Callable[[dict], int] | None = None) -> tuple[dict, bytes]:
    """Read one frame; EOFError at a clean end, WireError/TooLarge on garbage. ``cap_of``
    gives the cap of the frame its header describes (it may refuse the header outright),
    checked before the blob is read."""
    raw = stream.read(HEAD.size)
    if not raw:
        raise EOFError("stream closed")
    raw += _read_exact(stream, HEAD.size - len(raw)) if len(raw) < HEAD.size else b""
    magic, head_len, blob_len = HEAD.unpack(raw)
    if magic != MAGIC:
        raise WireError("bad frame magic")
    if head_len + blob_len > max_bytes:
        raise TooLarge(f"frame of {head_len + blob_len} bytes exceeds the cap of {max_bytes}")
    try:
        header = json.loads(_read_exact(stream, head_len))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # ValueError: also an int of 5000 digits
        raise WireError(f"bad frame header: {exc}") from None
    if not isinstance(header, dict):
        raise WireError("frame header is not an object")
    if cap_of is not None and head_len + blob_len > (cap := cap_of(header)):
        raise TooLarge(f"frame of {head_len + blob_len} bytes exceeds its kind's cap of {cap}")
    return header, _read_exact(stream, blob_len)


# ---------------------------------------------------------------- encoding

class Packer:
    """Turns a tree into JSON nodes plus one blob. ``classify`` names array types
    (the child passes one that knows JAX; the judge does not need to import it)."""

    def __init__(self, max_bytes: int, classify: Callable[[Any], tuple[str, np.ndarray] | None] | None = None):
        self.parts: list[bytes] = []
        self.size = 0
        self.nodes = 0
        self.max_bytes = max_bytes
        self.classify = classify

    def blob(self) -> bytes:
        return b"".join(self.parts)

    def _array(self, cls: str, arr: np.ndarray) -> dict:
        name = "bfloat16" if arr.dtype.name == "bfloat16" else arr.dtype.name
        if name not in _DTYPES or arr.ndim > MAX_NDIM:
            return {"t": "other", "type": f"array of {name}"[:100]}
        data = np.ascontiguousarray(arr).tobytes()
        if self.size + len(data) > self.max_bytes:
            raise TooLarge(f"output exceeds {self.max_bytes} bytes")
        node = {"t": "array", "cls": cls, "dtype": name, "shape": list(arr.shape), "off": self.size, "n": len(data)}
        self.parts.append(data)
        self.size += len(data)
        return node

    def encode(self, obj: Any, depth: int = 0) -> dict:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise TooLarge("output nests too deeply or has too many parts")
        t = type(obj)  # exact types only: a subclass could lie about itself
        if obj is None:
            return {"t": "none"}
        if t is bool:
            return self._array("bool", np.asarray(obj))
        if t is int:
            if not -(2**63) <= obj < 2**63:
                return {"t": "other", "type": "int (out of int64 range)"}
            return self._array("int", np.asarray(obj, dtype=np.int64))
        if t is float:
            return self._array("float", np.asarray(obj, dtype=np.float64))
        if t is dict:
            items = []
            for key, value in obj.items():
                if type(key) is not str or len(key) > MAX_KEY:
                    return {"t": "other", "type": "dict with non-string keys"}
                items.append([key, self.encode(value, depth + 1)])
            return {"t": "dict", "items": items}
        if t is list or t is tuple:
            return {"t": t.__name__, "items": [self.encode(v, depth + 1) for v in obj]}
        if t is np.ndarray:
            return self._array("numpy", obj)
        if isinstance(obj, np.generic) and t.__module__ in ("numpy", "ml_dtypes"):
            return self._array("npscalar", np.asarray(obj))
        if self.classify is not None:
            found = self.classify(obj)
            if found is not None:
                return self._array(*found)
        return {"t": "other", "type": f"{t.__module__}.{t.__qualname__}"[:100]}


def encode_tree(obj: Any, max_bytes: int = 1 << 30) -> tuple[dict, bytes]:
    packer = Packer(max_bytes)
    node = packer.encode(obj)
    return node, packer.blob()


# ---------------------------------------------------------------- decoding

class Unpacker:
    def __init__(self, blob: bytes):
        self.blob = blob
        self.nodes = 0

    def decode(self, node: Any, depth: int = 0) -> Any:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise WireError("tree nests too deeply or has too many nodes")
        if not isinstance(node, dict) or not isinstance(node.get("t"), str):
            raise WireError("malformed tree node")
        kind = node["t"]
        if kind == "none":
            return None
        if kind == "dict":
            out: dict[str, Any] = {}
            for pair in self._items(node):
                is_pair = isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                if not is_pair or len(pair[0]) > MAX_KEY:
                    raise WireError("malformed dict item")
                if pair[0] in out:
                    raise WireError("duplicate dict key")
                out[pair[0]] = self.decode(pair[1], depth + 1)
            return out
        if kind in ("list", "tuple"):
            items = [self.decode(v, depth + 1) for v in self._items(node)]
            return items if kind == "list" else tuple(items)
        if kind == "array":
            return self._leaf(node)
        if kind == "other":
            return Opaque(str(node.get("type", "?"))[:100])
        raise WireError(f"unknown node kind {kind[:20]!r}")

    @staticmethod
    def _items(node: dict) -> list:
        items = node.get("items")
        if not isinstance(items, list):
            raise WireError("container without items")
        return items

    def _leaf(self, node: dict) -> Leaf:
        cls, shape, off, n = node.get("cls"), node.get("shape"), node.get("off"), node.get("n")
        if cls not in LEAF_CLASSES:
            raise WireError("unknown array class")
        name = node.get("dtype")
        dtype = dtype_of(name if isinstance(name, str) else "?")
        if not (isinstance(shape, list) and len(shape) <= MAX_NDIM
                and all(type(d) is int and 0 <= d < 2**31 for d in shape)):
            raise WireError("bad array shape")
        if not (type(off) is int and type(n) is int and 0 <= off and 0 <= n and off + n <= len(self.blob)):
            raise WireError("array data out of bounds")
        if math.prod(shape) * dtype.itemsize != n:
            raise WireError("array size does not match its shape and dtype")
        if expansion(shape) > MAX_EXPANSION:
            raise WireError("array shape too large to describe")
        arr = np.frombuffer(self.blob, dtype=dtype, count=math.prod(shape), offset=off).reshape(shape).copy()
        return Leaf(cls, arr)


def decode_tree(node: Any, blob: bytes) -> Any:
    return Unpacker(blob).decode(node)


def expansion(shape: tuple[int, ...] | list[int]) -> int:
    """How many Python objects an array of this shape becomes as nested lists: its
    elements and every list on the way (a zero-sized axis still costs its lists)."""
    total, lists = 0, 1
    for dim in shape:
        lists *= dim
        total += lists
    return total


def to_plain(tree: Any) -> Any:
    """A decoded tree as plain strict-JSON data (numbers and nested lists)."""
    if isinstance(tree, dict):
        return {k: to_plain(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [to_plain(v) for v in tree]
    if isinstance(tree, Leaf):
        if expansion(tree.array.shape) > PLAIN_LIMIT:  # e.g. shape (2**22, 0): no data, millions of lists
            return f"<{tree.dtype} array of shape {tuple(tree.array.shape)}>"
        return json_safe(tree.array.astype(np.float64).tolist() if tree.array.dtype.name == "bfloat16"
                         else tree.array.tolist())
    if isinstance(tree, Opaque):
        return f"<{tree.type_name}>"
    return tree
