#include "tc_objects.h"

#include <linux/pkt_sched.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/qdisc/netem.h>

#include <cmath>
#include <string>

namespace testbed {
namespace {

// netem expresses probabilities as a fraction of 2^32 - 1.
constexpr double kNetemProbabilityScale = 4294967295.0;

void base(rtnl_tc* tc, int ifindex, uint32_t parent, uint32_t handle, const char* kind) {
  rtnl_tc_set_ifindex(tc, ifindex);
  rtnl_tc_set_parent(tc, parent);
  rtnl_tc_set_handle(tc, handle);
  // Kind first: libnl's kind-specific setters crash on an object without one.
  nl::check(rtnl_tc_set_kind(tc, kind), std::string("rtnl_tc_set_kind(") + kind + ")");
}

}  // namespace

const char* leaf_kind(const HtbShaping& s) {
  if (s.netem) return "netem";
  return s.queue.unit == QueueLimit::Unit::kBytes ? "bfifo" : "pfifo";
}

nl::Qdisc make_htb_root(int ifindex) {
  nl::Qdisc root(nl::check_alloc(rtnl_qdisc_alloc(), "rtnl_qdisc_alloc"));
  base(TC_CAST(root.get()), ifindex, TC_H_ROOT, kHtbRootHandle, "htb");
  nl::check(rtnl_htb_set_defcls(root.get(), kHtbClassHandle & 0xffff), "rtnl_htb_set_defcls");
  return root;
}

nl::Class make_htb_class(int ifindex, const HtbShaping& s) {
  // The class message must carry rate, ceil, both buffers and the quantum every time: the
  // kernel falls back to about one MTU for an omitted buffer.
  nl::Class cls(nl::check_alloc(rtnl_class_alloc(), "rtnl_class_alloc"));
  base(TC_CAST(cls.get()), ifindex, kHtbRootHandle, kHtbClassHandle, "htb");
  nl::check(rtnl_htb_set_rate64(cls.get(), s.rate_bytes_per_s), "rtnl_htb_set_rate64");
  nl::check(rtnl_htb_set_ceil64(cls.get(), s.rate_bytes_per_s), "rtnl_htb_set_ceil64");
  nl::check(rtnl_htb_set_rbuffer(cls.get(), s.burst_bytes), "rtnl_htb_set_rbuffer");
  nl::check(rtnl_htb_set_cbuffer(cls.get(), s.burst_bytes), "rtnl_htb_set_cbuffer");
  nl::check(rtnl_htb_set_quantum(cls.get(), s.quantum_bytes), "rtnl_htb_set_quantum");
  return cls;
}

nl::Qdisc make_leaf(int ifindex, const HtbShaping& s) {
  nl::Qdisc leaf(nl::check_alloc(rtnl_qdisc_alloc(), "rtnl_qdisc_alloc"));
  base(TC_CAST(leaf.get()), ifindex, kHtbClassHandle, kHtbLeafHandle, leaf_kind(s));
  if (s.netem) {
    rtnl_netem_set_limit(leaf.get(), static_cast<int>(s.netem->limit_packets));
    rtnl_netem_set_delay(leaf.get(), static_cast<int>(s.netem->delay_us));
    rtnl_netem_set_jitter(leaf.get(), static_cast<int>(s.netem->jitter_us));
    const auto loss = static_cast<uint32_t>(std::llround(s.netem->loss * kNetemProbabilityScale));
    rtnl_netem_set_loss(leaf.get(), static_cast<int>(loss));  // libnl takes the u32 as an int
  } else {
    nl::check(rtnl_qdisc_fifo_set_limit(leaf.get(), static_cast<int>(s.queue.limit)),
              "rtnl_qdisc_fifo_set_limit");
  }
  return leaf;
}

void read_leaf(rtnl_qdisc* leaf, HtbShaping& s) {
  const std::string kind = rtnl_tc_get_kind(TC_CAST(leaf));
  if (kind == "netem") {
    NetemParams n;
    n.limit_packets = static_cast<uint32_t>(rtnl_netem_get_limit(leaf));
    n.delay_us = static_cast<uint32_t>(rtnl_netem_get_delay(leaf));
    n.jitter_us = static_cast<uint32_t>(rtnl_netem_get_jitter(leaf));
    n.loss = static_cast<uint32_t>(rtnl_netem_get_loss(leaf)) / kNetemProbabilityScale;
    s.netem = n;
    return;
  }
  s.queue.unit = kind == "bfifo" ? QueueLimit::Unit::kBytes : QueueLimit::Unit::kPackets;
  s.queue.limit = static_cast<uint32_t>(rtnl_qdisc_fifo_get_limit(leaf));
}

}  // namespace testbed
