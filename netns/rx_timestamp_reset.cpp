#include "netns/rx_timestamp_reset.h"

#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

#include "netns/kernel.h"
#include "netns/named_netns.h"
#include "netns/nl_objects.h"
#include "netns/tc_bpf.h"
#include "netns/tc_objects.h"

namespace testbed {
namespace {

// The program, as the kernel's instruction encoding (no compiler needed):
//   r2 = 0; *(u64 *)(r1 + offsetof(__sk_buff, tstamp)) = r2; r0 = TC_ACT_UNSPEC; exit
// TC_ACT_UNSPEC gives no verdict: the next filter runs (netem's redirect to its IFB
// device, libnl_ingress_netem.cpp), or, with none, the packet goes on as with TC_ACT_OK.
int load_program() {
  const std::vector<bpf_insn> prog = {
      bpf_instruction(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0),
      bpf_instruction(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_2, offsetof(__sk_buff, tstamp),
                      0),
      bpf_instruction(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TC_ACT_UNSPEC),
      bpf_instruction(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
  };
  return load_tc_program("tb_rx_tstamp", prog);
}

}  // namespace

void attach_rx_timestamp_reset(nl_sock* sock, int ifindex, bool clsact) {
  const int prog = load_program();

  // Both are the qdisc at ffff: (TC_H_CLSACT and TC_H_INGRESS are one handle), so removing
  // either is removing that qdisc.
  const nl::Qdisc qdisc = make_clsact(ifindex);
  const char* kind = clsact ? "clsact" : "ingress";
  nl::check(rtnl_tc_set_kind(TC_CAST(qdisc.get()), kind),
            std::string("rtnl_tc_set_kind(") + kind + ")");
  nl::check(rtnl_qdisc_add(sock, qdisc.get(), NLM_F_CREATE | NLM_F_EXCL),
            std::string("rtnl_qdisc_add(") + kind + ")");

  constexpr uint16_t kPriority = 1;  // first: the netem redirect (priority 2) follows it
  // The ingress qdisc has one block, whichever minor the parent names.
  add_bpf_filter(sock, ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS), kPriority, 0, prog,
                 "tb_rx_tstamp");
}

}  // namespace testbed
