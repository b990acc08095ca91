"""Where a job's TCP listeners bind: the launcher to start ranks with (no listener of its own) and
the MPI netmods' interface, loopback for a job on this host alone, else the one toward its peers.

A job's listeners (README, "Ports a job opens"): the dynamic cluster's scheduler binds
MS_SCHED_HOST itself (scheduler.bind); the launcher, forker.py, listens nowhere (its ranks talk
to it over inherited socket pairs); each rank's UCX (or libfabric) netmod listens on one
ephemeral port, on every interface's address unless told one, which is what this module
decides. Shared memory carries a one-host job's traffic either way.
"""
import fcntl
import ipaddress
import os
import socket
import struct
import sys

# The netmods' interface settings: UCX (the `mpich` wheel's default netmod), libfabric's tcp and
# sockets providers (MPIR_CVAR_CH4_NETMOD=ofi).
NETMOD_IFACE_VARS = ("UCX_NET_DEVICES", "FI_TCP_IFACE", "FI_SOCKETS_IFACE")
LOOPBACK_IFACE = "lo"
LOOPBACK_VARS = {var: LOOPBACK_IFACE for var in NETMOD_IFACE_VARS}
# Hydra's `mpirun -iface IFACE` tells the ranks only through ch3's variable, which the ch4
# netmods (UCX, libfabric) ignore: they then listen on every interface, loopback included.
HYDRA_IFACE_VAR = "MPIR_CVAR_NEMESIS_TCP_NETWORK_IFACE"
FORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forker.py")
_SIOCGIFADDR = 0x8915       # Linux: an interface's (primary) IPv4 address


def launcher_command(ranks):
    """The argv prefix that starts `ranks` processes of one job on this host: forker.py, in an
    isolated interpreter (-I: it needs the standard library only, and must not import
    minispore; see its docstring)."""
    return [sys.executable, "-I", FORKER, "-n", str(ranks), "--"]


def is_loopback(host):
    """Whether `host` (a name or an address) resolves to a loopback address."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    return all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def netmod_environment(peers=None, environ=None):
    """The netmod variables that `environ` (default os.environ) leaves unset, set to the
    interface the job's ranks reach each other on: loopback when `peers` is None (every rank
    on this host) or a loopback address, else this host's interface toward `peers` (the
    scheduler's address of a job across hosts).

    Raises:
        RuntimeError: `peers` does not resolve, or no interface of this host holds the address
            that routes to it.
    """
    environ = os.environ if environ is None else environ
    unset = [var for var in NETMOD_IFACE_VARS if not environ.get(var)]
    if not unset:
        return {}
    iface = LOOPBACK_IFACE if peers is None or is_loopback(peers) else interface_toward(peers)
    return {var: iface for var in unset}


def pin_netmods_to_launcher_interface(environ=None):
    """Under Hydra's `mpirun -iface IFACE`, set the netmod variables `environ` (default
    os.environ) leaves unset to IFACE, so the rank's netmod listens there alone; called when
    minispore is imported, before MPI starts. Returns what it set ({} without -iface)."""
    environ = os.environ if environ is None else environ
    iface = environ.get(HYDRA_IFACE_VAR)
    if not iface or "PMI_RANK" not in environ:
        return {}
    pinned = {var: iface for var in NETMOD_IFACE_VARS if not environ.get(var)}
    environ.update(pinned)
    return pinned


def interface_toward(host):
    """The name of this host's interface whose address the kernel picks to reach `host`.

    Raises:
        RuntimeError: naming `host`, when it does not resolve or that address is on no
            interface this module can read (IPv4 primary addresses, IPv6 ones).
    """
    try:
        family, _, _, _, address = socket.getaddrinfo(host, 9, type=socket.SOCK_DGRAM)[0]
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect(address)      # UDP: no packet is sent, only the route is chosen
            local = ipaddress.ip_address(probe.getsockname()[0].split("%")[0])
    except (OSError, UnicodeError) as e:
        raise RuntimeError(f"minispore cannot find the network interface toward {host!r} "
                           f"(the scheduler's address, MS_SCHED_HOST / msrun --master_addr): "
                           f"{e}. Set UCX_NET_DEVICES (and FI_TCP_IFACE) to the interface "
                           f"the job's hosts reach each other on.") from None
    for _, name in socket.if_nameindex():
        if local in _addresses(name):
            return name
    raise RuntimeError(f"minispore cannot find the network interface toward {host!r} (the "
                       f"scheduler's address, MS_SCHED_HOST / msrun --master_addr): this host "
                       f"reaches it from {local}, which no interface lists as its primary "
                       f"address. Set UCX_NET_DEVICES (and FI_TCP_IFACE) to the interface "
                       f"the job's hosts reach each other on.")


def _addresses(name):
    """The IPv4 (primary) and IPv6 addresses of interface `name`."""
    found = set()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            packed = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()))
            found.add(ipaddress.ip_address(packed[20:24]))
        except OSError:
            pass                # no IPv4 address
    try:
        with open("/proc/net/if_inet6") as f:
            for line in f:
                fields = line.split()
                if fields[-1] == name:
                    found.add(ipaddress.IPv6Address(int(fields[0], 16)))
    except OSError:
        pass                    # no IPv6 on this host
    return found
