// testbed doctor: what the kernel offers and what the testbed will use.
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/lab/plan_table.h"
#include "netns/capabilities.h"

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
  const NetemSupport netem = detect_netem();
  std::cout
      << "\nthe testbed will use:\n"
      << "  topology:  network namespaces joined by veth pairs"
      << (core ? "" : "  (UNAVAILABLE: the testbed cannot run here)") << "\n"
      << "  bandwidth: an HTB class per link direction on the sender's egress, changed in place\n"
      << "  delay, jitter, loss (backend auto): ";
  if (netem.available) {
    std::cout << "netem on an IFB device at each receiving side; sch_netem is " << netem.how
              << "\n";
  } else {
    std::cout << "the userspace delay line on each receiving side (iptables NFQUEUE); sch_netem is "
              << netem.how
              << (has_capability(caps, "nfqueue") ? "" : ". NFQUEUE is UNAVAILABLE too") << "\n";
  }
  std::cout << "  (force one with `up --backend netem|delayline` or `backend:` in the profile)\n";
  return core ? kExitOk : kExitFailure;
}

}  // namespace testbed::cli
