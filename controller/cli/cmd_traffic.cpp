// testbed _traffic START STOP COMMAND...: one cross-traffic generator, started by `up` in
// its node's namespace at the lab's START (Unix seconds) and ended at STOP ("-": when the
// lab goes down). Not for people to call; it is listed nowhere (runs/traffic_client.h).
#include <iostream>

#include "controller/cli/commands.h"
#include "controller/runs/traffic_client.h"

namespace testbed::cli {

int run_traffic(const Argv& argv) {
  if (argv.size() < 3) {
    std::cerr << "usage: testbed _traffic START STOP COMMAND...\n";
    return kExitInvalid;
  }
  TrafficClientTimes times;
  times.start_unix_s = std::stod(argv[0]);
  if (argv[1] != "-") times.stop_unix_s = std::stod(argv[1]);
  return run_traffic_client(times, std::vector<std::string>(argv.begin() + 2, argv.end()));
}

}  // namespace testbed::cli
