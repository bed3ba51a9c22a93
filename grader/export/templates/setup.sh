#!/usr/bin/env bash
# Gradescope runs this once, while it builds the autograder image (network allowed).
# It installs the judge this bundle pins (the wheel beside this script, its dependencies
# at the versions in constraints.txt) into a virtual environment, and builds the tables a
# first grade would otherwise build, so that run_autograder needs no network.
# JAXJUDGE_AUTOGRADER_ROOT maps /autograder elsewhere, to try the bundle on any machine;
# JAXJUDGE_PYTHON overrides the interpreter named in jaxjudge.env.
set -euo pipefail
ROOT="${JAXJUDGE_AUTOGRADER_ROOT:-/autograder}"
SRC="$ROOT/source"
VENV="$ROOT/jaxjudge-venv"
want="${JAXJUDGE_PYTHON:-}"
# shellcheck source=/dev/null
. "$SRC/jaxjudge.env"
want="${want:-$JAXJUDGE_PYTHON}"

# The Python the bundle was exported with (the pinned versions exist for it), else python3.
py=""
if ! command -v "$want" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq "$want" "$want-venv" >/dev/null || true
fi
for cand in "$want" python3; do
    if command -v "$cand" >/dev/null 2>&1; then py="$cand"; break; fi
done
[ -n "$py" ] || { echo "setup.sh: no Python 3 interpreter found" >&2; exit 1; }
if ! "$py" -m venv --system-site-packages "$VENV"; then
    # Debian and Ubuntu ship venv's pip bootstrap as a package of its own.
    apt-get install -y -qq "$(basename "$py")-venv" >/dev/null
    "$py" -m venv --system-site-packages "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -c "$SRC/constraints.txt" "$SRC/$JAXJUDGE_WHEEL"

# The wheel's own copy of the built-in catalogue lies under site-packages, which the sandbox
# leaves readable; this image grades from the bundle's copy in source/problems, so the
# installed copy (hidden cases included) goes.
site="$("$VENV/bin/python" -c 'import grader, pathlib; print(pathlib.Path(grader.__file__).parent)')"
rm -rf "$site/catalogue" "$site/submissions"

installed="$("$VENV/bin/python" -m grader --version)"
[ "$installed" = "jaxjudge $JAXJUDGE_VERSION" ] || { echo "setup.sh: installed '$installed', the bundle pins $JAXJUDGE_VERSION" >&2; exit 1; }

export JAXJUDGE_CACHE="$ROOT/jaxjudge-cache" JAXJUDGE_XLA_CACHE="$ROOT/jaxjudge-cache/xla"
"$VENV/bin/python" -m grader --problems "$SRC/problems" warm "$JAXJUDGE_PROBLEM" \
    || echo "setup.sh: warming the caches failed; grades will build them as they go" >&2
echo "setup.sh: $installed ready for $JAXJUDGE_PROBLEM (problem_version $JAXJUDGE_PROBLEM_VERSION)"
