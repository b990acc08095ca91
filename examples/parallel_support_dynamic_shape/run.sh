#!/bin/bash
# The tutorial's launch: bash run.sh [RANKS] (default 8), run from the folder that should hold
# MNIST_Data and log_output. Rank N's merged stdout/stderr lands in log_output/1/rank.N/stdout,
# Open MPI's --output-filename layout that the tutorial shows, with either MPI.
# Without ./MNIST_Data (this machine has no network) a synthetic stand-in is written there
# (tools/mnist.py synth, SYNTH_TRAIN images, default 60000); DATA_PATH, if set, wins.
# PYTHON and MPIRUN default to the repo's venv and the mpirun beside it.
set -e
echo "=============================================================================================================="
echo "Please run the script as: "
echo "bash run.sh"
echo "=============================================================================================================="

EXEC_PATH=$(pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RANKS=${1:-8}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
MPIRUN=${MPIRUN:-$(dirname "$PYTHON")/mpirun}
[ -x "$MPIRUN" ] || MPIRUN=mpirun
export NUMBA_CACHE_DIR=${NUMBA_CACHE_DIR:-$ROOT/.numba_cache}

if [ -z "$DATA_PATH" ]; then
    if [ ! -d "${EXEC_PATH}/MNIST_Data" ]; then
        "$PYTHON" "$ROOT/tools/mnist.py" synth "${EXEC_PATH}/MNIST_Data" \
            --train "${SYNTH_TRAIN:-60000}" --test 0
    fi
    export DATA_PATH=${EXEC_PATH}/MNIST_Data/train/
fi

# Each rank gets cores // RANKS threads and the malloc settings of the project's launcher.
eval "$("$PYTHON" -c '
import shlex, sys
from minispore.run import MALLOC_VARS, THREAD_VARS, rank_environment
env = rank_environment(int(sys.argv[1]))
print("\n".join(f"export {v}={shlex.quote(env[v])}" for v in THREAD_VARS + tuple(MALLOC_VARS)))
' "$RANKS")"

if "$MPIRUN" --version 2>&1 | grep -q -e "Open MPI" -e "OpenRTE"; then
    exec "$MPIRUN" -n "$RANKS" --oversubscribe --output-filename log_output \
        --merge-stderr-to-stdout "$PYTHON" "$HERE/main.py"
fi
# MPICH's Hydra has no --output-filename: its per-rank file patterns write the same paths,
# but it neither creates the folders nor truncates an old file, so both are done here.
for ((r = 0; r < RANKS; r++)); do
    rm -f "log_output/1/rank.$r/stdout"
    mkdir -p "log_output/1/rank.$r"
done
exec "$MPIRUN" -n "$RANKS" -outfile-pattern "log_output/1/rank.%r/stdout" \
    -errfile-pattern "log_output/1/rank.%r/stdout" "$PYTHON" "$HERE/main.py"
