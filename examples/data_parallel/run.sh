#!/bin/bash
# Data-parallel LeNet on N ranks (default 4) of this machine: bash run.sh [N] [train.py args]
# Uses the project's launcher (the venv's mpirun, cores // N threads per rank); with a system
# MPI instead: mpirun -n N python examples/data_parallel/train.py ...
set -e
cd "$(dirname "$0")/../.."
RANKS=${1:-4}
shift || true
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
export NUMBA_CACHE_DIR=${NUMBA_CACHE_DIR:-$PWD/.numba_cache}
exec "$PYTHON" -m minispore.run -n "$RANKS" examples/data_parallel/train.py "$@"
