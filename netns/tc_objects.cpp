#include "netns/tc_objects.h"

#include <linux/pkt_sched.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/netem.h>

#include <netlink/attr.h>
#include <netlink/utils.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace testbed {
namespace {

// netem expresses probabilities as a fraction of 2^32 - 1.
constexpr double kNetemProbabilityScale = 4294967295.0;

uint32_t probability(double fraction) {
  return static_cast<uint32_t>(std::llround(fraction * kNetemProbabilityScale));
}

void base(rtnl_tc* tc, int ifindex, uint32_t parent, uint32_t handle, const char* kind) {
  rtnl_tc_set_ifindex(tc, ifindex);
  rtnl_tc_set_parent(tc, parent);
  rtnl_tc_set_handle(tc, handle);
  // Kind first: libnl's kind-specific setters crash on an object without one.
  nl::check(rtnl_tc_set_kind(tc, kind), std::string("rtnl_tc_set_kind(") + kind + ")");
}

// A root qdisc request, up to its options: the header and the kind.
Message root_qdisc_request(int ifindex, uint32_t handle, const char* kind, int flags) {
  Message msg(nl::check_alloc(nlmsg_alloc_simple(RTM_NEWQDISC, flags), "nlmsg_alloc"));
  tcmsg tc{};
  tc.tcm_family = AF_UNSPEC;
  tc.tcm_ifindex = ifindex;
  tc.tcm_parent = TC_H_ROOT;
  tc.tcm_handle = handle;
  nl::check(nlmsg_append(msg.get(), &tc, sizeof tc, NLMSG_ALIGNTO), "nlmsg_append(tcmsg)");
  nl::check(nla_put_string(msg.get(), TCA_KIND, kind), "nla_put(TCA_KIND)");
  return msg;
}

nl::Qdisc make_fifo(int ifindex, uint32_t handle, const char* kind, uint32_t limit) {
  nl::Qdisc leaf(nl::check_alloc(rtnl_qdisc_alloc(), "rtnl_qdisc_alloc"));
  base(TC_CAST(leaf.get()), ifindex, kTbfClassHandle, handle, kind);
  nl::check(rtnl_qdisc_fifo_set_limit(leaf.get(), static_cast<int>(limit)),
            "rtnl_qdisc_fifo_set_limit");
  return leaf;
}

}  // namespace

const char* leaf_kind(const RateShaping& s) {
  return s.queue.unit == QueueLimit::Unit::kBytes ? "bfifo" : "pfifo";
}

Message make_tbf_request(int ifindex, const RateShaping& s, int flags) {
  Message msg = root_qdisc_request(ifindex, kTbfRootHandle, "tbf", flags);
  nlattr* opts = nla_nest_start(msg.get(), TCA_OPTIONS);
  tc_tbf_qopt q{};
  // The 32-bit field saturates; the kernel takes the larger of it and TCA_TBF_RATE64.
  q.rate.rate = static_cast<uint32_t>(std::min<uint64_t>(s.rate_bytes_per_s, UINT32_MAX));
  // Ethernet framing: the kernel then computes transmission times itself and needs no rate
  // table (sch_tbf.c, tbf_change).
  q.rate.linklayer = TC_LINKLAYER_ETHERNET;
  // TBF hands its limit to its FIFO leaf on every change (fifo_set_limit), so it is the
  // leaf's own, in the leaf's unit. A new TBF gets none (0: no default leaf of its own to
  // replace); the leaf is grafted right after it.
  q.limit = (flags & NLM_F_CREATE) ? 0 : s.queue.limit;
  nl::check(nla_put(msg.get(), TCA_TBF_PARMS, sizeof q, &q), "nla_put(TCA_TBF_PARMS)");
  nl::check(nla_put_u64(msg.get(), TCA_TBF_RATE64, s.rate_bytes_per_s), "nla_put(TCA_TBF_RATE64)");
  // The bucket in bytes: the kernel derives its time from the rate.
  nl::check(nla_put_u32(msg.get(), TCA_TBF_BURST, s.burst_bytes), "nla_put(TCA_TBF_BURST)");
  nla_nest_end(msg.get(), opts);
  return msg;
}

int send_request(nl_sock* sock, const Message& msg) {
  const int sent = nl_send_auto(sock, msg.get());
  return sent < 0 ? sent : nl_wait_for_ack(sock);
}

nl::Qdisc make_leaf(int ifindex, const RateShaping& s) {
  return make_fifo(ifindex, kLeafHandle, leaf_kind(s), s.queue.limit);
}

nl::Qdisc make_cut_leaf(int ifindex) {
  // A byte FIFO that holds nothing: every packet is dropped, and counted, at the port.
  return make_fifo(ifindex, kCutLeafHandle, "bfifo", 0);
}

void read_leaf(rtnl_qdisc* leaf, RateShaping& s) {
  const std::string kind = rtnl_tc_get_kind(TC_CAST(leaf));
  s.queue.unit = kind == "bfifo" ? QueueLimit::Unit::kBytes : QueueLimit::Unit::kPackets;
  s.queue.limit = static_cast<uint32_t>(rtnl_qdisc_fifo_get_limit(leaf));
}

Message make_netem_request(int ifindex, const NetemParams& n, int flags) {
  // Built by hand, because libnl cannot say netem's rate, and the rate is what keeps order.
  // netem sorts its packets by release time, so jitter reorders them; but with a rate set,
  // a packet's release is computed from the last queued packet's (sch_netem.c,
  // netem_enqueue): max(arrival + delay, previous release) + length / rate, the delay
  // line's FIFO rule. At the largest rate the attribute holds (2^32 - 1 bytes/s) the
  // length term is 0.35 us per full frame, 15 us per 64 KiB GSO packet: nothing to the
  // link, whose rate is the sender's TBF. Rate 0 (reorder allowed) turns it off again.
  Message msg = root_qdisc_request(ifindex, kNetemRootHandle, "netem", flags);
  // TCA_OPTIONS: the fixed tc_netem_qopt, then netem's own attributes after it (not nested
  // in one of their own: the kernel parses them from the end of the struct).
  nlattr* opts = nla_nest_start(msg.get(), TCA_OPTIONS);
  tc_netem_qopt q{};
  q.latency = nl_us2ticks(n.delay_us);  // in the kernel's scheduler ticks, as tc sends it
  q.jitter = nl_us2ticks(n.jitter_us);
  q.limit = n.limit_packets;
  q.loss = probability(n.burst ? 0 : n.loss);
  void* room = nlmsg_reserve(msg.get(), sizeof q, NLMSG_ALIGNTO);
  if (!room) throw KernelError("nlmsg_reserve(tc_netem_qopt): message full");
  std::memcpy(room, &q, sizeof q);
  tc_netem_rate rate{};
  rate.rate = n.keep_order ? UINT32_MAX : 0;
  nl::check(nla_put(msg.get(), TCA_NETEM_RATE, sizeof rate, &rate), "nla_put(TCA_NETEM_RATE)");
  if (n.burst) {
    // The Gilbert-Elliott chain (sch_netem.c, loss_gilb_ell): in the good state a packet is
    // lost when a draw falls below k1, in the bad state when it falls above h, so h is the
    // bad state's delivery probability. A change without this attribute returns netem to
    // Bernoulli loss (netem_change), so a live change keeps sending it.
    tc_netem_gemodel ge{};
    ge.p = probability(n.burst->p);
    ge.r = probability(n.burst->r);
    ge.h = probability(1 - n.burst->bad_loss);
    ge.k1 = probability(n.burst->good_loss);
    nlattr* loss = nla_nest_start(msg.get(), TCA_NETEM_LOSS);
    nl::check(nla_put(msg.get(), NETEM_LOSS_GE, sizeof ge, &ge), "nla_put(NETEM_LOSS_GE)");
    nla_nest_end(msg.get(), loss);
  }
  nla_nest_end(msg.get(), opts);
  return msg;
}

NetemParams read_netem(rtnl_qdisc* q) {
  NetemParams n;
  n.limit_packets = static_cast<uint32_t>(rtnl_netem_get_limit(q));
  n.delay_us = static_cast<uint32_t>(rtnl_netem_get_delay(q));
  n.jitter_us = static_cast<uint32_t>(rtnl_netem_get_jitter(q));
  n.loss = static_cast<uint32_t>(rtnl_netem_get_loss(q)) / kNetemProbabilityScale;
  return n;
}

nl::Qdisc make_clsact(int ifindex) {
  nl::Qdisc clsact(nl::check_alloc(rtnl_qdisc_alloc(), "rtnl_qdisc_alloc"));
  rtnl_tc_set_ifindex(TC_CAST(clsact.get()), ifindex);
  rtnl_tc_set_parent(TC_CAST(clsact.get()), TC_H_CLSACT);
  rtnl_tc_set_handle(TC_CAST(clsact.get()), TC_H_MAKE(TC_H_CLSACT, 0));
  return clsact;
}

}  // namespace testbed
