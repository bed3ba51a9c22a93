"""Code that runs inside the locked-down child, beside submission objects.

Everything in this package may meet hostile objects: the submission's module,
its functions and whatever they return. It never sees an expected output and
imports nothing of the judge, the reports or the problems (import-linter holds
this); it only speaks the wire protocol back to the judge.
"""
