"""Tools for problem authors, all trusted, behind the commands in ``commands``:
``validate`` (prove a problem sound, with its checks in ``box_check``,
``editorial_check``, ``grading_checks``, ``oracle_checks`` and ``statement``, on the
``context`` they share), ``mutation`` (``validate --mutants``), ``cases`` (add-case,
generate), ``scaffold`` (``grader new``) and ``warm`` (build a problem's tables ahead
of grading)."""
