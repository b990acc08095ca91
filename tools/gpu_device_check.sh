#!/usr/bin/env bash
# One check on a machine with an NVIDIA GPU: tests/gpu and tests/kernels/cuda on the real device
# (one process), the MPI GPU tests on 2 ranks sharing the GPU, and `make bench-gpu`; every log
# lands in $OUT. Written for the lent GPU machines (shared/reference/gpu_on_real_hardware.md):
# their Python has numba, numba-cuda, torch and CuPy but no MPI, and numpy 2.5, beside which
# numba-cuda 0.30.4 cannot type a kernel. So the wheels come along in .whl/ (cp312), fetched
# here with:
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 \
#     --platform manylinux_2_17_x86_64 -d .whl mpich==5.0.2 mpi4py==4.1.2 pytest-mpi==0.6 numpy==2.4.6 numba-cuda==0.30.4
# and the run is `bash tools/gpu_device_check.sh` from the repository root there.
set -u
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
V=${TMPDIR:-/tmp}/minispore-venv
SITE="$V/lib/python3.12/site-packages"

python3 -m venv --without-pip "$V"
# The venv sees the image's packages after its own (the carried wheels win).
python3 -c "import site; print('\n'.join(site.getsitepackages()))" > "$SITE/image.pth"
"$V/bin/python" -m pip install -q --no-index --no-deps --no-compile .whl/*.whl \
    > "$OUT/install.log" 2>&1 || { cat "$OUT/install.log"; exit 1; }
# minispore from this checkout; kernels/ installs as minispore.kernels.
echo "$PWD" > "$SITE/minispore-checkout.pth"
ln -sfn ../kernels minispore/kernels

export NUMBA_ENABLE_CUDASIM=0 PYTHONUNBUFFERED=1 NUMBA_CACHE_DIR=${TMPDIR:-/tmp}/numba-cache
{ nvidia-smi -L; "$V/bin/python" -c "import numba, numba_cuda, numpy
print('numba', numba.__version__, 'numba-cuda', numba_cuda.__version__, 'numpy', numpy.__version__)"
} > "$OUT/versions.log" 2>&1
status=0
"$V/bin/python" -m pytest -p no:cacheprovider -q tests/kernels/cuda tests/gpu \
    > "$OUT/gpu_single.log" 2>&1 || status=1
timeout 900 "$V/bin/python" -m minispore.run -n 2 -m pytest --with-mpi -p no:cacheprovider -m mpi \
    -q tests/gpu > "$OUT/gpu_mpi2.log" 2>&1 || status=1
"$V/bin/python" tools/bench_gpu.py > "$OUT/bench_gpu.log" 2>&1 || status=1
cp BENCHMARKS.md "$OUT/" 2>/dev/null
tail -n 3 "$OUT"/gpu_single.log "$OUT"/gpu_mpi2.log "$OUT"/bench_gpu.log
exit $status
