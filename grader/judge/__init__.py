"""The trusted judge: the pipeline and its stages in the order they run
(``submission`` -> ``static_checks`` -> ``request`` -> sandbox run ->
``runtime_checks`` -> ``output_checks`` -> ``verdict`` -> ``feedback``), chained by
``pipeline``. Every comparison happens here, on decoded data, never in the child."""
