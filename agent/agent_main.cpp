// testbed-agent: one data center's node, started by `testbed train` inside the node's
// namespace. usage: testbed-agent --control ipc://PATH --node INDEX
#include <zmq.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "node_runtime.h"

int main(int argc, char** argv) {
  std::string control;
  int node = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--control") control = argv[i + 1];
    if (opt == "--node") node = std::atoi(argv[i + 1]);
  }
  if (control.empty() || node < 0) {
    std::fprintf(stderr, "usage: testbed-agent --control ipc://PATH --node INDEX\n");
    return 2;
  }
  zmq::context_t context;
  return testbed::NodeRuntime(context, control, node).run();
}
