"""The dynamic cluster's pieces that need no processes: MindSpore's variables read and checked,
ranks from node ids, the wire format, the token, and when a worker is relaunched."""
import os
import stat
import sys

import pytest

from minispore.communication.cluster import cluster_token, cluster_wire, relaunch
from minispore.communication.cluster.roles import (DEFAULT_TOPO_TIMEOUT, ClusterConfig, Role,
                                           cluster_config_from_environment,
                                           role_from_environment)
from minispore.communication.cluster.scheduler import assign_ranks, missing_ranks

WORKER = {"MS_ROLE": "MS_WORKER", "MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": "8118",
          "MS_WORKER_NUM": "4"}


def test_no_ms_role_is_an_mpirun_job():
    assert cluster_config_from_environment({}) is None
    assert role_from_environment({}) is Role.WORKER


def test_a_worker_and_a_scheduler_read_their_settings():
    assert cluster_config_from_environment(dict(WORKER, MS_NODE_ID="02")) == ClusterConfig(
        Role.WORKER, "127.0.0.1", 8118, 4, "2", DEFAULT_TOPO_TIMEOUT)
    sched = cluster_config_from_environment(dict(WORKER, MS_ROLE="MS_SCHED",
                                                 MS_TOPO_TIMEOUT="-1"))
    assert (sched.role, sched.topo_timeout, sched.address) == (Role.SCHEDULER, None,
                                                               "127.0.0.1:8118")
    assert cluster_config_from_environment(dict(WORKER, MS_NODE_ID="node-a")).node_id == "node-a"
    assert cluster_config_from_environment(dict(WORKER, MS_TOPO_TIMEOUT="2.5")).topo_timeout == 2.5


def test_a_parameter_server_reads_its_settings():
    server = cluster_config_from_environment(dict(WORKER, MS_ROLE="MS_PSERVER",
                                                  MS_SERVER_NUM="2"))
    assert (server.role, server.server_num, server.size) == (Role.SERVER, 2, 6)
    # MindSpore's other name for the role
    assert role_from_environment(dict(WORKER, MS_ROLE="MS_SERVER", MS_SERVER_NUM="1")) is \
        Role.SERVER
    # workers and the scheduler of such a job count the servers too
    assert cluster_config_from_environment(dict(WORKER, MS_SERVER_NUM="3")).size == 7
    assert cluster_config_from_environment(WORKER).server_num == 0


@pytest.mark.parametrize("change, error, message", [
    ({"MS_ROLE": "MS_BOSS"}, ValueError, r"MS_ROLE must be one of MS_WORKER, MS_SCHED, "
                                         r"MS_PSERVER, MS_SERVER, but got MS_ROLE='MS_BOSS'"),
    ({"MS_SCHED_PORT": "80"}, ValueError, r"MS_SCHED_PORT must be a port number in "
                                          r"\[1024, 65535\], but got MS_SCHED_PORT='80'"),
    ({"MS_SCHED_HOST": ""}, ValueError, r"MS_SCHED_HOST must be set to the scheduler's IP"),
    ({"MS_WORKER_NUM": "0"}, ValueError, r"MS_WORKER_NUM must be a positive number of workers"),
    ({"MS_NODE_ID": "4"}, ValueError, r"MS_NODE_ID must be a rank in \[0, MS_WORKER_NUM=4\)"),
    ({"MS_TOPO_TIMEOUT": "soon"}, ValueError, r"MS_TOPO_TIMEOUT must be a number of seconds"),
    ({"MS_ROLE": "MS_PSERVER"}, ValueError, r"MS_ROLE=MS_PSERVER is a parameter server, but "
                                            r"MS_SERVER_NUM is not set"),
    ({"MS_SERVER_NUM": "-1"}, ValueError, r"MS_SERVER_NUM must be a number of parameter "
                                          r"servers >= 0, but got MS_SERVER_NUM='-1'"),
    ({"MS_ENABLE_RECOVERY": "1"}, NotImplementedError, r"MS_ENABLE_RECOVERY=1 asks for "
                                                       r"disaster recovery"),
    ({"MS_NODE_TIMEOUT": "60"}, NotImplementedError, r"MS_NODE_TIMEOUT=60 asks for heartbeats"),
    ({"PMI_SIZE": "4"}, NotImplementedError, r"MS_ROLE=MS_WORKER is set in a process that an "
                                             r"MPI launcher started as one of 4 ranks"),
])
def test_bad_settings_name_the_variable(change, error, message):
    with pytest.raises(error, match=message):
        cluster_config_from_environment(dict(WORKER, **change))


def test_cluster_variables_without_ms_role_are_refused():
    with pytest.raises(ValueError, match=r"MS_SCHED_PORT=8118 is set but MS_ROLE is not"):
        role_from_environment({"MS_SCHED_PORT": "8118"})


def test_a_worker_alone_under_mpiexec_is_fine():
    assert cluster_config_from_environment(dict(WORKER, PMI_SIZE="1")).role is Role.WORKER


def test_integer_node_ids_pin_ranks_and_the_others_fill_in_arrival_order():
    assert assign_ranks([None, None, None], 3) == [0, 1, 2]
    assert assign_ranks(["3", None, "0", "x"], 4) == [3, 1, 0, 2]
    assert missing_ranks(["0", "2"], 3) == [1]
    assert missing_ranks([None], 3) == [1, 2]
    assert missing_ranks(["1", None], 4) == [2, 3]


def test_messages_are_json_lines_and_junk_is_a_protocol_error():
    reader = cluster_wire.LineReader()
    line = cluster_wire.encode("port", name="tag#0$x")
    assert reader.feed(line[:5]) == []
    assert reader.feed(line[5:] + cluster_wire.encode("joined", rank=1)) == [
        {"kind": "port", "name": "tag#0$x"}, {"kind": "joined", "rank": 1}]
    for junk in (b"GET / HTTP/1.0\r\n", b"[1, 2]\n", b'{"no": "kind"}\n', b"\xff\xfe\n",
                 b"[" * 50_000 + b"\n", b"9" * 5_000 + b"\n", b'{"kind": "x", "n": NaN}\n'):
        with pytest.raises(cluster_wire.ProtocolError):
            cluster_wire.LineReader().feed(junk)
    with pytest.raises(cluster_wire.ProtocolError, match="longer than"):
        cluster_wire.LineReader().feed(b"x" * (cluster_wire.MAX_LINE + 1))


def test_the_token_file_is_written_private_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    env = {}
    token, path = cluster_token.scheduler_token(9001, env)
    assert path == tmp_path / ".minispore" / "cluster" / "9001.token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert len(token) == 64 and cluster_token.worker_token(9001, env) == token
    assert cluster_token.scheduler_token(9001, env)[0] != token       # a fresh one per job
    assert cluster_token.scheduler_token(9001, {"MS_CLUSTER_TOKEN": "t"}) == ("t", None)


def test_each_side_proves_the_token_without_sending_it():
    mine, theirs = cluster_token.fresh_nonce(), cluster_token.fresh_nonce()
    assert mine != theirs and cluster_token.is_nonce(mine) and not cluster_token.is_nonce("x")
    sent = cluster_token.proof("secret", "scheduler", theirs, mine)
    assert "secret" not in sent and len(sent) == 64
    assert cluster_token.proves(sent, "secret", "scheduler", theirs, mine)
    # Another token, another nonce, or the other side's name: not this proof.
    assert not cluster_token.proves(sent, "guess", "scheduler", theirs, mine)
    assert not cluster_token.proves(sent, "secret", "scheduler", mine, theirs)
    assert not cluster_token.proves(sent, "secret", "worker", theirs, mine)
    assert not cluster_token.proves(None, "secret", "scheduler", theirs, mine)


def test_a_token_file_others_can_read_is_refused(tmp_path):
    path = tmp_path / "job.token"
    path.write_text("secret")
    path.chmod(0o644)
    with pytest.raises(RuntimeError, match=r"must belong to this user and be readable by no one "
                                           r"else \(mode 0600\), but it has .* mode 0644"):
        cluster_token.worker_token(1, {"MS_CLUSTER_TOKEN_FILE": str(path)})
    with pytest.raises(RuntimeError, match=r"neither in MS_CLUSTER_TOKEN nor readable in"):
        cluster_token.worker_token(1, {"MS_CLUSTER_TOKEN_FILE": str(tmp_path / "none")})


def test_only_a_valid_worker_outside_an_mpi_launcher_is_relaunched(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["train.py"])
    assert relaunch.needs_relaunch(WORKER)
    assert not relaunch.needs_relaunch(dict(WORKER, PMI_RANK="0"))
    assert not relaunch.needs_relaunch(dict(WORKER, MS_ROLE="MS_SCHED"))
    assert not relaunch.needs_relaunch(dict(WORKER, MS_SCHED_PORT="x"))   # init() says why
    monkeypatch.setattr(sys, "argv", [""])                                 # the interpreter
    assert not relaunch.needs_relaunch(WORKER)


def test_a_relaunched_worker_connects_on_libfabric_unless_the_user_chose(monkeypatch):
    """MPICH's UCX netmod releases a request twice in MPI_Comm_connect (relaunch.py's
    docstring): the worker's launcher gets MPIR_CVAR_CH4_NETMOD=ofi, a user's choice wins."""
    launched = []
    monkeypatch.setattr(os, "execve", lambda path, argv, env: launched.append(env))
    monkeypatch.setattr(sys, "argv", ["train.py"])
    for environ, netmod in [(WORKER, "ofi"), (dict(WORKER, MPIR_CVAR_CH4_NETMOD="ucx"), "ucx")]:
        relaunch.relaunch_under_launcher(environ)
        assert launched.pop()["MPIR_CVAR_CH4_NETMOD"] == netmod
    # One host (a loopback scheduler): libfabric's shared memory; across hosts, its own choice.
    assert relaunch.connectable_netmod("127.0.0.1", {}) == \
        {"MPIR_CVAR_CH4_NETMOD": "ofi", "FI_PROVIDER": "shm"}
    assert relaunch.connectable_netmod("10.200.0.1", {}) == {"MPIR_CVAR_CH4_NETMOD": "ofi"}
    assert relaunch.connectable_netmod("127.0.0.1", {"FI_PROVIDER": "tcp"}) == \
        {"MPIR_CVAR_CH4_NETMOD": "ofi"}
    assert relaunch.connectable_netmod("127.0.0.1", {"MPIR_CVAR_CH4_NETMOD": "ucx"}) == {}
    assert relaunch.unsound_netmod_warning({"MPIR_CVAR_CH4_NETMOD": "ofi"}) is None
    for environ, named in [({}, "MPICH's default netmod (UCX; MPIR_CVAR_CH4_NETMOD unset)"),
                           ({"MPIR_CVAR_CH4_NETMOD": "ucx"}, "MPIR_CVAR_CH4_NETMOD=ucx")]:
        warning = relaunch.unsound_netmod_warning(environ)
        assert named in warning and "Set MPIR_CVAR_CH4_NETMOD=ofi" in warning, warning


def test_the_launcher_is_minispores_own_listening_nowhere():
    argv = relaunch.launcher_command(1)
    forker = os.path.join(os.path.dirname(relaunch.__file__), "forker.py")
    assert argv[:3] == [sys.executable, "-I", forker]
    assert argv[3:] == ["-n", "1", "--"]
