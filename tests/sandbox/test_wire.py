"""The result channel: what a hostile child can send is decoded safely or refused."""
import io
import json
import struct

import numpy as np
import pytest

from grader.sandbox import wire


def frame(header: dict, blob: bytes = b"") -> io.BytesIO:
    buf = io.BytesIO()
    wire.write_frame(buf, header, blob)
    buf.seek(0)
    return buf


def test_roundtrip_keeps_classes_dtypes_and_shapes():
    tree = {"a": [1, 2.5, True, None], "b": (np.zeros((2, 3), np.float32),), "c": np.float16(1.5)}
    node, blob = wire.encode_tree(tree)
    out = wire.decode_tree(node, blob)
    assert out["a"][0].cls == "int" and out["a"][0].array.item() == 1
    assert out["a"][1].cls == "float" and out["a"][2].cls == "bool" and out["a"][3] is None
    assert isinstance(out["b"], tuple) and out["b"][0].array.shape == (2, 3) and out["b"][0].dtype == "float32"
    assert out["c"].cls == "npscalar" and out["c"].dtype == "float16"


def test_subclasses_and_foreign_objects_become_opaque():
    class D(dict):
        pass

    node, blob = wire.encode_tree({"x": D(a=1), "y": object()})
    out = wire.decode_tree(node, blob)
    assert isinstance(out["x"], wire.Opaque) and isinstance(out["y"], wire.Opaque)


@pytest.mark.parametrize("node, why", [
    ({"t": "array", "cls": "jax", "dtype": "object", "shape": [1], "off": 0, "n": 8}, "dtype"),
    ({"t": "array", "cls": "jax", "dtype": "float32", "shape": [2**40], "off": 0, "n": 8}, "shape"),
    ({"t": "array", "cls": "jax", "dtype": "float32", "shape": [4], "off": 0, "n": 8}, "size"),
    ({"t": "array", "cls": "jax", "dtype": "float32", "shape": [2], "off": 4, "n": 8}, "bounds"),
    ({"t": "array", "cls": "evil", "dtype": "float32", "shape": [2], "off": 0, "n": 8}, "class"),
    ({"t": "pickle", "data": "gASV"}, "kind"),
    ({"t": "dict", "items": [["a", {"t": "none"}], ["a", {"t": "none"}]]}, "duplicate"),
    ("not a node", "malformed"),
])
def test_decoder_rejects_malformed_trees(node, why):
    with pytest.raises(wire.WireError):
        wire.decode_tree(node, b"\0" * 8)


def test_decoder_rejects_deep_nesting():
    node = {"t": "none"}
    for _ in range(wire.MAX_DEPTH + 5):
        node = {"t": "list", "items": [node]}
    with pytest.raises(wire.WireError):
        wire.decode_tree(node, b"")


def test_decoder_accepts_32_nested_containers_and_refuses_33():
    # The bounds SECURITY.md states, spelled out rather than read from wire.MAX_DEPTH/MAX_NODES.
    def nested(levels: int) -> dict:
        node = {"t": "none"}
        for _ in range(levels):
            node = {"t": "list", "items": [node]}
        return node

    assert wire.decode_tree(nested(32), b"") is not None
    with pytest.raises(wire.WireError, match="too deeply"):
        wire.decode_tree(nested(33), b"")


def test_decoder_accepts_20000_nodes_and_refuses_20001():
    def flat(nodes: int) -> dict:  # one list node holding nodes - 1 leaves
        return {"t": "list", "items": [{"t": "none"}] * (nodes - 1)}

    assert len(wire.decode_tree(flat(20_000), b"")) == 19_999
    with pytest.raises(wire.WireError, match="too many nodes"):
        wire.decode_tree(flat(20_001), b"")
    # 1 dict + 10000 tuples + 10000 leaves: containers count as nodes, not only leaves.
    wide = {"t": "dict", "items": [[f"k{i}", {"t": "tuple", "items": [{"t": "none"}]}] for i in range(10_000)]}
    with pytest.raises(wire.WireError, match="too many nodes"):
        wire.decode_tree(wide, b"")


def test_encoder_caps_output_size():
    with pytest.raises(wire.TooLarge):
        wire.Packer(1000).encode(np.zeros(1000, np.float32))


def test_frames_are_capped_and_checked():
    with pytest.raises(wire.TooLarge):
        wire.read_frame(frame({"type": "x"}, b"\0" * 100), max_bytes=50)
    bad = io.BytesIO(struct.pack(">4sIQ", b"EVIL", 2, 0) + b"{}")
    with pytest.raises(wire.WireError):
        wire.read_frame(bad, 1000)
    notobj = io.BytesIO(struct.pack(">4sIQ", wire.MAGIC, 2, 0) + b"[]")
    with pytest.raises(wire.WireError):
        wire.read_frame(notobj, 1000)
    with pytest.raises(EOFError):
        wire.read_frame(io.BytesIO(b""), 1000)
    header, blob = wire.read_frame(frame({"type": "ok"}, b"abc"), 1000)
    assert header == {"type": "ok"} and blob == b"abc"


def test_json_form_of_non_finite_values():
    node, blob = wire.encode_tree(np.array([np.nan, np.inf, -np.inf, 1.0]))
    plain = wire.to_plain(wire.decode_tree(node, blob))
    assert plain == ["NaN", "Infinity", "-Infinity", 1.0]
    json.dumps(plain, allow_nan=False)
