"""Threads per rank: ranks that share a host split its cores, so each rank's Numba and BLAS
thread pools get ``cores // local ranks`` threads at init(), except a pool the user sized.

Why: the tutorials launch with plain ``mpirun -n 8 python main.py``; without this every rank
starts full-size Numba and BLAS pools on the same cores (measured 0.70 s against 0.038 s per
step of the dynamic-shape tutorial on 8 ranks and 2 cores). Our launcher
(``python -m minispore.run``) sets the variables before the ranks start; this covers every
other launch, after import, when the environment variables are read too late.
"""
import logging
import os

from minispore.common.environment import environment

logger = logging.getLogger("minispore")

# The variables that size each pool. A user who sets one sized that pool, not the other: the
# common `OMP_NUM_THREADS=1 mpirun -n 8 ...` pins BLAS, but Numba would still start a
# full-size pool per rank (NUMBA_NUM_THREADS is the only variable Numba reads).
NUMBA_VARS = ("NUMBA_NUM_THREADS",)
BLAS_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
THREAD_VARS = NUMBA_VARS + BLAS_VARS


def host_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def threads_per_rank(local_ranks, environ=None, runtime_num_threads=0, cores=None):
    """{"numba": (threads, reason), "blas": (threads, reason)}: the size of each of this rank's
    pools, threads None where the user sized that pool with its variables (NUMBA_VARS,
    BLAS_VARS). Otherwise set_context(runtime_num_threads=N) gives N, else cores // local ranks
    (at least 1)."""
    environ = environment(THREAD_VARS) if environ is None else environ
    cores = cores or host_cores()
    if runtime_num_threads:
        default = runtime_num_threads, f"set_context(runtime_num_threads={runtime_num_threads})"
    else:
        default = (max(1, cores // local_ranks),
                   f"{cores} cores shared by {local_ranks} local ranks")
    pools = {}
    for pool, names in (("numba", NUMBA_VARS), ("blas", BLAS_VARS)):
        chosen = [v for v in names if environ.get(v)]
        pools[pool] = (None, f"{chosen[0]}={environ[chosen[0]]} is set") if chosen else default
    return pools


def limit_threads(local_ranks, runtime_num_threads=0):
    """Size this rank's Numba and BLAS pools for `local_ranks` ranks on this host (a pool the
    user sized is left as it is); returns threads_per_rank's answer.

    Raises:
        ValueError: set_context(runtime_num_threads=N) asks for more threads than Numba's
            pool holds (its size is fixed by NUMBA_NUM_THREADS when Numba is imported).
    """
    import numba
    pools = threads_per_rank(local_ranks, runtime_num_threads=runtime_num_threads)
    numba_threads, blas_threads = pools["numba"][0], pools["blas"][0]
    if numba_threads is not None:
        if numba_threads > numba.config.NUMBA_NUM_THREADS:
            raise ValueError(
                f"For 'init', set_context(runtime_num_threads={numba_threads}) asks for more "
                f"threads than Numba's pool holds ({numba.config.NUMBA_NUM_THREADS}, fixed when "
                f"Numba was imported): set NUMBA_NUM_THREADS={numba_threads} in the environment "
                f"before starting Python, or a smaller runtime_num_threads.")
        numba.set_num_threads(numba_threads)
    if blas_threads is not None:
        # The GEMM kernels call numpy's OpenBLAS (kernels/cpu/blas.py), loaded with numpy.
        from threadpoolctl import threadpool_limits
        threadpool_limits(limits=blas_threads, user_api="blas")
    logger.info("Threads per rank: Numba %s (%s), BLAS %s (%s).",
                numba_threads or "as configured", pools["numba"][1],
                blas_threads or "as configured", pools["blas"][1])
    return pools
