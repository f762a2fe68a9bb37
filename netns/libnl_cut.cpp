// A cut link direction (kernel.h, set_cut): the fault `state: down` and `testbed link down`.
//
// The sender's HTB root gets a filter whose verdict is drop (a two-instruction eBPF program
// in direct-action mode, tc_bpf.h: this project's kernel has neither matchall nor gact):
// HTB classifies every packet by its filters before its default class, and a drop verdict
// ends the packet there, counted as a drop of the root. Then the leaf is deleted and made
// again, which drops what it held: a cut fibre loses what its port was about to send, where
// a filter alone would let the queue (up to one bandwidth-delay product) drain onto a dead
// link.
// What already left the sender (in the receiver's delay, netem or the delay line) arrives:
// the cut is at the sending port. Up again: the filter is deleted; the class, its rate and
// its counters were never touched.
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <netlink/route/classifier.h>

#include "netns/libnl_kernel.h"
#include "netns/tc_bpf.h"
#include "netns/tc_objects.h"

namespace testbed {
namespace {

// The HTB root has no filter of its own (its default class takes everything), so the cut
// is its only one: first, and the handle says which it is.
constexpr uint16_t kCutPriority = 1;
constexpr uint32_t kCutHandle = 0xc07;

using Cls = std::unique_ptr<rtnl_cls, nl::Deleter<rtnl_cls, rtnl_cls_put>>;

// r0 = TC_ACT_SHOT; exit
int drop_program() {
  return load_tc_program(
      "tb_cut", {bpf_instruction(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TC_ACT_SHOT),
                 bpf_instruction(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)});
}

}  // namespace

bool LibnlKernel::is_cut(const std::string& ns, const std::string& dev) {
  if (!link_exists(ns, dev)) return false;
  nl_cache* raw = nullptr;
  nl::check(rtnl_cls_alloc_cache(context(ns).sock.get(), ifindex(ns, dev), kHtbRootHandle, &raw),
            "rtnl_cls_alloc_cache(" + dev + "@" + ns + ")");
  const nl::Cache cache(raw);
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* cls = reinterpret_cast<rtnl_cls*>(o);
    if (rtnl_tc_get_handle(TC_CAST(cls)) == kCutHandle && rtnl_cls_get_prio(cls) == kCutPriority)
      return true;
  }
  return false;
}

void LibnlKernel::set_cut(const std::string& ns, const std::string& dev, bool cut) {
  if (is_cut(ns, dev) == cut) return;  // a repeated order changes nothing
  nl_sock* sock = context(ns).sock.get();
  const int index = ifindex(ns, dev);
  const std::string at = dev + "@" + ns;
  if (!cut) {
    // Every filter at the cut's priority: there is only the cut.
    Cls cls(nl::check_alloc(rtnl_cls_alloc(), "rtnl_cls_alloc"));
    rtnl_tc_set_ifindex(TC_CAST(cls.get()), index);
    rtnl_tc_set_parent(TC_CAST(cls.get()), kHtbRootHandle);
    rtnl_cls_set_prio(cls.get(), kCutPriority);
    rtnl_cls_set_protocol(cls.get(), ETH_P_ALL);
    nl::check(rtnl_cls_delete(sock, cls.get(), 0), "rtnl_cls_delete(cut " + at + ")");
    return;
  }
  const auto shaped = shaping(ns, dev);
  if (!shaped) throw KernelError("set_cut(" + at + "): no HTB tree to cut");
  // Every protocol, ARP too: a cut link carries nothing.
  add_bpf_filter(sock, index, kHtbRootHandle, kCutPriority, kCutHandle, drop_program(), "tb_cut");
  // The leaf's queue: deleting the leaf drops it (HTB grafts a default FIFO meanwhile,
  // which the filter keeps empty); the same leaf is then made again in its place.
  nl::check(rtnl_qdisc_delete(sock, make_leaf(index, shaped->config).get()),
            "rtnl_qdisc_delete(leaf " + at + ")");
  nl::check(
      rtnl_qdisc_add(sock, make_leaf(index, shaped->config).get(), NLM_F_CREATE | NLM_F_REPLACE),
      "rtnl_qdisc_add(leaf " + at + ", after the cut)");
}

}  // namespace testbed
