"""What one Run and one Submit store in the service's database, for an ordinary
submission and for one that returns a 64 KB output on every case (and prints), read
from the database itself: source plus every stored report, in bytes.

    python3 bench/service_storage.py [--baseline DIR] [--save FILE]

With ``--baseline DIR`` (another checkout of the project, e.g. made with ``git worktree
add``) the same submissions go to a server run from that checkout too, side by side.
Everything stays on 127.0.0.1; each server is stopped at the end."""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import header
import service_harness as h

ORDINARY = (h.ROOT / "submissions" / h.P1 / "wrong_answer" / "norm_without_bias.py").read_text()
ACCEPTED = (h.ROOT / "submissions" / h.P1 / "accepted" / "flat_norm.py").read_text()
# The accepted solution returning 15000 float32 more per case (about 59 KiB, under the
# problem's 64 KB output limit) and printing 4000 characters per case.
BIG = ACCEPTED.replace("    return {", '    print("p" * 4000)\n    return {"extra": jnp.linspace(0.0, 1.0, 15000) '
                       '* jnp.sum(x), ')
SIZE = ("coalesce(length(CAST(source AS BLOB)), 0) + coalesce(length(CAST(report AS BLOB)), 0) + "
        "coalesce(length(CAST(full_report AS BLOB)), 0)")


class Checkout(h.Serve):
    """``grader serve`` run from the checkout at ``root``."""

    def __init__(self, root: Path, url: str, *args: str) -> None:
        super().__init__(url, *args, workers=1)
        self.root = root

    def start(self, timeout: float = 300) -> "Checkout":
        import subprocess

        env = dict(os.environ, PYTHONPATH=str(self.root))
        self.proc = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--db", self.url, "--port",
                                      str(self.port), "--workers", "1", *self.args], cwd=self.root, env=env,
                                     stdout=self.log.open("ab"), stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"the server exited:\n{self.log.read_text()[-3000:]}")
            try:
                if h.httpx.get(self.base + "/healthz", timeout=2).status_code == 200:
                    return self
            except h.httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        sys.exit("the server did not become healthy")


def _user(root: Path, url: str) -> str:
    """A learner's token, made by the checkout's own ``grader user add`` (its own schema)."""
    import subprocess

    done = subprocess.run([sys.executable, "-m", "grader", "user", "add", "learner@example.org", "--no-password",
                           "--token", "bench", "--db", url], cwd=root, env=dict(os.environ, PYTHONPATH=str(root)),
                          capture_output=True, text=True, timeout=300, check=True)
    return next(w for w in done.stdout.split() if w.startswith("jjt_"))


def measure(root: Path) -> dict[tuple[str, str], int]:
    folder = Path(tempfile.mkdtemp(prefix="jaxjudge-storage-"))
    url = f"sqlite:///{folder / 'judge.sqlite3'}"
    token = _user(root, url)
    server = Checkout(root, url, "--no-feedback", "--run-limit", "100/min", "--submit-limit", "100/min").start()
    out = {}
    try:
        for name, source in (("ordinary", ORDINARY), ("64 KB output", BIG)):
            for kind in ("run", "submit"):
                sid = h.submit(server.base, token, h.P1, source, kind)
                h.wait(server.base, token, sid, time.time() + 300)
                with sqlite3.connect(folder / "judge.sqlite3") as conn:
                    out[(name, kind)] = conn.execute(f"SELECT {SIZE} FROM submissions WHERE id = ?",
                                                     (sid,)).fetchone()[0]
    finally:
        server.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout, measured side by side")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    rows = {"this checkout": measure(h.ROOT)}
    if opts.baseline:
        rows[f"baseline {opts.baseline}"] = measure(opts.baseline.resolve())
    keys = list(next(iter(rows.values())))
    print(f"{'stored bytes (source + reports)':<34}" + "".join(f"{k:>24}" for k in rows))
    for key in keys:
        print(f"{key[0] + ', ' + key[1]:<34}" + "".join(f"{r[key]:>24,}" for r in rows.values()))
    if len(rows) == 2:
        this, base = rows.values()
        print("\nbaseline / this checkout: " + ", ".join(f"{k[0]} {k[1]} {base[k] / this[k]:.1f}x" for k in keys))
    header.save(opts)


if __name__ == "__main__":
    main()
