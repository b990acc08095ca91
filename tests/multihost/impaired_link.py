"""A slow, lossy cable between a host's link and the bridge, in user space: what `tc qdisc add
dev eth0 root netem delay 50ms loss 1%` does, for kernels built without sch_netem (the CI
machine's: no netem, no module to load).

Run inside the switch namespace as `python impaired_link.py PORT TAP DELAY_MS LOSS`: PORT is the
host's veth end, already taken off the bridge; TAP is created here and put on the bridge by the
caller once this prints "ready". Every Ethernet frame the host sends waits DELAY_MS and is
dropped with probability LOSS (a seeded generator, so a run is repeatable), as netem on its
eth0 would do; frames to the host pass at once (the sender's cable delayed them). The host's
eth0 must send whole frames of at most its MTU with their checksums computed (`offload_off`),
since a frame read here is written as it is to the other side.

`python impaired_link.py --offload-off IFACE`, in the host's namespace, does that.
"""
import fcntl
import heapq
import os
import random
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
TUNSETIFF, IFF_TAP, IFF_NO_PI = 0x400454CA, 0x0002, 0x1000
SIOCETHTOOL = 0x8946
ETHTOOL_STXCSUM, ETHTOOL_STSO, ETHTOOL_SGSO = 0x17, 0x1f, 0x24
FRAME_MAX = 65536


def offload_off(name):
    """Checksum offload, TSO and GSO off on `name` (ethtool -K NAME tx off tso off gso off,
    without ethtool): a veth hands its peer frames whose TCP checksum is left to the "hardware",
    which a frame copied through user space never gets, and segments of up to 64 KiB."""
    import array
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for command in (ETHTOOL_STXCSUM, ETHTOOL_STSO, ETHTOOL_SGSO):
            value = array.array("I", [command, 0])          # struct ethtool_value
            address, _ = value.buffer_info()
            request = struct.pack("16sP", name.encode(), address)   # struct ifreq: ifr_data
            fcntl.ioctl(s.fileno(), SIOCETHTOOL, request)


def open_tap(name):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    return fd


def relay(port, tap, delay_s, loss):
    wire = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    wire.bind((port, 0))
    tap_fd = open_tap(tap)
    print("ready", flush=True)
    draw = random.Random(31)
    queue = []          # (due, order, frame) of the host's frames
    order = 0
    while True:
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        readable, _, _ = select.select([wire, tap_fd], [], [], timeout)
        now = time.monotonic()
        for source in readable:
            if source is wire:
                frame, address = wire.recvfrom(FRAME_MAX)
                if address[2] == PACKET_OUTGOING:
                    continue                    # what this relay itself sent to the host
                if draw.random() >= loss:
                    order += 1
                    heapq.heappush(queue, (now + delay_s, order, frame))
            else:
                _send(wire.send, os.read(tap_fd, FRAME_MAX))
        while queue and queue[0][0] <= time.monotonic():
            _send(lambda frame: os.write(tap_fd, frame), heapq.heappop(queue)[2])


def _send(write, frame):
    try:
        write(frame)
    except OSError:
        pass            # a full queue drops the frame, as a real link would


if __name__ == "__main__":
    if sys.argv[1] == "--offload-off":
        offload_off(sys.argv[2])
    else:
        relay(sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1000, float(sys.argv[4]))
