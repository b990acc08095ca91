"""Which server holds which parameter-server parameter.

Rule (every process computes it alike from the optimizer's parameter list, so no message is
needed): the optimizer's parameters marked ``set_param_ps``, in the optimizer's order, are the
keys 0, 1, ...; each key in turn goes to the server holding the fewest bytes so far (the lowest
server id on a tie). A parameter is never split across servers: one with more bytes than all
the others together still goes whole to one server.
"""

__all__ = ["ps_parameters", "assign_servers"]


def ps_parameters(optimizer):
    """The optimizer's set_param_ps parameters, in its order (their index is their key)."""
    return [p for p in optimizer.parameters if p.is_param_ps]


def assign_servers(nbytes, server_num):
    """The server of each key, given the keys' sizes in bytes.

    >>> assign_servers([400, 100, 100, 100], 2)
    [0, 1, 1, 1]
    >>> assign_servers([8, 8, 8], 2)
    [0, 1, 0]
    """
    if server_num < 1:
        raise ValueError(f"The parameter server needs MS_SERVER_NUM >= 1, but got {server_num}.")
    load = [0] * server_num
    owners = []
    for size in nbytes:
        server = min(range(server_num), key=lambda s: (load[s], s))
        load[server] += size
        owners.append(server)
    return owners
