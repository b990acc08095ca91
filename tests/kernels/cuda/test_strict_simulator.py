"""The strict simulator (minispore/device/strict_simulator.py) refuses what a real GPU refuses,
poisons new memory, and shares a block's shared array safely between its threads."""
import threading
import time

import numpy as np
import pytest
from numba import cuda
from numba.core import config

pytestmark = pytest.mark.skipif(not config.ENABLE_CUDASIM,
                                reason="checks the simulator; a real GPU is strict already")


def test_reshape_follows_numba_cuda_on_hardware():
    a = cuda.device_array((2, 3), np.float32)
    assert a.reshape(3, 2).shape == (3, 2)
    assert a.reshape((2, 3)).shape == (2, 3)
    # A real DeviceNDArray compares a requested shape to its shape tuple before anything else:
    # the same shape as a list goes through dummyarray and is refused as a copy (the semi-auto
    # StridedSlice failure seen on the H200).
    with pytest.raises(NotImplementedError, match="operation requires copying"):
        a.reshape([2, 3])
    strided = cuda.device_array((4, 6), np.float32)[:, ::2]
    with pytest.raises(NotImplementedError):
        strided.reshape(12)
    with pytest.raises(NotImplementedError):
        strided.ravel()


def test_device_arrays_have_no_numpy_arithmetic_nor_nd_transpose():
    a = cuda.device_array((2, 3, 4), np.float32)
    with pytest.raises(TypeError, match="no numpy arithmetic"):
        a + a
    with pytest.raises(NotImplementedError, match="non-2D"):
        a.transpose((2, 1, 0))
    with pytest.raises(Exception):
        a[[0, 1]]   # fancy indexing: a copy numpy makes and a device array refuses


def test_a_host_array_reaching_a_kernel_fails():
    @cuda.jit
    def double(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= 2

    with pytest.raises(TypeError, match="host numpy array as argument 0"):
        double[1, 4](np.ones(4, np.float32))
    d = cuda.to_device(np.ones(4, np.float32))
    double[1, 4](d)
    np.testing.assert_array_equal(d.copy_to_host(), 2.0)


def test_new_device_memory_is_poisoned():
    assert np.isnan(cuda.device_array(5, np.float32).copy_to_host()).all()
    ints = cuda.device_array(3, np.int32).copy_to_host()
    assert (ints == 0x7F7F7F7F).all()


def test_first_shared_array_calls_of_a_block_get_one_array(monkeypatch):
    """The simulator's own FakeCUDAShared.array does get-then-set on a dict without a lock:
    threads of a block reaching the line at once could each get a private array (about one
    launch in a thousand of the tree-sum kernels at the tests' switch interval). With the
    allocation slowed to widen that window, the simulator's version hands 8 threads several
    arrays (shown in the closing note of issue 26); the strict one hands them one."""
    from minispore.device import strict_simulator
    poison = strict_simulator._poisoned
    monkeypatch.setattr(strict_simulator, "_poisoned",
                        lambda a: (time.sleep(0.001), poison(a))[1])
    from numba.cuda.simulator.kernelapi import FakeCUDAShared
    shared, got = FakeCUDAShared(0), []

    def reach_the_line():
        got.append(shared.array(8, np.float64))

    threads = [threading.Thread(target=reach_the_line) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(a) for a in got}) == 1
    assert np.isnan(got[0]).all()   # poisoned, as new shared memory holds garbage
