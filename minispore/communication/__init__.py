"""Collective communication (MindSpore's mindspore.communication): init, ranks, groups, and the
MPI collective backend the communication operators and gradient buckets use.

Only this package imports mpi4py, and only once ``init()`` runs.
"""
from minispore.communication._comm import collective_check_enabled, set_collective_check
from minispore.communication.collectives import CommHandle, iallreduce
from minispore.communication.management import (HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP,
                                                NCCL_WORLD_COMM_GROUP, GlobalComm,
                                                create_group, destroy_group,
                                                get_group_rank_from_world_rank,
                                                get_group_size, get_local_rank,
                                                get_local_rank_size, get_rank,
                                                get_world_rank_from_group_rank, init, release)

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_local_rank", "get_group_size",
           "get_local_rank_size", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "create_group", "destroy_group",
           "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP",
           "iallreduce", "CommHandle", "set_collective_check", "collective_check_enabled"]
