"""The build's one hook (``[tool.setuptools.cmdclass]`` in pyproject.toml names it); it
runs in the build, never in the judge.

With ``JAXJUDGE_WITHOUT_HIDDEN=1`` in the environment, the wheel holds no problem's
hidden cases (``cases/hidden/*.json``), nor the tables built from them (``_tables``,
see ``judge.tables``): each problem keeps only its plan,
``cases/hidden.plan.json`` (the hidden cases' ids and recipes, no inputs or outputs), which
is all ``grader suite draw`` needs. For a deployment that grades with a secret suite.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from setuptools.command.build_py import build_py


def _without_hidden() -> bool:
    return os.environ.get("JAXJUDGE_WITHOUT_HIDDEN", "").strip() not in ("", "0")


def _is_hidden_case(name: str) -> bool:
    parts = Path(name).parts
    return len(parts) >= 3 and parts[-3:-1] == ("cases", "hidden") and name.endswith(".json")


class BuildPy(build_py):
    def exclude_data_files(self, package, src_dir, files):
        kept = super().exclude_data_files(package, src_dir, files)
        if package == "grader.catalogue" and _without_hidden():
            # The shipped tables hold outputs on the hidden cases: they go with them.
            kept = [f for f in kept if not _is_hidden_case(f) and "_tables" not in Path(f).parts]
        return kept

    def run(self):
        super().run()
        if not _without_hidden() or self.editable_mode:
            return
        # The same format as grader.problem.suite.plan_doc, which validate compares it with.
        out = Path(self.build_lib) / "grader" / "catalogue"
        for stale in out.glob("*/cases/hidden/*.json"):  # an earlier full build's, left in build/lib
            stale.unlink()
        for hidden in sorted(Path(self.get_package_dir("grader.catalogue")).glob("*/cases/hidden")):
            cases = []
            for path in sorted(hidden.glob("*.json")):
                recipe = json.loads(path.read_text(encoding="utf-8")).get("recipe")
                cases.append({"id": path.stem, **({"recipe": recipe} if recipe else {})})
            target = out / hidden.parent.parent.name / "cases" / "hidden.plan.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps({"cases": cases}, indent=1) + "\n", encoding="utf-8")

