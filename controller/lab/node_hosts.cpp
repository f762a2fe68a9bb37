#include "controller/lab/node_hosts.h"

#include <sstream>

namespace testbed {

std::string node_hosts_text(const Plan& plan) {
  std::ostringstream out;
  out << "# written by testbed for lab " << plan.lab << " (" << plan.source_file
      << "); removed by 'testbed down'\n"
      << "127.0.0.1\tlocalhost\n"
      << "::1\tlocalhost ip6-localhost ip6-loopback\n";
  // The lab-qualified alias lets a job tell nodes of two labs apart in its own logs;
  // the bare name is what hostname() returns and what users type.
  for (const auto& n : plan.nodes)
    out << n.address.str() << "\t" << n.name << " " << n.name << "." << plan.lab << "\n";
  return out.str();
}

}  // namespace testbed
