"""The judge's own wheel, to pin in a bundle: the one given, else this installation
packed back into a wheel (a judge installed from a wheel, as a course's machine has
it), else one built from this checkout (an editable install)."""
from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

from .. import __version__

DIST = "jaxjudge"
_PACKAGE = Path(__file__).resolve().parent.parent
_NOT_PACKED = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}
BUILD_TIMEOUT = 600.0


class WheelError(Exception):
    """No wheel of this judge can be had."""


def wheel_version(path: Path) -> str:
    m = re.match(rf"^{DIST}-([^-]+)-", path.name)
    if not m or path.suffix != ".whl":
        raise WheelError(f"{path}: not a {DIST} wheel (expected {DIST}-VERSION-...whl)")
    try:
        with zipfile.ZipFile(path) as z:
            if "grader/__init__.py" not in z.namelist():
                raise WheelError(f"{path}: holds no grader package")
    except (OSError, zipfile.BadZipFile) as exc:
        raise WheelError(f"{path}: not a readable wheel ({exc})") from None
    return m.group(1)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _installed(dist: Distribution, name: str | os.PathLike[str]) -> Path:
    """Where an installed file of ``dist`` is. typeshed promises only its SimplePath protocol;
    an installed distribution (importlib's PathDistribution) gives a path of the file system."""
    located = dist.locate_file(name)
    if not isinstance(located, os.PathLike):
        raise WheelError(f"{DIST}'s files are not on the file system ({located!r})")
    return Path(located)


def repack_installed(dest: Path) -> Path:
    """This installation as a wheel: the files pip recorded (no bytecode), a fresh RECORD."""
    try:
        dist = distribution(DIST)
    except PackageNotFoundError:
        raise WheelError(f"{DIST} is not installed") from None
    files = [f for f in dist.files or [] if "__pycache__" not in f.parts and f.suffix != ".pyc"
             and (f.parts[0] == "grader" or (f.parts[0].endswith(".dist-info") and f.name not in _NOT_PACKED))]
    info = next((f.parts[0] for f in files if f.parts[0].endswith(".dist-info")), None)
    if info is None or not any(f.parts[0] == "grader" for f in files):
        raise WheelError(f"the installed {DIST} has no files to pack (an editable install?)")
    wheel_meta = _installed(dist, f"{info}/WHEEL").read_text(encoding="utf-8")
    tag = next((line.split(":", 1)[1].strip() for line in wheel_meta.splitlines() if line.startswith("Tag:")),
               "py3-none-any")
    out = dest / f"{DIST}-{dist.version}-{tag}.whl"
    record = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(files, key=str):
            data = _installed(dist, f).read_bytes()
            z.writestr(str(f.as_posix()), data)
            record.append(_record_line(f.as_posix(), data))
        record.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return out


def build_checkout(dest: Path) -> Path:
    """A wheel built from the checkout this judge runs from (``pip wheel``), in a copy of
    it so that no build folder is left behind or reused."""
    root = _PACKAGE.parent
    with tempfile.TemporaryDirectory(prefix="jaxjudge-build-") as tmp:
        copy = Path(tmp) / "src"
        files = _tracked(root)
        for rel in files:
            target = copy / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((root / rel).read_bytes())
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                               "--disable-pip-version-check", "-w", str(dest), str(copy)],
                              capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    built = sorted(dest.glob(f"{DIST}-*.whl"))
    if done.returncode != 0 or not built:
        raise WheelError(f"building the wheel failed: {done.stderr.strip()[-600:]}")
    return built[-1]


def _tracked(root: Path) -> list[str]:
    """The checkout's files: git's list (tracked, and new files not ignored), else a walk."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                             capture_output=True, timeout=60, check=True).stdout
        names = [n for n in out.decode("utf-8", "surrogateescape").split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
                 and not {".git", "__pycache__", "build", ".venv"} & set(p.relative_to(root).parts)]
    return [n for n in names if (root / n).is_file()]


def is_checkout() -> bool:
    pyproject = _PACKAGE.parent / "pyproject.toml"
    return pyproject.is_file() and f'name = "{DIST}"' in pyproject.read_text(encoding="utf-8", errors="replace")


def judge_wheel(dest: Path, given: Path | None = None) -> Path:
    """A wheel of this very judge in ``dest``; its version must be this judge's."""
    if given is not None:
        version = wheel_version(given)
        if version != __version__:
            raise WheelError(f"{given} is {DIST} {version}, but this judge is {__version__}: export with the "
                             f"judge the bundle is to pin")
        out = dest / given.name
        out.write_bytes(given.read_bytes())
        return out
    if (_PACKAGE / "catalogue").is_dir():  # installed from a wheel
        return repack_installed(dest)
    if is_checkout():
        built = build_checkout(dest)
        if wheel_version(built) != __version__:
            raise WheelError(f"the checkout builds {built.name}, but this judge is {__version__}: reinstall it "
                             f"(pip install -e .)")
        return built
    raise WheelError(f"no wheel of this judge: pass --wheel {DIST}-{__version__}-py3-none-any.whl")
