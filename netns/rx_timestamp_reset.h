// Makes receive-side delay visible to tools that read the kernel's receive timestamp.
//
// The delay line holds packets in PREROUTING, but the kernel stamps a packet when it
// arrives on the interface, before that: `ping` (which reads SO_TIMESTAMP) would report an
// RTT without the reply's delay (30 ms instead of 60 for 30 ms each way, measured here).
// A four-instruction eBPF program on the interface's tc ingress hook clears the stamp;
// the socket then stamps the packet when it is delivered, after the delay.
#pragma once

#include <netlink/netlink.h>

namespace testbed {

// Adds a clsact qdisc and the filter to `ifindex` in the namespace of `sock`.
void attach_rx_timestamp_reset(nl_sock* sock, int ifindex);

}  // namespace testbed
