// The jobs' chains of a namespace's mangle table (TBJM, TBJC: job_marks.h), read and pruned
// over nf_tables' netlink from this process. `iptables -S` and `iptables-restore` did the
// same at the cost of a process start each: while a job runs, the exporter read every
// node's counters at each sample, and a job's start and end read and changed every node's
// chains; at 300 nodes those starts were 29% of the machine's CPU (docs/benchmarks.md).
// Only with iptables-nft, whose rules are nf_tables rules (iptables_is_nft()); with the
// legacy iptables the callers keep to its text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace testbed {

// One rule of such a chain, as far as the jobs' rules go: "-i DEV" (the device; empty when
// none), "-m dscp --dscp N" or "-j DSCP --set-dscp N" (the code point; -1 when neither),
// and its counter.
struct MangleRule {
  std::string dev;
  int dscp = -1;
  uint64_t packets = 0, bytes = 0;
  uint64_t handle = 0;  // nf_tables' own name for the rule (0 when read from iptables' text)
  // The same rule and counts, however read: the text has no handles.
  bool operator==(const MangleRule& o) const {
    return dev == o.dev && dscp == o.dscp && packets == o.packets && bytes == o.bytes;
  }
};

// The rules of `chain` in namespace `ns`'s mangle table (IPv4), in the chain's order; empty
// when the namespace, the table or the chain is absent. Throws KernelError when the kernel
// refuses the dump.
std::vector<MangleRule> read_nft_mangle_rules(const std::string& ns, const std::string& chain);

// Whether `chain` exists in namespace `ns`'s mangle table (a chain may be empty).
bool nft_mangle_chain_exists(const std::string& ns, const std::string& chain);

// Deletes the rules of `chain` named by `handles`, in one transaction. Throws KernelError.
void delete_nft_mangle_rules(const std::string& ns, const std::string& chain,
                             const std::vector<uint64_t>& handles);

}  // namespace testbed
