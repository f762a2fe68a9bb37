// eBPF programs for tc, written as the kernel's instruction encoding (no compiler needed),
// and the bpf classifier that runs one in direct-action mode: its return value is the
// verdict (TC_ACT_*). libnl has no bpf classifier, so the filter's request is built here.
// Used for the receive-timestamp reset (rx_timestamp_reset.h) and a cut link's drop
// (libnl_cut.cpp): the kernel this project is built on has cls_bpf but neither matchall
// nor the gact action (linux-emulation facts).
#pragma once

#include <linux/bpf.h>
#include <netlink/netlink.h>

#include <cstdint>
#include <string>
#include <vector>

namespace testbed {

bpf_insn bpf_instruction(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm);

// Loads a BPF_PROG_TYPE_SCHED_CLS program once per process and name; the kernel keeps it
// alive while a filter holds it. Throws KernelError.
int load_tc_program(const std::string& name, const std::vector<bpf_insn>& program);

// A bpf filter (direct action) under `parent` of `ifindex`, at `priority` with `handle`,
// for every protocol. Throws KernelError.
void add_bpf_filter(nl_sock* sock, int ifindex, uint32_t parent, uint16_t priority, uint32_t handle,
                    int program_fd, const std::string& name);

}  // namespace testbed
