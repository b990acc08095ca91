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
# The GPU tests under MPI run on Numba's CUDA simulator in their own job, retried once when they
# fail: about one run in ten gives garbage values in a staged device collective (a known,
# unresolved flake, reproduced on older commits too); a failure in both runs fails the suite.
MPI_GPU_PYTEST = timeout $(MPI_TIMEOUT) $(PY) -m minispore.run -n 2 -m pytest --with-mpi \
	-p no:cacheprovider -m mpi tests/gpu

.PHONY: install test warm bench bench-gpu demo clean

install: $(STAMP)

$(STAMP): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test,cuda]'
	touch $(STAMP)

warm: $(STAMP)
	$(PY) tools/warm_cache.py

# The single-process GPU tests (Numba's CUDA simulator) run in a process of their own, away from
# the rest of the suite's state, retried once when they fail: once in about a hundred suite runs
# tests/gpu/test_training_gpu.py has seen the simulated LeNet's third loss differ from the CPU's
# (1.41720 vs 1.41580; never reproduced in isolation, under load or with poisoned device
# buffers; the test now names the first step and parameter that diverge). Both runs failing
# fails the suite.
GPU_PYTEST = $(PY) -m pytest -p no:cacheprovider $(PYTEST_ARGS) tests/gpu

test: warm
	$(PY) -m pytest --ignore=tests/gpu $(PYTEST_ARGS)
	$(GPU_PYTEST) || { echo "make test: retrying the GPU-simulator tests once (known flake)"; \
		$(GPU_PYTEST); }
	$(call MPI_PYTEST,2,-m mpi --ignore=tests/gpu)
	$(MPI_GPU_PYTEST) || { echo "make test: retrying the GPU-simulator MPI tests once (known flake)"; \
		$(MPI_GPU_PYTEST); }
	$(call MPI_PYTEST,4,-m "mpi and mpi4")
	$(call MPI_PYTEST,8,-m "mpi and mpi8")

bench: $(STAMP)
	$(PY) tools/bench.py

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
