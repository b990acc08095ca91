"""Several hosts on this machine for the multi-host tests: each host a network, UTS and mount
namespace with its own hostname, /dev/shm, /tmp and /etc/hosts, joined by a bridge.

Layout (every name carries this process's pid, so concurrent test sessions never collide, and
the root namespace gets nothing: no interface, no address, no route):

    namespace <tag>-sw:   bridge br0, and one veth end per host (h0, h1, ...), all up
    namespace <tag>-h<i>: veth end eth0 with 10.200.0.<i+1>/24, loopback, and an anchor process
                          (see below) holding its UTS and mount namespaces

A network namespace persists by name (`ip netns`), but UTS and mount namespaces live only as
long as a process is in them: the anchor, started under `ip netns exec NS unshare --uts
--mount`, sets the hostname, mounts private tmpfs on /dev/shm and /tmp and binds the hosts'
shared /etc/hosts, then sleeps. Everything a test runs on a host enters the anchor's namespaces
with `nsenter` (Host.command), so the processes of one host share a hostname and /dev/shm exactly
as on a real machine, and those of two hosts share neither. The PID namespace stays shared
(the test must see and kill them all), and so does the file system outside /dev/shm and /tmp,
as nodes sharing a network file system see the same venv and job folders: Hosts.folder, made
under /var/tmp since every host has its own /tmp.

Two hosts on one kernel still look alike to UCX (the `mpich` wheel's netmod), which then moves
inter-host data through shared memory or cross-memory attach; JOB_ENV's UCX_TLS=tcp makes it
use the network as it must between real hosts (measured: a 20-step job sent 22 KiB over the
veth without it, 5.6 MB with it).

Link faults: Host.set_link takes a host's veth end down (a pulled cable); Hosts.impaired delays
and drops what each host sends (tc netem, or impaired_link.py where the kernel lacks netem).

Teardown (Hosts.close) kills every process in each host's network namespace, the anchors
included, then deletes the namespaces (which destroys the veths and the bridge), whether the
tests passed or not; a session killed before its teardown leaves namespaces that the next one
removes (_remove_orphans).
"""
import contextlib
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SUBNET = "10.200.0"
PREFIX = 24
IFACE = "eth0"              # the host's side of its link, named as on a real machine
JOB_ENV = {"UCX_TLS": "tcp"}
CABLE = str(Path(__file__).resolve().parent / "impaired_link.py")
SHARED_ROOT = "/var/tmp"      # the hosts' shared folder: not /tmp, which each host has its own
_TOOLS = ("ip", "unshare", "nsenter", "bash")


def _paths_under_tmp():
    """The project's checkout and its Python environment where they lie under /tmp (each as
    its outermost folder there, once): the hosts' processes must still find them."""
    root = Path(__file__).resolve().parents[2]
    found = []
    for p in (root, Path(sys.prefix).resolve(), Path(sys.executable).resolve().parent):
        if p.is_relative_to("/tmp") and not any(p.is_relative_to(f) for f in found):
            found = [f for f in found if not f.is_relative_to(p)] + [p]
    return [str(p) for p in found]


def why_hosts_are_unavailable():
    """None when this process may create namespaces, else the reason (for pytest.skip)."""
    missing = [tool for tool in _TOOLS if shutil.which(tool) is None]
    if missing:
        return f"multi-host tests need {', '.join(missing)} (iproute2, util-linux)"
    if os.geteuid() != 0:
        return "multi-host tests create network namespaces, which needs root"
    probe = f"msprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"this process may not create network namespaces: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _address(hex_address):
    """/proc/net/tcp{,6}'s hex address (32-bit words in host order, little-endian here)."""
    raw = bytes.fromhex(hex_address)
    return ipaddress.ip_address(b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)))


def _fd_targets(pid):
    """What process `pid`'s open descriptors point to (none once it has ended)."""
    targets = []
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return targets
    for fd in fds:
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass                        # closed meanwhile
    return targets


def _command_name(pid):
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def _run(*argv, check=True):
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed: {done.stderr.strip()}")
    return done.stdout


def _remove_orphans():
    """Delete the namespaces of sessions that died before their teardown (their pid, in the
    name, is gone), so a crashed run leaves nothing behind for long."""
    for line in _run("ip", "netns", "list", check=False).splitlines():
        found = re.match(r"ms(\d+)-(sw|h\d+)\b", line)
        if found and not os.path.exists(f"/proc/{found.group(1)}"):
            for pid in _run("ip", "netns", "pids", found.group(0), check=False).split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            _run("ip", "netns", "del", found.group(0), check=False)


class Host:
    """One namespace host: its name (hostname), address, network namespace and anchor."""

    def __init__(self, index, tag):
        self.index = index
        self.name = f"node{index}"
        self.address = f"{SUBNET}.{index + 1}"
        self.netns = f"{tag}-h{index}"
        self.switch_port = f"h{index}"
        self.anchor = None

    def command(self, argv):
        """argv run inside this host (its network, hostname, /dev/shm)."""
        return ["nsenter", "-t", str(self.anchor.pid), "--net", "--uts", "--mount", "--"] + \
            [str(a) for a in argv]

    def run(self, argv, **kwargs):
        """subprocess.run of argv on this host, output captured as text."""
        return subprocess.run(self.command(argv), capture_output=True, text=True, **kwargs)

    def link_bytes(self):
        """(bytes received, bytes sent) so far by this host's link (its veth end)."""
        stats = json.loads(_run("ip", "-n", self.netns, "-j", "-s", "link", "show", IFACE))
        return stats[0]["stats64"]["rx"]["bytes"], stats[0]["stats64"]["tx"]["bytes"]

    def listeners(self):
        """{(address, port): {command names of the processes holding it}} of every TCP socket
        listening on this host (its network namespace's /proc/net/tcp, read through the
        anchor, whose namespace it is)."""
        sockets = {}
        for table in ("tcp", "tcp6"):
            path = Path(f"/proc/{self.anchor.pid}/net/{table}")
            rows = path.read_text().splitlines()[1:] if path.exists() else []
            for fields in map(str.split, rows):
                if fields[3] == "0A":           # TCP_LISTEN
                    address, port = fields[1].split(":")
                    sockets[fields[9]] = (_address(address), int(port, 16))
        held = {}
        for pid in self.pids():
            for target in _fd_targets(pid):
                inode = target[len("socket:["):-1] if target.startswith("socket:[") else None
                if inode in sockets:
                    held.setdefault(sockets[inode], set()).add(_command_name(pid))
        return held

    def pids(self):
        """Every process in this host's network namespace."""
        return [int(p) for p in _run("ip", "netns", "pids", self.netns, check=False).split()]

    def kill_all(self, keep_anchor=False):
        """SIGKILL every process on this host (the anchor too unless `keep_anchor`)."""
        for pid in self.pids():
            if keep_anchor and self.anchor is not None and pid == self.anchor.pid:
                continue
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def set_link(self, up):
        """Take this host's link down (as a pulled cable: its veth end) or up again."""
        _run("ip", "-n", self.netns, "link", "set", IFACE, "up" if up else "down")



class Hosts:
    """`count` hosts joined by one bridge; close() removes them. Use as a context manager."""

    def __init__(self, count):
        self.tag = f"ms{os.getpid()}"
        self.folder = Path(tempfile.mkdtemp(prefix=f"minispore-{self.tag}-", dir=SHARED_ROOT))
        self.switch = f"{self.tag}-sw"
        self.hosts = [Host(i, self.tag) for i in range(count)]
        self.etc_hosts = self.folder / "hosts"
        self.etc_hosts.write_text("127.0.0.1 localhost\n" + "".join(
            f"{h.address} {h.name}\n" for h in self.hosts))
        try:
            self._create()
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getitem__(self, index):
        return self.hosts[index]

    def __iter__(self):
        return iter(self.hosts)

    def _create(self):
        _remove_orphans()
        _run("ip", "netns", "add", self.switch)
        _run("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge", "forward_delay", "0")
        _run("ip", "-n", self.switch, "link", "set", "br0", "up")
        for host in self.hosts:
            _run("ip", "netns", "add", host.netns)
            # Both ends are created inside their namespaces: no name in the root namespace.
            _run("ip", "link", "add", IFACE, "netns", host.netns, "type", "veth", "peer", "name",
                 host.switch_port, "netns", self.switch)
            _run("ip", "-n", self.switch, "link", "set", host.switch_port, "master", "br0", "up")
            _run("ip", "-n", host.netns, "addr", "add", f"{host.address}/{PREFIX}", "dev", IFACE)
            _run("ip", "-n", host.netns, "link", "set", IFACE, "up")
            _run("ip", "-n", host.netns, "link", "set", "lo", "up")
            host.anchor = self._anchor(host)

    def _anchor(self, host):
        """Start host's anchor process and wait until its namespaces are set up."""
        # A checkout or venv under /tmp (a CI clone) would vanish under the host's own /tmp:
        # each is bound to a holder in the host's fresh /dev/shm before /tmp is covered, then
        # moved back to its path in the new /tmp.
        kept = list(enumerate(_paths_under_tmp()))
        hold = "".join(f" && mkdir /dev/shm/.keep{i} && mount --bind {p} /dev/shm/.keep{i}"
                       for i, p in kept)
        back = "".join(f" && mkdir -p {p} && mount --move /dev/shm/.keep{i} {p} && "
                       f"rmdir /dev/shm/.keep{i}" for i, p in kept)
        setup = (f"hostname {host.name} && mount -t tmpfs -o size=1g tmpfs /dev/shm{hold} && "
                 f"mount -t tmpfs tmpfs /tmp{back} && mount --bind {self.etc_hosts} /etc/hosts "
                 f"&& echo ready && exec sleep infinity")
        # --propagation private: the mounts stay in this host, never reach the real ones.
        anchor = subprocess.Popen(["ip", "netns", "exec", host.netns, "unshare", "--uts",
                                   "--mount", "--propagation", "private", "sh", "-c", setup],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = anchor.stdout.readline()
        if line.strip() != "ready":
            anchor.kill()
            raise RuntimeError(f"host {host.name} did not start: {anchor.stderr.read()}")
        return anchor

    def job_folder(self, name):
        """A new folder every host sees (their shared file system)."""
        folder = self.folder / name
        folder.mkdir()
        return folder

    def kill_jobs(self):
        """SIGKILL whatever runs on the hosts, their anchors excepted."""
        for host in self.hosts:
            host.kill_all(keep_anchor=True)

    def listeners_off_the_job_interface(self, seen, hydra=False):
        """Of `seen` (watching_listeners'), the listeners not on their host's job address:
        {host name: {(address, port): names}}. With `hydra`, node0's one port held by Hydra's
        mpirun on every interface is expected (it has no option to bind it elsewhere; README,
        "Ports a job opens"), and is left out when exactly one such is there."""
        off = {}
        for host in self.hosts:
            mine = ipaddress.ip_address(host.address)
            wrong = {k: v for k, v in seen[host.name].items() if k[0] != mine}
            hydras = [k for k, names in wrong.items() if "mpirun" in names]
            if hydra and host is self.hosts[0] and len(hydras) == 1:
                del wrong[hydras[0]]
            if wrong:
                off[host.name] = wrong
        return off

    @contextlib.contextmanager
    def impaired(self, delay_ms, loss):
        """Within the block every frame a host sends waits `delay_ms` and is dropped with
        probability `loss`: `tc netem` on each eth0 where the kernel has it, else
        impaired_link.py's user-space cable between each host's veth and the bridge."""
        spec = ["delay", f"{delay_ms}ms", "loss", f"{loss * 100:g}%"]
        netem = all([self._netem(h, spec) for h in self.hosts])
        relays = [] if netem else [self._cable(h, delay_ms, loss) for h in self.hosts]
        try:
            yield
        finally:
            for host in self.hosts if shutil.which("tc") else ():
                _run("ip", "netns", "exec", host.netns, "tc", "qdisc", "del", "dev", IFACE,
                     "root", check=False)
            for host, relay in zip(self.hosts, relays):
                relay.kill()
                relay.wait()
                _run("ip", "-n", self.switch, "link", "set", host.switch_port, "master", "br0")

    def _netem(self, host, spec):
        """Whether `tc netem` took on host's eth0 (the kernel may lack sch_netem)."""
        if shutil.which("tc") is None:
            return False
        return subprocess.run(["ip", "netns", "exec", host.netns, "tc", "qdisc", "replace",
                               "dev", IFACE, "root", "netem", *spec],
                              capture_output=True).returncode == 0

    def _cable(self, host, delay_ms, loss):
        """Put impaired_link.py between host's veth end and the bridge: the relay process."""
        _run("ip", "netns", "exec", host.netns, sys.executable, CABLE, "--offload-off", IFACE)
        _run("ip", "-n", self.switch, "link", "set", host.switch_port, "nomaster")
        tap = f"t{host.index}"
        relay = subprocess.Popen(["ip", "netns", "exec", self.switch, sys.executable, CABLE,
                                  host.switch_port, tap, str(delay_ms), str(loss)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if relay.stdout.readline().strip() != "ready":
            relay.kill()
            raise RuntimeError(f"the cable of {host.name} did not start: "
                               f"{relay.stderr.read()}")
        _run("ip", "-n", self.switch, "link", "set", tap, "master", "br0", "up")
        return relay

    def write_map(self):
        """A file listing `name address anchor-pid` per host, for ssh_to_host."""
        path = self.folder / "host_map"
        path.write_text("".join(f"{h.name} {h.address} {h.anchor.pid}\n" for h in self.hosts))
        return path

    @contextlib.contextmanager
    def watching_listeners(self, every_s=0.1):
        """Within the block, sample every host's listeners every `every_s` seconds (so one
        opened at any moment of a job counts); yields {host name: {(address, port): names}},
        the union of what was seen, filled in when the block ends."""
        seen = {h.name: {} for h in self.hosts}
        stop = threading.Event()

        def sample():
            while True:
                for host in self.hosts:
                    for key, names in host.listeners().items():
                        seen[host.name].setdefault(key, set()).update(names)
                if stop.wait(every_s):
                    return
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            yield seen
        finally:
            stop.set()
            sampler.join()

    def close(self):
        for host in self.hosts:
            host.kill_all()
            if host.anchor is not None:
                host.anchor.wait()
        # A killed process leaves its namespace a moment later; deleting the name does not wait.
        deadline = time.monotonic() + 10
        while any(h.pids() for h in self.hosts) and time.monotonic() < deadline:
            time.sleep(0.05)
        for name in [h.netns for h in self.hosts] + [self.switch]:
            _run("ip", "netns", "del", name, check=False)
        shutil.rmtree(self.folder, ignore_errors=True)
