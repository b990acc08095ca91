# minispore: install into a repo-local venv, warm the Numba cache, test, bench, demo.
# Threads stay at their defaults: the suite runs serial Numba kernels with threaded BLAS,
# which shared/reference/numba_performance.md measured as the best mix on this machine;
# multi-rank tests set their own per-rank thread counts.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# The on-disk kernel cache lives in the repo (git-ignored), never beside the sources,
# and survives between runs so only the first `make test` pays for compilation.
export NUMBA_CACHE_DIR := $(CURDIR)/.numba_cache

PYTEST_ARGS ?=
# Multi-process tests (@pytest.mark.mpi) run under the launcher, which gives each rank
# cores // ranks threads: all of them on 2 ranks, the few marked mpi8 on 8 (oversubscribed).
# The timeout turns a hang between ranks into a failure; a test that fails on some ranks only
# aborts the job (tests/conftest.py), and mpirun returns any rank's failure.
MPI_TESTS ?= tests
MPI_TIMEOUT ?= 900
MPI_PYTEST = timeout $(MPI_TIMEOUT) $(PY) -m minispore.run -n $(1) -m pytest --with-mpi \
	-p no:cacheprovider $(2) $(MPI_TESTS)
# The GPU tests under MPI run on Numba's CUDA simulator (made strict: minispore/device/
# strict_simulator.py) in their own job.
MPI_GPU_PYTEST = timeout $(MPI_TIMEOUT) $(PY) -m minispore.run -n 2 -m pytest --with-mpi \
	-p no:cacheprovider -m mpi tests/gpu

.PHONY: install test warm bench bench-gpu cuda-signatures demo clean conformance conformance-check \
	conformance-accept mindspore-st

install: $(STAMP)

$(STAMP): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test,cuda]'
	touch $(STAMP)

warm: $(STAMP)
	$(PY) tools/warm_cache.py

# The single-process GPU tests run on the strict CUDA simulator in a process of their own, away
# from the rest of the suite's state. tests/cuda_ptx compiles every CUDA kernel with the real
# compiler (NVVM from the cuda extra's wheels; no GPU needed) in another: numba.cuda is either
# the simulator or the real target for a whole process.
GPU_PYTEST = $(PY) -m pytest -p no:cacheprovider $(PYTEST_ARGS) tests/gpu
PTX_PYTEST = $(PY) -m pytest -p no:cacheprovider $(PYTEST_ARGS) tests/cuda_ptx
NOT_HERE = --ignore=tests/gpu --ignore=tests/cuda_ptx

# The first line also runs tests/multihost (jobs across namespace hosts: each test starts its own
# processes; they need root and skip, saying why, without it) and the launch tests; the MPI runs
# below select `-m mpi` tests only, so neither is collected twice.
test: warm
	$(PY) -m pytest $(NOT_HERE) $(PYTEST_ARGS)
	$(PTX_PYTEST)
	$(GPU_PYTEST)
	NUMBA_ENABLE_CUDASIM=1 $(PY) tools/bench_gpu.py --smoke
	$(call MPI_PYTEST,2,-m mpi $(NOT_HERE))
	$(MPI_GPU_PYTEST)
	$(call MPI_PYTEST,4,-m "mpi and mpi4" $(NOT_HERE))
	$(call MPI_PYTEST,8,-m "mpi and mpi8" $(NOT_HERE))

# Rewrite tests/cuda_ptx/signatures.py from the kernels and argument types the simulator suites
# launch (each launch missing from it fails those suites until this is run and committed).
cuda-signatures: $(STAMP)
	MINISPORE_RECORD_CUDA_SIGNATURES=1 NUMBA_ENABLE_CUDASIM=1 $(PY) -m pytest -p no:cacheprovider \
		-q tests/kernels/cuda
	MINISPORE_RECORD_CUDA_SIGNATURES=1 $(GPU_PYTEST)
	MINISPORE_RECORD_CUDA_SIGNATURES=1 $(MPI_GPU_PYTEST)

bench: $(STAMP)
	$(PY) tools/bench.py

# Differential testing against real MindSpore (CPU wheel from PyPI, about 2.7 GB, in its own venv):
# record the corpus under MindSpore into tests/conformance/recorded/ (committed, so `make test`
# replays it without MindSpore), replay it under minispore and write CONFORMANCE.md.
# conformance-check re-writes the report from the recordings alone; conformance-accept also
# rewrites tests/conformance/expected.json (the statuses the tests hold minispore to).
MS_VENV := .venv-ms
MS_VERSION := 2.7.2
MS_PY := $(MS_VENV)/bin/python

$(MS_VENV)/.installed:
	test -x $(MS_PY) || $(PYTHON) -m venv $(MS_VENV)
	$(MS_PY) -m pip install mindspore==$(MS_VERSION)
	touch $@

conformance: $(STAMP) $(MS_VENV)/.installed
	$(PY) -m tools.conformance.make record --oracle $(MS_PY)
	$(PY) -m tools.conformance.make check

conformance-check: $(STAMP)
	$(PY) -m tools.conformance.make check

conformance-accept: $(STAMP)
	$(PY) -m tools.conformance.make check --update-expected

# MindSpore's own CPU operator tests (tests/st/ops/cpu of a MindSpore checkout, e.g. tag v2.4.1;
# MS_ST_DIR holds its tests/ folder) run on minispore, one file a process: writes
# tests/conformance/mindspore_st.json (committed; CONFORMANCE.md's section is rendered from it)
# and build/mindspore_st/summary.md. Not part of `make test`: it takes an hour or more.
# MS_ST_ARGS="--files test_x_op.py" re-runs some files only.
MS_ST_ARGS ?=
mindspore-st: $(STAMP)
	@test -n "$(MS_ST_DIR)" || { echo "make mindspore-st needs MS_ST_DIR=<folder holding MindSpore's tests/>"; exit 2; }
	$(PY) -m tools.mindspore_st.run $(MS_ST_DIR) $(MS_ST_ARGS)

# Needs a CUDA GPU (says so and exits 0 without one): GEMM vs cuBLAS (CuPy/PyTorch), kernel vs
# copy bandwidth, MLP/LeNet steps with device_target='GPU' vs PyTorch CUDA; writes the GPU
# section of BENCHMARKS.md.
bench-gpu: $(STAMP)
	$(PY) tools/bench_gpu.py

demo: $(STAMP)
	$(PY) examples/lenet/train.py --epochs 1 --per_print_times 125

clean:
	rm -f $(STAMP)
	rm -rf .numba_cache .pytest_cache .hypothesis build dist *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
