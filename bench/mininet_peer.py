#!/usr/bin/python3
"""Mininet (Debian's 2.3.0), measured as the testbed's peer by bench/bringup.sh.

  mininet_peer.py bringup N     Mininet's linear topology of N switches and N hosts, each
                                link shaped to 100 Mbit/s by tc (TCLink: HTB), Linux
                                bridges as switches (no Open vSwitch, no controller): the
                                seconds to build and start it, then to stop it, as
                                "up S down S"
  mininet_peer.py iperf MBIT    two hosts through one link shaped to MBIT: iperf3's
                                receiver rate from h2 to h1, 5 s with the first 2 left
                                out (as the testbed's tests measure), as "mbit R"

Links carry no delay: Mininet delays with netem, which this kernel lacks (see
../shared/reference/linux-emulation-facts.md), so only its rate shaping is compared.
Mininet names what it makes s1.., h1.. and bridges in the root namespace; it removes them
on stop, and `mn -c` removes what a killed run left.
"""
import json
import sys
import time
from functools import partial

from mininet.link import TCLink
from mininet.log import setLogLevel
from mininet.net import Mininet
from mininet.nodelib import LinuxBridge
from mininet.topo import LinearTopo


def network(switches, mbit):
    return Mininet(topo=LinearTopo(k=switches, n=1), switch=LinuxBridge, controller=None,
                   link=partial(TCLink, bw=mbit), autoSetMacs=True, build=False)


def bringup(n):
    net = network(n, 100)
    t0 = time.monotonic()
    net.build()
    net.start()
    t1 = time.monotonic()
    net.stop()
    t2 = time.monotonic()
    print(f"up {t1 - t0:.3f} down {t2 - t1:.3f}")


def iperf(mbit):
    net = network(2, mbit)
    net.build()
    net.start()
    try:
        h1, h2 = net.get("h1"), net.get("h2")
        h1.cmd("iperf3 -s -D -1")
        time.sleep(0.5)  # the server's socket, before the client connects
        out = h2.cmd(f"iperf3 -c {h1.IP()} -t 5 -O 2 -J")
        rate = json.loads(out)["end"]["sum_received"]["bits_per_second"] / 1e6
        print(f"mbit {rate:.2f}")
    finally:
        net.stop()


if __name__ == "__main__":
    # "critical": Mininet logs the kernel's note on every HTB class it makes ("quantum of
    # class 50001 is big") as an error; a real failure raises, and the bench stops.
    setLogLevel("critical")
    if len(sys.argv) != 3 or sys.argv[1] not in ("bringup", "iperf"):
        sys.exit(__doc__)
    (bringup if sys.argv[1] == "bringup" else iperf)(int(sys.argv[2]))
