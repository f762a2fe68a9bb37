// testbed agents [LAB] --control tcp://ADDR:PORT: on a host of a lab spread over hosts, the
// agents of this host's nodes for a `testbed train --agents-listen ADDR:PORT` run on another
// host; returns when the run ends (runs/host_agents.h).
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/lab/lab_state.h"
#include "controller/runs/host_agents.h"
#include "controller/topology/port_number.h"
#include "netns/ipv4.h"

namespace testbed::cli {

int run_agents(const Argv& argv) {
  static const char* const kUsage =
      "testbed agents [LAB] --control tcp://ADDR:PORT [--controller-host H]";
  Args args(argv, {}, {"control", "controller-host"});
  args.at_most(1, kUsage);
  const std::string control = args.option("control").value_or("");
  const auto at =
      control.rfind("tcp://", 0) == 0 ? parse_host_port(control.substr(6)) : std::nullopt;
  if (!at || !Ipv4Address::parse(at->address))
    throw UsageError("--control must be tcp://ADDR:PORT, the controller's --agents-listen, not '" +
                     control + "'\nusage: " + kUsage);
  if (lacks_privileges("agents")) return kExitFailure;
  LabStore store;
  const std::string lab = store.resolve(args.positional(0));
  if (store.load(lab).phase != "up") throw std::runtime_error("lab " + lab + " is not up");
  return run_host_agents(store, lab, control, args.option("controller-host").value_or(""),
                         std::cout) == 0
             ? kExitOk
             : kExitFailure;
}

}  // namespace testbed::cli
