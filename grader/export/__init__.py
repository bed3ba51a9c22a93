"""Bundles that take a problem and the judge where courses grade: ``grader export
gradescope`` writes an autograder zip for Gradescope (``gradescope``), whose
``run_autograder`` runs ``run_gradescope`` inside Gradescope's container."""
