#include "netns/mangle_table.h"

#include "netns/kernel_error.h"
#include "netns/named_netns.h"
#include "netns/netns_exec.h"

namespace testbed {

void restore_mangle_rules(const std::string& ns, const std::string& rules,
                          const std::string& what) {
  const CommandResult r = run_in_netns(ns, {"iptables-restore", "--noflush", "--wait"},
                                       "*mangle\n" + rules + "COMMIT\n");
  if (r.status != 0)
    throw KernelError("iptables-restore (" + what + " in " + ns + "): " + r.output);
}

std::optional<std::string> mangle_rules(const std::string& ns, const std::string& chain) {
  if (!netns_exists(ns)) return std::nullopt;
  const CommandResult r =
      run_in_netns(ns, {"iptables", "--wait", "-t", "mangle", "-S", chain, "-v"});
  if (r.status != 0) return std::nullopt;  // "No chain/target/match by that name"
  return r.output;
}

}  // namespace testbed
