"""k-gram hashing and winnowing (Schleimer, Wilkerson and Aiken, 2003, "Winnowing: local
algorithms for document fingerprinting", the algorithm of MOSS), over normalised tokens.

Every run of ``k`` consecutive tokens inside one top-level unit is hashed; of every window of
``w`` consecutive hashes the smallest is kept (the rightmost of equal ones), so any match of at
least ``w + k - 1`` tokens shares a fingerprint, and none shorter than ``k`` tokens does. A unit
shorter than ``k`` tokens (but at least ``k // 2``) is one fingerprint of its own."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import groupby

from .tokens import Token

K = 12  # tokens per k-gram: ``x = jnp.sum(y, axis=0)`` is 12 tokens, about one line of code
W = 6   # window: any shared run of K + W - 1 = 17 tokens is found


@dataclass(frozen=True)
class Fingerprint:
    """A kept k-gram: its hash and the tokens ``[start, end)`` of the stream it covers."""

    hash: int
    start: int
    end: int


def _hash(tokens: list[Token]) -> int:
    text = "\x00".join(t.text for t in tokens).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def _units(tokens: list[Token]) -> list[tuple[int, int]]:
    """The ``[start, end)`` of every top-level unit in the stream."""
    out, at = [], 0
    for _unit, run in groupby(tokens, key=lambda t: t.unit):
        n = len(list(run))
        out.append((at, at + n))
        at += n
    return out


def kgrams(tokens: list[Token], k: int = K) -> list[Fingerprint]:
    """Every k-gram of every unit, hashed (the short units whole)."""
    out: list[Fingerprint] = []
    for start, end in _units(tokens):
        if end - start < k:
            if end - start >= max(1, k // 2):
                out.append(Fingerprint(_hash(tokens[start:end]), start, end))
            continue
        out += [Fingerprint(_hash(tokens[i:i + k]), i, i + k) for i in range(start, end - k + 1)]
    return out


def winnow(grams: list[Fingerprint], w: int = W) -> list[Fingerprint]:
    """The fingerprints winnowing keeps: the minimum of every window of ``w`` k-grams, per
    unit (a window never spans two units), each kept once."""
    out: list[Fingerprint] = []
    runs: list[list[Fingerprint]] = [[]]
    for g in grams:  # the k-grams of one unit follow each other; a gap in start means a new unit
        if runs[-1] and g.start != runs[-1][-1].start + 1:
            runs.append([])
        runs[-1].append(g)
    for run in filter(None, runs):
        last = -1
        for i in range(max(1, len(run) - w + 1)):
            window = run[i:i + w]
            low = min(range(len(window)), key=lambda j: (window[j].hash, -j))
            if i + low != last:
                last = i + low
                out.append(window[low])
    return out


def fingerprints(tokens: list[Token], k: int = K, w: int = W) -> list[Fingerprint]:
    return winnow(kgrams(tokens, k), w)
