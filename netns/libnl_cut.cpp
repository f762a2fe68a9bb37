// A cut link direction (kernel.h, set_cut): the fault `state: down` and `testbed link down`.
//
// The sender's TBF gets a leaf that holds nothing (a byte FIFO of limit 0, handle c07:) in
// place of its FIFO: everything TBF is given is dropped there and counted as TBF's drops.
// Grafting it destroys the FIFO, and with it what the FIFO held: a cut fibre loses what its
// port was about to send, where a drop ahead of the queue would let the queue (up to one
// bandwidth-delay product) drain onto a dead link. What already left the sender (in the
// receiver's delay, netem or the delay line) arrives: the cut is at the sending port. Up
// again: the FIFO is made again in its place, from the direction's shaping then; TBF's rate
// and counters were never touched.
//
// Why a leaf and not a filter (as before, on HTB): a filter needs a filter block, and every
// block the kernel binds joins one machine-wide list that each new block searches
// (flow_indr_dev_setup_offload); TBF and its FIFO bind none. Not the blackhole qdisc, the
// obvious leaf: libnl 3.7 aborts on reading a dump that holds one (rtnl_tc_data). A rate
// change during a cut must keep the leaf's limit at 0, since TBF hands its limit to its
// leaf (set_shaping sees to it).
#include <linux/pkt_sched.h>

#include "netns/libnl_kernel.h"
#include "netns/tc_objects.h"

namespace testbed {

bool LibnlKernel::is_cut(const std::string& ns, const std::string& dev) {
  if (!link_exists(ns, dev)) return false;
  nl::Cache own;
  const nl::Qdisc leaf = find_qdisc(ns, qdiscs_of(ns, own), ifindex(ns, dev), kCutLeafHandle);
  return leaf != nullptr;
}

void LibnlKernel::set_cut(const std::string& ns, const std::string& dev, bool cut,
                          const RateShaping& shaping) {
  if (is_cut(ns, dev) == cut) return;  // a repeated order changes nothing
  nl_sock* sock = context(ns).sock.get();
  const int index = ifindex(ns, dev);
  const std::string at = dev + "@" + ns;
  if (!cut) {
    nl::check(rtnl_qdisc_add(sock, make_leaf(index, shaping).get(), NLM_F_CREATE | NLM_F_REPLACE),
              std::string("rtnl_qdisc_add(") + leaf_kind(shaping) + " leaf " + at + ", up again)");
    // TBF's own limit back from the cut's 0 (it is the leaf's: set_shaping).
    nl::check(send_request(sock, make_tbf_request(index, shaping, 0)),
              "rtnl_qdisc_change(tbf " + at + ", up again)");
    return;
  }
  if (!this->shaping(ns, dev)) throw KernelError("set_cut(" + at + "): no TBF to cut");
  nl::check(rtnl_qdisc_add(sock, make_cut_leaf(index).get(), NLM_F_CREATE | NLM_F_REPLACE),
            "rtnl_qdisc_add(cut leaf " + at + ")");
}

}  // namespace testbed
