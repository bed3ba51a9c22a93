"""Small shared pieces every layer may use: atomic writes, dotted-path trees,
strict-JSON conversion and the verdict vocabulary. Imports nothing else of the judge."""
