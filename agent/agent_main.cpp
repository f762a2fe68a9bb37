// testbed-agent: one data center's node, started inside the node's namespace by
// `testbed train` (control over the lab's ipc:// socket) or, on another host of a lab spread
// over hosts, by `testbed agents` (control over TCP, made in the host's namespace).
// usage: testbed-agent --control ipc://PATH|tcp://ADDR:PORT --node INDEX [--control-netns PATH]
#include <zmq.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <sys/stat.h>

#include "agent/protocols/protocol_registry.h"
#include "agent/runtime/control_channel.h"
#include "agent/runtime/node_runtime.h"

int main(int argc, char** argv) {
  umask(077);  // what it writes (a DRPS store, logs) is root's alone, as everything of a lab
  std::string control, control_netns;
  int node = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--control") control = argv[i + 1];
    if (opt == "--node") node = std::atoi(argv[i + 1]);
    if (opt == "--control-netns") control_netns = argv[i + 1];
  }
  if (control.empty() || node < 0) {
    std::fprintf(stderr,
                 "usage: testbed-agent --control ipc://PATH|tcp://ADDR:PORT --node INDEX "
                 "[--control-netns PATH]\n");
    return 2;
  }
  // Two contexts when the channel lives in another namespace: each context's I/O thread
  // stays in the namespace it was started in (control_channel.h).
  zmq::context_t control_context, van_context;
  try {
    zmq::socket_t channel = testbed::connect_control(
        control_netns.empty() ? van_context : control_context, control, node, control_netns);
    return testbed::NodeRuntime(van_context, std::move(channel), node, testbed::make_protocol)
        .run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "testbed-agent: %s\n", e.what());
    return 1;
  }
}
