"""The export's tests that build the wheel from a clean copy of the checkout and install
it into a fresh virtual environment (the ``installed``, ``autograder`` and ``served``
fixtures) are marked ``packaging`` and ``slow``: a quarter to half a minute of setup each
module (``served``, which installs the ``serve`` extra's packages from the index, minutes)."""
from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
BUILDS = {"installed", "autograder", "served", "stripped_install"}


def pytest_collection_modifyitems(config, items):
    # Called with every item of the session, whichever conftest.py defines it: only this folder's.
    for item in items:
        if item.path.is_relative_to(HERE) and BUILDS & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.packaging)
            item.add_marker(pytest.mark.slow)
