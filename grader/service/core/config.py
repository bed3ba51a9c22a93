"""The service's settings, one typed object built by ``grader serve`` and read by
everything else. Rates are token buckets: ``burst`` tokens, refilled evenly at
``burst`` per ``period_seconds``."""
from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

DB_ENV = "JAXJUDGE_DB"
DEFAULT_DB_FILE = "jaxjudge.sqlite3"
MAX_SOURCE_BYTES = 64 * 1024
MAX_INPUT_BYTES = 64 * 1024  # a custom run's input as JSON: far above what any problem's sizes allow
# A JSON body carries the source escaped (a control character costs 6 bytes), plus a few fields.
MAX_BODY_BYTES = 6 * MAX_SOURCE_BYTES + 4096

_PERIODS = {"s": 1.0, "sec": 1.0, "min": 60.0, "m": 60.0, "h": 3600.0, "hour": 3600.0}


@dataclass(frozen=True)
class Rate:
    burst: int
    period_seconds: float

    @property
    def per_second(self) -> float:
        return self.burst / self.period_seconds

    def __str__(self) -> str:
        return f"{self.burst}/{self.period_seconds:g}s"


def parse_rate(text: str) -> Rate:
    """``"10/min"`` -> 10 tokens, refilled at 10 per minute. Raises ValueError with a
    message fit for the command line."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d*\.?\d*)\s*([a-z]+)\s*", text)
    if not m or m.group(3) not in _PERIODS or int(m.group(1)) < 1:
        raise ValueError(f"{text!r}: a rate is N/s, N/min or N/h with N >= 1 (e.g. 10/min)")
    scale = float(m.group(2)) if m.group(2) else 1.0
    if scale <= 0:
        raise ValueError(f"{text!r}: the period must be positive")
    return Rate(int(m.group(1)), scale * _PERIODS[m.group(3)])


_UNITS = {"": 1, "b": 1, "kib": 2**10, "kb": 10**3, "mib": 2**20, "mb": 10**6, "gib": 2**30, "gb": 10**9}


def parse_size(text: str) -> int:
    """``"32MiB"`` -> 33554432 bytes. Raises ValueError with a message fit for the command line."""
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS or int(m.group(1)) < 1:
        raise ValueError(f"{text!r}: a size is N, NKiB, NMiB or NGiB with N >= 1 (e.g. 32MiB)")
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def parse_forwarded_ips(text: str) -> str:
    """``--forwarded-allow-ips``: comma-separated addresses or networks (or ``*``) of the
    proxies whose X-Forwarded-For and X-Forwarded-Proto are believed. Raises ValueError:
    uvicorn would take a misspelt address as a literal that matches no one, silently."""
    items = [item.strip() for item in text.split(",")]
    if items == ["*"]:
        return "*"
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"{item!r}: not an IP address or network (give the proxies' addresses, "
                             "comma-separated, e.g. 127.0.0.1 or 10.0.0.0/8)") from None
    return ",".join(items)


def default_db_url() -> str:
    """``$JAXJUDGE_DB``, else a SQLite file in the current folder (created on first start)."""
    env = os.environ.get(DB_ENV)
    if env:
        return env
    return f"sqlite:///{Path.cwd() / DEFAULT_DB_FILE}"


@dataclass(frozen=True)
class Quotas:
    """What one learner may ask of the service, and how long the queue may grow."""
    run: Rate = field(default_factory=lambda: Rate(10, 60.0))
    submit: Rate = field(default_factory=lambda: Rate(5, 300.0))
    # Per client address, not per account: logins, sign-ups and every other try of a
    # password or a one-time secret.
    login: Rate = field(default_factory=lambda: Rate(10, 60.0))
    pending_per_learner: int = 3
    queue_cap: int = 500
    # What one learner's submissions of the last 24 hours may store (sources and stored
    # reports): an ordinary Run stores about 4 KB and a Submit about 50 KB, so honest work
    # stays far below; a flood of large sources stops here (429).
    storage_per_day: int = 32 * 1024 * 1024


@dataclass(frozen=True)
class ServiceConfig:
    db_url: str
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 2
    engine: str = "local"  # local | dask
    scheduler: str | None = None
    feedback: bool = True
    strict_sandbox: bool = False
    quotas: Quotas = field(default_factory=Quotas)
    max_attempts: int = 3  # claims of one submission before it is IE (its grading kept dying)
    heartbeat_seconds: float = 2.0
    stale_seconds: float = 15.0  # a worker silent this long is dead and its rows are requeued
    poll_seconds: float = 0.5
    session_hours: float = 12.0
    warm_up: bool = True
    warm_idle: bool = True  # idle workers warm every problem, most-submitted first (see ``warming``)
    shutdown_grace: float = 10.0  # seconds running grades get to finish when the server stops
    # None: X-Forwarded-* headers are ignored, so no client can pick the address its login
    # attempts are counted under, nor claim HTTPS; else the proxies trusted to set them.
    forwarded_allow_ips: str | None = None
    # Open /events streams: per account (instructors alike; 429 past it) and in all (503).
    streams_per_learner: int = 8
    streams_total: int = 1000
    # LTI 1.3: the tool's registrations (pylti1p3's JSON), and the address platforms were given.
    lti_config: str | None = None
    public_url: str | None = None
