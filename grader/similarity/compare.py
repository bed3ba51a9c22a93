"""Fingerprint every submission, drop what the starter code or most submissions hold, rank the
pairs and find the regions they share.

A pair's score is, by default, the Jaccard index of the two fingerprint sets (shared / either's):
on the accepted corpora it kept every disguised copy furthest above the best honest pair (the
short solutions of one problem share a few idioms, which inflate the containment of the smaller
file). Padding a copy with unrelated code dilutes the Jaccard index, so the report also gives each
side's share (shared / its own); ``containment`` ranks by the larger share instead, a submission
left with fewer than ``MIN_PRINTS`` fingerprints counting as that many (two near-empty files, the
starter and a line, never score 1)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import combinations

from .fingerprint import K, W, Fingerprint, fingerprints, kgrams
from .model import Match, Pair, Report, Score, Skipped, SourceSet
from .tokens import Token, normalise

MIN_PRINTS = 5
_PER_HASH = 4  # occurrences of one fingerprint per side paired up when finding regions


@dataclass
class Document:
    """A submission's normalised tokens (all its files', one after the other), the file each
    token comes from, and its fingerprints."""

    submission: SourceSet
    tokens: list[Token]
    files: list[int]
    prints: list[Fingerprint]
    hashes: set[int]


def document(sub: SourceSet, k: int = K, w: int = W) -> Document:
    tokens: list[Token] = []
    files: list[int] = []
    unit = 0
    for index, source in enumerate(sub.sources):
        own = normalise(source.text)
        tokens += [Token(t.text, t.line, t.end_line, unit + t.unit) for t in own]
        files += [index] * len(own)
        unit += (own[-1].unit + 1) if own else 0
    prints = fingerprints(tokens, k, w)
    return Document(sub, tokens, files, prints, {f.hash for f in prints})


def starter_hashes(texts: list[str], k: int = K) -> set[int]:
    """Every k-gram of the starter code (not only the winnowed ones): none of it is the learner's."""
    return {g.hash for text in texts for g in kgrams(normalise(text), k)}


def _drop(doc: Document, gone: set[int]) -> None:
    doc.prints = [f for f in doc.prints if f.hash not in gone]
    doc.hashes -= gone


def _pair(a: Document, b: Document, shared: int, score: Score) -> Pair:
    na, nb = len(a.hashes), len(b.hashes)
    jaccard = shared / max(na + nb - shared, 1)
    value = jaccard if score == "jaccard" else shared / max(min(na, nb), MIN_PRINTS)
    return Pair(a.submission.name, b.submission.name, round(value, 4), round(shared / max(na, 1), 4),
                round(shared / max(nb, 1), 4), round(jaccard, 4), shared)


def regions(a: Document, b: Document, k: int = K, w: int = W) -> list[Match]:
    """The regions ``a`` and ``b`` share: their common fingerprints chained along a diagonal
    (each next one a little further on both sides, in the same two files), as line ranges."""
    shared = a.hashes & b.hashes
    at_b: dict[int, list[Fingerprint]] = defaultdict(list)
    for f in b.prints:
        if f.hash in shared and len(at_b[f.hash]) < _PER_HASH:
            at_b[f.hash].append(f)
    seen: dict[int, int] = defaultdict(int)
    occurrences = []
    for f in a.prints:
        if f.hash in shared and seen[f.hash] < _PER_HASH:
            seen[f.hash] += 1
            occurrences += [(f, g) for g in at_b[f.hash]]
    occurrences.sort(key=lambda o: (o[0].start, o[1].start))
    gap = 2 * (k + w)
    chains: list[list[tuple[Fingerprint, Fingerprint]]] = []
    for fa, fb in occurrences:
        best, skew = None, gap + 1
        for chain in chains[-32:]:
            la, lb = chain[-1]
            da, db = fa.start - la.start, fb.start - lb.start
            same_files = a.files[fa.start] == a.files[la.start] and b.files[fb.start] == b.files[lb.start]
            if same_files and 0 <= da <= gap and 0 <= db <= gap and abs(da - db) < skew:
                best, skew = chain, abs(da - db)
        if best is None:
            chains.append([(fa, fb)])
        else:
            best.append((fa, fb))
    return sorted((_match(a, b, chain) for chain in chains), key=lambda m: (m.left_file, m.left_lines))


def _match(a: Document, b: Document, chain: list[tuple[Fingerprint, Fingerprint]]) -> Match:
    def span(doc: Document, prints: list[Fingerprint]) -> tuple[str, tuple[int, int]]:
        start, end = min(f.start for f in prints), max(f.end for f in prints)
        return (doc.submission.sources[doc.files[start]].path,
                (doc.tokens[start].line, max(t.end_line for t in doc.tokens[start:end])))

    left, right = span(a, [fa for fa, _ in chain]), span(b, [fb for _, fb in chain])
    return Match(left[0], left[1], right[0], right[1], len({fa.hash for fa, _ in chain}))


def compare(problem: str, subs: list[SourceSet], starter: list[str], *, top: int = 20, min_score: float = 0.0,
            common: float = 0.5, score: Score = "jaccard", skipped: list[Skipped] | None = None, k: int = K,
            w: int = W) -> Report:
    """The report over ``subs``: at most ``top`` pairs scoring at least ``min_score``, best first."""
    docs = [document(s, k, w) for s in subs]
    base = starter_hashes(starter, k)
    from_starter = sum(len(d.hashes & base) for d in docs)
    for d in docs:
        _drop(d, base)
    holders: dict[int, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        for h in d.hashes:
            holders[h].append(i)
    limit = max(2.0, common * len(docs))
    frequent = {h for h, who in holders.items() if len(who) > limit}
    for d in docs:
        _drop(d, frequent)
    counts: dict[tuple[int, int], int] = defaultdict(int)
    for h, who in holders.items():
        if h not in frequent:
            for i, j in combinations(who, 2):
                counts[i, j] += 1
    ranked = [(p, i, j) for (i, j), n in counts.items() if (p := _pair(docs[i], docs[j], n, score)).score >= min_score]
    ranked.sort(key=lambda r: (-r[0].score, r[0].left, r[0].right))
    pairs = [replace(p, matches=regions(docs[i], docs[j], k, w)) for p, i, j in ranked[:top]]
    return Report(problem, len(docs), pairs, len(ranked), list(skipped or []), from_starter, len(frequent), common,
                  k, w, score)
