"""Similar submissions of one problem (``grader similar``): a report that ranks pairs of
learners' submissions by shared code, as MOSS, JPlag and Gradescope give instructors. It is for
a person to read, never a verdict.

``tokens`` normalises a source (identifiers, literals, layout, comments and docstrings stop
mattering; top-level units are kept apart, so reordering functions does not either);
``fingerprint`` hashes k-grams of tokens and winnows them (the MOSS algorithm); ``compare``
drops the starter's and the most common fingerprints, ranks the pairs and chains their shared
fingerprints into matching regions; ``sources`` reads the compared folder; ``starter`` gathers
the code learners were given; ``render`` prints the report; ``align`` lays a region out as
rows of line pairs (the service's page). Hand-written rather than built on
``copydetect``: that library needs matplotlib and numpy, renames library names too (``jnp.sum``
and ``x.sum`` look alike) and maps matches to characters rather than lines. Pure Python: no JAX.
"""
from __future__ import annotations

from .compare import compare, document, regions
from .model import SCORES, Match, Pair, Report, Score, Skipped, Source, SourceSet
from .sources import load_folder
from .starter import starter_texts

__all__ = ["compare", "document", "regions", "SCORES", "Match", "Pair", "Report", "Score", "Skipped", "Source",
           "SourceSet", "load_folder", "starter_texts"]
