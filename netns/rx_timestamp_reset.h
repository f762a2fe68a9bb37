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

// Adds the filter to `ifindex` in the namespace of `sock`, on a clsact qdisc where
// `clsact` (netem's redirect follows it there) and else on an ingress qdisc. Every qdisc's
// filter block is bound through a list of every block bound on the machine (the kernel's
// flow_indr_dev_setup_offload walks it), so each costs time growing with the lab: clsact
// binds two (ingress and egress), the ingress qdisc one. (The tcx hook binds none, but
// waits out an RCU grace period per attach: 25 ms each here, 50 s for a 1000-node lab.)
void attach_rx_timestamp_reset(nl_sock* sock, int ifindex, bool clsact);

}  // namespace testbed
