"""Prefetching iterators: errors from the pipeline thread, early exit, stop(), epochs, config."""
import os
import threading
import time

import numpy as np
import pytest

import minispore.dataset as ds


def _run_with_timeout(fn, seconds=20):
    """Run fn on a helper thread; fail (instead of hanging the suite) if it does not finish."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:
            box["error"] = e
    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"iteration hung for more than {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def test_error_in_pipeline_thread_reaches_consumer_with_op_name():
    def explode(x):
        if int(x) == 300:
            raise ValueError("bad sample 300")
        return x
    data = ds.NumpySlicesDataset(np.arange(1000), shuffle=False).map(explode).batch(10)
    seen = []

    def consume():
        for (x,) in data.create_tuple_iterator(output_numpy=True):
            seen.append(x)
    with pytest.raises(RuntimeError, match="map operation 'explode' .* ValueError: bad sample 300"):
        _run_with_timeout(consume)
    assert len(seen) <= 30


def test_early_break_and_stop_end_the_thread():
    data = ds.NumpySlicesDataset(np.arange(100000), shuffle=False).batch(2)
    it = data.create_tuple_iterator(output_numpy=True)
    next(it)
    thread = it._thread
    it.stop()
    thread.join(5)
    assert not thread.is_alive()
    assert _run_with_timeout(lambda: list(it)) == []

    it2 = data.create_tuple_iterator(output_numpy=True)
    next(it2)
    thread2 = it2._thread
    del it2                                    # a dropped iterator stops its thread too
    thread2.join(5)
    assert not thread2.is_alive()


def test_prefetch_overlaps_the_consumer():
    def slow(x):
        time.sleep(0.01)
        return x
    data = ds.GeneratorDataset(lambda: ((np.int64(i),) for i in range(20)), ["v"]).map(slow)
    it = data.create_tuple_iterator(output_numpy=True)
    time.sleep(0.5)                            # the thread prepares rows meanwhile
    t0 = time.perf_counter()
    assert len(list(it)) == 20
    assert time.perf_counter() - t0 < 0.15


def test_num_epochs_and_unlimited():
    data = ds.NumpySlicesDataset(np.arange(3), shuffle=False)
    it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [len(list(it)) for _ in range(3)] == [3, 3, 0]
    forever = data.create_dict_iterator(output_numpy=True)
    assert [len(list(forever)) for _ in range(4)] == [3, 3, 3, 3]
    forever.stop()


def test_config_values_and_errors():
    ds.config.set_prefetch_size(4)
    assert ds.config.get_prefetch_size() == 4
    ds.config.set_prefetch_size(16)
    # MindSpore's default: 8 workers, or the CPU count when smaller (2 on a 2-CPU machine).
    default = ds.config.get_num_parallel_workers()
    assert default == min(8, os.cpu_count())
    ds.config.set_num_parallel_workers(3)
    assert ds.config.get_num_parallel_workers() == 3
    ds.config.set_num_parallel_workers(default)
    assert ds.config.get_seed() == 5489
    with pytest.raises(ValueError, match="config.set_seed"):
        ds.config.set_seed(-1)
    with pytest.raises(ValueError, match="config.set_prefetch_size"):
        ds.config.set_prefetch_size(0)
