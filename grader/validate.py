"""Placeholder: filled in by the validation work."""


def wrong_answers_caught(problem, names):
    return None
