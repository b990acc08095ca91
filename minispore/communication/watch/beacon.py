"""Whether the ranks on other hosts are still there, for the watchdog: in a job across hosts
each rank listens on one TCP port on its job address (its beacon), and a call waiting for ranks
on other hosts connects to their beacons; a rank whose beacon stops answering has vanished.

Why: the arrival table (arrivals.py) shows only this host's ranks, and an MPI call waiting for
a peer behind a link that went down, or on a host that died, waits until MS_COMM_TIMEOUT (600 s
by default), its report able to say only "on another host". A TCP connect needs nothing of the
peer's process but an open listening socket: its kernel completes the handshake, so a beacon
answers whatever the rank is doing (computing, waiting in MPI, holding the GIL), and stops
answering only when the host cannot be reached (the connect times out) or the rank's process
is gone (the host refuses the connection). A daemon thread accepts and closes the connections,
so the queue never fills.

Which address: the interface the job's netmods use (UCX_NET_DEVICES, which relaunch.py sets
for a dynamic cluster across hosts and listen.pin_netmods_to_launcher_interface for
`mpirun -iface`), else the address this host's name resolves to; a rank that finds neither
outside loopback opens no beacon, and the others keep only the deadline for it. A job on one
host opens none (the arrival table sees every rank).
"""
import errno
import ipaddress
import os
import selectors
import socket
import threading
import time

from minispore.communication.cluster import listen

PROBE_TIMEOUT_S = 1.0       # one round of connects at most (a reachable host answers in
                            # milliseconds); shorter when the job's deadline is short


def job_address(environ=None):
    """This rank's address on the job's interface, or None (see the module docstring)."""
    environ = os.environ if environ is None else environ
    iface = environ.get("UCX_NET_DEVICES", "").split(":")[0]
    if iface == listen.LOOPBACK_IFACE:
        return None             # the netmods were pinned to loopback: a job on this host alone
    if iface and "," not in iface and iface != "all":
        found = sorted(a for a in listen._addresses(iface) if a.version == 4)
        return str(found[0]) if found else None
    try:
        address = ipaddress.ip_address(socket.gethostbyname(socket.gethostname()))
    except (OSError, ValueError):
        return None
    return None if address.is_loopback else str(address)


class Beacons:
    """This rank's beacon, and where every other rank's is: {world rank: (hostname, address,
    port)} for the ranks on other hosts that opened one."""

    def __init__(self, world_comm, local_ranks):
        """Collective over `world_comm` (at init()): every rank must construct it."""
        self.listener = None
        me = (socket.gethostname(), None, None)
        everyone_here = len(local_ranks) == world_comm.Get_size()
        address = None if everyone_here else job_address()
        if address is not None:
            self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.listener.bind((address, 0))
            self.listener.listen(64)
            me = (me[0], address, self.listener.getsockname()[1])
            threading.Thread(target=self._serve, name="minispore-beacon", daemon=True).start()
        everyone = world_comm.allgather(me)
        self.where = {rank: entry for rank, entry in enumerate(everyone)
                      if rank not in local_ranks and entry[1] is not None}
        self.last_answer = {}       # world rank -> monotonic time of its last answer
        self.probing_since = None   # when the current call's probes began
        self.refused = {}           # world rank -> refusals in a row

    def _serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return              # closed: the process is ending
            conn.close()

    def host_of(self, rank):
        """`host (address)` of a rank on another host, or None when it has no beacon."""
        if rank not in self.where:
            return None
        name, address, _ = self.where[rank]
        return f"{name} ({address})"

    def reset(self):
        """A new call: its probes start afresh."""
        self.probing_since = None
        self.last_answer.clear()
        self.refused.clear()

    def vanished(self, ranks, lost_after):
        """Probe the beacons of `ranks` (those with one); return [(rank, why)] for each that
        has not answered for `lost_after` seconds of probing, or whose host refused it twice
        in a row (its process is gone), else []."""
        ranks = [r for r in ranks if r in self.where]
        if not ranks:
            return []
        if self.probing_since is None:
            self.probing_since = time.monotonic()
        answers = self._probe(ranks, min(PROBE_TIMEOUT_S, lost_after / 4))
        now = time.monotonic()
        gone = []
        for rank in ranks:
            outcome = answers.get(rank)
            if outcome == "answered":
                self.last_answer[rank], self.refused[rank] = now, 0
                continue
            if outcome == "refused":
                self.refused[rank] = self.refused.get(rank, 0) + 1
                if self.refused[rank] >= 2:
                    gone.append((rank, f"its host {self.host_of(rank)} refuses connections "
                                       f"to it: the rank's process is gone"))
                continue
            silent = now - self.last_answer.get(rank, self.probing_since)
            if silent >= lost_after:
                gone.append((rank, f"its host {self.host_of(rank)} has not answered for "
                                   f"{silent:.1f} s: the host or its link is down"))
        return gone

    def _probe(self, ranks, timeout):
        """{rank: "answered" | "refused"} of one round of non-blocking connects; ranks whose
        connect neither completed nor failed within `timeout` seconds are left out."""
        outcomes, pending = {}, {}
        with selectors.DefaultSelector() as selector:
            for rank in ranks:
                _, address, port = self.where[rank]
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setblocking(False)
                code = sock.connect_ex((address, port))
                if code in (0, errno.EINPROGRESS):
                    selector.register(sock, selectors.EVENT_WRITE, rank)
                    pending[rank] = sock
                else:
                    outcomes[rank] = "refused" if code == errno.ECONNREFUSED else None
                    sock.close()
            deadline = time.monotonic() + timeout
            while pending and time.monotonic() < deadline:
                for key, _ in selector.select(deadline - time.monotonic()):
                    sock = pending.pop(key.data)
                    selector.unregister(sock)
                    code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                    outcomes[key.data] = "answered" if code == 0 else \
                        "refused" if code == errno.ECONNREFUSED else None
                    sock.close()
            for sock in pending.values():
                sock.close()
        return {r: o for r, o in outcomes.items() if o is not None}
