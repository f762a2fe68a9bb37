// iptables for the job marks (job_marks.h), through the mangle table's one reader and
// writer (mangle_table.h): the rules change twice per job.
#include "netns/job_marks.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include "netns/kernel.h"
#include "netns/mangle_table.h"
#include "netns/named_netns.h"
#include "netns/netns_exec.h"
#include "netns/nft_delay_hooks.h"

namespace testbed {
namespace {

constexpr const char* kMarkChain = "TBJM";
constexpr const char* kCountChain = "TBJC";

// As iptables prints a DSCP value: "0x0b".
std::string hex(int dscp) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", dscp);
  return text;
}

// The numbers (from 1, in the chain's order) of the chain's rules that hold `needle`,
// last first: deleting by number from the end keeps the others' numbers.
std::vector<int> rules_holding(const std::string& text, const std::string& chain,
                               const std::string& needle) {
  std::vector<int> out;
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("-A " + chain + " ", 0) != 0) continue;
    ++n;
    const bool at_end = line.size() >= needle.size() &&
                        line.compare(line.size() - needle.size(), needle.size(), needle) == 0;
    if (line.find(needle + " ") != std::string::npos || at_end) out.insert(out.begin(), n);
  }
  return out;
}

}  // namespace

IptablesJobMarks::IptablesJobMarks() : nft_(iptables_is_nft()) {}

bool IptablesJobMarks::chain_exists(const std::string& ns, const char* chain) const {
  return nft_ ? nft_mangle_chain_exists(ns, chain) : mangle_rules(ns, chain).has_value();
}

int job_dscp(int slot) {
  return ((slot - 1) << 2) | 3;
}

void IptablesJobMarks::add(const std::string& ns, const std::vector<std::string>& devs, int slot,
                           const std::string& path) {
  const std::string dscp = hex(job_dscp(slot));
  std::ostringstream rules;
  // A chain is declared only when absent: declaring an existing one flushes it, and the
  // other jobs' rules (and the counts so far) are in it.
  if (!chain_exists(ns, kMarkChain))
    rules << ":" << kMarkChain << " - [0:0]\n-A OUTPUT -j " << kMarkChain << "\n";
  if (!chain_exists(ns, kCountChain)) {
    // First, a rule per device that counts everything and goes on (no target): the link's
    // total, which no job's coming or going resets.
    rules << ":" << kCountChain << " - [0:0]\n";
    for (const auto& dev : devs) rules << "-A " << kCountChain << " -i " << dev << "\n";
    rules << "-A INPUT -j " << kCountChain << "\n-A FORWARD -j " << kCountChain << "\n";
  }
  rules << "-A " << kMarkChain << " -m cgroup --path " << path << " -j DSCP --set-dscp " << dscp
        << "\n";
  // After the totals: a packet is one job's at most, and counted once for it.
  for (const auto& dev : devs)
    rules << "-A " << kCountChain << " -i " << dev << " -m dscp --dscp " << dscp << " -j RETURN\n";
  restore_mangle_rules(ns, rules.str(), "job " + std::to_string(slot) + "'s marks");
}

void IptablesJobMarks::remove(const std::string& ns, int slot) {
  if (nft_) {
    // Each chain's rules of the slot's code point, by handle: in TBJM the one setting it,
    // in TBJC the counting ones.
    for (const char* chain : {kMarkChain, kCountChain}) {
      std::vector<uint64_t> handles;
      for (const MangleRule& r : read_nft_mangle_rules(ns, chain))
        if (r.dscp == job_dscp(slot)) handles.push_back(r.handle);
      delete_nft_mangle_rules(ns, chain, handles);
    }
    return;
  }
  const std::string dscp = hex(job_dscp(slot));
  std::ostringstream rules;
  if (const auto text = mangle_rules(ns, kMarkChain))
    for (const int n : rules_holding(*text, kMarkChain, "--set-dscp " + dscp))
      rules << "-D " << kMarkChain << " " << n << "\n";
  if (const auto text = mangle_rules(ns, kCountChain))
    for (const int n : rules_holding(*text, kCountChain, "--dscp " + dscp))
      rules << "-D " << kCountChain << " " << n << "\n";
  if (!rules.str().empty())
    restore_mangle_rules(ns, rules.str(), "removing job " + std::to_string(slot));
}

std::map<std::string, JobArrivals> IptablesJobMarks::arrivals(const std::string& ns) {
  if (nft_) return job_arrivals(read_nft_mangle_rules(ns, kCountChain));
  const auto text = mangle_rules(ns, kCountChain);
  return text ? parse_job_counters(*text) : std::map<std::string, JobArrivals>{};
}

std::map<std::string, JobArrivals> parse_job_counters(const std::string& text) {
  return job_arrivals(job_counting_rules(text));
}

std::vector<MangleRule> job_counting_rules(const std::string& text) {
  // "-A TBJC -i DEV -c PACKETS BYTES" for everything that arrived over DEV, and
  // "-A TBJC -i DEV -m dscp --dscp 0x0b -c PACKETS BYTES -j RETURN" for a job.
  std::vector<MangleRule> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string verb, chain;
    MangleRule r;
    if (!(words >> verb >> chain) || verb != "-A" || chain != kCountChain) continue;
    for (std::string w; words >> w;) {
      if (w == "-i") words >> r.dev;
      if (w == "-c") words >> r.packets >> r.bytes;
      if (w == "--dscp" && words >> w) r.dscp = static_cast<int>(std::stoul(w, nullptr, 0));
    }
    out.push_back(r);
  }
  return out;
}

std::map<std::string, JobArrivals> job_arrivals(const std::vector<MangleRule>& rules) {
  std::map<std::string, JobArrivals> out;
  for (const MangleRule& r : rules) {
    if (r.dev.empty()) continue;
    JobArrivals& a = out[r.dev];
    if (r.dscp < 0) {
      a.packets += r.packets;
      a.bytes += r.bytes;
    } else if ((r.dscp & 3) == 3) {  // code points outside pool 2 are no job's (job_dscp)
      const int slot = (r.dscp >> 2) + 1;
      a.slot_packets[slot] += r.packets;
      a.slot_bytes[slot] += r.bytes;
    }
  }
  return out;
}

uint64_t received_ip_bytes(const std::string& ns, const std::vector<std::string>& devs) {
  if (!netns_exists(ns)) return 0;
  const CommandResult r = run_in_netns(ns, {"cat", "/proc/net/dev"});
  return r.status == 0 ? received_ip_bytes_from(r.output, devs) : 0;
}

uint64_t received_ip_bytes_from(const std::string& proc_net_dev,
                                const std::vector<std::string>& devs) {
  // Two header lines, then "  DEV: RX_BYTES RX_PACKETS ..." per device.
  constexpr uint64_t kEthernetHeader = 14;
  uint64_t total = 0;
  std::istringstream lines(proc_net_dev);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string dev = line.substr(0, colon);
    dev.erase(0, dev.find_first_not_of(' '));
    std::istringstream fields(line.substr(colon + 1));
    uint64_t bytes = 0, packets = 0;
    if (std::find(devs.begin(), devs.end(), dev) == devs.end() || !(fields >> bytes >> packets))
      continue;
    total += bytes - std::min(bytes, kEthernetHeader * packets);
  }
  return total;
}

}  // namespace testbed
