"""The parameter server's API without processes: set_ps_context's keys, set_param_ps's checks
(MindSpore's errors), the placement rule, and the refusal of PYNATIVE. The training itself is
tested on real processes in tests/launch/test_parameter_server.py."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.communication.state import STATE
from minispore.ps import placement


@pytest.fixture
def ps_worker_env(monkeypatch):
    monkeypatch.setenv("MS_ROLE", "MS_WORKER")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_ps_context(enable_ps=True)


def test_ps_context_keys_defaults_and_reset():
    assert ms.get_ps_context("enable_ps") is False
    assert ms.get_ps_context("sync_mode") is True
    ms.set_ps_context(enable_ps=True, sync_mode=False, enable_ssl=False)
    assert (ms.get_ps_context("enable_ps"), ms.get_ps_context("sync_mode")) == (True, False)
    ms.reset_ps_context()
    assert ms.get_ps_context("enable_ps") is False
    with pytest.raises(TypeError, match="'sync_mode' must be bool"):
        ms.set_ps_context(sync_mode="yes")
    with pytest.raises(ValueError, match="'enable_pss' is not recognized"):
        ms.get_ps_context("enable_pss")


def test_set_param_ps_needs_the_ps_context_and_a_role(monkeypatch):
    monkeypatch.delenv("MS_ROLE", raising=False)
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(3, 2)
    with pytest.raises(RuntimeError, match=r"'weight', parameter-server training must be on: "
                                           r"call set_ps_context\(enable_ps=True\).*enable_ps "
                                           r"is False and MS_ROLE is not set"):
        net.set_param_ps()
    ms.set_ps_context(enable_ps=True)
    with pytest.raises(RuntimeError, match="MS_ROLE is not set"):
        net.set_param_ps()
    assert not net.weight.is_param_ps


def test_cell_set_param_ps_marks_its_trainable_parameters(ps_worker_env):
    net = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
    net[2].set_param_ps()
    assert [p.is_param_ps for p in net.trainable_params()] == [False, False, True, True]
    net.set_param_ps()
    assert all(p.is_param_ps for p in net.trainable_params())
    optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    # the optimizer's state stays with the optimizer: only the parameters are the servers'
    assert not any(p.is_param_ps for p in optimizer.moments)
    assert placement.ps_parameters(optimizer) == list(net.trainable_params())


def test_set_param_ps_checks_mode_and_init_in_server(ps_worker_env):
    net = nn.Dense(3, 2)
    with pytest.raises(RuntimeError, match="only for a parameter whose name ends with "
                                           "'embedding_table'"):
        net.weight.set_param_ps(init_in_server=True)
    table = ms.Parameter(Tensor(np.zeros((4, 2), np.float32)), name="embedding_table")
    with pytest.raises(NotImplementedError, match="init_in_server=True .* is not implemented"):
        table.set_param_ps(init_in_server=True)
    with pytest.raises(TypeError, match="'init_in_server' must be bool"):
        net.weight.set_param_ps(init_in_server=1)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(RuntimeError, match="runs in GRAPH_MODE only"):
        net.set_param_ps()


def test_an_optimizer_of_ps_parameters_refuses_pynative(ps_worker_env, monkeypatch):
    net = nn.Dense(3, 2)
    net.set_param_ps()
    optimizer = nn.SGD(net.trainable_params(), 0.1)
    monkeypatch.setattr(STATE.ps, "started", True)     # as after init() in a PS job
    ms.set_context(mode=ms.PYNATIVE_MODE)
    grads = tuple(Tensor(np.ones(p.shape, np.float32)) for p in optimizer.parameters)
    with pytest.raises(RuntimeError, match="For 'SGD', parameter-server training runs in "
                                           "GRAPH_MODE only"):
        optimizer(grads)


def test_placement_rule_balances_bytes_in_the_optimizers_order():
    assert placement.assign_servers([768, 64, 256, 16], 2) == [0, 1, 1, 1]
    assert placement.assign_servers([31360, 40, 40, 4], 8) == [0, 1, 2, 3]
    assert placement.assign_servers([8, 8, 8, 8, 8], 2) == [0, 1, 0, 1, 0]
    assert placement.assign_servers([], 3) == []
    with pytest.raises(ValueError, match="MS_SERVER_NUM >= 1"):
        placement.assign_servers([4], 0)


def test_recovery_settings_are_read_in_a_job_with_servers_only():
    from minispore.communication.cluster.roles import cluster_config_from_environment
    from minispore.ps.recovery import recovery_settings
    job = {"MS_ROLE": "MS_PSERVER", "MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": "8118",
           "MS_WORKER_NUM": "2", "MS_SERVER_NUM": "1", "MS_ENABLE_RECOVERY": "1",
           "MS_RECOVERY_PATH": "/tmp/r", "MS_RECOVERY_INTERVAL": "5"}
    assert cluster_config_from_environment(job).server_num == 1
    settings = recovery_settings(job)
    assert (settings.path, settings.interval) == ("/tmp/r", 5)
    assert recovery_settings({}) is None
    assert recovery_settings({"MS_ENABLE_RECOVERY": "1", "MS_RECOVERY_PATH": "/r"}).interval == 30
    with pytest.raises(ValueError, match="MS_ENABLE_RECOVERY=1 needs MS_RECOVERY_PATH"):
        recovery_settings({"MS_ENABLE_RECOVERY": "1"})
    with pytest.raises(ValueError, match="MS_RECOVERY_INTERVAL must be a positive number of "
                                         "steps"):
        recovery_settings(dict(job, MS_RECOVERY_INTERVAL="0"))
    # without servers, recovery would be a worker's: not built
    with pytest.raises(NotImplementedError, match="MS_RECOVERY_INTERVAL=5 asks for disaster "
                                                  "recovery"):
        cluster_config_from_environment(dict(job, MS_ROLE="MS_WORKER", MS_SERVER_NUM="0",
                                             MS_ENABLE_RECOVERY="", MS_RECOVERY_PATH=""))


def test_resume_step_is_0_in_a_process_without_parameter_server_training():
    # A script written for recovery (`for step in range(resume_step(), total)`) runs whole
    # when started alone; the restarted-job case is tested on real processes.
    from minispore.ps import resume_step
    assert resume_step() == 0
