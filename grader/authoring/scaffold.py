"""``grader new``: a problem folder to start from. It parses and runs; ``grader
validate`` then lists what is still missing (cases, examples, submissions). Its
editorial.md is a skeleton that ``validate`` warns about until the line holding
``EDITORIAL_TEMPLATE_MARK`` is gone: a forgotten template would reach learners."""
from __future__ import annotations

from pathlib import Path

EDITORIAL_TEMPLATE_MARK = "This editorial is still the template of `grader new`"

FILES = {
    "problem.toml": '''title = "{title}"
difficulty = "easy"
tags = ["jax"]

[entry]
name = "solve"
args = ["x"]

[limits]
time_seconds = 10.0
load_seconds = 10.0
memory_mb = 1024
output_kb = 64

[requirements]
calls = ["jax.grad"]
# nest = [["jax.vmap", "jax.grad"]]   # vmap applied to a function that calls grad
# depends = ["y"]                     # outputs that must come from the nested transform
# forbid = ["jax.hessian"]

[dims]
N = [1, 8]

[inputs.x]
kind = "array"
dtype = "float32"
shape = ["N"]
min = -10.0
max = 10.0

[outputs.y]
dtype = "float32"
shape = ["N"]
atol = 1e-6
rtol = 1e-5

[oracles]
functions = ["oracle"]
''',
    "statement.md": '''# {title}

Describe the task in your own words: inputs, outputs (dtype and shape), requirements.

## Examples

**Example 1**

    x = [1.0, 2.0]

    y = [2.0, 4.0]
''',
    "reference.py": '''import jax
import jax.numpy as jnp


def solve(x):
    # Replace with the real reference. This one returns the gradient of sum(x**2).
    return {{"y": jax.grad(lambda v: jnp.sum(v ** 2))(x)}}
''',
    "oracle.py": '''"""Independent float64 NumPy implementation: no JAX."""
import numpy as np


def oracle(x):
    return {{"y": 2.0 * np.asarray(x, dtype=np.float64)}}
''',
    "editorial.md": '''# {title}: editorial

*This editorial is still the template of `grader new`: `grader validate` warns until this line is gone.*

Learners read this once a Submit of theirs is accepted. Keep it short.

## The idea

The insight that solves the problem, in a few sentences.

## The key JAX calls

- `jax.grad(loss)`: what it differentiates, and with respect to what.

## Pitfalls

- The mistakes the files under `submissions/<problem>/wrong_answer/` make, and how to avoid them.

## Complexity

Time and memory in terms of the dims of problem.toml.
''',
    "generator.py": '''import numpy as np


def generate(rng: np.random.Generator, index: int) -> dict:
    n = 1 + index % 8
    return {{"x": rng.uniform(-10, 10, size=n).astype(np.float32).tolist()}}
''',
}


def scaffold(root: Path, problem_id: str) -> Path:
    folder = root / problem_id
    if folder.exists():
        raise FileExistsError(f"{folder} exists already")
    title = problem_id.replace("_", " ").capitalize()
    for sub in ("cases/public", "cases/hidden"):
        (folder / sub).mkdir(parents=True)
    for name, text in FILES.items():
        (folder / name).write_text(text.format(title=title))
    return folder
