"""``grader validate --mutants``, the mutation analysis of a problem's test suite:
``ops`` writes every first-order mutant of the reference as one schema (pure AST work),
``worker`` runs them under ``jax.jit`` in a trusted process of its own (the judge never
imports JAX), ``client`` is the judge's side of that process, ``search`` looks for an
input that tells a surviving mutant from the oracle, and ``analysis`` grades the mutants,
turns them into findings and prints the table.

The names of ``analysis`` that the rest of the judge uses are re-exported here and
imported on first use (PEP 562), so that the worker, started as
``python -m grader.authoring.mutation.worker``, imports only what it runs."""
_ANALYSIS = ("MUTATION_CHECKS", "Analysis", "MutationSession", "MutantResult", "findings", "print_finding",
             "print_table", "table_rows")
__all__ = list(_ANALYSIS)


def __getattr__(name: str):
    if name in _ANALYSIS:
        from . import analysis

        return getattr(analysis, name)
    raise AttributeError(f"module 'grader.authoring.mutation' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_ANALYSIS})
