"""Device tensors: where data lives under device_target='GPU', the copies back, the mixing error,
the no-GPU error and the device-neutral array layer."""
import os
import subprocess
import sys

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from minispore import device
from minispore.device import cuda as cuda_device
from minispore.common.initializer import initializer


def test_importing_minispore_never_imports_numba_cuda():
    code = ("import sys, minispore, minispore.nn, minispore.train; "
            "assert 'numba.cuda' not in sys.modules, 'numba.cuda imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_tensor_round_trip(gpu):
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = Tensor(host)
    assert device.is_device_array(t._data) and device.device_of(t._data) == "GPU"
    back = t.asnumpy()
    assert isinstance(back, np.ndarray) and back.dtype == np.float32
    np.testing.assert_array_equal(back, host)
    back[0, 0] = 99           # a copy: the device data is untouched
    assert t.asnumpy()[0, 0] == 0
    assert t.shape == (3, 4) and isinstance(t.shape, tuple) and t.shape[-1] == 4
    assert float(Tensor(2.5)) == 2.5 and Tensor([1, 2]).tolist() == [1, 2]


def test_parameters_initializers_and_placeholders_live_on_the_gpu(gpu):
    p = Parameter(initializer("normal", (3, 2), ms.float32), name="w")
    assert device.is_device_array(p._data)
    p.set_data(np.ones((3, 2), np.float32))
    assert device.is_device_array(p._data) and p.asnumpy().sum() == 6
    clone = p.clone()
    assert device.is_device_array(clone._data)
    np.testing.assert_array_equal(clone.asnumpy(), p.asnumpy())
    assert device.is_device_array(Tensor(shape=(2, 2), dtype=ms.float32)._data)
    t = Tensor(np.array([1.5, 2.5], np.float32)).set_dtype(ms.float64)
    assert device.is_device_array(t._data) and t.asnumpy().dtype == np.float64


def test_move_to_copies_between_devices(gpu):
    ms.set_context(device_target="CPU")
    host_t = Tensor(np.ones(3, np.float32))
    assert isinstance(host_t._data, np.ndarray)
    on_gpu = host_t.move_to("GPU")
    assert device.is_device_array(on_gpu._data) and on_gpu.move_to("GPU") is on_gpu
    np.testing.assert_array_equal(on_gpu.move_to("CPU").asnumpy(), np.ones(3))
    with pytest.raises(ValueError, match="'to' must be 'CPU' or 'GPU'"):
        host_t.move_to("Ascend")


def test_mixing_devices_in_one_operator_is_an_error(gpu):
    ms.set_context(device_target="CPU")
    host_t = Tensor(np.ones(3, np.float32))
    ms.set_context(device_target="GPU")
    dev_t = Tensor(np.ones(3, np.float32))
    with pytest.raises(RuntimeError, match=r"For 'Add'.*active device GPU.*'x' on CPU, "
                                           r"'y' on GPU.*move_to\('GPU'\)"):
        ops.add(host_t, dev_t)
    with pytest.raises(RuntimeError, match=r"For 'ReLU'.*'x' on CPU"):
        ops.relu(host_t)
    ms.set_context(device_target="CPU")
    with pytest.raises(RuntimeError, match=r"For 'Mul'.*active device CPU.*'x' on GPU"):
        ops.mul(dev_t, host_t)
    np.testing.assert_array_equal(ops.add(host_t, dev_t.move_to("CPU")).asnumpy(), 2)


def test_no_usable_gpu_raises_and_says_how_to_simulate(monkeypatch):
    from numba import cuda
    monkeypatch.setattr(cuda, "is_available", lambda: False)
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM")
    with pytest.raises(RuntimeError, match=r"device_target='GPU' needs a usable CUDA GPU, but "
                                           r"numba.cuda.is_available\(\) is False.*does not "
                                           r"fall back.*NUMBA_ENABLE_CUDASIM=1"):
        ms.set_context(device_target="GPU")
    assert ms.get_context("device_target") == "CPU"
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    with pytest.raises(RuntimeError, match="NUMBA_ENABLE_CUDASIM is set but numba.cuda was "
                                           "imported before it"):
        Tensor(np.ones(2, np.float32)).move_to("GPU")


def test_device_layer_allocates_on_the_active_device(gpu):
    for arr in (device.empty((2, 3), np.float32), device.zeros((2, 3), np.int32),
                device.full((4,), 7, np.float64), device.asarray([1.0, 2.0], np.float32)):
        assert device.is_device_array(arr)
    np.testing.assert_array_equal(device.to_host(device.full((2,), 7, np.int64)), [7, 7])
    np.testing.assert_array_equal(device.to_host(device.zeros((2, 2), np.float16)), 0)
    np.testing.assert_array_equal(device.to_host(device.full(3, 1.5, np.float16)), 1.5)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    dx = device.asarray(x)
    assert device.asarray(dx) is dx
    np.testing.assert_array_equal(device.to_host(device.transpose(dx, (2, 0, 1))),
                                  x.transpose(2, 0, 1))
    row = device.asarray(x[:, :1])
    np.testing.assert_array_equal(device.to_host(device.broadcast_to(row, (5, 2, 3, 4))),
                                  np.broadcast_to(x[:, :1], (5, 2, 3, 4)))
    np.testing.assert_array_equal(device.to_host(device.astype(dx, np.int32)),
                                  x.astype(np.int32))
    half = device.astype(dx, np.float16)
    assert half.dtype == np.float16
    np.testing.assert_array_equal(device.to_host(device.contiguous(half, np.float32)), x)
    assert device.scalar_array(np.float32(2)).shape == ()
    assert device.is_device_array(device.scalar_array(np.float32(2)))


def test_device_layer_on_cpu_is_numpy():
    assert isinstance(device.zeros((2,), np.float32), np.ndarray)
    x = np.arange(6.0).reshape(2, 3)
    assert np.shares_memory(device.transpose(x, (1, 0)), x)     # a free view on the host
    assert device.asarray(x) is x


def test_non_contiguous_device_views_are_refused(gpu):
    dx = device.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    with pytest.raises(ValueError, match="keeps device arrays C-contiguous"):
        cuda_device.contiguous(dx[:, 1:3])


def test_bench_gpu_says_it_needs_a_gpu_and_exits_cleanly():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    run = subprocess.run([sys.executable, os.path.join(root, "tools", "bench_gpu.py")],
                         capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0
    assert "bench-gpu needs a CUDA GPU: NUMBA_ENABLE_CUDASIM is set" in run.stdout


def test_adam_offload_on_the_gpu_says_the_update_stays_on_the_device(gpu, caplog):
    """MindSpore's use_offload runs Adam's update on the host; minispore's stays where the
    parameters are, with the same values, and says so."""
    import logging
    from minispore import nn
    with caplog.at_level(logging.WARNING, logger="minispore"):
        nn.Adam(nn.Dense(2, 2).trainable_params(), use_offload=True)
    assert "Adam(use_offload=True)" in caplog.text
