"""Threads per rank: ranks that share a host split its cores, so each rank's Numba and BLAS
thread pools get ``cores // local ranks`` threads at init() unless the user chose.

Why: the tutorials launch with plain ``mpirun -n 8 python main.py``; without this every rank
starts full-size Numba and BLAS pools on the same cores (measured 0.70 s against 0.038 s per
step of the dynamic-shape tutorial on 8 ranks and 2 cores). Our launcher
(``python -m minispore.run``) sets the variables before the ranks start; this covers every
other launch, after import, when the environment variables are read too late.
"""
import logging
import os

logger = logging.getLogger("minispore")

# Setting any of these (or set_context(runtime_num_threads=N)) means the user chose.
THREAD_VARS = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
               "MKL_NUM_THREADS")


def host_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def threads_per_rank(local_ranks, environ=None, runtime_num_threads=0, cores=None):
    """(threads, reason): how many threads each rank's pools get, or (None, why not)."""
    environ = os.environ if environ is None else environ
    chosen = [v for v in THREAD_VARS if environ.get(v)]
    if chosen:
        return None, f"{chosen[0]}={environ[chosen[0]]} is set"
    if runtime_num_threads:
        return runtime_num_threads, f"set_context(runtime_num_threads={runtime_num_threads})"
    cores = cores or host_cores()
    return max(1, cores // local_ranks), f"{cores} cores shared by {local_ranks} local ranks"


def limit_threads(local_ranks, runtime_num_threads=0):
    """Size this rank's Numba and BLAS pools for `local_ranks` ranks on this host; returns the
    thread count set, or None when the user chose (then nothing changes)."""
    threads, reason = threads_per_rank(local_ranks, runtime_num_threads=runtime_num_threads)
    if threads is None:
        logger.info("Threads per rank left as configured (%s).", reason)
        return None
    import numba
    from threadpoolctl import threadpool_limits
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    threadpool_limits(limits=threads, user_api="blas")
    logger.info("Each rank uses %d threads for Numba and BLAS (%s).", threads, reason)
    return threads
