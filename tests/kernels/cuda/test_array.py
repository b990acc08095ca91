"""CUDA cast, fill, strided copy and half conversion against the CPU kernels of the same name."""
import numpy as np
import pytest

from minispore.kernels.cpu import array as cpu
from minispore.kernels.cpu import half as cpu_half
from minispore.kernels.cuda import array as gpu
from minispore.kernels.cuda import half as gpu_half

from .conftest import DTYPES, dev, empty, host, same_kernels


def test_every_cpu_kernel_has_a_cuda_namesake():
    public = lambda obj: hasattr(obj, "py_func")  # noqa: E731
    assert set(same_kernels(cpu, gpu, public)) == {"cast", "fill", "scale", "strided_copy"}
    assert set(same_kernels(cpu_half, gpu_half, public)) == {"half_to_float", "float_to_half"}


@pytest.mark.parametrize("src,dst", [(np.float32, np.float64), (np.float64, np.float32),
                                     (np.float32, np.int32), (np.int64, np.float32),
                                     (np.float64, np.bool_), (np.bool_, np.float32)])
def test_cast(src, dst, rng):
    x = (rng.standard_normal((5, 21)) * 50).astype(src)
    want = np.empty(x.shape, dst)
    cpu.cast(x, want)
    got = empty(x.shape, dst)
    gpu.cast(dev(x), got)
    np.testing.assert_array_equal(host(got), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scale(dtype, rng):
    """out = x * factor[0] on both devices, bit for bit the product numpy rounds."""
    x = rng.standard_normal(1000).astype(dtype)
    factor = np.array([1.0 / 3.0], dtype)
    want = np.empty_like(x)
    cpu.scale(x, factor, want)
    np.testing.assert_array_equal(want, x * factor[0])
    got = empty(x.shape, dtype)
    gpu.scale(dev(x), dev(factor), got)
    np.testing.assert_array_equal(host(got), want)


@pytest.mark.parametrize("dtype", DTYPES + [np.int32])
def test_fill(dtype):
    got = empty((3, 50), dtype)
    gpu.fill(got, dtype(7))
    np.testing.assert_array_equal(host(got), np.full((3, 50), 7, dtype))


def _copy_both(src, src_off, dst_shape, dst_off, shape, src_strides, dst_strides, dtype):
    want = np.zeros(dst_shape, dtype)
    cpu.strided_copy(src, src_off, want, dst_off, *(np.array(v, np.int64) for v in
                                                   (shape, src_strides, dst_strides)))
    got = dev(np.zeros(dst_shape, dtype))
    gpu.strided_copy(dev(src), src_off, got, dst_off, np.array(shape, np.int64),
                     np.array(src_strides, np.int64), np.array(dst_strides, np.int64))
    np.testing.assert_array_equal(host(got), want)
    return want


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_copy_transpose(dtype, rng):
    x = rng.standard_normal((4, 5, 6)).astype(dtype)
    out = _copy_both(x.ravel(), 0, 120, 0, (6, 4, 5), (1, 30, 6), (20, 5, 1), dtype)
    np.testing.assert_array_equal(out.reshape(6, 4, 5), x.transpose(2, 0, 1))


def test_strided_copy_reversed_slice_broadcast_and_offsets(rng):
    x = rng.standard_normal(40).astype(np.float32)
    # dst rows 1..3 (offset 8 in a (5, 8) buffer) = x[37:7:-2] broadcast over 3 rows.
    out = _copy_both(x, 37, 40, 8, (3, 8), (0, -2), (8, 1), np.float32)
    np.testing.assert_array_equal(out.reshape(5, 8)[1:4], np.broadcast_to(x[37:21:-2], (3, 8)))
    # A 0-d copy and an empty one.
    _copy_both(x, 5, 3, 2, (), (), (), np.float32)
    _copy_both(x, 0, 3, 0, (0, 4), (4, 1), (4, 1), np.float32)


def test_half_to_float_matches_numpy(rng):
    bits = rng.integers(0, 65536, 600).astype(np.uint16)
    bits[:8] = [0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 1, 0x3FF, 0x7BFF]
    for dtype in DTYPES:
        got = empty(bits.size, dtype)
        gpu_half.half_to_float(dev(bits), got)
        np.testing.assert_array_equal(host(got), bits.view(np.float16).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_float_to_half_rounds_like_numpy_and_the_cpu(dtype, rng):
    every = np.arange(0, 65536, 97, dtype=np.uint16).view(np.float16).astype(np.float64)
    every = every[np.isfinite(every)]
    between = every[:-1] + np.diff(every) / 2          # ties: round half to even
    wide = rng.standard_normal(200) * 10.0 ** rng.uniform(-9, 5.5, 200)
    x = np.concatenate([every, between, wide,
                        [np.inf, -np.inf, np.nan, -0.0, 65504, 65519.99, 65520, 2.98e-8]])
    x = x.astype(dtype)
    got = empty(x.size, np.uint16)
    gpu_half.float_to_half(dev(x), got)
    want = np.empty(x.size, np.uint16)
    cpu_half.float_to_half(x, want)
    np.testing.assert_array_equal(host(got), want)
    finite = ~np.isnan(x)
    with np.errstate(over="ignore"):
        want_np = x[finite].astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(host(got)[finite], want_np)
