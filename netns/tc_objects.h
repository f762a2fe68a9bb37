// The traffic-control objects of one direction, built as libnl objects or netlink requests:
// the sender's TBF and its FIFO leaf, and the receiver's netem on its IFB device. Kept apart
// from sending them so that tests can inspect the exact netlink messages, including netem's
// on kernels without it.
#pragma once

#include <netlink/msg.h>

#include "netns/kernel.h"
#include "netns/nl_objects.h"

namespace testbed {

// A direction's shaping (kernel.h, RateShaping): TBF at the root 1:, its leaf 10: under
// TBF's one class 1:1. A cut port's leaf is c07: instead (libnl_cut.cpp).
constexpr uint32_t kTbfRootHandle = 0x00010000;   // 1:
constexpr uint32_t kTbfClassHandle = 0x00010001;  // 1:1, the parent of its leaf
constexpr uint32_t kLeafHandle = 0x00100000;      // 10:
constexpr uint32_t kCutLeafHandle = 0x0c070000;   // c07:

// The TBF as the RTM_NEWQDISC request that creates (NLM_F_CREATE | NLM_F_REPLACE) or changes
// (0) it. Built by hand: libnl's TBF takes a 32-bit rate and no bucket in bytes.
using Message = std::unique_ptr<nl_msg, nl::Deleter<nl_msg, nlmsg_free>>;
Message make_tbf_request(int ifindex, const RateShaping& s, int flags);
// Sends a request built by hand and waits for the kernel's answer: >= 0, or libnl's error.
int send_request(nl_sock* sock, const Message& msg);
nl::Qdisc make_leaf(int ifindex, const RateShaping& s);
// A cut port's leaf in the FIFO's place: a byte FIFO that holds nothing (libnl_cut.cpp).
nl::Qdisc make_cut_leaf(int ifindex);

// A device's clsact qdisc (parent and handle ffff:), as both its creation and its deletion
// name it: the hook of the delay line, of ingress netem's redirect and of the BPF filters.
nl::Qdisc make_clsact(int ifindex);

// Fills `s`'s queue from a leaf read back from the kernel.
void read_leaf(rtnl_qdisc* leaf, RateShaping& s);

// The leaf's kind: "bfifo" or "pfifo".
const char* leaf_kind(const RateShaping& s);

// The root netem qdisc of an IFB device (kernel.h, IngressNetem), as the RTM_NEWQDISC
// request that creates (flags NLM_F_CREATE | NLM_F_EXCL) or changes (0) it, and its reading
// back (which cannot see keep_order: libnl does not parse netem's rate).
constexpr uint32_t kNetemRootHandle = 0x00010000;  // 1:
Message make_netem_request(int ifindex, const NetemParams& n, int flags);
NetemParams read_netem(rtnl_qdisc* netem);

}  // namespace testbed
