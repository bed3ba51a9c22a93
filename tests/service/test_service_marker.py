"""Every test under tests/service/ is marked ``service`` (tests/service/conftest.py), so
``pytest -m "not service"`` runs the judge's tests alone."""
from __future__ import annotations


def test_a_service_test_carries_the_service_marker(request):
    assert request.node.get_closest_marker("service") is not None
