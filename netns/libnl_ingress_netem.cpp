// netem on the receiving side of a link direction (kernel.h, IngressNetem): an IFB device
// per delayed direction, its root netem, and the redirect from the receiving device.
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/tc_act/tc_mirred.h>
#include <netlink/route/act/mirred.h>
#include <netlink/route/action.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/matchall.h>
#include <sys/stat.h>

#include "netns/libnl_kernel.h"
#include "netns/netns_exec.h"
#include "netns/rx_timestamp_reset.h"
#include "netns/tc_objects.h"

namespace testbed {
namespace {

// After the receive-timestamp reset (priority 1, rx_timestamp_reset.cpp), which lets the
// packet on to the next filter: this one.
constexpr uint16_t kRedirectPriority = 2;

using Cls = std::unique_ptr<rtnl_cls, nl::Deleter<rtnl_cls, rtnl_cls_put>>;
using Act = std::unique_ptr<rtnl_act, nl::Deleter<rtnl_act, rtnl_act_put>>;

// Loading the ifb module the way the kernel would on the first IFB request (by netlink)
// creates ifb0 and ifb1 in the host's own namespace: its numifbs parameter defaults to 2.
// Loaded first with numifbs=0, it creates none, and the host keeps no trace of a lab.
void load_ifb_module(const std::string& ns) {
  struct stat st {};
  if (stat("/sys/module/ifb", &st) == 0) return;
  // A kernel with ifb built in, or without modprobe, still creates devices by netlink;
  // the request below then says what is missing.
  run_in_netns(ns, {"modprobe", "-q", "ifb", "numifbs=0"});
}

void send_netem(nl_sock* sock, int ifindex, const NetemParams& n, int flags,
                const std::string& what) {
  nl::check(send_request(sock, make_netem_request(ifindex, n, flags)), what);
}

}  // namespace

std::optional<NetemParams> LibnlKernel::ingress_netem(const std::string& ns,
                                                      const std::string& ifb) {
  if (!link_exists(ns, ifb)) return std::nullopt;
  nl_cache* raw = nullptr;
  nl::check(rtnl_qdisc_alloc_cache(context(ns).sock.get(), &raw),
            "rtnl_qdisc_alloc_cache(" + ns + ")");
  nl::Cache qdiscs(raw);
  nl::Qdisc root(rtnl_qdisc_get(qdiscs.get(), ifindex(ns, ifb), kNetemRootHandle));
  if (!root || std::string(rtnl_tc_get_kind(TC_CAST(root.get()))) != "netem") return std::nullopt;
  return read_netem(root.get());
}

void LibnlKernel::set_ingress_netem(const std::string& ns, const std::string& dev,
                                    const IngressNetem& n) {
  nl_sock* sock = context(ns).sock.get();
  const std::string at = n.ifb + "@" + ns;
  if (link_exists(ns, n.ifb)) {
    // A live change (the timeline, `link set`): netem's parameters in place.
    send_netem(sock, ifindex(ns, n.ifb), n.netem, 0, "RTM_NEWQDISC(netem " + at + ", change)");
    return;
  }
  load_ifb_module(ns);
  nl::Link ifb(nl::check_alloc(rtnl_link_alloc(), "rtnl_link_alloc"));
  rtnl_link_set_name(ifb.get(), n.ifb.c_str());
  nl::check(rtnl_link_set_type(ifb.get(), "ifb"), "rtnl_link_set_type(ifb)");
  nl::check(rtnl_link_add(sock, ifb.get(), NLM_F_CREATE | NLM_F_EXCL),
            "rtnl_link_add(ifb " + at + ")");
  set_link_up(ns, n.ifb, true);
  const int ifb_index = ifindex(ns, n.ifb);
  send_netem(sock, ifb_index, n.netem, NLM_F_CREATE | NLM_F_EXCL, "RTM_NEWQDISC(netem " + at + ")");

  // The receiving device: clsact with the timestamp reset (ping reads the receive stamp,
  // which must be taken after the delay: IFB's delivery stamps the packet again), then
  // every IPv4 packet to the IFB device.
  const int dev_index = ifindex(ns, dev);
  attach_rx_timestamp_reset(sock, dev_index, true);
  Act mirred(nl::check_alloc(rtnl_act_alloc(), "rtnl_act_alloc"));
  nl::check(rtnl_tc_set_kind(TC_CAST(mirred.get()), "mirred"), "rtnl_tc_set_kind(mirred)");
  rtnl_mirred_set_action(mirred.get(), TCA_EGRESS_REDIR);
  rtnl_mirred_set_policy(mirred.get(), TC_ACT_STOLEN);
  rtnl_mirred_set_ifindex(mirred.get(), static_cast<uint32_t>(ifb_index));
  Cls cls(nl::check_alloc(rtnl_cls_alloc(), "rtnl_cls_alloc"));
  rtnl_tc_set_ifindex(TC_CAST(cls.get()), dev_index);
  rtnl_tc_set_parent(TC_CAST(cls.get()), TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS));
  nl::check(rtnl_tc_set_kind(TC_CAST(cls.get()), "matchall"), "rtnl_tc_set_kind(matchall)");
  rtnl_cls_set_prio(cls.get(), kRedirectPriority);
  // IPv4 only, as the delay line (an iptables rule) takes it: ARP crosses undelayed with
  // either backend, so a first ping costs the same.
  rtnl_cls_set_protocol(cls.get(), ETH_P_IP);
  nl::check(rtnl_mall_append_action(cls.get(), mirred.get()), "rtnl_mall_append_action");
  nl::check(rtnl_cls_add(sock, cls.get(), NLM_F_CREATE | NLM_F_EXCL),
            "rtnl_cls_add(matchall mirred " + dev + "@" + ns + " -> " + n.ifb + ")");
}

void LibnlKernel::remove_ingress_netem(const std::string& ns, const std::string& dev,
                                       const std::string& ifb) {
  // The clsact qdisc takes its filters with it; the IFB device its netem.
  if (link_exists(ns, dev)) {
    const nl::Qdisc clsact = make_clsact(ifindex(ns, dev));
    const int err = rtnl_qdisc_delete(context(ns).sock.get(), clsact.get());
    if (err < 0 && err != -NLE_OBJ_NOTFOUND)
      nl::check(err, "rtnl_qdisc_delete(clsact " + dev + "@" + ns + ")");
  }
  if (link_exists(ns, ifb)) delete_link(ns, ifb);
}

}  // namespace testbed
