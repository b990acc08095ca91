"""The scheduler's state machine, in process: fake workers speak the protocol over real sockets
(no MPI, no subprocesses), so every step of registration, joining, finishing and failing is
checked message by message."""
import socket
import threading

import pytest

from minispore.communication.cluster import cluster_token, cluster_wire, scheduler
from minispore.communication.cluster.roles import ClusterConfig, Role

TOKEN = "test-token"


class FakeWorker:
    """A socket that says hello like cluster_worker.SchedulerLink, answers the challenge with
    `token` (whether or not the scheduler's proof matches it), and reads the replies."""

    def __init__(self, port, node_id=None, token=TOKEN, worker_num=3, role="MS_WORKER",
                 server_num=0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.reader, self.pending = cluster_wire.LineReader(), []
        nonce = cluster_token.fresh_nonce()
        self.send("hello", protocol=cluster_wire.PROTOCOL, nonce=nonce, role=role,
                  node_id=node_id, worker_num=worker_num, server_num=server_num, host="fake",
                  pid=1000)
        challenge = self.next()
        assert challenge["kind"] == "challenge", challenge
        assert cluster_token.proves(challenge["proof"], TOKEN, "scheduler", nonce,
                                    challenge["nonce"])
        self.send("answer", proof=cluster_token.proof(token, "worker", challenge["nonce"], nonce))

    def send(self, kind, **fields):
        cluster_wire.send(self.sock, kind, **fields)

    def next(self):
        return cluster_wire.receive(self.sock, self.reader, self.pending)

    def close(self):
        self.sock.close()


@pytest.fixture
def serve(monkeypatch, caplog):
    """serve(workers, timeout) -> (port, thread, result): a scheduler in a thread, logging to
    caplog (not to a stderr handler of its own, which would outlive the test)."""
    monkeypatch.setenv("MS_CLUSTER_TOKEN", TOKEN)
    monkeypatch.setattr(scheduler, "_start_logging", lambda: None)
    caplog.set_level("INFO", logger="minispore.cluster")
    running = []

    def start(workers, topo_timeout=30.0, servers=0, drop_lost_workers=False):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        config = ClusterConfig(Role.SCHEDULER, "127.0.0.1", port, workers, None, topo_timeout,
                               servers)
        result = {}
        thread = threading.Thread(target=lambda: result.update(
            status=scheduler.serve(config, drop_lost_workers)), daemon=True)
        thread.start()
        running.append(thread)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                threading.Event().wait(0.05)
        return port, thread, result

    yield start
    for thread in running:
        thread.join(timeout=15)


def test_a_job_registers_joins_in_rank_order_and_finishes(serve, caplog):
    port, thread, result = serve(3)
    # Arrival: a name, then node ids 0 and 2 (they pin ranks 0 and 2; the name gets 1).
    named, zero, two = FakeWorker(port, "alpha"), FakeWorker(port, "0"), FakeWorker(port, "2")
    for worker, count in ((named, 1), (zero, 2), (two, 3)):
        assert worker.next() == {"kind": "welcome", "registered": count, "of": 3}
    assert [w.next() for w in (zero, named, two)] == [
        {"kind": "assigned", "rank": r, "size": 3} for r in range(3)]
    zero.send("port", name="tag#port")
    assert named.next() == {"kind": "connect", "port": "tag#port"}   # rank 1 first
    named.send("joined", rank=1)
    assert two.next() == {"kind": "connect", "port": "tag#port"}     # then rank 2
    two.send("joined", rank=2)
    for worker in (zero, named, two):
        worker.send("finished")
        worker.close()
    thread.join(timeout=15)
    assert result == {"status": 0}
    assert "Assign rank id of node id: alpha, role: MS_WORKER, host: fake, pid: 1000, new " \
           "rank id: 1" in caplog.text
    assert "Cluster is successfully initialized" in caplog.text


def test_a_worker_that_leaves_before_the_job_forms_frees_its_place(serve):
    port, thread, result = serve(2)
    leaver = FakeWorker(port, "0", worker_num=2)
    assert leaver.next()["kind"] == "welcome"
    leaver.close()
    again = FakeWorker(port, "0", worker_num=2)     # the same node id may register again
    assert again.next() == {"kind": "welcome", "registered": 1, "of": 2}
    other = FakeWorker(port, worker_num=2)
    assert other.next()["kind"] == "welcome"
    assert again.next() == {"kind": "assigned", "rank": 0, "size": 2}
    again.close()                                    # dies while the workers join
    assert other.next()["kind"] == "assigned"
    message = other.next()
    assert message["kind"] == "abort"
    assert "rank 0, node id 0, host fake, pid 1000) exited before finishing" in message["reason"]
    other.close()
    thread.join(timeout=15)
    assert result == {"status": 1}


@pytest.mark.parametrize("hello, reason", [
    ({"token": "guess"}, "wrong cluster token"),
    ({"worker_num": 5}, "it has MS_WORKER_NUM=5 but the scheduler has MS_WORKER_NUM=3"),
    ({"node_id": "1"}, "MS_NODE_ID=1 is already registered by worker (node id 1, host fake"),
])
def test_refusals_say_why_and_the_job_goes_on(serve, caplog, hello, reason):
    port, thread, result = serve(3, topo_timeout=1.0)
    first = FakeWorker(port, "1")
    assert first.next()["kind"] == "welcome"
    refused = FakeWorker(port, **{"node_id": None, **hello})
    answer = refused.next()
    assert answer["kind"] == "refused" and answer["reason"].startswith(reason), answer
    assert refused.next() is None                    # and the connection is closed
    assert any(r.levelname == "WARNING" and r.getMessage().startswith(
        "Refused the connection from 127.0.0.1:") and reason in r.getMessage()
        for r in caplog.records), caplog.text
    # The job still waits for its workers; when the window passes, the one registered is
    # told which ranks are missing.
    message = first.next()
    assert message["kind"] == "abort" and "missing rank(s) 0, 2" in message["reason"], message
    first.close()
    thread.join(timeout=15)
    assert result == {"status": 1}


def test_a_failed_worker_ends_the_job_and_is_not_told_its_own_news(serve):
    port, thread, result = serve(2)
    workers = [FakeWorker(port, str(r), worker_num=2) for r in range(2)]
    for w in workers:
        assert w.next()["kind"] == "welcome"
        assert w.next()["kind"] == "assigned"
    workers[0].send("port", name="p")
    assert workers[1].next()["kind"] == "connect"
    workers[1].send("joined", rank=1)
    workers[1].send("failed", error="ValueError: boom")
    assert workers[0].next() == {"kind": "abort", "reason": "rank 1 failed: ValueError: boom"}
    for w in workers:
        w.close()
    thread.join(timeout=15)
    assert result == {"status": 1}


def test_servers_take_the_ranks_after_the_workers(serve, caplog):
    port, thread, result = serve(2, servers=1)
    server = FakeWorker(port, role="MS_PSERVER", worker_num=2, server_num=1)
    assert server.next()["kind"] == "welcome"
    wrong = FakeWorker(port, worker_num=2, server_num=3)
    assert wrong.next()["reason"] == "it has MS_SERVER_NUM=3 but the scheduler has " \
                                     "MS_SERVER_NUM=1"
    extra = FakeWorker(port, role="MS_PSERVER", worker_num=2, server_num=1)
    assert extra.next()["reason"] == "all 1 MS_PSERVER processes have already registered"
    workers = [FakeWorker(port, worker_num=2, server_num=1) for _ in range(2)]
    for w in workers:
        assert w.next()["kind"] == "welcome"
    assert [p.next() for p in workers + [server]] == [
        {"kind": "assigned", "rank": r, "size": 3} for r in range(3)]
    assert "role: MS_PSERVER, host: fake, pid: 1000, new rank id: 2" in caplog.text
    workers[0].send("port", name="p")
    assert workers[1].next()["kind"] == "connect"
    workers[1].send("joined", rank=1)
    assert server.next()["kind"] == "connect"
    server.send("joined", rank=2)
    for p in workers + [server]:
        p.send("finished")
        p.close()
    thread.join(timeout=15)
    assert result == {"status": 0}
    assert "Job finished: all 2 workers and 1 parameter servers finished their script." in \
        caplog.text


def test_an_asynchronous_ps_job_drops_a_dead_worker(serve, caplog):
    port, thread, result = serve(2, servers=1, drop_lost_workers=True)
    members = [FakeWorker(port, str(r), worker_num=2, server_num=1) for r in range(2)]
    members.append(FakeWorker(port, role="MS_PSERVER", worker_num=2, server_num=1))
    for m in members:
        assert m.next()["kind"] == "welcome"
        assert m.next()["kind"] == "assigned"
    members[0].send("port", name="p")
    members[1].next()
    members[1].send("joined", rank=1)
    members[2].next()
    members[2].send("joined", rank=2)
    for _ in range(200):
        if "Cluster is successfully initialized" in caplog.text:
            break
        threading.Event().wait(0.05)
    members[1].close()                                  # dies without "finished"
    for m in (members[0], members[2]):
        assert m.next() == {"kind": "lost", "rank": 1}
        m.send("finished")
        m.close()
    thread.join(timeout=15)
    assert result == {"status": 0}
    assert "Job finished: 1 of 2 workers (rank(s) 1 lost) and 1 parameter servers finished" \
        in caplog.text

