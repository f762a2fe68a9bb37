#include "rx_timestamp_reset.h"

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

#include "kernel.h"
#include "named_netns.h"
#include "nl_objects.h"

namespace testbed {
namespace {

// The program, as the kernel's instruction encoding (no compiler needed):
//   r2 = 0; *(u64 *)(r1 + offsetof(__sk_buff, tstamp)) = r2; r0 = TC_ACT_UNSPEC; exit
// TC_ACT_UNSPEC gives no verdict: the next filter runs (netem's redirect to its IFB
// device, libnl_ingress_netem.cpp), or, with none, the packet goes on as with TC_ACT_OK.
bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}

int load_program() {
  static int fd = -1;  // one program serves every interface; the kernel keeps it alive
  if (fd >= 0) return fd;
  const bpf_insn prog[] = {
      insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0),
      insn(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_2, offsetof(__sk_buff, tstamp), 0),
      insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TC_ACT_UNSPEC),
      insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
  };
  static const char license[] = "GPL";
  bpf_attr attr{};
  attr.prog_type = BPF_PROG_TYPE_SCHED_CLS;
  attr.insns = reinterpret_cast<uint64_t>(prog);
  attr.insn_cnt = sizeof prog / sizeof prog[0];
  attr.license = reinterpret_cast<uint64_t>(license);
  std::strncpy(attr.prog_name, "tb_rx_tstamp", sizeof attr.prog_name - 1);
  fd = static_cast<int>(syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr));
  if (fd < 0) throw_errno("bpf(BPF_PROG_LOAD, tb_rx_tstamp)");
  return fd;
}

}  // namespace

void attach_rx_timestamp_reset(nl_sock* sock, int ifindex) {
  const int prog = load_program();

  nl::Qdisc clsact(nl::check_alloc(rtnl_qdisc_alloc(), "rtnl_qdisc_alloc"));
  rtnl_tc_set_ifindex(TC_CAST(clsact.get()), ifindex);
  rtnl_tc_set_parent(TC_CAST(clsact.get()), TC_H_CLSACT);
  rtnl_tc_set_handle(TC_CAST(clsact.get()), TC_H_MAKE(TC_H_CLSACT, 0));
  nl::check(rtnl_tc_set_kind(TC_CAST(clsact.get()), "clsact"), "rtnl_tc_set_kind(clsact)");
  nl::check(rtnl_qdisc_add(sock, clsact.get(), NLM_F_CREATE | NLM_F_EXCL),
            "rtnl_qdisc_add(clsact)");

  // libnl has no bpf classifier: build RTM_NEWTFILTER by hand.
  std::unique_ptr<nl_msg, nl::Deleter<nl_msg, nlmsg_free>> msg(nl::check_alloc(
      nlmsg_alloc_simple(RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL), "nlmsg_alloc"));
  tcmsg tc{};
  tc.tcm_family = AF_UNSPEC;
  tc.tcm_ifindex = ifindex;
  tc.tcm_parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS);
  constexpr uint32_t kPriority = 1;
  tc.tcm_info = TC_H_MAKE(kPriority << 16, htons(ETH_P_ALL));
  nl::check(nlmsg_append(msg.get(), &tc, sizeof tc, NLMSG_ALIGNTO), "nlmsg_append(tcmsg)");
  nl::check(nla_put_string(msg.get(), TCA_KIND, "bpf"), "nla_put(TCA_KIND)");
  nlattr* opts = nla_nest_start(msg.get(), TCA_OPTIONS);
  nl::check(nla_put_u32(msg.get(), TCA_BPF_FD, static_cast<uint32_t>(prog)), "nla_put(TCA_BPF_FD)");
  nl::check(nla_put_string(msg.get(), TCA_BPF_NAME, "tb_rx_tstamp"), "nla_put(TCA_BPF_NAME)");
  nl::check(nla_put_u32(msg.get(), TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT),
            "nla_put(TCA_BPF_FLAGS)");
  nla_nest_end(msg.get(), opts);
  nl::check(nl_send_auto(sock, msg.get()), "nl_send(RTM_NEWTFILTER bpf)");
  nl::check(nl_wait_for_ack(sock), "RTM_NEWTFILTER(bpf tb_rx_tstamp)");
}

}  // namespace testbed
