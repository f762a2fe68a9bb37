// testbed _flows send ADDR PORT LOAD MEAN MAX SHAPE SEED | sink ADDR PORT: the poisson kind
// of cross traffic's two ends (runs/flow_generator.h), started by `up` (the sender through
// `testbed _traffic`, which times it). Not for people to call; it is listed nowhere.
#include <iostream>

#include "controller/cli/commands.h"
#include "controller/runs/flow_generator.h"

namespace testbed::cli {

int run_flows(const Argv& argv) {
  const auto port = [&](const std::string& s) { return static_cast<uint16_t>(std::stoul(s)); };
  if (argv.size() == 8 && argv[0] == "send") {
    return run_flow_sender(
        argv[1], port(argv[2]),
        FlowDraws(std::stoull(argv[3]), std::stoull(argv[4]), std::stoull(argv[5]),
                  std::stod(argv[6]), std::stoull(argv[7])));
  }
  if (argv.size() == 3 && argv[0] == "sink") return run_flow_sink(argv[1], port(argv[2]));
  std::cerr << "usage: testbed _flows send ADDR PORT LOAD MEAN MAX SHAPE SEED | sink ADDR PORT\n";
  return kExitInvalid;
}

}  // namespace testbed::cli
