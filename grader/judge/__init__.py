"""The trusted judge: the pipeline and its stages in the order ``pipeline`` runs them
(``submission`` -> ``static_checks`` -> ``request`` -> sandbox run -> ``output_checks``
for each case -> ``runtime_checks`` (with ``probe_checks``) -> ``verdict`` ->
``feedback``). Every comparison happens here, on decoded data, never in the child."""
