// The traffic-control objects of one shaped direction, built as libnl objects: the HTB
// class 1:1 and its leaf 10: (a FIFO, or netem). Kept apart from sending them so that tests
// can inspect the exact netlink messages, including netem's on kernels without it.
#pragma once

#include "kernel.h"
#include "nl_objects.h"

namespace testbed {

// The HTB tree: root 1:, the class 1:1 that all traffic falls into (defcls 1), leaf 10:.
constexpr uint32_t kHtbRootHandle = 0x00010000;   // 1:
constexpr uint32_t kHtbClassHandle = 0x00010001;  // 1:1
constexpr uint32_t kHtbLeafHandle = 0x00100000;   // 10:

nl::Qdisc make_htb_root(int ifindex);
nl::Class make_htb_class(int ifindex, const HtbShaping& s);
nl::Qdisc make_leaf(int ifindex, const HtbShaping& s);

// Fills `s`'s leaf fields (queue or netem) from a leaf read back from the kernel.
void read_leaf(rtnl_qdisc* leaf, HtbShaping& s);

// The leaf's kind: "bfifo", "pfifo" or "netem".
const char* leaf_kind(const HtbShaping& s);

}  // namespace testbed
