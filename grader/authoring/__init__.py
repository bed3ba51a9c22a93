"""Tools for problem authors, all trusted: ``validate`` (prove a problem sound),
``cases`` (add-case, generate), ``scaffold`` (a new problem folder)."""
