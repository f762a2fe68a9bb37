#include "netns/tc_bpf.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "netns/kernel.h"
#include "netns/named_netns.h"
#include "netns/nl_objects.h"

namespace testbed {

bpf_insn bpf_instruction(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}

int load_tc_program(const std::string& name, const std::vector<bpf_insn>& program) {
  static std::map<std::string, int> loaded;  // one program serves every interface
  if (const auto it = loaded.find(name); it != loaded.end()) return it->second;
  static const char license[] = "GPL";
  bpf_attr attr{};
  attr.prog_type = BPF_PROG_TYPE_SCHED_CLS;
  attr.insns = reinterpret_cast<uint64_t>(program.data());
  attr.insn_cnt = static_cast<uint32_t>(program.size());
  attr.license = reinterpret_cast<uint64_t>(license);
  std::strncpy(attr.prog_name, name.c_str(), sizeof attr.prog_name - 1);
  const int fd = static_cast<int>(syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr));
  if (fd < 0) throw_errno("bpf(BPF_PROG_LOAD, " + name + ")");
  loaded[name] = fd;
  return fd;
}

void add_bpf_filter(nl_sock* sock, int ifindex, uint32_t parent, uint16_t priority, uint32_t handle,
                    int program_fd, const std::string& name) {
  std::unique_ptr<nl_msg, nl::Deleter<nl_msg, nlmsg_free>> msg(nl::check_alloc(
      nlmsg_alloc_simple(RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL), "nlmsg_alloc"));
  tcmsg tc{};
  tc.tcm_family = AF_UNSPEC;
  tc.tcm_ifindex = ifindex;
  tc.tcm_parent = parent;
  tc.tcm_handle = handle;
  tc.tcm_info = TC_H_MAKE(static_cast<uint32_t>(priority) << 16, htons(ETH_P_ALL));
  nl::check(nlmsg_append(msg.get(), &tc, sizeof tc, NLMSG_ALIGNTO), "nlmsg_append(tcmsg)");
  nl::check(nla_put_string(msg.get(), TCA_KIND, "bpf"), "nla_put(TCA_KIND)");
  nlattr* opts = nla_nest_start(msg.get(), TCA_OPTIONS);
  nl::check(nla_put_u32(msg.get(), TCA_BPF_FD, static_cast<uint32_t>(program_fd)),
            "nla_put(TCA_BPF_FD)");
  nl::check(nla_put_string(msg.get(), TCA_BPF_NAME, name.c_str()), "nla_put(TCA_BPF_NAME)");
  nl::check(nla_put_u32(msg.get(), TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT),
            "nla_put(TCA_BPF_FLAGS)");
  nla_nest_end(msg.get(), opts);
  nl::check(nl_send_auto(sock, msg.get()), "nl_send(RTM_NEWTFILTER bpf " + name + ")");
  nl::check(nl_wait_for_ack(sock), "RTM_NEWTFILTER(bpf " + name + ")");
}

}  // namespace testbed
