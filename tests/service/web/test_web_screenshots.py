"""The browser walks' screenshots: tracked copies change only when asked for."""
from __future__ import annotations

from browser_support import REGENERATE, SHOTS, shot


def test_a_walks_screenshot_goes_to_a_scratch_folder_unless_regeneration_is_asked(monkeypatch):
    monkeypatch.delenv(REGENERATE, raising=False)
    assert SHOTS not in shot("problem.png").parents
    monkeypatch.setenv(REGENERATE, "1")
    assert shot("problem.png") == SHOTS / "problem.png"
