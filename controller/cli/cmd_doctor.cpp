// testbed doctor: what the kernel offers and what the testbed will use.
#include <iostream>

#include "args.h"
#include "capabilities.h"
#include "commands.h"
#include "plan_table.h"

namespace testbed::cli {

int run_doctor(const Argv& argv) {
  Args args(argv, {}, {});
  args.at_most(0, "testbed doctor");
  if (lacks_privileges("doctor")) return kExitFailure;
  const auto caps = probe_capabilities();
  TextTable t({"FEATURE", "AVAILABLE", "DETAIL"});
  for (const auto& c : caps) t.add({c.name, c.available ? "yes" : "no", c.detail});
  t.print(std::cout, "");
  const bool core =
      has_capability(caps, "netns") && has_capability(caps, "veth") && has_capability(caps, "htb");
  std::cout << "\nthe testbed will use:\n"
            << "  topology:  network namespaces joined by veth pairs"
            << (core ? "" : "  (UNAVAILABLE: the testbed cannot run here)") << "\n"
            << "  bandwidth: HTB class per link direction on the sender's egress\n"
            << "  delay, jitter, loss: not applied in this release; when they are, "
            << (has_capability(caps, "netem")
                    ? "netem under HTB (sch_netem is present)"
                    : std::string("a userspace delay line via iptables NFQUEUE (sch_netem is ") +
                          "missing)" +
                          (has_capability(caps, "nfqueue")
                               ? ""
                               : ", which also needs NFQUEUE: UNAVAILABLE"))
            << "\n";
  return core ? kExitOk : kExitFailure;
}

}  // namespace testbed::cli
