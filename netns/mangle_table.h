// The mangle table of a node's namespace, through iptables-restore and `iptables -S`: the
// delay lines' hooks (libnl_kernel.cpp), the cross traffic's counters (traffic_counters.cpp)
// and the jobs' marks (job_marks.cpp) all change and read it this way. libiptc has no stable
// interface, and these rules change a few times per lab or per job, not per packet.
#pragma once

#include <optional>
#include <string>

namespace testbed {

// Applies `rules` (lines of iptables-restore's format, without the table's header and
// COMMIT) to the mangle table of `ns`, all or nothing, leaving other rules as they are
// (--noflush). Throws KernelError naming `what` and the namespace, with iptables' own words.
void restore_mangle_rules(const std::string& ns, const std::string& rules, const std::string& what);

// The rules of `chain` with their counters, as `iptables -S CHAIN -v` prints them; nullopt
// when the namespace or the chain is absent.
std::optional<std::string> mangle_rules(const std::string& ns, const std::string& chain);

}  // namespace testbed
