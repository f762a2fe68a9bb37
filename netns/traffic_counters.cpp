// The cross traffic's counters (kernel.h, TrafficCounters): a chain TBXT in the mangle table
// of a node's namespace, one rule per device and protocol, read back with `iptables -S -v`.
// Through the mangle table's one reader and writer (mangle_table.h): the rules are
// installed once per lab and read a few times per run.
#include <sstream>

#include "netns/libnl_kernel.h"
#include "netns/mangle_table.h"
#include "netns/named_netns.h"
#include "netns/netns_exec.h"

namespace testbed {
namespace {

constexpr const char* kChain = "TBXT";

}  // namespace

void LibnlKernel::set_traffic_counters(const std::string& ns, const TrafficCounters& c) {
  const bool present = mangle_rules(ns, kChain).has_value();
  std::ostringstream rules;
  rules << ":" << kChain << " - [0:0]\n";  // declared: created, or flushed if present
  const std::string ports = std::to_string(c.first_port) + ":" + std::to_string(c.last_port);
  // Each packet counted once: the cross traffic's rules return, the device's last rule
  // counts what is left.
  for (const auto& dev : c.devs) {
    for (const char* proto : {"tcp", "udp"})
      rules << "-A " << kChain << " -i " << dev << " -p " << proto << " -m multiport --ports "
            << ports << " -j RETURN\n";
    rules << "-A " << kChain << " -i " << dev << " -j RETURN\n";
  }
  if (!present) rules << "-A INPUT -j " << kChain << "\n-A FORWARD -j " << kChain << "\n";
  restore_mangle_rules(ns, rules.str(), "cross-traffic counters");
}

void LibnlKernel::remove_traffic_counters(const std::string& ns) {
  restore_mangle_rules(ns,
                       std::string("-D INPUT -j ") + kChain + "\n-D FORWARD -j " + kChain +
                           "\n-F " + kChain + "\n-X " + kChain + "\n",
                       "remove cross-traffic counters");
}

std::map<std::string, Kernel::TrafficCount> LibnlKernel::traffic_counts(const std::string& ns) {
  std::map<std::string, TrafficCount> out;
  const auto text = mangle_rules(ns, kChain);
  if (!text) return out;
  // "-A TBXT -i DEV -p tcp -m multiport --ports 5301:5399 -c PACKETS BYTES -j RETURN" for
  // the cross traffic, "-A TBXT -i DEV -c PACKETS BYTES -j RETURN" for the rest.
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string verb, chain, dev;
    uint64_t packets = 0, bytes = 0;
    bool ports = false;
    if (!(words >> verb >> chain) || verb != "-A" || chain != kChain) continue;
    for (std::string w; words >> w;) {
      if (w == "-i") words >> dev;
      if (w == "-c") words >> packets >> bytes;
      if (w == "--ports") ports = true;
    }
    if (dev.empty()) continue;
    TrafficCount& n = out[dev];
    (ports ? n.packets : n.other_packets) += packets;
    (ports ? n.bytes : n.other_bytes) += bytes;
  }
  return out;
}

}  // namespace testbed
