"""watchdog.judge on hand-made arrival records: when a rank waiting in a receive may call its
peer gone (LEFT)."""
from minispore.communication.watch import watchdog
from minispore.communication.watch.arrivals import EXITED, RECEIVE, RUNNING, Position

SETTINGS = watchdog.Settings(True, 300.0, 75.0, 0.25)


def position(status, kind=RECEIVE, peer=0):
    return Position(progress=4, status=status, kind=kind, group=0, seq=3, nbytes=4, peer=peer,
                    exit_code=0, note="", calls={0: 3})


def test_a_receive_from_a_peer_that_left_waits_for_a_message_still_on_its_way():
    """The peer's last send may still be travelling (libfabric's netmod moves it only while
    the leaver drives MPI progress at its exit): LEFT only once the receive has waited
    SETTLE_S, and at once neither before nor for a peer still in its script."""
    me, gone = position(RUNNING, peer=0), {0: position(EXITED)}
    assert watchdog.judge(me, gone, set(), 0.5, SETTINGS) is None
    verdict = watchdog.judge(me, gone, set(), watchdog.SETTLE_S, SETTINGS)
    assert verdict == watchdog.Verdict(watchdog.LEFT, [0])
    assert watchdog.judge(me, {0: position(RUNNING)}, set(), 60.0, SETTINGS) is None
