"""Problems, trusted data: metadata, inputs and their constraints, cases, the
catalogue, the example-submission corpus and the author's own modules (oracles,
generator). Nothing here runs submission code or knows how outputs are judged."""
from .cases import VISIBILITIES, Case, Problem, load_problem, read_case
from .catalogue import (
           all_problem_ids,
           find_problem,
           problem_folder,
           problems_root,
           search_path,
)
from .meta import NAME_RE, Limits, Meta, OutputLeaf, ProblemError, Requirements

__all__ = ["VISIBILITIES", "Case", "Problem", "load_problem", "read_case", "all_problem_ids", "find_problem",
           "problem_folder", "problems_root", "search_path", "NAME_RE", "Limits", "Meta", "OutputLeaf",
           "ProblemError", "Requirements"]
