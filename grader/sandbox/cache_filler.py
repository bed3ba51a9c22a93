"""The trusted cache filler (see ``xla_cache``), run as its own process:
``python -m grader.sandbox.cache_filler PROBLEM_DIR CACHE_DIR``. It runs the
problem's reference eagerly on every case, with XLA's persistent cache writable."""
from __future__ import annotations

import sys
from pathlib import Path


def main(problem_dir: str, root: str) -> None:
    import jax

    from ..problem import load_problem
    from ..problem.inputs import typed_input
    from ..problem.modules import load_module
    from . import wire
    from .child.runner import to_jax
    from .request import encode_inputs

    jax.config.update("jax_compilation_cache_dir", root)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    problem = load_problem(Path(problem_dir))
    fn = getattr(load_module(problem.reference_path, f"{problem.id}_fill"), problem.meta.entry.name)
    # The inputs exactly as a child receives them: the same encoding, dtypes and device_put.
    nodes, blob = encode_inputs([typed_input(problem.meta, case.input) for case in problem.cases])
    for node in nodes:
        values = to_jax(wire.decode_tree(node, blob))
        jax.block_until_ready(fn(*[values[name] for name in problem.meta.entry.args]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
