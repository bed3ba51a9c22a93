"""`/events` streams against a live `grader serve`: the caps on open streams (per
account, 429; in all, 503) and their slots given back when a client goes away; every
stream of one submission told `done` by the server's one watcher; and a stream on a
server without workers told `done` when another server sharing the database grades
the submission (at once on PostgreSQL, through LISTEN/NOTIFY; at its next look on
SQLite)."""
from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from service_support import Server, corpus, make_user, post, sqlite_url, wait_done

# Slow: the streams wait on the server's watcher and its timers (5-15 s a test).
pytestmark = pytest.mark.slow

ACCEPTED = "accepted/flat_norm.py"
PER_LEARNER, TOTAL = 2, 4


class Stream:
    """One `/events` stream on a connection of its own (a raw socket: ``close`` is the
    client going away), read in a thread: ``events`` holds (name, data, monotonic time
    of arrival)."""

    def __init__(self, server: Server, token: str, sub_id: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=120)
        self.sock.sendall((f"GET /api/v1/submissions/{sub_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
        self.events: list[tuple[str, dict, float]] = []
        self.first = threading.Event()  # the answer's status and headers are in
        self.ended = threading.Event()
        self.status: int | None = None
        self.body: dict | None = None
        self.headers: dict[str, str] = {}
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.first.wait(30), "no answer to /events"

    def _read(self) -> None:
        try:
            f = self.sock.makefile("rb")
            self.status = int(f.readline().split()[1])
            while (line := f.readline().strip()):
                k, _, v = line.decode().partition(":")
                self.headers[k.strip().lower()] = v.strip()
            if self.status != 200:
                self.body = json.loads(f.read(int(self.headers["content-length"])))
                return
            self.first.set()
            assert self.headers.get("transfer-encoding") == "chunked", self.headers
            buf, name = "", None
            while (size := int(f.readline().strip() or b"0", 16)):
                buf += f.read(size).decode()
                f.readline()
                *lines, buf = buf.split("\n")
                for line in lines:
                    if line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("data: "):
                        self.events.append((name, json.loads(line[6:]), time.monotonic()))
        except (OSError, ValueError):
            pass  # closed by the test
        finally:
            self.first.set()
            self.ended.set()

    def wait_event(self, timeout: float = 30) -> None:
        deadline = time.time() + timeout
        while not self.events and time.time() < deadline and not self.ended.is_set():
            time.sleep(0.02)
        assert self.events, f"no event within {timeout} s"

    def done_at(self, timeout: float) -> float:
        """When the `done` event came (the server ends the stream after it)."""
        assert self.ended.wait(timeout), f"the stream did not end within {timeout} s: {self.events}"
        assert self.events and self.events[-1][0] == "done", self.events
        return self.events[-1][2]

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(10)


@pytest.fixture(scope="module")
def idle(tmp_path_factory):
    """A server that grades nothing (its Runs stay queued), with small stream caps."""
    url = sqlite_url(tmp_path_factory.mktemp("streams"))
    tokens = {name: make_user(url, f"{name}@example.org", instructor=name == "teacher")
              for name in ("teacher", "ann", "bob", "cat")}
    server = Server(url, "--max-streams-per-learner", str(PER_LEARNER), "--max-streams", str(TOTAL),
                    workers=0).start()
    clients = {name: server.client(tok) for name, tok in tokens.items()}
    subs = {name: post(clients[name], corpus(ACCEPTED)).json()["id"] for name in ("ann", "bob", "cat")}
    yield server, tokens, subs
    for c in clients.values():
        c.close()
    server.stop()


def _open(server, token, sub_id, n):
    streams = [Stream(server, token, sub_id) for _ in range(n)]
    for s in streams:
        assert s.status == 200
        s.wait_event()
    return streams


def _close(streams):
    for s in streams:
        s.close()


def _refusal(stream: Stream, status: int) -> None:
    assert stream.status == status, (stream.status, stream.body)
    assert set(stream.body) == {"detail"} and isinstance(stream.body["detail"], str)
    assert stream.headers["content-type"].startswith("application/json")
    assert int(stream.headers["retry-after"]) >= 1


def test_a_learner_past_the_per_learner_cap_gets_429_json_with_retry_after(idle):
    server, tokens, subs = idle
    held = _open(server, tokens["ann"], subs["ann"], PER_LEARNER)
    try:
        extra = Stream(server, tokens["ann"], subs["ann"])
        _refusal(extra, 429)
        assert "per account" in extra.body["detail"]
        assert held[0].events[0][0] == "status" and held[0].events[0][1]["status"] == "queued"
        assert held[0].events[0][1]["position"] >= 1
    finally:
        _close(held)


def test_an_instructor_past_the_per_learner_cap_gets_429_too(idle):
    server, tokens, subs = idle
    held = _open(server, tokens["teacher"], subs["ann"], PER_LEARNER)
    try:
        _refusal(Stream(server, tokens["teacher"], subs["bob"]), 429)
    finally:
        _close(held)


def test_past_the_total_cap_anyone_gets_503_json_with_retry_after(idle):
    server, tokens, subs = idle
    held = _open(server, tokens["ann"], subs["ann"], 2) + _open(server, tokens["bob"], subs["bob"], 2)
    try:
        extra = Stream(server, tokens["cat"], subs["cat"])
        _refusal(extra, 503)
    finally:
        _close(held)


def test_a_client_that_disconnects_gives_its_slot_back(idle):
    server, tokens, subs = idle
    held = _open(server, tokens["cat"], subs["cat"], PER_LEARNER)
    try:
        _refusal(Stream(server, tokens["cat"], subs["cat"]), 429)
        held.pop().close()  # the submission stays queued: only the disconnect can free the slot
        deadline, got = time.time() + 10, None
        while time.time() < deadline:
            got = Stream(server, tokens["cat"], subs["cat"])
            if got.status == 200:
                break
            time.sleep(0.2)
        assert got.status == 200, "the disconnected stream's slot was not given back within 10 s"
        held.append(got)
    finally:
        _close(held)
    # All closed: every slot is back, the full cap again.
    deadline = time.time() + 10
    while True:
        again = [Stream(server, tokens["cat"], subs["cat"]) for _ in range(PER_LEARNER)]
        ok = all(s.status == 200 for s in again)
        _close(again)
        if ok or time.time() > deadline:
            break
        time.sleep(0.2)
    assert ok


def test_someone_elses_submission_is_404_and_takes_no_slot(idle):
    server, tokens, subs = idle
    for _ in range(PER_LEARNER + 1):
        s = Stream(server, tokens["bob"], subs["ann"])
        assert s.status == 404 and s.body == {"detail": "no such submission"}
    _close(_open(server, tokens["bob"], subs["bob"], PER_LEARNER))


def test_two_streams_of_one_submission_both_get_done(tmp_path):
    url = sqlite_url(tmp_path)
    token = make_user(url, "dan@example.org")
    server = Server(url, "--no-feedback", workers=1).start()
    try:
        with server.client(token) as c:
            sid = post(c, corpus(ACCEPTED)).json()["id"]
            streams = [Stream(server, token, sid) for _ in range(2)]
            for s in streams:
                s.done_at(180)
                name, data, _ = s.events[-1]
                assert data["verdict"] == "AC" and data["status"] == "done" and data["id"] == sid
                assert set(data) == {"id", "status", "verdict", "position", "passed", "total"}
                assert all(n == "status" for n, _, _ in s.events[:-1])
            assert wait_done(c, sid)["verdict"] == "AC"
            _close(streams)
            _close(_open_done(server, token, sid, 8))  # the ended streams gave their slots back
    finally:
        server.stop()


def _open_done(server, token, sid, n):
    """``n`` streams of a graded submission, one after another: each says done and ends."""
    streams = []
    for _ in range(n):
        streams.append(Stream(server, token, sid))
        assert streams[-1].status == 200, streams[-1].body
        streams[-1].done_at(30)
    return streams


def _across_servers(url: str, rounds: int) -> list[float]:
    """A (no workers) and B (one worker) on one database: each round, a Run posted on A,
    followed on both; how much later A's `done` arrived than B's."""
    token = make_user(url, "eve@example.org")
    a = Server(url, "--no-feedback", workers=0).start()
    b = Server(url, "--no-feedback", workers=1).start()
    lags = []
    try:
        with a.client(token) as c:
            wait_done(c, post(c, corpus(ACCEPTED)).json()["id"])  # warm: the first grade builds caches
            for _ in range(rounds):
                sid = post(c, corpus(ACCEPTED)).json()["id"]
                on_a, on_b = Stream(a, token, sid), Stream(b, token, sid)
                t_a, t_b = on_a.done_at(180), on_b.done_at(180)
                assert on_a.events[-1][1]["verdict"] == "AC" and on_a.events[-1][1] == on_b.events[-1][1]
                lags.append(t_a - t_b)
                _close([on_a, on_b])
    finally:
        a.stop()
        b.stop()
    return lags


def test_on_postgresql_a_stream_on_a_server_without_workers_gets_done_at_once_when_another_grades_it(postgres):
    # Without the NOTIFY the stream on A would see it only at its next look (up to a second
    # later); three rounds all within 0.25 s of B's own stream would then be luck (~2%).
    # Through LISTEN/NOTIFY the lag is a few milliseconds.
    lags = _across_servers(postgres.new_database(), rounds=3)
    assert max(lags) < 0.25, lags


def test_on_sqlite_a_stream_on_a_server_without_workers_gets_done_at_its_next_look(tmp_path):
    lags = _across_servers(sqlite_url(tmp_path), rounds=1)
    assert max(lags) < 2.0, lags


def test_the_watcher_reads_the_database_once_per_look_however_many_streams_watch(tmp_path):
    """500 streams of 50 submissions on a real SQLite file: the watcher's looks at the
    database in two seconds are those of one stream, about one per tick."""
    import asyncio

    from grader.service.api.changes import TICK_SECONDS, Changes
    from grader.service.server import open_database

    url = sqlite_url(tmp_path)
    make_user(url, "fay@example.org")
    db = open_database(url)

    async def looks_while_watching(streams: int, submissions: int) -> tuple[int, int]:
        changes = Changes(db)
        await changes.start()
        try:
            from contextlib import ExitStack

            with ExitStack() as stack:
                watches = [stack.enter_context(changes.watch(f"s{i % submissions}")) for i in range(streams)]
                await asyncio.sleep(2 * TICK_SECONDS + 0.1)
                return changes.polls, len(watches)
        finally:
            await changes.stop()

    try:
        one, _ = asyncio.run(looks_while_watching(1, 1))
        many, n = asyncio.run(looks_while_watching(500, 50))
    finally:
        db.close()
    assert n == 500 and 1 <= one <= 4
    assert many <= one + 1, (one, many)
