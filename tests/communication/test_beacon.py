"""Where a rank's watchdog beacon listens (minispore/communication/watch/beacon.py), without
processes: nowhere for a job pinned to loopback, else on the job's interface. The beacons at
work (a link down, a host killed) are tested across namespace hosts: tests/multihost."""
import socket

import pytest

from minispore.communication.cluster import listen
from minispore.communication.watch import beacon


def test_a_job_pinned_to_loopback_opens_no_beacon():
    assert beacon.job_address({"UCX_NET_DEVICES": "lo"}) is None
    assert beacon.job_address({"UCX_NET_DEVICES": "lo:1"}) is None


def test_the_beacon_listens_on_the_netmods_interface():
    own = [(name, address) for _, name in socket.if_nameindex()
           for address in listen._addresses(name)
           if address.version == 4 and not address.is_loopback]
    if not own:
        pytest.skip("this host has no IPv4 address outside loopback")
    name, address = own[0]
    assert beacon.job_address({"UCX_NET_DEVICES": name}) == str(address)
    assert beacon.job_address({"UCX_NET_DEVICES": "no-such-iface0"}) is None
