// The traffic-control objects of one direction, built as libnl objects: the sender's HTB
// class 1:1 and its FIFO leaf 10:, and the receiver's netem on its IFB device. Kept apart
// from sending them so that tests can inspect the exact netlink messages, including netem's
// on kernels without it.
#pragma once

#include <netlink/msg.h>

#include "netns/kernel.h"
#include "netns/nl_objects.h"

namespace testbed {

// The HTB tree: root 1:, the class 1:1 that all traffic falls into (defcls 1), leaf 10:.
constexpr uint32_t kHtbRootHandle = 0x00010000;   // 1:
constexpr uint32_t kHtbClassHandle = 0x00010001;  // 1:1
constexpr uint32_t kHtbLeafHandle = 0x00100000;   // 10:

nl::Qdisc make_htb_root(int ifindex);
nl::Class make_htb_class(int ifindex, const HtbShaping& s);
nl::Qdisc make_leaf(int ifindex, const HtbShaping& s);

// A device's clsact qdisc (parent and handle ffff:), as both its creation and its deletion
// name it: the hook of the delay line, of ingress netem's redirect and of the BPF filters.
nl::Qdisc make_clsact(int ifindex);

// Fills `s`'s queue from a leaf read back from the kernel.
void read_leaf(rtnl_qdisc* leaf, HtbShaping& s);

// The leaf's kind: "bfifo" or "pfifo".
const char* leaf_kind(const HtbShaping& s);

// The root netem qdisc of an IFB device (kernel.h, IngressNetem), as the RTM_NEWQDISC
// request that creates (flags NLM_F_CREATE | NLM_F_EXCL) or changes (0) it, and its reading
// back (which cannot see keep_order: libnl does not parse netem's rate).
constexpr uint32_t kNetemRootHandle = 0x00010000;  // 1:
using Message = std::unique_ptr<nl_msg, nl::Deleter<nl_msg, nlmsg_free>>;
Message make_netem_request(int ifindex, const NetemParams& n, int flags);
NetemParams read_netem(rtnl_qdisc* netem);

}  // namespace testbed
